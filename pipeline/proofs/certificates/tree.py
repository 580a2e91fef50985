"""`verify-tree`: replay every secret through a tree file (tree.json, tree.txt or Selby's tree text) with the
checker's own answering function.

A tree node is {"guess", "candidates", "children": {colours: node}}.  Checked: every guess is an
allowed guess; every secret is found; each node's candidate count is the number of secrets that
reach it; no path is longer than the game's guess limit; in hard mode (asked for, or claimed by
the file) every guess is legal after the responses above it; the recorded total and
distribution are the ones recomputed here.
"""

from collections import Counter
from pathlib import Path

from pipeline import PipelineError, echo, shown_value
from pipeline.proofs.game.answer import response
from pipeline.proofs.files.reader import FileRefused, file_bytes, json_of
from pipeline.proofs.game.hard_mode import violation


class TreeRejected(PipelineError):
    pass


def answer_of(game) -> str:
    """The game's answering function by name (wordle when the Game does not say)."""
    return getattr(game, "answer", "wordle")


def guess_limit(game) -> int | None:
    """The game's limit on guesses (None = unlimited), when the Game carries one."""
    limit = getattr(game, "max_guesses", None)
    return None if limit is None else int(limit)


def read_tree_body(path: Path, game) -> dict:
    """The parsed tree file (tree.json, tree.txt or Selby's tree text: pipeline.formats.trees), checked
    to be for `game`'s word lists and answers when it records them (text forms record neither; the replay
    checks them)."""
    from pipeline.formats.trees import FormatError, read_tree_text, sniff

    try:
        data = file_bytes(Path(path))
        text = data.decode("utf-8")
        if sniff(text) in ("json", "olson"):
            json_of(data, Path(path))  # strict JSON of bounded depth before the tree reader parses it
        form, body = read_tree_text(text, lambda guess, secret: response(answer_of(game), guess, secret))
        body["tree"]["guess"]
    except FileRefused as err:
        raise PipelineError(f"tree file not found: {path}" if err.missing else str(err)) from None
    except UnicodeDecodeError as err:
        raise PipelineError(f"{path}: not UTF-8 (byte {err.start}): not a tree file") from None
    except (FormatError, ValueError, KeyError, TypeError, IndexError, RecursionError) as err:
        raise PipelineError(f"{path} is not a strategy tree (tree.json, tree.txt or Selby's tree text): {err}") \
            from None
    recorded = (body.get("guesses_sha256"), body.get("secrets_sha256"))
    if form == "json" and recorded != (game.guesses_digest, game.secrets_digest):
        raise PipelineError(f"{path} is a tree for other word lists (game {body.get('game')!r}), "
                            f"not game {game.name!r}")
    if body.get("answer", "wordle") != answer_of(game) and form == "json":
        raise PipelineError(f"{path} is a tree for answers {body.get('answer', 'wordle')}, "
                            f"game {game.name!r} answers {answer_of(game)}")
    return body


def replay(root: dict, game, hard_mode: bool, limit: int | None) -> dict:
    """Statistics of a tree after replaying every secret; TreeRejected on the first fault."""
    allowed, answer = set(game.guesses), answer_of(game)
    reached: Counter = Counter()
    depths: Counter = Counter()
    for secret in game.secrets:
        node, history = root, []
        while True:
            guess = node["guess"]
            where = f"secret {secret!r}, guess {len(history) + 1} {guess!r}"
            if guess not in allowed:
                raise TreeRejected(f"{where} is not an allowed guess")
            if limit is not None and len(history) + 1 > limit:
                raise TreeRejected(f"{where} is beyond the game's limit of {limit} guesses")
            if hard_mode and (why := violation(guess, history)):
                raise TreeRejected(f"{where} breaks hard mode: {why}")
            reached[id(node)] += 1
            if guess == secret:
                depths[len(history) + 1] += 1
                break
            said = response(answer, guess, secret)
            history.append((guess, said))
            node = node.get("children", {}).get(said)
            if node is None:
                raise TreeRejected(f"secret {secret!r} is lost: no branch {said} after {guess!r}")
    _check_every_node(root, reached)
    total = sum(d * k for d, k in depths.items())
    return {"total": total, "secrets": len(game.secrets), "expected": total / len(game.secrets),
            "max_guesses": max(depths), "distribution": dict(sorted(depths.items()))}


def _check_every_node(root: dict, reached: Counter) -> None:
    """Every node of the file, reached or not: some secret reaches it (a branch none reaches was never replayed,
    so nothing in it was checked: refused, whatever its guesses), and its claimed candidate count is the number
    of secrets that reach it."""
    stack = [(root, ())]
    while stack:
        node, path = stack.pop()
        where = f"node {shown_value(node['guess'])}" + (f" after {shown_value(' '.join(path), 80)}" if path else "")
        if not reached[id(node)]:
            raise TreeRejected(f"{where} is reached by no secret (a dead branch: its guesses were never replayed)")
        if type(node["candidates"]) is not int or node["candidates"] != reached[id(node)]:
            raise TreeRejected(f"{where} claims {node['candidates']} candidates but {reached[id(node)]} secrets "
                               "reach it")
        stack.extend((child, (*path, f"{node['guess']} {said}")) for said, child in node.get("children", {}).items())


def subtree_totals(root: dict) -> dict[str, int]:
    """Total of each child subtree of the root, by response: the sum of the candidate counts of its nodes (each a
    count `_check_every_node` has verified), i.e. the guesses its secrets need after the opener."""
    totals = {}
    for said, child in root.get("children", {}).items():
        stack, total = [child], 0
        while stack:
            node = stack.pop()
            total += node["candidates"]
            stack.extend(node.get("children", {}).values())
        totals[said] = total
    return totals


def recorded_distribution(value) -> dict | None:
    """A tree file's recorded distribution as {guesses: secrets} (JSON keys are strings); None when it is no
    such map (a list, a key that is no whole number): it then differs from every replay."""
    if not isinstance(value, dict):
        return None
    try:
        return {int(key): count for key, count in value.items()}
    except ValueError:
        return None


def check_tree(body: dict, game, hard_mode: bool, limit: int | None) -> dict:
    """Replay a parsed tree file; also compare its recorded total and distribution with the replay."""
    try:
        stats = replay(body["tree"], game, hard_mode or bool(body.get("hard_mode")), limit)
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise TreeRejected(f"malformed tree ({type(err).__name__}: {err})") from None
    if "total" in body and body["total"] != stats["total"]:
        raise TreeRejected(f"the file records total {echo(body['total'])}, the replay gives {stats['total']}")
    if "distribution" in body and recorded_distribution(body["distribution"]) != stats["distribution"]:
        raise TreeRejected(f"the file records distribution {echo(body['distribution'])}, the replay gives "
                           f"{stats['distribution']}")
    recorded_limit = body.get("max_guesses")
    if isinstance(recorded_limit, int) and stats["max_guesses"] > recorded_limit:
        raise TreeRejected(f"a path needs {stats['max_guesses']} guesses, the file records {recorded_limit}")
    return stats


def verify_tree_file(path: Path, game) -> dict:
    """Check a tree file against `game` (its hard mode and guess limit); its statistics if sound."""
    body = read_tree_body(path, game)
    try:
        return check_tree(body, game, game.hard_mode, guess_limit(game))
    except TreeRejected as err:
        raise TreeRejected(f"{path}: tree rejected: {err}") from None
