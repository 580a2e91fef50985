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
Memo per (candidate set, guesses left, hard-mode rule) (memo.py).  The search runs in numba (search.py, its node
scans nodes.py) from every node where no symmetry prunes; this module is its entry and those symmetric nodes.
With a game's symmetries (verified automorphisms, symmetry.py, generating a product of symmetric groups:
stabiliser.py), a node is given the guesses played above it (from the opener on): the symmetries fixing them
all map its candidate set onto itself, so a guess and its images have the same value there and only the least
of each orbit of that stabiliser is searched, at every node until the stabiliser is trivial.
"""

import numpy as np

from pipeline.proofs.bounds.lower import HUGE, bound_column, split
from pipeline.proofs.exact.memo import STATES_LIMIT, new_memo, state_key, states, store
from pipeline.proofs.exact.nodes import INFEASIBLE, NO_LIMIT, one_fewer
from pipeline.proofs.exact.search import class_floors, node_step, search
from pipeline.proofs.solvable.within import Feasibility
from pipeline.proofs.game.hard_mode import Rule, letter_counts, rule_after
from pipeline.proofs.symmetry.stabiliser import ProductSymmetry

MAX_HISTORY = 3  # the stabiliser restricts nodes up to three guesses deep (the opener's class, two below it)


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
        self.counts = letter_counts(guess_symbols, n_symbols)
        self.guess_of_secret = np.asarray(guess_of_secret, dtype=np.int64)
        self.n_codes, self.n_symbols, self.hard_mode = int(n_codes), int(n_symbols), hard_mode
        self.memo, self.states_limit = new_memo(), STATES_LIMIT
        self.length = guess_symbols.shape[1]
        self.game = (codes, guess_symbols, self.counts, self.guess_of_secret, self.n_codes,
                     class_costs(codes.shape[1], self.n_codes), bool(hard_mode), np.zeros(self.n_codes, dtype=np.bool_))
        self.all_guesses = np.arange(codes.shape[0], dtype=np.int64)
        self.free = (np.full(self.length, -1, dtype=np.int64), np.zeros(self.n_symbols, dtype=np.int64))
        self.symmetry = symmetry  # the verified symmetries as a product group, or None
        self.feasibility = Feasibility(codes, guess_symbols, guess_of_secret, n_codes, n_symbols, hard_mode)

    def start_rule(self) -> Rule | None:
        return Rule(self.length, self.n_symbols) if self.hard_mode else None

    def unsolvable(self, cands: np.ndarray, left: int, rule: Rule | None) -> bool:
        """No strategy finds every candidate within `left` guesses: the claim a bound of INFEASIBLE makes, decided
        by feasibility.py's search (the first strategy found ends it), far cheaper than a MinTotal."""
        return not self.feasibility.within(cands, left, rule)

    def min_total(self, cands: np.ndarray, left: int | None, rule: Rule | None, beta: int = INFEASIBLE,
                  history: tuple | None = None, guesses: np.ndarray | None = None) -> int:
        """MinTotal(C) with `left` guesses still allowed (None = no limit), exact when below beta.
        `history`: the guesses played before C (from the opener on) when the game's symmetries are used.
        `guesses`: the guesses that split a superset of C (None: every guess); no other splits C."""
        if states(self.memo) >= self.states_limit:
            self.memo = new_memo()
        cands = np.ascontiguousarray(cands, dtype=np.int32)
        fixed, least = self.free if rule is None else (rule.fixed.astype(np.int64), rule.least.astype(np.int64))
        left = NO_LIMIT if left is None else int(left)
        listed = self.all_guesses if guesses is None else np.ascontiguousarray(guesses, dtype=np.int64)
        return self._node(cands, left, fixed, least, int(beta), history, listed)

    def _node(self, cands, left, fixed, least, beta, history, listed) -> int:
        """search.py's `search` below C, unless the symmetries fixing `history` still prune C's guesses: then this
        node in Python, one guess per orbit, each class below it a node again with the guess added to the history."""
        searched = self._representatives(history)
        if searched is None:
            return int(search(self.game, self.memo, cands, left, fixed, least, beta, listed))
        value, useful, options, floors, k = node_step(self.game, self.memo, cands, left, fixed, least, beta, listed,
                                                      searched[listed])
        if value >= 0:
            return int(value)
        best, exact = beta, False
        for g, floor in zip(options.tolist(), floors.tolist()):
            if floor >= best:
                break
            total = self._after(g, cands, left, fixed, least, best, int(k), history + (g,), useful)
            if total < best:
                best, exact = total, True
        h, numbers = state_key(cands, left, fixed, least)
        store(self.memo, h, cands, numbers, best, exact)
        return best

    def _representatives(self, history):
        """A mask of the least guess of each orbit of the symmetries fixing `history`, or None where none prune:
        no symmetry, no history, a history deeper than MAX_HISTORY or a trivial stabiliser."""
        if history is None or self.symmetry is None or len(history) > MAX_HISTORY:
            return None
        return self.symmetry.representatives(history, self.hard_mode)

    def _after(self, g, cands, left, fixed, least, beta, k, history, useful):
        """|C| + the classes' MinTotal after guess g, as search.py's `search` values a guess, each class a `_node` with
        `history`."""
        members, starts, sizes = split(self.codes[g], cands, self.n_codes)
        deeper = one_fewer(left)
        floors, settled = class_floors(self.game, self.memo, members, starts, sizes, k, deeper, fixed, least)
        total = len(cands) + int(floors.sum())
        for c in np.argsort(sizes, kind="stable"):
            if total >= beta:
                return total
            if settled[c]:
                continue
            cls = members[starts[c]:starts[c] + sizes[c]]
            after = (fixed, least)
            if self.hard_mode and len(cls) > 2:
                after = (np.empty_like(fixed), np.empty_like(least))
                rule_after(fixed, least, self.words[g], int(self.codes[g, cls[0]]), *after)
            total += self._node(cls, deeper, *after, beta - total + int(floors[c]), history, useful) - int(floors[c])
        return total
