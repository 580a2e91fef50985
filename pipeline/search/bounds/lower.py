"""Lower bounds on MinTotal: Bound(n, k), LB_i(C) and V_i(g, C) (docs/algorithms.md §4).

    LB_1(C)   = Bound(|C|, K_S)
    LB_2(C)   = Bound(|C|, max_g |Split(C, g)|)
    V_i(g, C) = |C| + sum of LB_i(C') over the non-win classes C' of Split(C, g)
    LB_i(C)   = min over useful g of V_{i-2}(g, C)        (i >= 3)

Every value comes with an `exact` flag.  A caller passes a `budget`; as soon
as a value is known to exceed it the computation stops and returns a number
that is only a lower bound (> budget, flag False) -- all that eliminating an
opener needs.  V_i is built by upgrading its classes one at a time, largest
first, from the cheap LB_1 floor; LB_i keeps a lazy heap of guesses keyed by
a cheaper lower bound and upgrades only the guess on top; LB_i is memoised
per (candidate set, level).

Levels 1 and 2 at the root (every opener against all secrets) have batch
numba kernels: they are what the funnel evaluates for all 12972 openers.
"""

import heapq

import numpy as np
from numba import njit, prange

from pipeline.search.arrays import kernel_input
from pipeline.search.bounds.max_parts import guess_order, max_parts, most_parts_above, parts_index
from pipeline.search.partition import class_counts, guess_counts, split_classes, split_parts

UNBOUNDED = np.iinfo(np.int64).max // 4


@njit(cache=True)
def bound(n, k):
    """Minimum sum of depths of n nodes in a tree whose nodes have <= k children (root depth 1).

    Levels are filled greedily: level d holds at most k**(d-1) nodes.
    """
    total = 0
    depth = 1
    width = 1
    left = n
    while left > 0:
        take = min(width, left)
        total += take * depth
        left -= take
        depth += 1
        width = min(width * k, left) if k > 0 else 0
        if width == 0 and left > 0:
            return UNBOUNDED  # k = 0 cannot hold more than one node
    return total


@njit(cache=True)
def bound_table(max_n, k):
    """Bound(t, k) for t = 0..max_n."""
    out = np.zeros(max_n + 1, dtype=np.int64)
    for t in range(1, max_n + 1):
        out[t] = bound(t, k)
    return out


@njit(cache=True)
def v1_all(codes_t, candidates, n_codes, win, btab):
    """V_1(g, C) for every guess column g of the secret-major matrix `codes_t`; guesses that do not split
    C get UNBOUNDED.  Secret-major, because consecutive guesses then read the same few cache lines of C."""
    parts, _, _, sums, n_win = guess_counts(codes_t.T, candidates, n_codes, btab, win)
    n = candidates.shape[0]
    out = np.empty(parts.shape[0], dtype=np.int64)
    for g in range(parts.shape[0]):
        useful = parts[g] >= 2 or (n == 1 and n_win[g] > 0)
        out[g] = n + sums[g] - btab[n_win[g]] if useful else UNBOUNDED  # the win class costs nothing more
    return out


@njit(cache=True)
def _classes(row, candidates, n_codes, win):
    """Non-win classes of Split(C, g), by code: (members grouped by class, class starts, class sizes)."""
    n = candidates.shape[0]
    members = np.empty(n, dtype=candidates.dtype)
    starts = np.empty(n + 1, dtype=np.int64)
    class_code = np.empty(n, dtype=np.int64)
    k, _, _ = split_classes(row, candidates, np.zeros(n_codes, dtype=np.int64), win, 1, True, members, 0, starts,
                            class_code)
    return members, starts[: k + 1], starts[1: k + 1] - starts[:k]


