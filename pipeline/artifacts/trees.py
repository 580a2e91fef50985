"""tree.json / tree.txt as stages write them: the tree plus the digests of the lists and the rules it is for;
and the one loader that reads a tree file back for a game (simulate, the assistant).

The prove stage refuses an upper-bound tree that breaks the game's rules (`rule_violation`); verifying a tree
file for a user (`verify-tree`) is the independent checker's job (pipeline/proofs/certificates/tree.py)."""

import json
from dataclasses import dataclass
from pathlib import Path

from pipeline import PipelineError
from pipeline.games.constraints import hard_mode_violation
from pipeline.games.game import Game
from pipeline.formats.trees import FORMATS, FormatError, read_tree_text, sniff, to_olson, to_selby
from pipeline.artifacts.tree_svg import DEFAULT_DEPTH, tree_svg
from pipeline.runtime.files import MAX_JSON_BYTES, MissingFile, UnreadableFile, parse_json, read_text
from pipeline.runtime.store import MANIFEST, read_json_file
from pipeline.search.tree import Tree, from_json, statistics, to_json, to_text, verify


def write_tree(folder_file, tree: Tree, game: Game, name: str = "tree", objective: str | None = None,
               depth: int = DEFAULT_DEPTH) -> dict:
    """Write <name>.json, <name>.txt and <name>.svg (levels 1..`depth` drawn: pipeline.artifacts.tree_svg);
    return the tree's statistics.

    `objective`: what the search that built the tree minimised (pipeline.search.strategies.objective), recorded
    when given; trees of heuristics optimise neither and record none."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"unsafe tree file name {name!r}: use tree_name()")
    stats = statistics(tree)
    folder_file(f"{name}.json").write_text(json.dumps(tree_body(tree, game, objective)) + "\n")
    folder_file(f"{name}.txt").write_text(to_text(tree))
    draw_tree(folder_file, tree, game, name, depth)
    return stats


def tree_body(tree: Tree, game: Game, objective: str | None = None) -> dict:
    """What tree.json holds: the game's name, lists' digests and rules, the tree's statistics and the tree."""
    stats = statistics(tree)
    return {"game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
            "hard_mode": game.hard_mode, "game_max_guesses": game.max_guesses,
            **({} if game.answer == "wordle" else {"answer": game.answer}),
            **({} if objective is None else {"objective": objective}),
            **{k: stats[k] for k in ("total", "max_guesses", "distribution")},
            "tree": to_json(tree)}


def exported(tree: Tree, game: Game, form: str) -> str:
    """The text of `tree` in one of the exchanged forms (pipeline.formats.trees.FORMATS)."""
    if form == "json":
        return json.dumps(tree_body(tree, game)) + "\n"
    if form == "text":
        return to_text(tree)
    writers = {"selby": (to_selby, "Selby's tree text"), "olson": (to_olson, "the leaderboard's JSON")}
    if form in writers:
        write, name = writers[form]
        try:
            return write(to_json(tree))
        except FormatError as err:
            raise PipelineError(f"game {game.name!r} cannot be written as {name}: {err}") from None
    raise PipelineError(f"unknown tree format {form!r}; formats: {', '.join(FORMATS)}")


def draw_tree(folder_file, tree: Tree, game: Game, name: str = "tree", depth: int = DEFAULT_DEPTH) -> None:
    """Write <name>.svg: the tree's levels 1..`depth` (the paper's Figure 2), titled with its total."""
    stats = statistics(tree)
    title = f"{game.name}: {tree.guess}, total {stats['total']} (levels 1-{depth} of {stats['max_guesses']})"
    folder_file(f"{name}.svg").write_text(tree_svg(tree, depth, title))


@dataclass(frozen=True)
class LoadedTree:
    """A tree file checked for a game: the tree, where it came from, and its replayed total."""

    tree: Tree
    label: str  # e.g. "upper_bound/3f2a…" or the file's path
    total: int


