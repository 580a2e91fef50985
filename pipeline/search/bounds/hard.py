"""Hard-mode lower bounds: LB_i(C) and V_i(g, C) of docs/algorithms.md §4 with every minimum over guesses
taken only over the guesses the NYT hard-mode rule still allows.

    LB_2(C, s)    = Bound(|C|, max over g allowed in s of |Split(C, g)|)
    V_i(g, C, s)  = |C| + sum over non-win classes C' (response r) of LB_i(C', s + (g, r))
    LB_i(C, s)    = min over useful g allowed in s of V_{i-2}(g, C, s)      (i >= 3)

s is the hard-mode state the history leaves (search/hard_mode.py).  A hard-mode
strategy from C in state s is a normal strategy whose guesses are all allowed
there, so these are lower bounds on the hard-mode MinTotal, and at least the
normal-mode bounds (a minimum over fewer guesses).  They ignore the guess
limit, which only raises values.  Allowed guesses shrink fast once letters are
revealed, so deep levels cost far less than their normal-mode twins; that is
what lets a hard-mode funnel eliminate the openers whose normal-mode value is
below the hard-mode optimum.
"""

import numpy as np
from numba import njit

from pipeline.search.bounds.hard_scans import allowed_among, lb2_in_state, lb3_in_state, scan_arrays, submatrix
from pipeline.search.bounds.lower import (UNBOUNDED, BoundSolver, _classes, bound_table, floor_levels, lazy_minimum,
                                          winning_guess)
from pipeline.search.hard_mode import initial_state, symbol_counts, update_state
from pipeline.search.bounds.max_parts import word_arrays
from pipeline.search.partition import guess_class_counts


FLOOR3 = True


@njit(cache=True)
def v1_among(codes, codes_t, cands, guesses, n_codes, win, btab):
    """(V_1(g, C), |Split(C, g)|) for each of `guesses`; V_1 is UNBOUNDED for a guess that does not split C
    (unless C is that single guess's own secret, which it wins)."""
    values = np.empty(guesses.shape[0], dtype=np.int64)
    parts_out = np.empty(guesses.shape[0], dtype=np.int64)
    counts = np.zeros(n_codes, dtype=np.int64)
    n = cands.shape[0]
    for j in range(guesses.shape[0]):
        parts, _, _, total, n_win = guess_class_counts(codes, codes_t, guesses[j], cands, counts, btab, win)
        useful = parts >= 2 or (n == 1 and n_win > 0)
        values[j] = n + total - btab[n_win] if useful else UNBOUNDED  # the win class costs nothing more
        parts_out[j] = parts
    return values, parts_out


@njit(cache=True)
def ranked_classes(row, cands, n_codes, win, btab):
    """The non-win classes of C under the guess with code row `row`, for V_i: (members grouped by class, class
    starts, class codes, each class's LB_1, |C| + their sum, the classes of 3 or more by size, largest first
    (stable)); LB_i of 1 or 2 candidates is LB_1."""
    members, starts, sizes = _classes(row, cands, n_codes, win)
    bounds = np.empty(sizes.shape[0], dtype=np.int64)
    total = cands.shape[0]
    for c in range(sizes.shape[0]):
        bounds[c] = btab[sizes[c]]
        total += bounds[c]
    order = np.argsort(-sizes, kind="mergesort")
    large = 0
    while large < order.shape[0] and sizes[order[large]] >= 3:
        large += 1
    codes = np.empty(sizes.shape[0], dtype=np.int64)
    for c in range(sizes.shape[0]):
        codes[c] = row[members[starts[c]]]
    return members, starts, codes, bounds, total, order[:large]


def unconstrained(state) -> bool:
    """Does the state allow every guess (nothing green or yellow revealed yet)?"""
    return not state[1].any() and bool((state[0] < 0).all())


