"""The strategy tree: the one structure every stage reads and writes.

A node is a guess (a word), the number of candidates still possible when it
is played, and its children keyed by the text of the response: a colour
string ("02121") in Wordle, the game's text form otherwise ("2B1W").  The winning
response has no child: the secret equal to the guess is found at that node.
Total = sum over nodes of their candidate counts = sum over secrets of the
number of guesses that find them.

Forms:
- JSON: nested dicts {"guess", "candidates", "children": {colours: node}};
- text: one line per secret, the guesses that find it ("salet,crony,aback"),
  lines in alphabetical order of the secret;
- node arrays from the numba searches (`from_arrays`).
`verify` replays every secret through the scalar answering function, so a
tree is checked independently of the code matrix that produced it.
"""

from collections import Counter
from dataclasses import dataclass, field

from pipeline.games.answer import code_to_colours, feedback


@dataclass
class Tree:
    guess: str
    candidates: int
    children: dict[str, "Tree"] = field(default_factory=dict)

    def found_here(self) -> bool:
        """True if a secret (the guess itself) is found at this node."""
        return self.candidates - sum(c.candidates for c in self.children.values()) == 1

    def nodes(self):
        """(depth, node) for every node, depth first, root depth 1."""
        stack = [(1, self)]
        while stack:
            depth, node = stack.pop()
            yield depth, node
            for key in sorted(node.children, reverse=True):
                stack.append((depth + 1, node.children[key]))


def to_json(tree: Tree) -> dict:
    return {
        "guess": tree.guess,
        "candidates": tree.candidates,
        "children": {k: to_json(tree.children[k]) for k in sorted(tree.children)},
    }


def from_json(data: dict) -> Tree:
    return Tree(
        str(data["guess"]),
        int(data["candidates"]),
        {str(k): from_json(v) for k, v in data.get("children", {}).items()},
    )


def paths(tree: Tree) -> dict[str, list[str]]:
    """Secret -> the guesses that find it (the last one is the secret)."""
    out: dict[str, list[str]] = {}

    def walk(node, prefix):
        route = prefix + [node.guess]
        if node.found_here():
            out[node.guess] = route
        for key in sorted(node.children):
            walk(node.children[key], route)

    walk(tree, [])
    return out


def to_text(tree: Tree) -> str:
    """One line per secret, alphabetical by secret: "salet,crony,aback"."""
    found = paths(tree)
    return "".join(",".join(found[s]) + "\n" for s in sorted(found))


def statistics(tree: Tree) -> dict:
    """total, expected, max_guesses and distribution {guesses: number of secrets}."""
    depths = Counter()
    total = 0
    for depth, node in tree.nodes():
        total += node.candidates
        if node.found_here():
            depths[depth] += 1
    n = tree.candidates
    return {
        "total": total,
        "secrets": n,
        "expected": total / n if n else 0.0,
        "max_guesses": max(depths) if depths else 0,
        "distribution": dict(sorted(depths.items())),
    }


def verify(tree: Tree, guesses, secrets, respond=feedback) -> int:
    """Replay every secret through the scalar answering function `respond` (guess, secret -> text); return the total.

    Raises ValueError naming the first secret that is not found, uses a
    guess outside `guesses`, or reaches a node whose candidate count is wrong,
    or a node no secret reaches (its guesses were never replayed).
    """
    allowed = set(guesses)
    secrets = list(secrets)
    reached: dict[int, int] = {}
    nodes_by_id: dict[int, Tree] = {}
    total = 0
    for secret in secrets:
        node, depth = tree, 1
        while True:
            if node.guess not in allowed:
                raise ValueError(f"secret {secret!r}: guess {node.guess!r} at depth {depth} is not allowed")
            reached[id(node)] = reached.get(id(node), 0) + 1
            nodes_by_id[id(node)] = node
            colours = respond(node.guess, secret)
            if node.guess == secret:
                total += depth
                break
            child = node.children.get(colours)
            if child is None:
                raise ValueError(
                    f"secret {secret!r} is lost: no branch {colours} after guess {node.guess!r} at depth {depth}"
                )
            node, depth = child, depth + 1
            if depth > len(secrets) + 1:
                raise ValueError(f"secret {secret!r}: the tree loops")
    for depth, node in tree.nodes():  # every node, reached or not
        if not reached.get(id(node), 0):
            raise ValueError(f"node {node.guess!r} at depth {depth} is reached by no secret (a dead branch)")
        if reached[id(node)] != node.candidates:
            raise ValueError(
                f"node {node.guess!r} at depth {depth} claims {node.candidates} candidates "
                f"but {reached.get(id(node), 0)} secrets reach it"
            )
    return total


def from_arrays(guesses, code_text, node_guess, node_parent, node_code, node_size) -> Tree:
    """Tree from index-based search output: node i plays guesses[node_guess[i]] with
    node_size[i] candidates; its parent is node_parent[i] (-1 for the root, parents
    listed before children) and it answers response code node_code[i].  `code_text`
    names a code (`Answering.text`); an int L stands for Wordle's colours of length L."""
    if not callable(code_text):
        length = code_text
        code_text = lambda code: code_to_colours(code, length)  # noqa: E731
    built: list[Tree] = []
    for i in range(len(node_guess)):
        node = Tree(guesses[int(node_guess[i])], int(node_size[i]))
        built.append(node)
        p = int(node_parent[i])
        if p >= 0:
            built[p].children[code_text(int(node_code[i]))] = node
    return built[0]
