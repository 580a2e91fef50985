"""tree.json / tree.txt as stages write them: the tree plus the digests of the lists and the rules it is for.

The prove stage refuses an upper-bound tree that breaks the game's rules (`rule_violation`); checking a tree
file for a user is the independent checker's job (pipeline/proofs/tree.py)."""

import json
from pathlib import Path

from pipeline.errors import PipelineError
from pipeline.games.constraints import hard_mode_violation
from pipeline.games.game import Game
from pipeline.search.tree import Tree, from_json, statistics, to_json, to_text


def write_tree(folder_file, tree: Tree, game: Game, name: str = "tree") -> dict:
    """Write <name>.json and <name>.txt; return the tree's statistics."""
    if not name or "/" in name or "\\" in name or name.startswith("."):
        raise ValueError(f"unsafe tree file name {name!r}: use tree_name()")
    stats = statistics(tree)
    body = {"game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
            "hard_mode": game.hard_mode, "game_max_guesses": game.max_guesses,
            **({} if game.answer == "wordle" else {"answer": game.answer}),
            **{k: stats[k] for k in ("total", "max_guesses", "distribution")},
            "tree": to_json(tree)}
    folder_file(f"{name}.json").write_text(json.dumps(body) + "\n")
    folder_file(f"{name}.txt").write_text(to_text(tree))
    return stats


def read_tree(path: Path, game: Game) -> Tree:
    """A tree file checked to be for `game`'s lists."""
    try:
        body = json.loads(Path(path).read_text())
        tree = from_json(body["tree"])
    except FileNotFoundError:
        raise PipelineError(f"tree file not found: {path}") from None
    except (ValueError, KeyError, TypeError) as err:
        raise PipelineError(f"{path} is not a tree written by this pipeline ({err})") from None
    if (body.get("guesses_sha256"), body.get("secrets_sha256")) != (game.guesses_digest, game.secrets_digest):
        raise PipelineError(f"{path} is a tree for other word lists (game {body.get('game')!r}), not game {game.name!r}")
    return tree



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
