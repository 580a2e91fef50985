"""Where the assistant's suggestions come from: a strategy tree artifact when one fits, else greedy on the spot.

Tree: `<outputs>/upper_bound/<key>/tree.json` whose lists (guesses and
secrets digests) and hard-mode flag are the game's, replayed against every
secret before use; the lowest total wins if several fit.  The history is
followed down the tree; once it leaves the tree (another guess was played)
the greedy rule takes over.

Greedy: if |C| <= 2 guess the first candidate, else the guess with the best
(MostParts, InSet, ExpSizeSplit), ties to the lowest guess index — computed
over the code sub-matrix G x C built on demand (no G x S matrix is kept, so
start-up does not pay for it).  In hard mode only guesses the NYT rule
allows are considered.
"""

import json
import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from pipeline.errors import PipelineError
from pipeline.feedback.kernel import code_matrix
from pipeline.games.constraints import hard_mode_rule
from pipeline.games.game import Game
from pipeline.search.tree import Tree, from_json, statistics, verify

TREE_STAGES = ("upper_bound",)
COMBINATION = ("MostParts", "InSet", "ExpSizeSplit")
CHUNK_CELLS = 4_000_000  # code-matrix cells per chunk of the greedy scan (progress granularity)


@dataclass(frozen=True)
class Suggestion:
    word: str | None  # None when no secret fits the history
    source: str  # "tree", "greedy", "candidate" (|C| <= 2) or "none"
    candidate: bool  # the word is still a possible secret
    chance: float  # chance that playing it wins now: 1/|C| for a candidate, else 0


@dataclass(frozen=True)
class LoadedTree:
    tree: Tree
    label: str  # e.g. "upper_bound/3f2a…/tree.json"
    total: int


# ---- tree artifacts ------------------------------------------------------------------------------------------


def _tree_body(path: Path) -> tuple[dict, Tree]:
    body = json.loads(path.read_text())
    node = body["tree"] if isinstance(body, dict) and "tree" in body else body
    return body, from_json(node)


def _fits(game: Game, *descriptions: dict) -> bool:
    """True if every description that names the lists / hard mode names the game's."""
    identity = game.identity()
    for d in descriptions:
        for key in ("guesses_sha256", "secrets_sha256", "hard_mode", "alphabet"):
            if key in d and d[key] != identity[key]:
                return False
    return any("guesses_sha256" in d and "secrets_sha256" in d for d in descriptions)


def load_tree_file(path: Path, game: Game, label: str | None = None) -> LoadedTree:
    """A tree file, checked to be for the game and replayed against every secret (PipelineError if not)."""
    try:
        body, tree = _tree_body(path)
    except FileNotFoundError:
        raise PipelineError(f"tree file not found: {path}") from None
    except (ValueError, KeyError, TypeError, AttributeError) as err:
        raise PipelineError(f"{path} is not a strategy tree ({err})") from None
    manifest = {}
    if (path.parent / "manifest.json").is_file():
        manifest = json.loads((path.parent / "manifest.json").read_text()).get("game", {})
    if isinstance(body, dict) and ("guesses_sha256" in body or manifest) and not _fits(game, body, manifest):
        raise PipelineError(f"{path} is a tree for other word lists or rules, not game {game.name!r}")
    try:
        total = verify(tree, game.guesses, game.secrets)
    except ValueError as err:
        raise PipelineError(f"{path} does not fit game {game.name!r}: {err}") from None
    if tree.candidates != len(game.secrets):
        raise PipelineError(f"{path} covers {tree.candidates} of the {len(game.secrets)} secrets")
    if game.hard_mode:
        _check_hard_mode(tree, path)
    return LoadedTree(tree, label or str(path), total)


def _check_hard_mode(tree: Tree, path: Path) -> None:
    stack = [(tree, [])]
    while stack:
        node, history = stack.pop()
        rule = hard_mode_rule(history, len(node.guess))
        problem = rule.violation(node.guess) if history else None
        if problem:
            raise PipelineError(f"{path} breaks hard mode: {node.guess!r} after {history}: {problem}")
        for colours, child in node.children.items():
            stack.append((child, history + [(node.guess, colours)]))


def find_tree(game: Game, outputs: Path) -> LoadedTree | None:
    """The best stored tree for this game (lowest total), or None."""
    found = []
    for stage in TREE_STAGES:
        for path in sorted(Path(outputs).glob(f"{stage}/*/tree.json")):
            manifest_file = path.parent / "manifest.json"
            if not manifest_file.is_file():
                continue  # unfinished artifact
            try:
                manifest = json.loads(manifest_file.read_text())
                if not _fits(game, manifest.get("game", {})):
                    continue
                loaded = load_tree_file(path, game, f"{stage}/{path.parent.name}")
            except (PipelineError, ValueError, KeyError, TypeError) as err:
                print(f"warning: ignoring {path}: {err}", file=sys.stderr)
                continue
            found.append(loaded)
    return min(found, key=lambda t: t.total) if found else None


