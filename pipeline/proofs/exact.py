"""A plain exact MinTotal for small candidate sets, with the hard-mode rule and a guess limit.

    MinTotal(C) = 1 if |C| = 1, else min over useful legal g of |C| + sum of MinTotal(C')
                  over the classes C' of Split(C, g) other than {g}, each one guess deeper.

Depth-first with one budget: `min_total(C, ..., beta)` returns the exact value when it is
below `beta`, else some lower bound >= beta (which is all a caller comparing against beta
needs).  Each class C' of a guess costs at least Bound(|C'|, k), k the most parts any legal guess
makes on C (a class's guesses split it into no more parts), and at least 2|C'| - 1; guesses are
tried in order of their floor |C| + the sum of those class costs, and dropped once the floor
reaches the best value found.  The floors of all guesses are one numba pass over the node.
Memo per (candidate set, guesses left, hard-mode rule).
With a game's symmetry group (rows of guess permutations, verified automorphisms: symmetry.py), a node
is given the rows that fix every guess above it: they map its candidate set onto itself, so a guess
and its images have the same value there and only the least of each orbit is searched.
"""

import numpy as np
from numba import njit

from pipeline.proofs.bounds import HUGE, bound_column, split
from pipeline.proofs.hard_mode import Rule, letter_counts
from pipeline.proofs.symmetry import stabiliser

INFEASIBLE = 1 << 40


@njit(cache=True)
def node_options(codes, guesses, cands, n_codes, costs, beta):
    """(guesses with floor < beta, best floor first (ties by list order), their floors, k): k = the most parts
    any listed guess makes on C; a guess's floor is |C| + sum over its non-win classes of costs[k, size];
    a guess that does not split C is left out."""
    count = np.zeros((guesses.shape[0], n_codes), dtype=np.int32)
    for j in range(guesses.shape[0]):
        row = codes[guesses[j]]
        for c in cands:
            count[j, row[c]] += 1
    parts = (count > 0).sum(axis=1)
    k = parts.max()
    floors = np.full(guesses.shape[0], HUGE, dtype=np.int64)
    for j in range(guesses.shape[0]):
        if parts[j] >= 2:
            total = cands.shape[0]
            for code in range(n_codes - 1):
                total += costs[k, count[j, code]]
            floors[j] = total
    order = np.argsort(floors, kind="mergesort")
    n_kept = np.searchsorted(floors[order], min(beta, HUGE))
    order = order[:n_kept]
    return guesses[order], floors[order], k


def class_costs(n_secrets: int, n_codes: int) -> np.ndarray:
    """costs[k, t] = max(2t - 1, Bound(t, k)): the least MinTotal of t candidates no guess splits into more
    than k parts (row 0 unused)."""
    costs = np.zeros((n_codes + 1, n_secrets + 1), dtype=np.int64)  # costs[k, 0] = 0: an empty class
    floor = np.maximum(2 * np.arange(n_secrets + 1) - 1, 0)
    for k in range(1, n_codes + 1):
        costs[k] = np.maximum(floor, np.minimum(bound_column(n_secrets, k), HUGE))
    return costs


class ExactSolver:
    """MinTotal over a code matrix (guesses x secrets) for one game."""

    def __init__(self, codes, guess_symbols, guess_of_secret, n_codes, n_symbols, hard_mode: bool, group=None):
        self.codes = codes
        self.words = guess_symbols
        self.counts = letter_counts(guess_symbols, n_symbols) if hard_mode else None
        self.guess_of_secret = np.asarray(guess_of_secret)
        self.n_codes, self.n_symbols, self.hard_mode = int(n_codes), int(n_symbols), hard_mode
        self.memo: dict[tuple, tuple[int, bool]] = {}
        self.length = guess_symbols.shape[1]
        self.costs = class_costs(codes.shape[1], self.n_codes)
        self.all_guesses = np.arange(codes.shape[0], dtype=np.int64)
        self.group = None if hard_mode else group  # automorphisms (rows of guess permutations), or None

    def start_rule(self) -> Rule | None:
        return Rule(self.length, self.n_symbols) if self.hard_mode else None

    def _options(self, cands, rule, beta, fixing):
        """(useful legal guesses with floor below beta, best floor first, one per orbit of the rows `fixing`;
        their floors; k of the node)."""
        legal = self.all_guesses if rule is None else np.flatnonzero(rule.allowed(self.words, self.counts))
        if fixing is not None and len(fixing) > 1:
            legal = legal[self.group[fixing][:, legal].min(axis=0) == legal]
        guesses, floors, k = node_options(self.codes, legal, cands, self.n_codes, self.costs, beta)
        return guesses, floors, int(k)

    def min_total(self, cands: np.ndarray, left: int | None, rule: Rule | None, beta: int = INFEASIBLE,
                  fixing: np.ndarray | None = None) -> int:
        """MinTotal(C) with `left` guesses still allowed (None = no limit), exact when below beta.
        `fixing`: rows of self.group that map C onto itself (None: no symmetry used)."""
        n = len(cands)
        if left is not None and left < 1 or left == 1 and n > 1:
            return INFEASIBLE
        if n <= 2:
            return 2 * n - 1
        key = (cands.tobytes(), left, rule.key() if rule is not None else b"")
        known = self.memo.get(key)
        if known is not None and (known[1] or known[0] >= beta):
            return known[0]
        best, exact = beta, False
        guesses, floors, k = self._options(cands, rule, best, fixing)
        for g, floor in zip(guesses, floors):
            if floor >= best:
                break
            value = self._after(int(g), cands, left, rule, best, k, stabiliser(self.group, fixing, int(g)))
            if value < best:
                best, exact = value, True
        self.memo[key] = (best, exact)
        return best

    def _after(self, g, cands, left, rule, beta, k, fixing):
        """|C| + sum of the classes' MinTotal after guess g, or some value >= beta once it cannot beat beta."""
        members, starts, sizes = split(self.codes[g], cands, self.n_codes)
        floors = self.costs[k, sizes]
        total = len(cands) + int(floors.sum())
        for c in np.argsort(-sizes, kind="stable"):
            if total >= beta:
                return total
            cls = members[starts[c]:starts[c] + sizes[c]]
            after = rule.after(self.words[g], int(self.codes[g, cls[0]])) if rule is not None else None
            deeper = None if left is None else left - 1
            total += self.min_total(cls, deeper, after, beta - total + int(floors[c]), fixing) - int(floors[c])
        return total