@njit(cache=True, parallel=True)
def _opener_v12(codes, openers, n_codes, win, btab, level, budget, codes_t, parts, keys, secrets):
    """V_1 or V_2 of each opener at the root (C = all secrets), with early exit over `budget`."""
    n_secrets = codes.shape[1]
    everyone = np.arange(n_secrets).astype(np.int32)
    values = np.empty(openers.shape[0], dtype=np.int64)
    exact = np.empty(openers.shape[0], dtype=np.bool_)
    for j in prange(openers.shape[0]):
        members, starts, sizes = _classes(codes[openers[j]], everyone, n_codes, win)
        value = n_secrets
        for t in sizes:
            value += btab[t]
        done = True
        if level >= 2:
            for c in np.argsort(-sizes, kind="mergesort"):
                if value > budget:
                    done = False
                    break
                if sizes[c] < 4:  # Bound(t, k) = 2t - 1 for every k >= 2 when t <= 3
                    break
                k = max_parts(codes_t, parts, keys, secrets, members[starts[c]:starts[c + 1]], n_codes)
                value += bound(sizes[c], k) - btab[sizes[c]]
        values[j] = value
        exact[j] = done
    return values, exact


@njit(cache=True)
def most_parts_of(codes, guesses, candidates, n_codes):
    """max |Split(C, g)| over the guess rows `guesses` of `codes` (0 when there are none)."""
    counts = np.zeros(n_codes, dtype=np.int64)
    table = np.zeros(candidates.shape[0] + 1, dtype=np.int64)
    most = 0
    for g in guesses:
        most = max(most, class_counts(codes[g], candidates, counts, table, -1)[0])
    return most


@njit(cache=True)
def parts_above(n, budget):
    """The largest k with Bound(n, k) > budget (Bound falls as k rises), or 0 when there is none."""
    if bound(n, 1) <= budget:
        return 0
    lo, hi = 1, max(1, n - 1)  # Bound(n, 1) > budget; Bound(n, k) = Bound(n, n - 1) for every k >= n - 1
    while lo < hi:
        mid = (lo + hi + 1) // 2
        lo, hi = (mid, hi) if bound(n, mid) > budget else (lo, mid - 1)
    return lo if lo < n - 1 else 0  # Bound(n, n - 1) = 2n - 1 > budget: LB_1 is above it already


def winning_guess(codes, win):
    """The guess whose code is the win on each secret (-1: none), or None when some secret has several."""
    wins = codes == win
    if wins.sum(axis=0).max(initial=0) > 1:
        return None
    return np.where(wins.any(axis=0), wins.argmax(axis=0), -1).astype(np.int64)


def lazy_minimum(guesses, values, budget, upgrade):
    """(min over the guesses of an upgraded value, exact), where values[j] <= upgrade(guesses[j]).

    Guesses wait in order of their cheap value (ties by index); the one on top is upgraded by
    `upgrade(g, cap)` -> (value, exact), which may stop early above `cap`, and upgraded values wait in a
    heap.  Entries are (value, exact upgrade, guess), so the two queues behave as one heap of them: the
    minimum is known once an exact upgrade is on top, and only a bound > budget once the top is above it.
    """
    waiting = np.lexsort((guesses, values))
    upgraded: list[tuple[int, bool, int]] = []
    next_waiting = 0
    best_exact = UNBOUNDED  # an upgrade only matters if it beats the best exact value found
    while True:
        top = upgraded[0] if upgraded else None
        if next_waiting < len(waiting):
            j = waiting[next_waiting]
            candidate = (int(values[j]), False, int(guesses[j]))
            if top is None or candidate < top:
                top = candidate
        value, done, g = top
        if value >= best_exact:
            return best_exact, True
        if value > budget:
            return value, False
        if done:
            return value, True
        if upgraded and top is upgraded[0]:
            heapq.heappop(upgraded)
        else:
            next_waiting += 1
        new_value, exact = upgrade(g, min(budget, best_exact - 1))
        if exact:
            best_exact = min(best_exact, new_value)
        heapq.heappush(upgraded, (new_value, exact, g))


