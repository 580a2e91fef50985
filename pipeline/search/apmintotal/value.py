"""ApMinTotal(C, n): the paper's upper bound, searched in numba (docs/algorithms.md §3).

    ApMinTotal(C, n) = 1                                      if |C| = 1
                     = 3                                      if |C| = 2 (guess a candidate)
                     = min_{g in Best_n(C)} |C| + sum_{C' in Split(C, g), C' != {g}} ApMinTotal(C', n)

Best_n(C) is the n useful guesses (at least two parts) with the lowest
(MostParts, InSet, ExpSizeSplit), ties by guess index; the strategy takes the
first guess of that ranking that reaches the minimum.  `ranking="MaxSizeSplit"`
ranks by (MostParts, InSet, MaxSizeSplit) instead: the authors' earlier code
(its BaseOptimizer's mostParts, firstValid, maxSizeSplit), which gives the
paper's Primel figure at n = 20 (29011; ExpSizeSplit gives 29021).

Beyond the paper, and without changing any value or chosen guess:
- exact lower bounds: ApMinTotal(C') >= MinTotal(C') >= 2|C'| - 1, so a guess
  with k parts is worth at least 3|C| - k - [g in C].  That bound never
  decreases along the ranking, so the scan of Best_n stops at the first guess
  whose bound reaches the best value found (this also covers "a candidate
  splitting C into singletons is optimal");
- alpha-beta: every call gets a budget beta and only needs the exact value if
  it is below beta; otherwise it returns some value >= beta.  A class's budget
  is what its guess may still spend given the exact values and lower bounds of
  its siblings; a guess is dropped as soon as its running total reaches the
  best value so far (later guesses must be strictly better, which keeps the
  first-in-ranking tie rule); classes are searched largest first, which
  raises the running total fastest;
- ranking Best_n, the cost of the search, by pairwise comparisons of the candidates' codes for small sets
  and by counting classes with early drops for larger ones (apmintotal_ranking.py);
- a guess outside C splitting C into singletons (when no candidate does) is first in Best_n and worth
  2|C|, the least any guess can reach: the scan stops there;
- a memo keyed by the sorted candidate set (hash table with the sets kept in
  a pool and compared exactly), holding exact values with their guess and
  proven lower bounds, bounded by `max_entries` and `max_pool` set members (apmintotal_memo.py).

The game's rules, as the exact solver plays them:
- hard mode: Best_n(C) ranks only the guesses the NYT rule allows after the
  responses that led to C (`pipeline.search.hard_mode`); the state travels
  with every node and is part of the memo key;
- a guess limit: a node with one guess left and two or more candidates is
  infeasible (value IMPOSSIBLE, which sums keep above any real total), so a
  guess whose subtree would need more guesses loses to any feasible one;
  the guesses left are part of the memo key.  ApMinTotal is then the best
  strategy within Best_n that meets the limit (or IMPOSSIBLE if none does).

The recursion runs inside numba on an explicit stack (apmintotal_search.py); candidate sets are
sorted int64 arrays of secret indices.  This module is what callers import: the search context
(`ApSearch`), its result (`ApResult`), `apmintotal` and `rank_openers`.
"""

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np

from pipeline.search.apmintotal.memo import memo_stats, new_memo
from pipeline.search.apmintotal.ranking import PAIR_BLOCK, best_n
from pipeline.search.apmintotal.search import IMPOSSIBLE, INF, extract_tree, solve
from pipeline.search.arrays import kernel_input
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.breadth_first import UNLIMITED
from pipeline.search.hard_mode import initial_state, is_allowed, symbol_counts
from pipeline.search.partition import guess_of_secret
from pipeline.search.tree import Tree, from_arrays

__all__ = ["RANKINGS", "INF", "IMPOSSIBLE", "ApContext", "ApResult", "ApSearch", "apmintotal", "rank_openers"]

RANKINGS = ("ExpSizeSplit", "MaxSizeSplit")  # what orders Best_n after (MostParts, InSet)


