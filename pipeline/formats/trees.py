"""Tree files in the three forms people exchange, read into and written from the JSON form of a tree
(nested dicts {"guess", "candidates", "children": {response: node}}).

- json:  the pipeline's tree.json (the tree under "tree", beside the lists' digests and the rules), or a bare
         tree;
- text:  the pipeline's tree.txt, one line per secret listing the guesses that find it ("salet,crony,aback");
         the responses are not written, so reading it needs the game's answering function;
- selby: the text of Alex Selby's Wordle solver (its `-p` tree output): one line per secret, the guesses with
         the colours each one got and how many guesses have been played, e.g.
         "salet BBBYB1 drone YBBBG2 fiord GGGGG3" (B grey, Y yellow, G green; the line ends with the secret's
         all-green response).  In its default "hollow" style a line leaves blank the part it shares with the
         line above; fully written lines read as well.  Only colour responses have this form;
- olson: the JSON of Jonathan Olson's public leaderboard of Wordle strategies: a node is
         {"guess": word, "map": {response: node}} with responses as digits (0 grey, 1 yellow, 2 green), and a
         node that only plays its word (which wins) is the bare word.  A node whose guess can itself be the
         secret lists it under the all-green response ("22222": word), so that every secret has a route.

This module knows file formats only (no search, no game): the independent checker reads trees through it too."""

import json
import re

FORMATS = ("json", "text", "selby", "olson")
TO_LETTER, TO_DIGIT = {"0": "B", "1": "Y", "2": "G"}, {"B": "0", "Y": "1", "G": "2"}
SCORE = re.compile(r"^([BYG]+)(\d+)$")
SELBY_ORDER = "BGY"  # the solver's default order of a node's lines: by letters, grey before green before yellow


class FormatError(ValueError):
    """A tree file that is not of the form it claims (the message says where and why)."""


def sniff(text: str) -> str:
    """The form of a tree file's text: json, selby or text."""
    stripped = text.lstrip()
    if stripped.startswith(("{", "[")):
        return "olson" if re.match(r'^\{\s*"guess"\s*:\s*"[^"]*"\s*,\s*"map"', stripped) else "json"
    if re.match(r'^"[^"]*"\s*$', stripped):
        return "olson"  # a one-secret game's tree: the bare word
    first = stripped.splitlines()[0].split() if stripped else []
    if first == ["IMPOSSIBLE"] or (len(first) >= 2 and SCORE.match(first[1])):
        return "selby"
    return "text"


def read_tree_text(text: str, respond=None) -> tuple[str, dict]:
    """(form, body) of a tree file's text: body is a tree.json body ({"tree": ...} and whatever else it
    records); text and Selby files give {"tree": ...} only.  `respond(guess, secret)` (the game's answering
    function) is needed for the text form.  FormatError saying why the text is not a tree."""
    form = sniff(text)
    if form == "json":
        try:
            body = json.loads(text)
        except ValueError as err:
            raise FormatError(f"not valid JSON ({err})") from None
        if not isinstance(body, dict):
            raise FormatError("a JSON tree is an object with a \"tree\" (or a bare tree: guess, candidates, children)")
        return form, body if "tree" in body else {"tree": body}
    if form == "selby":
        return form, {"tree": from_selby(text)}
    if form == "olson":
        return form, {"tree": from_olson(text)}
    if respond is None:
        raise FormatError("the one-line-per-secret text form needs the game's answering function")
    return form, {"tree": from_lines(text, respond)}


def new_node(guess: str) -> dict:
    return {"guess": guess, "candidates": 0, "children": {}}


def add_route(root: dict | None, guesses: list[str], responses: list[str], where: str) -> dict:
    """Add one secret's route (its guesses, the response to each but the last) to the tree; the root."""
    root = root or new_node(guesses[0])
    if root["guess"] != guesses[0]:
        raise FormatError(f"{where}: starts with {guesses[0]!r}, not the opener {root['guess']!r}")
    node = root
    node["candidates"] += 1
    for word, response in zip(guesses[1:], responses):
        child = node["children"].setdefault(response, new_node(word))
        if child["guess"] != word:
            raise FormatError(f"{where}: guess {word!r} after response {response} of {node['guess']!r}, "
                              f"where another line plays {child['guess']!r}")
        node = child
        node["candidates"] += 1
    return root


def from_lines(text: str, respond) -> dict:
    """The tree of the pipeline's text form (tree.txt), each route's responses from `respond(guess, secret)`."""
    root = None
    for number, line in enumerate(text.splitlines(), 1):
        if not line.strip():
            continue
        guesses = [g.strip() for g in line.split(",")]
        if not all(guesses):
            raise FormatError(f"line {number}: an empty guess in {line.strip()!r}")
        responses = [respond(guess, guesses[-1]) for guess in guesses[:-1]]
        root = add_route(root, guesses, responses, f"line {number}")
    if root is None:
        raise FormatError("no routes: the file is empty")
    return root


def full_lines(text: str):
    """(line number, the line with the blank start of a hollow line filled in from the line above)."""
    above = ""
    for number, line in enumerate(text.splitlines(), 1):
        line = line.rstrip()
        if not line:
            continue
        blank = len(line) - len(line.lstrip(" "))
        if blank:
            if blank > len(above):
                raise FormatError(f"line {number}: starts blank beyond the line above it")
            line = above[:blank] + line[blank:]
        above = line
        yield number, line


