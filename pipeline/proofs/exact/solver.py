"""A plain exact MinTotal for small candidate sets, with the hard-mode rule and a guess limit.

    MinTotal(C) = 1 if |C| = 1, else min over useful legal g of |C| + sum of MinTotal(C')
                  over the classes C' of Split(C, g) other than {g}, each one guess deeper.

Depth-first with one budget: `min_total(C, ..., beta)` returns the exact value when it is
below `beta`, else some lower bound >= beta (which is all a caller comparing against beta
needs).  Each class C' of a guess costs at least Bound(|C'|, k), k the most parts any legal guess
makes on C (a class's guesses split it into no more parts), and at least 2|C'| - 1; guesses are
tried in order of their floor |C| + the sum of those class costs, and dropped once the floor
reaches the best value found.  The floors of all guesses are one numba pass over the node.
With two guesses left, a set that no legal guess splits into singletons has no strategy: INFEASIBLE at once, not
after every guess's classes were found to need a third.
Memo per (candidate set, guesses left, hard-mode rule).
With a game's symmetries (verified automorphisms, symmetry.py, generating a product of symmetric groups:
stabiliser.py), a node is given the guesses played above it (from the opener on): the symmetries fixing them
all map its candidate set onto itself, so a guess and its images have the same value there and only the least
of each orbit of that stabiliser is searched, at every node until the stabiliser is trivial.
"""

import numpy as np
from numba import njit

from pipeline.proofs.bounds.lower import HUGE, bound_column, split
from pipeline.proofs.solvable.within import Feasibility
from pipeline.proofs.game.hard_mode import Rule, letter_counts
from pipeline.proofs.symmetry.stabiliser import ProductSymmetry

INFEASIBLE = 1 << 40
SMALL_CLASS = 8  # classes up to this size are checked for a splitting candidate before any search
MAX_HISTORY = 3  # the stabiliser restricts nodes up to three guesses deep (the opener's class, two below it)


@njit(cache=True)
def node_options(codes, guesses, cands, n_codes, costs, beta, searched):
    """(the listed guesses that split C, the `searched` ones of them with floor < beta, best floor first (ties:
    the least sum of squared class sizes first, then list order), their floors, k): k = the most parts any listed
    guess makes on C; a guess's floor is |C| + sum over its non-win classes of costs[k, size].  Two passes (parts, then floors once k is known), counting into
    one row of n_codes that is cleared by the candidates it counted."""
    count = np.zeros(n_codes, dtype=np.int64)
    parts = np.zeros(guesses.shape[0], dtype=np.int64)
    for j in range(guesses.shape[0]):
        row = codes[guesses[j]]
        for c in cands:
            if count[row[c]] == 0:
                parts[j] += 1
            count[row[c]] += 1
        for c in cands:
            count[row[c]] = 0
    k = parts.max() if guesses.shape[0] > 0 else 1
    floors = np.full(guesses.shape[0], HUGE, dtype=np.int64)
    squares = np.zeros(guesses.shape[0], dtype=np.int64)
    win = n_codes - 1
    for j in range(guesses.shape[0]):
        if parts[j] < 2 or not searched[j]:
            continue
        row = codes[guesses[j]]
        for c in cands:
            count[row[c]] += 1
        total = cands.shape[0]
        for c in cands:
            code = row[c]
            if count[code] > 0:
                if code != win:
                    total += costs[k, count[code]]
                squares[j] += count[code] * count[code]
                count[code] = 0
        floors[j] = total
    kept = np.flatnonzero(floors < min(beta, HUGE))
    by_squares = kept[np.argsort(squares[kept], kind="mergesort")]
    order = by_squares[np.argsort(floors[by_squares], kind="mergesort")]
    return guesses[parts >= 2], guesses[order], floors[order], k


@njit(cache=True)
def perfect_candidate(codes, guess_of_secret, legal, cands, seen) -> bool:
    """Does some candidate that is a legal guess (`legal`: a mask over guesses) give every candidate its own
    answer?  Then MinTotal(C) = 2|C| - 1, its least possible value (one secret found by the first guess, each
    other by the second).  `seen` is a False row of n_codes, left False."""
    for c in cands:
        g = guess_of_secret[c]
        if legal[g] and separates(codes[g], cands, seen):
            return True
    return False


@njit(cache=True)
def perfect_guess(codes, guesses, cands, seen) -> bool:
    """Does some listed guess give every candidate its own answer (stopping at the first)?  `seen` as above."""
    for g in guesses:
        if separates(codes[g], cands, seen):
            return True
    return False