ApContext = namedtuple("ApContext", ["codes", "codes_t", "secret_of_guess", "guess_of_secret", "counts", "in_c",
                                     "breadth", "win", "hard", "words", "word_counts", "allowed", "split_stats",
                                     "equal", "by_largest", "lists"])
ApContext.__doc__ = """What every search kernel reads: the (G, S) code matrix and its transpose, secret_of_guess and
its inverse, scratch (zeroed counts over the codes, a mask over the secrets), the breadth n, the win code, hard mode
with the encoded guesses, their symbol counts and a mask over the guesses, scratch for `_pair_stats` (its (3, G)
figures and a uint8 row of PAIR_BLOCK counters), whether
Best_n's third key is MaxSizeSplit (else ExpSizeSplit), and room for the guess list of each depth of the search
(`lists`: row d + 1 holds the useful guesses of the node at depth d; the search grows a copy when it goes deeper)."""


@dataclass
class ApResult:
    """An ApMinTotal strategy as node arrays (breadth first, node 0 the root) plus search figures.

    total is None (and the arrays empty) when no strategy within Best_n finds
    every secret within the guess limit: infeasible, not a total.  `widened`
    {wider breadth: classes}: the opener's classes searched again wider
    (pipeline.search.apmintotal.widen), empty for ApMinTotal itself.
    """

    breadth: int
    total: int | None
    opener: int
    node_guess: np.ndarray
    node_parent: np.ndarray
    node_code: np.ndarray
    node_size: np.ndarray
    stats: dict = field(default_factory=dict)
    widened: dict = field(default_factory=dict)

    @property
    def feasible(self) -> bool:
        """Does a strategy within Best_n meet the guess limit?"""
        return self.total is not None

    def tree(self, guesses, length) -> Tree:
        """The strategy as a Tree of guess words (ValueError when infeasible)."""
        if not self.feasible:
            raise ValueError("no strategy within the guess limit: there is no tree")
        return from_arrays(guesses, length, self.node_guess, self.node_parent, self.node_code, self.node_size)