def selby_route(tokens: list[str], where: str) -> tuple[list[str], list[str]]:
    """(guesses, responses as colour digits) of one Selby line's tokens: word score word score ... word GGGGGn."""
    if len(tokens) < 2 or len(tokens) % 2:
        raise FormatError(f"{where}: expected guess and response pairs (e.g. 'salet BBBYB1 drone GGGGG2'), "
                          f"got {' '.join(tokens)!r}")
    guesses, responses = tokens[0::2], []
    for played, (word, score) in enumerate(zip(guesses, tokens[1::2]), 1):
        found = SCORE.match(score)
        if not found or int(found.group(2)) != played:
            raise FormatError(f"{where}: {score!r} is not a response after guess {played} "
                              f"(letters B, Y, G and the number {played})")
        letters = found.group(1)
        if len(letters) != len(word):
            raise FormatError(f"{where}: response {letters} has {len(letters)} letters, guess {word!r} {len(word)}")
        won = set(letters) == {"G"}
        if won != (played == len(guesses)):
            raise FormatError(f"{where}: a line ends with its all-green response, and only there")
        responses.append("".join(TO_DIGIT[c] for c in letters))
    return guesses, responses[:-1]


def from_selby(text: str) -> dict:
    """The tree of a Selby tree text (hollow or full lines)."""
    root = None
    for number, line in full_lines(text):
        if line.strip() == "IMPOSSIBLE":
            raise FormatError(f"line {number}: the solver wrote IMPOSSIBLE (it found no strategy): not a tree")
        guesses, responses = selby_route(line.split(), f"line {number}")
        root = add_route(root, guesses, responses, f"line {number}")
    if root is None:
        raise FormatError("no routes: the file is empty")
    return root


def found_here(node: dict) -> bool:
    """Whether a secret (the guess itself) is found at this node of a JSON-form tree."""
    return node["candidates"] - sum(c["candidates"] for c in node.get("children", {}).values()) == 1


def selby_letters(response: str) -> str:
    """A colour-digit response as Selby's letters; FormatError for any other response."""
    if not response or set(response) - set(TO_LETTER):
        raise FormatError(f"Selby's tree text holds colour responses (grey/yellow/green) only, not {response!r}")
    return "".join(TO_LETTER[c] for c in response)


def selby_key(letters: str) -> list[int]:
    """The sort key of a response in Selby's line order."""
    return [SELBY_ORDER.index(c) for c in letters]


def to_selby(root: dict) -> str:
    """Selby's tree text of a JSON-form tree, in its default hollow style and line order."""
    out: list[str] = []

    def write(node: dict, before: str, played: int) -> None:
        head = f"{before} {node['guess']} " if before else f"{node['guess']} "
        branches = [(selby_letters(k), c) for k, c in node.get("children", {}).items()]
        if found_here(node):
            branches.append(("G" * len(node["guess"]), None))
        for letters, child in sorted(branches, key=lambda b: selby_key(b[0])):
            line = f"{head}{letters}{played}"
            if child is None:
                out.append(line)
            else:
                write(child, line, played + 1)
            head = " " * len(head)  # hollow: the shared start is written once

    write(root, "", 1)
    return "".join(line + "\n" for line in out)



def olson_routes(node, guesses: list[str], responses: list[str], where: str):
    """Every (guesses, responses) route of a leaderboard-JSON node: a bare word ends a route."""
    if isinstance(node, str):
        won_here = bool(responses) and set(responses[-1]) == {"2"} and guesses and guesses[-1] == node
        yield (guesses, responses[:-1]) if won_here else ([*guesses, node], responses)
        return
    if not (isinstance(node, dict) and isinstance(node.get("guess"), str) and isinstance(node.get("map"), dict)):
        raise FormatError(f"{where}: a node is a word or {{\"guess\": word, \"map\": {{response: node}}}}")
    for response, child in node["map"].items():
        if not (isinstance(response, str) and response and set(response) <= set(TO_LETTER)):
            raise FormatError(f"{where}: response {response!r} is not colour digits (0 grey, 1 yellow, 2 green)")
        yield from olson_routes(child, [*guesses, node["guess"]], [*responses, response],
                                f"{where} → {node['guess']} {response}")


def from_olson(text: str) -> dict:
    """The tree of a leaderboard-JSON file."""
    try:
        top = json.loads(text)
    except ValueError as err:
        raise FormatError(f"not valid JSON ({err})") from None
    root = None
    for guesses, responses in olson_routes(top, [], [], "the root"):
        root = add_route(root, guesses, responses, " ".join(guesses))
    if root is None:
        raise FormatError("no routes: the tree finds no secret")
    return root


def to_olson(root: dict) -> str:
    """The leaderboard JSON of a JSON-form tree (colour responses only)."""
    def node(tree: dict):
        children = tree.get("children", {})
        if not children and found_here(tree):
            return tree["guess"]
        entries = {response: node(child) for response, child in children.items()}
        if found_here(tree):
            entries["2" * len(tree["guess"])] = tree["guess"]
        for response in entries:
            selby_letters(response)  # refuses responses that are not colours
        return {"guess": tree["guess"], "map": entries}

    return json.dumps(node(root), separators=(",", ":")) + "\n"