# ---- greedy --------------------------------------------------------------------------------------------------


def _values(sub: np.ndarray, sog: np.ndarray, n_codes: int) -> np.ndarray:
    """(rows, 3) minimise-form (MostParts, InSet, ExpSizeSplit) over a G x C sub-matrix whose columns are C."""
    candidates = np.arange(sub.shape[1], dtype=np.int64)
    try:
        from pipeline.search import valuations

        vals = valuations.values(sub, sog, n_codes, candidates)
        return vals[:, [valuations.VALUATIONS.index(name) for name in COMBINATION]]
    except (ImportError, AttributeError):  # pragma: no cover - fallback while pipeline.search is reworked
        from pipeline.search.partition import split_stats

        parts, _, sum_sq, _ = split_stats(sub, candidates, n_codes)
        return np.stack([-parts.astype(np.int64), -(sog >= 0).astype(np.int64), sum_sq], axis=1)


def greedy_choice(enc_guesses: np.ndarray, enc_candidates: np.ndarray, candidate_pos: np.ndarray,
                  n_codes: int, on_progress=None) -> int:
    """Row index (into enc_guesses) of the best guess by (MostParts, InSet, ExpSizeSplit), lowest row on ties.

    `candidate_pos[g]` is the column of guess g among the candidates, or -1.
    """
    n_rows, k = enc_guesses.shape[0], enc_candidates.shape[0]
    step = max(1, CHUNK_CELLS // max(k, 1))
    parts = []
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        sub = code_matrix(enc_guesses[start:stop], enc_candidates)
        parts.append(_values(sub, candidate_pos[start:stop], n_codes))
        if on_progress:
            on_progress(stop / n_rows)
    vals = np.concatenate(parts)
    order = np.lexsort([np.arange(n_rows)] + [vals[:, j] for j in range(vals.shape[1] - 1, -1, -1)])
    return int(order[0])


class Strategy:
    """Suggests the next guess for a history of (guess, colours) rows and its candidate set."""

    def __init__(self, game: Game, tree: LoadedTree | None = None):
        self.game = game
        self.tree = tree
        self.enc_guesses = game.encoded_guesses()
        self.enc_secrets = game.encoded_secrets()
        self.on_progress = None  # callable(fraction) while a greedy scan runs

    def describe(self) -> str:
        if self.tree:
            stats = statistics(self.tree.tree)
            return (f"strategy tree {self.tree.label} (total {stats['total']}, {stats['expected']:.4f} guesses "
                    f"on average, at most {stats['max_guesses']}); greedy once play leaves it")
        return "greedy (MostParts, InSet, ExpSizeSplit), computed on the spot"

    def tree_node(self, history) -> Tree | None:
        node = self.tree.tree if self.tree else None
        for guess, colours in history:
            if node is None or node.guess != guess:
                return None
            node = node.children.get(colours)
        return node

    def allowed_rows(self, history) -> np.ndarray | None:
        """Guess indices hard mode allows after `history` (None: all)."""
        if not self.game.hard_mode or not history:
            return None
        rule = hard_mode_rule(history, self.game.length)
        return np.flatnonzero(rule.mask(self.enc_guesses, self.game.alphabet))

    def suggest(self, history, candidates: np.ndarray) -> Suggestion:
        n = len(candidates)
        if n == 0:
            return Suggestion(None, "none", False, 0.0)
        word, source = None, ""
        node = self.tree_node(history)
        if node is not None and node.candidates == n:
            word, source = node.guess, "tree"
        elif n <= 2:
            word, source = self.game.secrets[int(candidates[0])], "candidate"
        else:
            word, source = self.greedy(history, candidates), "greedy"
        candidate = word in {self.game.secrets[int(c)] for c in candidates}
        return Suggestion(word, source, candidate, 1.0 / n if candidate else 0.0)

    def greedy(self, history, candidates: np.ndarray) -> str:
        rows = self.allowed_rows(history)
        enc = self.enc_guesses if rows is None else self.enc_guesses[rows]
        position = np.full(len(self.game.secrets), -1, dtype=np.int32)
        position[candidates] = np.arange(len(candidates), dtype=np.int32)
        sog = self.game.secret_of_guess if rows is None else self.game.secret_of_guess[rows]
        candidate_pos = np.where(sog >= 0, position[np.maximum(sog, 0)], -1).astype(np.int32)
        best = greedy_choice(enc, np.ascontiguousarray(self.enc_secrets[candidates]), candidate_pos,
                             self.game.n_codes, self.on_progress)
        return self.game.guesses[int(best if rows is None else rows[best])]