def recorded_game(body, manifest: dict) -> dict:
    """The game a tree file says it is for: its own fields (a bare tree records none) and its artifact's
    manifest.  The file's `max_guesses` is the tree's depth; the game's limit is `game_max_guesses`."""
    recorded = dict(manifest)
    if isinstance(body, dict):
        recorded |= {k: body[k] for k in ("guesses_sha256", "secrets_sha256", "hard_mode") if k in body}
        if "game_max_guesses" in body:
            recorded["max_guesses"] = body["game_max_guesses"]
    return recorded


def read_body(path: Path, game: Game) -> dict:
    """A tree file's body ({"tree": ...} and what the file records), in any form of
    pipeline.formats.trees (tree.json, tree.txt, Selby's tree text), read as a regular file only
    (strict UTF-8; strict, bounded JSON); PipelineError saying why not."""
    try:
        text = read_text(path, MAX_JSON_BYTES)
        if sniff(text) in ("json", "olson"):
            parse_json(text, path)  # finite numbers and bounded nesting, before the tree reader parses it
        return read_tree_text(text, game.answering.response)[1]
    except MissingFile:
        raise PipelineError(f"tree file not found: {path}") from None
    except UnreadableFile as err:
        raise PipelineError(f"{err} (not a tree file)") from None
    except (FormatError, ValueError, KeyError, TypeError, AttributeError, IndexError, RecursionError) as err:
        raise PipelineError(f"{path} is not a strategy tree (tree.json, tree.txt or Selby's tree text): {err}") \
            from None


def load_tree(path: Path, game: Game, label: str | None = None) -> LoadedTree:
    """A tree file (written by a stage, a bare tree, tree.txt or Selby's tree text), checked to be a strategy of
    `game`: for its lists and rules when it records them (pipeline.artifacts.find.fits), replayed against every
    secret, within the guess limit and, in hard mode, legal.  PipelineError saying why not."""
    from pipeline.artifacts.find import fits

    path = Path(path)
    body = read_body(path, game)
    try:
        tree = from_json(body["tree"])
    except (ValueError, KeyError, TypeError, AttributeError, RecursionError) as err:
        raise PipelineError(f"{path} is not a strategy tree ({err})") from None
    manifest = path.parent / MANIFEST
    recorded = recorded_game(body, read_json_file("upper_bound", manifest, dict).get("game", {})
                             if manifest.is_file() else {})
    if recorded and not fits(recorded, game.identity()):
        raise PipelineError(f"{path} is a tree for other word lists or rules, not game {game.name!r}")
    try:
        total = verify(tree, game.guesses, game.secrets, game.answering.response)
    except ValueError as err:
        raise PipelineError(f"{path} does not fit game {game.name!r}: {err}") from None
    if tree.candidates != len(game.secrets):
        raise PipelineError(f"{path} covers {tree.candidates} of the {len(game.secrets)} secrets")
    problem = rule_violation(tree, game)
    if problem:
        raise PipelineError(f"{path}: {problem}")
    return LoadedTree(tree, label or str(path), total)


def tree_name(word: str) -> str:
    """The file stem of a tree named after its opener: `tree-<word>`, percent-encoded so that any symbol
    (Nerdle's `/`, `*`, `=`, ...) gives one plain file name inside the artifact folder, never a path."""
    from urllib.parse import quote

    return f"tree-{quote(word, safe='')}"


def tree_path(folder: Path, word: str) -> Path:
    """Where an artifact folder keeps the tree of opener `word` (the reader's side of `tree_name`)."""
    return Path(folder) / f"{tree_name(word)}.json"


def rule_violation(tree: Tree, game: Game) -> str | None:
    """The first way the tree breaks the game's rules (guess limit, hard mode), in words; None if it keeps them."""
    stats = statistics(tree)
    if game.max_guesses is not None and stats["max_guesses"] > game.max_guesses:
        return (f"some secret needs {stats['max_guesses']} guesses, more than game.max_guesses="
                f"{game.max_guesses}: not a strategy of this game")
    if not game.hard_mode:
        return None
    stack = [(tree, [])]
    while stack:
        node, history = stack.pop()
        problem = hard_mode_violation(node.guess, history)
        if problem:
            route = " ".join(f"{g} {c}" for g, c in history)
            return f"guess {node.guess!r} after {route} breaks hard mode ({problem})"
        stack += [(child, history + [(node.guess, colours)]) for colours, child in sorted(node.children.items())]
    return None