@njit(cache=True)
def separates(row, cands, seen) -> bool:
    """Does the guess whose answers are `row` give every candidate its own answer?  `seen` as above."""
    ok = True
    for d in cands:
        if seen[row[d]]:
            ok = False
            break
        seen[row[d]] = True
    for d in cands:
        seen[row[d]] = False
    return ok


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

    def __init__(self, codes, guess_symbols, guess_of_secret, n_codes, n_symbols, hard_mode: bool,
                 symmetry: ProductSymmetry | None = None):
        self.codes = codes
        self.words = guess_symbols
        self.counts = letter_counts(guess_symbols, n_symbols) if hard_mode else None
        self.guess_of_secret = np.asarray(guess_of_secret, dtype=np.int64)
        self.n_codes, self.n_symbols, self.hard_mode = int(n_codes), int(n_symbols), hard_mode
        self.memo: dict[tuple, tuple[int, bool]] = {}
        self.length = guess_symbols.shape[1]
        self.costs = class_costs(codes.shape[1], self.n_codes)
        self.all_guesses = np.arange(codes.shape[0], dtype=np.int64)
        self.everyone_legal = np.ones(codes.shape[0], dtype=np.bool_)
        self.seen = np.zeros(self.n_codes, dtype=np.bool_)
        self.symmetry = symmetry  # the verified symmetries as a product group, or None
        self.feasibility = Feasibility(codes, guess_symbols, guess_of_secret, n_codes, n_symbols, hard_mode)

    def start_rule(self) -> Rule | None:
        return Rule(self.length, self.n_symbols) if self.hard_mode else None

    def _options(self, cands, legal, beta, history):
        """(the `legal` guesses that split C, for the classes below; those with floor below beta, best floor
        first, one per orbit of the stabiliser of `history`; their floors; k of the node; the history to hand
        on, None once its stabiliser is trivial or it is MAX_HISTORY long)."""
        if history is not None and (len(history) > MAX_HISTORY or self.symmetry is None):
            history = None
        searched = np.ones(len(legal), dtype=np.bool_)
        if history is not None:
            mask = self.symmetry.representatives(history, self.hard_mode)
            if mask is None:
                history = None
            else:
                searched = mask[legal]
        useful, guesses, floors, k = node_options(self.codes, legal, cands, self.n_codes, self.costs, beta, searched)
        return useful, guesses, floors, int(k), history

    def unsolvable(self, cands: np.ndarray, left: int, rule: Rule | None) -> bool:
        """No strategy finds every candidate within `left` guesses: the claim a bound of INFEASIBLE makes, decided
        by feasibility.py's search (the first strategy found ends it), far cheaper than a MinTotal."""
        return not self.feasibility.within(cands, left, rule)

    def min_total(self, cands: np.ndarray, left: int | None, rule: Rule | None, beta: int = INFEASIBLE,
                  history: tuple | None = None, guesses: np.ndarray | None = None) -> int:
        """MinTotal(C) with `left` guesses still allowed (None = no limit), exact when below beta.
        `history`: the guesses played before C (from the opener on) when the game's symmetries are used.
        `guesses`: the guesses that split a superset of C (None: every guess); no other splits C."""
        n = len(cands)
        if left is not None and left < 1 or left == 1 and n > 1:
            return INFEASIBLE
        if n <= 2:
            return 2 * n - 1
        key = (cands.tobytes(), left, rule.key() if rule is not None else b"")
        known = self.memo.get(key)
        if known is not None and (known[1] or known[0] >= beta):
            return known[0]
        legal = self.everyone_legal if rule is None else rule.allowed(self.words, self.counts)
        if perfect_candidate(self.codes, self.guess_of_secret, legal, cands, self.seen):
            self.memo[key] = (2 * n - 1, True)
            return 2 * n - 1
        # no candidate splits C into singletons, so MinTotal(C) >= 2|C|: a guess that does is optimal, and with
        # three candidates one of them, then the other two, makes 3 + 3 = 6
        listed = self.all_guesses if guesses is None else guesses
        if (n == 3 and (left is None or left >= 3)) or perfect_guess(self.codes, listed[legal[listed]], cands,
                                                                     self.seen):
            self.memo[key] = (2 * n, True)
            return 2 * n
        if left == 2:  # no legal guess gives every candidate its own answer: some secret needs a third guess
            self.memo[key] = (INFEASIBLE, True)
            return INFEASIBLE
        best, exact = beta, False
        useful, options, floors, k, history = self._options(cands, listed[legal[listed]], best, history)
        for g, floor in zip(options, floors):
            if floor >= best:
                break
            value = self._after(int(g), cands, left, rule, best, k, None if history is None else history + (int(g),),
                                useful)
            if value < best:
                best, exact = value, True
        self.memo[key] = (best, exact)
        return best

    def _after(self, g, cands, left, rule, beta, k, history, useful):
        """|C| + sum of the classes' MinTotal after guess g, or some value >= beta once it cannot beat beta.
        Each class starts at its floor costs[k, size], raised by the memo; in normal mode a class of up to
        SMALL_CLASS candidates is settled at once when a candidate splits it into singletons (2s - 1, the least
        a class of s can cost) and otherwise starts at 2s.  The rest are searched smallest first."""
        members, starts, sizes = split(self.codes[g], cands, self.n_codes)
        deeper = None if left is None else left - 1
        floors = self.costs[k, sizes].copy()
        settled = np.zeros(len(sizes), dtype=np.bool_)
        for c in range(len(sizes)):
            cls = members[starts[c]:starts[c] + sizes[c]]
            if rule is None and (deeper is None or deeper >= 2):
                known = self.memo.get((cls.tobytes(), deeper, b""))
                if known is not None:
                    floors[c], settled[c] = max(floors[c], known[0]), known[1]
                elif sizes[c] <= 2 or (sizes[c] <= SMALL_CLASS and perfect_candidate(
                        self.codes, self.guess_of_secret, self.everyone_legal, cls, self.seen)):
                    floors[c], settled[c] = 2 * sizes[c] - 1, True
                elif sizes[c] <= SMALL_CLASS:
                    floors[c] = max(floors[c], 2 * sizes[c])
        total = len(cands) + int(floors.sum())
        for c in np.argsort(sizes, kind="stable"):
            if total >= beta:
                return total
            if settled[c]:
                continue
            cls = members[starts[c]:starts[c] + sizes[c]]
            # a class of at most two is valued before any rule is read (min_total): its rule is not computed
            after = rule.after(self.words[g], int(self.codes[g, cls[0]])) if rule is not None and len(cls) > 2 else None
            total += (self.min_total(cls, deeper, after, beta - total + int(floors[c]), history, useful)
                      - int(floors[c]))
        return total
