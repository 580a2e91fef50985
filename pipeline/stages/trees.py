"""tree.json / tree.txt as stages write them: the tree plus the digests of the lists it is for.

(Checking a tree file is the independent checker's job: pipeline/proofs/tree.py.)"""

import json
from pathlib import Path

from pipeline.errors import PipelineError
from pipeline.games.game import Game
from pipeline.search.tree import Tree, from_json, statistics, to_json, to_text


def write_tree(folder_file, tree: Tree, game: Game, name: str = "tree") -> dict:
    """Write <name>.json and <name>.txt; return the tree's statistics."""
    stats = statistics(tree)
    body = {"game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
            "hard_mode": game.hard_mode, **{k: stats[k] for k in ("total", "max_guesses", "distribution")},
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

