"""Where the assistant's suggestions come from: a strategy tree artifact when one fits, else greedy on the spot.

Tree: `<outputs>/upper_bound/<key>/tree.json` that fits the game (its lists,
hard mode and guess limit: pipeline.artifacts.find), replayed against every
secret before use; the lowest total wins if several fit.  The history is
followed down the tree; once it leaves the tree (another guess was played)
the greedy rule takes over.

Greedy: if |C| <= 2 guess the first candidate, else the guess with the best
(MostParts, InSet, ExpSizeSplit), ties to the lowest guess index — computed
by a fused scan over G x C that answers and counts on the fly (no code
matrix is built or kept, so start-up does not pay for one).  In hard mode
only guesses the NYT rule allows are considered.  On the last guess the
game's limit (game.max_guesses) allows, a candidate is suggested: nothing
else can still win.  A tree needing more guesses than the limit is refused.
"""

import sys
from dataclasses import dataclass
from pathlib import Path

import numpy as np
from numba import get_num_threads, njit, prange

from pipeline.artifacts.find import stored_trees
from pipeline.artifacts.trees import LoadedTree, load_tree
from pipeline import PipelineError
from pipeline.games.constraints import hard_mode_rule
from pipeline.games.game import Game
from pipeline.runtime.store import ArtifactStore
from pipeline.search.tree import Tree, statistics

CHUNK_CELLS = 4_000_000  # (guess, candidate) pairs per call of the greedy scan (progress granularity)


@dataclass(frozen=True)
class Suggestion:
    word: str | None  # None when no secret fits the history
    source: str  # "tree", "published" (the published optimal opener), "greedy", "candidate" (|C| <= 2) or "none"
    candidate: bool  # the word is still a possible secret
    chance: float  # chance that playing it wins now: 1/|C| for a candidate, else 0


# ---- tree artifacts ------------------------------------------------------------------------------------------


def load_tree_file(path: Path, game: Game, label: str | None = None) -> LoadedTree:
    """A tree file, checked to be for the game and replayed against every secret (PipelineError if not)."""
    return load_tree(path, game, label)


def find_tree(game: Game, outputs: Path) -> LoadedTree | None:
    """The best stored tree for this game (lowest replayed total), or None; unusable ones are warned about."""
    found = []
    try:
        stored_all = stored_trees(ArtifactStore(outputs), game)
    except PipelineError as err:  # a damaged manifest: play without a tree
        print(f"warning: ignoring the stored trees: {err}", file=sys.stderr)
        stored_all = []
    for stored in stored_all:
        try:
            found.append(load_tree(stored.path, game, stored.label))
        except PipelineError as err:
            print(f"warning: ignoring {stored.path}: {err}", file=sys.stderr)
    return min(found, key=lambda t: t.total) if found else None


# ---- greedy --------------------------------------------------------------------------------------------------


@njit(cache=True, nogil=True)
def _answer_codes(g, cols, cnt, has, pow3, codes):
    """codes[c] = the response to guess g (encoded) of every candidate c, built position by position.

    `cols[i]` is the candidates' symbol at position i, `cnt[x]` / `has[x]` their count of symbol x / whether
    they contain it.  Per symbol x of the guess:
    - x once in the guess: green where the candidate has x there, else
      yellow iff the candidate contains x at all (no copy of x is used up by
      a green or an earlier yellow);
    - x repeated: its positions left to right, green where matched, then
      yellow while the candidate still has an unused copy (its count of x
      minus the greens of x).
    """
    length, k = cols.shape
    codes[:] = 0
    for i in range(length):
        x = g[i]
        mult = 0
        first = True
        for j in range(length):
            if g[j] == x:
                mult += 1
                if j < i:
                    first = False
        if mult == 1:
            col = cols[i]
            h = has[x]
            p3 = pow3[i]
            for ci in range(k):  # the loop the compiler vectorises
                codes[ci] += p3 * (h[ci] + (col[ci] == x))
        elif first:
            cx = cnt[x]
            for ci in range(k):
                avail = cx[ci]
                for j in range(i, length):
                    if g[j] == x and cols[j, ci] == x:
                        avail -= 1
                add = 0
                for j in range(i, length):
                    if g[j] == x:
                        if cols[j, ci] == x:
                            add += 2 * pow3[j]
                        elif avail > 0:
                            add += pow3[j]
                            avail -= 1
                codes[ci] += add


@njit(cache=True, nogil=True)
def _parts_and_squares(codes, counts):
    """(number of distinct codes, sum of squared code counts); `counts` is all zeros before and after."""
    for c in codes:
        counts[c] += 1
    n_parts = 0
    squares = 0
    for c in codes:
        t = counts[c]
        if t > 0:
            n_parts += 1
            squares += t * t
            counts[c] = 0
    return n_parts, squares


@njit(cache=True, parallel=True, nogil=True)
def split_scan(guesses, candidates, n_codes, n_symbols, chunks=64):
    """Per guess (rows of `guesses`, encoded): number of parts and sum of squared part sizes of Split(C, g).

    C is given encoded (`candidates`, one row per candidate).  Responses are
    built on the fly (`_answer_codes`, over all candidates at once) and
    counted at once: no G x C code matrix is materialised, and the GIL is
    released.
    """
    n_guesses, length = guesses.shape
    k = candidates.shape[0]
    parts = np.empty(n_guesses, np.int64)
    sum_sq = np.empty(n_guesses, np.int64)
    pow3 = np.empty(length, np.int32)
    p = 1
    for i in range(length):
        pow3[i] = p
        p *= 3
    cols = np.ascontiguousarray(candidates.T)
    cnt = np.zeros((n_symbols, k), np.int32)
    for ci in range(k):
        for i in range(length):
            cnt[candidates[ci, i], ci] += 1
    has = np.minimum(cnt, 1)
    n_chunks = max(1, min(n_guesses, chunks))  # one count array per chunk
    size = (n_guesses + n_chunks - 1) // n_chunks
    for chunk in prange(n_chunks):
        counts = np.zeros(n_codes, np.int32)
        codes = np.empty(k, np.int32)
        for gi in range(chunk * size, min(n_guesses, (chunk + 1) * size)):
            _answer_codes(guesses[gi], cols, cnt, has, pow3, codes)
            parts[gi], sum_sq[gi] = _parts_and_squares(codes, counts)
    return parts, sum_sq