class HardBoundSolver:
    """Hard-mode V_i / LB_i for one game, memoised per (level, candidate set, state).

    `codes` is the |G| x |S| code matrix, `k_s` = max_g |Split(S, g)|, `encoded_guesses` the guesses'
    symbol indices (what the hard-mode rule reads).  A state is a (greens, at_least) pair.

    V_i(g, C) asks for LB_2 or LB_3 of the classes D of g on C, whose max-parts scans dominate the deep levels.
    A guess makes at most as many parts of D as of C, and LB_i of C has every allowed guess's part count on C
    from its V_1 pass: that pass hands them down (`capping`), and D's scans skip the guesses whose count on
    C cannot beat their best and read the others' codes from a small matrix of C's (`scan_guesses`).
    Only the scans' cost changes: a scan's result is the same maximum, exact below its stop.
    """

    def __init__(self, codes, n_codes, k_s, encoded_guesses, memo_limit=2_000_000, secret_of_guess=None,
                 encoded_secrets=None):
        self.codes = codes
        self.codes_t = np.ascontiguousarray(codes.T)
        self.n_codes = int(n_codes)
        self.win = self.n_codes - 1
        self.words = np.ascontiguousarray(encoded_guesses, dtype=np.uint8)
        self.counts = symbol_counts(self.words)
        self.btab = bound_table(codes.shape[1], int(k_s))
        self.everyone = np.arange(codes.shape[0], dtype=np.int32)
        self.memo: dict[tuple, tuple[int, bool]] = {}
        self.allowed_memo: dict[bytes, np.ndarray] = {}
        self.memo_limit = memo_limit
        self.win_guess = winning_guess(codes, self.win)
        self.letter_keys, self.secret_letters = word_arrays(encoded_guesses, encoded_secrets)
        # Where nothing is revealed every guess is allowed: LB_2 and LB_3 (which do not look past the next
        # guess) are then the normal-mode ones, computed by its faster whole-list scans.
        self.plain = scan_arrays(self)
        self.normal = (BoundSolver(codes, secret_of_guess, n_codes, k_s, encoded_guesses, encoded_secrets)
                       if secret_of_guess is not None else None)

    def reset(self) -> None:
        """Empty the memos: the solver then answers as a new one would, its per-matrix arrays kept."""
        self.memo.clear()
        self.allowed_memo.clear()
        if self.normal is not None:
            self.normal.reset()

    def allowed(self, state) -> np.ndarray:
        """Indices of the guesses allowed in `state`."""
        key = state[0].tobytes() + state[1].tobytes()
        hit = self.allowed_memo.get(key)
        if hit is None:
            hit = allowed_among(self.words, self.counts, state[0], state[1], self.everyone)
            if len(self.allowed_memo) >= self.memo_limit // 16:
                self.allowed_memo.clear()
            self.allowed_memo[key] = hit
        return hit

    def after(self, state, g, code):
        return update_state(state[0], state[1], self.words[g], code)

    def lb(self, cands, state, level, budget=UNBOUNDED, capped=None):
        """(LB_level(C, state), exact); when not exact the value is a lower bound > budget.  `capped`: a
        superset's `capping`, or None (it changes no value, only the cost of LB_2 and LB_3)."""
        n = len(cands)
        if n <= 2:
            return (1, True) if n == 1 else (3, True)
        if level == 1:
            return int(self.btab[n]), True
        key = (level, cands.tobytes(), state[0].tobytes(), state[1].tobytes())
        hit = self.memo.get(key)
        if hit is not None and (hit[1] or hit[0] > budget):
            return hit
        result = self._lb(cands, state, level, budget, capped)
        if len(self.memo) >= self.memo_limit:
            self.memo.clear()
        self.memo[key] = result
        return result

    def _lb(self, cands, state, level, budget, capped):
        if level <= 3 and self.normal is not None and unconstrained(state):
            # its memo decides as before; a miss of LB_2 with a superset's capping is scanned here (the same
            # maximum over every guess, which the state allows)
            lb2 = None if capped is None else (lambda cap: self._lb2(cands, state, cap, capped))
            return self.normal.lb(cands, level, budget, lb2)
        if level == 2:
            return self._lb2(cands, state, budget, capped)
        if level == 3:
            result = self._lb3_by_parts(cands, state, budget, capped)
            if result is not None:
                return result
        keys, parts = v1_among(self.codes, self.codes_t, cands, self.allowed(state), self.n_codes, self.win,
                               self.btab)
        useful = np.flatnonzero(keys < UNBOUNDED)
        if not len(useful):
            return UNBOUNDED, True  # no allowed guess makes progress: hard mode cannot solve C from here
        if level == 3:
            best = int(keys[useful].min())
            return best, best <= budget
        capped = self.capping(cands, self.allowed(state), parts)
        return lazy_minimum(self.allowed(state)[useful], keys[useful], budget,
                            lambda g, cap: self.v(g, cands, state, level - 2, cap, capped))

    def capping(self, cands, guesses, parts):
        """What `scan_guesses` needs to scan subsets of C, from the part counts `parts` of `guesses` on C:
        (each guess's cap, its row in the local matrix, that matrix, each secret's position in C)."""
        caps = np.full(self.codes.shape[0], UNBOUNDED, dtype=np.int64)
        caps[guesses] = parts
        row_of = np.full(self.codes.shape[0], -1, dtype=np.int64)
        row_of[guesses] = np.arange(len(guesses))
        where = np.full(self.codes.shape[1], -1, dtype=np.int64)
        where[cands] = np.arange(len(cands))
        return scan_arrays(self, (caps, row_of, submatrix(self.codes, guesses, cands), where))

    def _lb2(self, cands, state, budget, capped=None):
        """Hard LB_2(C, state) as (value, exact), or only a bound above `budget` (`lb2_in_state`)."""
        value, exact = lb2_in_state(self.plain if capped is None else capped, cands, state[0], state[1],
                                    self.allowed(state), budget)
        return int(value), bool(exact)

    def _lb3_by_parts(self, cands, state, budget=UNBOUNDED, capped=None):
        """Hard LB_3(C, state) from part counts as (value, exact), or None where that does not apply
        (`lb3_in_state`; as in BoundSolver._lb3_by_parts)."""
        value, exact, applies = lb3_in_state(self.plain if capped is None else capped, self.btab, cands, state[0],
                                             state[1], self.allowed(state), budget)
        return (int(value), bool(exact)) if applies else None

    def v(self, g, cands, state, level, budget=UNBOUNDED, capped=None):
        """(V_level(g, C, state), exact): each class's bound raised from the LB_1 floor, largest class first.
        `capped`: the `capping` of C (or None), which the classes' LB_2 and LB_3 scans use.

        From level 4 on, every class is first raised to LB_3 (cheap, and LB_3 <= LB_level), so the total
        starts at V_3 and each costly LB_level gets only the slack V_3 leaves under the budget: a guess is
        then cut off after a class or two instead of after many exactly computed ones."""
        members, starts, codes, bounds, total, order = ranked_classes(self.codes[g], cands, self.n_codes, self.win,
                                                                      self.btab)
        if level == 1:
            return total, True
        states = {}
        for lev in floor_levels(level):
            for c in order:
                if total > budget:
                    return total, False
                if c not in states:
                    states[c] = self.after(state, g, codes[c])
                value, _ = self.lb(members[starts[c]:starts[c + 1]], states[c], lev, budget - total + int(bounds[c]),
                                   capped)
                total = min(total + value - int(bounds[c]), UNBOUNDED)
                bounds[c] = value
        return total, total <= budget  # an inexact class bound is above its budget, so the total is too

    def opener_values(self, openers, level, budget=UNBOUNDED, state=None):
        """V_level(g, S, state) for each opener (state None = the start of the game)."""
        state = state or initial_state(self.words.shape[1])
        everyone = np.arange(self.codes.shape[1], dtype=np.int32)
        values = np.empty(len(openers), dtype=np.int64)
        exact = np.empty(len(openers), dtype=bool)
        for j, g in enumerate(openers):
            values[j], exact[j] = self.v(int(g), everyone, state, level, budget)
        return values, exact