class BoundSolver:
    """V_i / LB_i for one game, with a memo of LB_i per (candidate set, level).

    `codes` is the |G| x |S| code matrix, `secret_of_guess` maps guesses to
    secret indices (or -1), `k_s` = max_g |Split(S, g)|.  Candidate sets are
    sorted int32 arrays of secret indices.  The encoded words (optional, as
    from `encode_words`) only speed LB_2 up: they give a cheap ceiling on a
    guess's part count that lets the max-parts scan skip more guesses.
    """

    def __init__(self, codes, secret_of_guess, n_codes, k_s, encoded_guesses=None, encoded_secrets=None,
                 memo_limit=2_000_000):
        self.codes = kernel_input(codes)
        self.secret_of_guess = kernel_input(secret_of_guess, dtype=np.int32)
        self.n_codes = int(n_codes)
        self.win = self.n_codes - 1
        self.k_s = int(k_s)
        self.btab = bound_table(codes.shape[1], self.k_s)
        everyone = np.arange(codes.shape[1], dtype=np.int32)
        global_parts = split_parts(codes, everyone, self.n_codes)
        self.index = parts_index(codes, global_parts, encoded_guesses, encoded_secrets)
        self.guess_at = guess_order(global_parts)  # the guess behind each column of self.index.codes_t
        self.memo: dict[tuple[int, bytes], tuple[int, bool]] = {}
        self.memo_limit = memo_limit
        self.win_guess = winning_guess(self.codes, self.win)

    def reset(self) -> None:
        """Empty the memo: the solver then answers as a new one would, its per-matrix arrays kept (they are
        what costs: a new solver on Nerdle's matrix takes seconds to build)."""
        self.memo.clear()

    # ---- LB_i(C) -------------------------------------------------------
    def lb(self, candidates, level, budget=UNBOUNDED, lb2=None):
        """(LB_level(C), exact); when not exact the value is a lower bound > budget.  `lb2(budget)`, if given,
        computes LB_2(C) in place of `_lb2` (the same (value, exact) by a cheaper scan; memoised alike)."""
        n = len(candidates)
        if n <= 2:
            return (1, True) if n == 1 else (3, True)
        if level == 1:
            return int(self.btab[n]), True
        key = (level, candidates.tobytes())
        hit = self.memo.get(key)
        if hit is not None and (hit[1] or hit[0] > budget):
            return hit
        if level == 2:
            result = self._lb2(candidates, budget) if lb2 is None else lb2(budget)
        else:
            result = self._lazy_min(candidates, level, budget)
        if len(self.memo) >= self.memo_limit:
            self.memo.clear()
        self.memo[key] = result
        return result

    def _lb2(self, candidates, budget):
        """(LB_2(C), exact) = Bound(|C|, most parts of a guess), or only a bound above `budget`.

        Bound falls as the part count k rises, so LB_2 > budget exactly when no guess makes more than k_max
        parts (the largest k with Bound(|C|, k) > budget): a scan that only has to show that skips every guess
        whose ceiling is at most k_max, which the exact scan (whose best starts lower) must count."""
        n = len(candidates)
        k_max = parts_above(n, budget)
        floor = 1
        if k_max > 0:
            floor = most_parts_above(*self.index, candidates, self.n_codes, k_max, k_max + 1)
            if floor <= k_max:
                return int(bound(n, k_max)), False
        return int(bound(n, most_parts_above(*self.index, candidates, self.n_codes, floor, n - 1))), True

    def _lazy_min(self, candidates, level, budget):
        """min over useful g of V_{level-2}(g, C), upgraded lazily from V_1 (see `lazy_minimum`)."""
        if level == 3:
            best = self._lb3_by_parts(candidates)
            if best is None:
                keys = v1_all(self.index.codes_t, candidates, self.n_codes, self.win, self.btab)
                best = int(keys[keys < UNBOUNDED].min())
            return best, best <= budget
        keys = v1_all(self.index.codes_t, candidates, self.n_codes, self.win, self.btab)
        useful = np.flatnonzero(keys < UNBOUNDED)
        return lazy_minimum(self.guess_at[useful], keys[useful], budget,
                            lambda g, cap: self.v(g, candidates, level - 2, cap))

    def _lb3_by_parts(self, candidates):
        """LB_3(C) = min_g V_1(g, C) from a part count, or None where that shortcut does not apply.

        When |C| <= K_S + 1 every class t of a split has Bound(t, K_S) = 2t - 1 (two levels hold it), so
        V_1(g, C) = 3|C| - |Split(C, g)| - [g wins on some candidate]: the minimum is 3|C| minus the larger
        of the most parts of any guess and 1 + the most parts of a candidate's winning guess.  The second
        is cheap (|C| guesses) and, as the scan's floor, lets the pruned max-parts scan skip most guesses.
        """
        n = len(candidates)
        if self.win_guess is None or n > self.k_s + 1:
            return None
        winners = self.win_guess[candidates]
        floor = most_parts_of(self.codes, winners[winners >= 0], candidates, self.n_codes) + 1
        if floor < n:  # any other guess makes at most |C| parts
            floor = most_parts_above(*self.index, candidates, self.n_codes, floor, n)
        return 3 * n - floor if floor >= 2 else None  # no guess splits C: the general scan decides

    # ---- V_i(g, C) -----------------------------------------------------
    def v(self, g, candidates, level, budget=UNBOUNDED):
        """(V_level(g, C), exact): each class's bound raised from the LB_1 floor, largest class first.

        From level 4 on, every class is first raised to LB_3 (cheap, and LB_3 <= LB_level: `floor_levels`),
        so the total starts at V_3 and each costly LB_level gets only the slack V_3 leaves under the budget:
        an opener whose V_3 is near the budget is then cut off after a class or two."""
        members, starts, sizes = _classes(self.codes[g], candidates, self.n_codes, self.win)
        bounds = self.btab[sizes]
        total = len(candidates) + int(bounds.sum())
        if level == 1:
            return total, True
        order = np.argsort(-sizes, kind="stable")
        order = order[sizes[order] >= (4 if level == 2 else 3)]  # below it LB_level = LB_1 (when K_S >= 2)
        exact = True
        for lev in floor_levels(level):
            exact = True
            for c in order:
                if total > budget:
                    return total, False
                value, class_exact = self.lb(members[starts[c]:starts[c + 1]], lev, budget - total + int(bounds[c]))
                total += value - int(bounds[c])
                bounds[c] = value
                exact = exact and class_exact
        return total, exact

    def opener_values(self, openers, level, budget=UNBOUNDED):
        """V_level(g, S) for a batch of opener indices, with early exit above `budget`.

        Returns (values int64, exact bool): where exact is False the value is only
        a lower bound that already exceeds `budget`.  Batches are independent, so
        separate processes can each take a slice of the openers.
        """
        openers = kernel_input(openers, dtype=np.int32)
        if level <= 2:
            return _opener_v12(self.codes, openers, self.n_codes, self.win, self.btab, level, budget, *self.index)
        everyone = np.arange(self.codes.shape[1], dtype=np.int32)
        values = np.empty(len(openers), dtype=np.int64)
        exact = np.empty(len(openers), dtype=bool)
        for j, g in enumerate(openers):
            values[j], exact[j] = self.v(int(g), everyone, level, budget)
        return values, exact


def floor_levels(level: int) -> tuple[int, ...]:
    """The levels V_level raises its classes through: (3, level) from level 4 on, else (level,).

    LB_3 <= LB_i for every i >= 3, so a class's LB_3 is a floor for its LB_i: LB_{i+2}(C) = min_g V_i(g, C)
    >= min_g V_{i-2}(g, C) = LB_i(C) by induction on i, from LB_3 >= LB_1 (a root with at most K_S
    children) and LB_4 >= LB_2 (a subset of C splits into no more parts than C), and LB_4 >= LB_3 since
    LB_2 >= LB_1.  LB_5 >= LB_4 need not hold (LB_3 >= LB_2 need not), so LB_3 is the floor every level
    shares."""
    return (3, level) if level >= 4 else (level,)


def k_of_game(codes, n_codes):
    """K_S = max_g |Split(S, g)|."""
    return int(split_parts(codes, np.arange(codes.shape[1], dtype=np.int32), n_codes).max())