def matrix_scan(guesses, candidates, n_codes: int, answer: str):
    """split_scan's (parts, sum of squared part sizes) for any answering function, via its code-matrix kernel."""
    from pipeline.feedback.matrix import answer_matrix

    codes = answer_matrix(guesses, candidates, answer).astype(np.int64)
    cells = codes + n_codes * np.arange(codes.shape[0])[:, None]
    counts = np.bincount(cells.ravel(), minlength=codes.shape[0] * n_codes).reshape(codes.shape[0], n_codes)
    return (counts > 0).sum(axis=1), (counts * counts).sum(axis=1)


def greedy_choice(enc_guesses: np.ndarray, enc_candidates: np.ndarray, in_candidates: np.ndarray,
                  n_codes: int, n_symbols: int, on_progress=None, answer: str = "wordle") -> int:
    """Row index (into enc_guesses) of the best guess by (MostParts, InSet, ExpSizeSplit), lowest row on ties.

    `in_candidates[g]` says whether guess row g is itself a candidate.  The
    same rule as `pipeline.search.strategies.valuations.rank(..., BEST_COMBINATION)[0]`
    (tests check they agree), computed without a code matrix.
    """
    n_rows, k = enc_guesses.shape[0], enc_candidates.shape[0]
    step = max(1, CHUNK_CELLS // max(k, 1))
    parts, sum_sq = [], []
    for start in range(0, n_rows, step):
        stop = min(n_rows, start + step)
        p, q = (split_scan(enc_guesses[start:stop], enc_candidates, n_codes, n_symbols, 8 * get_num_threads())
                if answer == "wordle" else matrix_scan(enc_guesses[start:stop], enc_candidates, n_codes, answer))
        parts.append(p)
        sum_sq.append(q)
        if on_progress:
            on_progress(stop / n_rows)
    parts, sum_sq = np.concatenate(parts), np.concatenate(sum_sq)
    order = np.lexsort([np.arange(n_rows), sum_sq, -in_candidates.astype(np.int64), -parts])
    return int(order[0])


class Strategy:
    """Suggests the next guess for a history of (guess, colours) rows and its candidate set."""

    def __init__(self, game: Game, tree: LoadedTree | None = None, proven_by: str | None = None):
        from pipeline.assistant.known import published_optimum

        self.game = game
        self.tree = tree
        self.proven_by = proven_by  # the prove artifact whose certificate claims the tree's total optimal
        self.published = None if tree else published_optimum(game)  # (total, opener) when no tree is stored
        self.enc_guesses = game.encoded_guesses()
        self.enc_secrets = game.encoded_secrets()
        self.on_progress = None  # callable(fraction) while a greedy scan runs

    def describe(self) -> str:
        """Where the suggestions come from, opener first."""
        greedy = "greedy (MostParts, InSet, ExpSizeSplit), computed on the spot"
        if self.tree:
            stats = statistics(self.tree.tree)
            claim = f"; certificate {self.proven_by} claims it optimal" if self.proven_by else ""
            return (f"strategy tree {self.tree.label} (total {stats['total']}, {stats['expected']:.4f} guesses "
                    f"on average, at most {stats['max_guesses']}{claim}); greedy once play leaves it")
        if self.published:
            return f"opener {self.opener_label()}, then {greedy}"
        return greedy

    def opener_label(self) -> str:
        """`salet (published optimum 7920; not computed here)` for the published opener."""
        total, opener = self.published
        return f"{opener} (published optimum {total}; not computed here)"

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

    def last_guess(self, history) -> bool:
        """Is the next guess the last the game's limit allows?  Then only a candidate can still win."""
        return self.game.max_guesses is not None and len(history) + 1 >= self.game.max_guesses

    def suggest(self, history, candidates: np.ndarray) -> Suggestion:
        n = len(candidates)
        if n == 0:
            return Suggestion(None, "none", False, 0.0)
        word, source = None, ""
        node = self.tree_node(history)
        if node is not None and node.candidates == n:
            word, source = node.guess, "tree"
        elif self.published and not history:
            word, source = self.published[1], "published"
        elif n <= 2 or self.last_guess(history):
            word, source = self.game.secrets[int(candidates[0])], "candidate"
        else:
            word, source = self.greedy(history, candidates), "greedy"
        candidate = word in {self.game.secrets[int(c)] for c in candidates}
        return Suggestion(word, source, candidate, 1.0 / n if candidate else 0.0)

    def greedy(self, history, candidates: np.ndarray) -> str:
        rows = self.allowed_rows(history)
        enc = self.enc_guesses if rows is None else self.enc_guesses[rows]
        in_c = np.zeros(len(self.game.secrets) + 1, dtype=bool)  # last slot: "not a secret" (index -1)
        in_c[candidates] = True
        sog = self.game.secret_of_guess if rows is None else self.game.secret_of_guess[rows]
        best = greedy_choice(enc, np.ascontiguousarray(self.enc_secrets[candidates]), in_c[sog],
                             self.game.n_codes, len(self.game.alphabet), self.on_progress, self.game.answer)
        return self.game.guesses[int(best if rows is None else rows[best])]