class ApSearch:
    """One ApMinTotal search context (matrix, breadth, rules, memo) reused across calls.

    Hard mode (`hard_mode`, with the matrix's encoded guesses) ranks only the guesses
    the NYT rule allows at each node; `ranking` (RANKINGS) is Best_n's key
    after (MostParts, InSet); `max_guesses` (None = unlimited) makes
    a strategy that needs more guesses for some secret infeasible.  Both are
    part of every memo key.  `max_entries` bounds the memoised nodes and
    `max_pool` the total number of key members stored for them (8 bytes
    each); when either is reached new nodes are simply not memoised (values
    stay exact).
    """

    def __init__(self, matrix: Matrix, breadth, *, hard_mode=False, max_guesses=None, max_entries=1_000_000,
                 max_pool=None, ranking="ExpSizeSplit"):
        if ranking not in RANKINGS:
            raise ValueError(f"unknown ranking {ranking!r}; use one of {', '.join(RANKINGS)}")
        if breadth < 1:
            raise ValueError(f"breadth must be at least 1, got {breadth}")
        if max_guesses is not None and max_guesses < 1:
            raise ValueError(f"max_guesses must be at least 1, got {max_guesses}")
        if hard_mode and matrix.encoded_guesses is None:
            raise ValueError("hard mode needs the encoded guesses")
        n_codes = matrix.n_codes
        self.codes = matrix.codes
        self.codes_t = matrix.transposed()
        self.secret_of_guess = kernel_input(matrix.secret_of_guess, dtype=np.int32)
        n_secrets = self.codes.shape[1]
        self.breadth = int(breadth)
        self.hard = bool(hard_mode)
        self.length = int(round(np.log(n_codes) / np.log(3)))
        self.max_guesses = UNLIMITED if max_guesses is None else int(max_guesses)
        words = kernel_input(matrix.encoded_guesses if self.hard else np.zeros((0, self.length)), dtype=np.uint8)
        self.words = words
        n_guesses = self.codes.shape[0]
        self.ctx = ApContext(
            codes=self.codes, codes_t=self.codes_t, secret_of_guess=self.secret_of_guess,
            guess_of_secret=guess_of_secret(self.secret_of_guess, n_secrets),
            counts=np.zeros(int(n_codes), dtype=np.int32), in_c=np.zeros(n_secrets, dtype=np.bool_),
            breadth=self.breadth, win=int(n_codes) - 1, hard=self.hard, words=words, word_counts=symbol_counts(words),
            allowed=np.zeros(n_guesses, dtype=np.bool_), split_stats=np.zeros((3, n_guesses), dtype=np.int32),
            equal=np.zeros(PAIR_BLOCK, dtype=np.uint8), by_largest=ranking == "MaxSizeSplit",
            lists=np.empty((16, n_guesses), dtype=np.int32),
        )
        max_pool = 16 * max_entries if max_pool is None else max_pool
        self.memo, self.info = new_memo(max_entries=max_entries, max_pool=max_pool)

    def _all(self, candidates):
        """The candidate set as sorted int64 secret indices (every secret by default)."""
        if candidates is None:
            return np.arange(self.codes.shape[1], dtype=np.int64)
        return np.unique(np.asarray(candidates, dtype=np.int64))

    def _start(self, state, left):
        """(greens, at_least, guesses left) a search starts from: the game's start and limit by default."""
        greens, at_least = initial_state(self.length) if state is None else state
        return greens, at_least, self.max_guesses if left is None else int(left)

    def stats(self) -> dict:
        """The memo's counters so far (entries, pool used, ranking scans, hits, nodes not memoised)."""
        return memo_stats(self.info)

    def value(self, candidates=None, state=None, left=None) -> int | None:
        """ApMinTotal(C, n) from a hard-mode state with `left` guesses left; None if infeasible."""
        value = int(solve(self._all(candidates), INF, self.ctx, self.memo, self.info, *self._start(state, left))[0])
        return None if value >= IMPOSSIBLE else value

    def ranking(self, candidates=None) -> np.ndarray:
        """Best_n(C) at the start of a game: the guesses ApMinTotal tries, best first."""
        top_g = np.empty(self.breadth, dtype=np.int64)
        top_key = np.empty(self.breadth, dtype=np.int64)
        guesses = np.arange(self.codes.shape[0], dtype=np.int32)
        n, _, _ = best_n(self.ctx, self._all(candidates), top_g, top_key, np.zeros(0, dtype=np.bool_), guesses,
                         np.empty_like(guesses), top_g[:0], False)
        return top_g[:n]

    def strategy(self, candidates=None, opener=-1, state=None, left=None) -> ApResult:
        """The ApMinTotal strategy tree for C, optionally forcing the first guess (total None: infeasible)."""
        cand = self._all(candidates)
        greens, at_least, left = self._start(state, left)
        counts = self.ctx.word_counts
        if opener >= 0 and self.hard and not is_allowed(self.words[opener], counts[opener], greens, at_least):
            raise ValueError(f"guess {opener} breaks hard mode in this state")
        g, p, c, s, total = extract_tree(cand, int(opener), self.ctx, self.memo, self.info, greens, at_least, left)
        if total == -1:
            raise RuntimeError("strategy extraction failed")
        feasible = total != -2
        return ApResult(breadth=self.breadth, total=int(total) if feasible else None,
                        opener=int(g[0]) if feasible else int(opener), node_guess=g, node_parent=p, node_code=c,
                        node_size=s, stats=self.stats())


def apmintotal(matrix: Matrix, candidates=None, breadth=10, **options) -> ApResult:
    """ApMinTotal(C, breadth) with its strategy (C = all secrets by default)."""
    return ApSearch(matrix, breadth, **options).strategy(candidates)


def rank_openers(matrix: Matrix, breadth, candidates=None, ranking="ExpSizeSplit") -> list[int]:
    """Best_n(S): the openers ApMinTotal(S, breadth) tries, best first (hard mode allows every opener)."""
    search = ApSearch(matrix, breadth, max_entries=1, ranking=ranking)
    return [int(g) for g in search.ranking(candidates)]
