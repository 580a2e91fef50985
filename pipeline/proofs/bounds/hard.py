"""Hard-mode lower bounds, from their definitions (docs/algorithms.md §4), for the checker.

The same LB_i / V_i as `bounds.py`, with every minimum over guesses taken only over the guesses the
hard-mode `Rule` of the path allows:

    LB_2(C, R)    Bound(|C|, max over g allowed by R of |Split(C, g)|)
    V_i(g, C, R)  |C| + sum over classes C' (response r) other than {g} of LB_i(C', R after (g, r))
    LB_i(C, R)    min over useful g allowed by R of V_{i-2}(g, C, R)      (i >= 3)

A hard-mode strategy only plays allowed guesses, so these bound the hard-mode MinTotal; they are no
bounds at all for normal mode, and the certificate checker accepts them only in hard-mode certificates.
"""

import numpy as np
from numba import njit

from pipeline.proofs.bounds.lower import (HUGE, LowerBounds, bound, lb3_by_count, lb3_by_least, least_value,
                                          parts_beyond, raised_sum)
from pipeline.proofs.bounds.memo import RULES_LIMIT, VALUES_LIMIT, BoundedMemo
from pipeline.proofs.game.hard_mode import Rule, letter_counts


@njit(cache=True)
def v1_listed(codes, cands, guesses, n_codes, btab):
    """(V_1(g, C), |Split(C, g)|) for each listed guess (rows of the guesses x secrets matrix `codes`);
    V_1 is HUGE for a guess that splits C into a single class."""
    values = np.empty(guesses.shape[0], dtype=np.int64)
    parts = np.zeros(guesses.shape[0], dtype=np.int64)
    size = np.zeros(n_codes, dtype=np.int64)
    for j in range(guesses.shape[0]):
        total, parts[j] = v1_and_parts(codes, guesses[j], cands, size, n_codes, btab)
        values[j] = total if parts[j] >= 2 else HUGE
    return values, parts


@njit(cache=True)
def v1_and_parts(codes, g, cands, size, n_codes, btab):
    """(|C| + sum of LB_1 over the non-win classes of Split(C, g), |Split(C, g)|); `size` (by code) must be zero and
    is left zero."""
    for c in cands:
        size[codes[g, c]] += 1
    total, parts = cands.shape[0], 0
    for c in cands:
        code = codes[g, c]
        t = size[code]
        if t > 0:
            parts += 1
            if code != n_codes - 1:
                total += btab[t]
            size[code] = 0
    return total, parts


@njit(cache=True)
def least_v1_listed(codes, cands, guesses, parts_on_s, caps, n_codes, btab, ceiling):
    """min(ceiling, min over the listed guesses g that split C of V_1(g, C)).  Bound(t, k) >= 2t - 1, so V_1(g, C)
    >= 3|C| - 1 - |Split(C, g)|, and the part count is at most g's on all secrets (`parts_on_s`, guesses listed by it
    descending: the scan ends once that cannot go below the least so far) and its `caps` (by guess, as in
    most_parts_listed: such a guess is skipped)."""
    n = cands.shape[0]
    size = np.zeros(n_codes, dtype=np.int64)
    least = ceiling
    for j in range(guesses.shape[0]):
        g = guesses[j]
        if 3 * n - 1 - parts_on_s[g] >= least:
            break
        if 3 * n - 1 - caps[g] >= least:
            continue
        total, parts = v1_and_parts(codes, g, cands, size, n_codes, btab)
        if parts >= 2:
            least = min(least, total)
    return least


@njit(cache=True)
def most_parts_listed(codes, cands, guesses, parts_on_s, caps, n_codes, enough, floor=1):
    """max(floor, max over the listed guesses of |Split(C, g)|), or a value >= `enough` once a guess reaches it.
    Guesses are listed by descending part count on all secrets (`parts_on_s`, by guess), which caps their count
    on C: the scan ends once it cannot beat the best.  `caps` (by guess) may cap it tighter (a guess's part count
    on a set containing C): a guess whose cap cannot beat the best is not counted, and a count is given up once
    even every remaining candidate in a new part could not beat it."""
    last_seen = np.full(n_codes, -1, dtype=np.int64)
    most = floor
    for j in range(guesses.shape[0]):
        g = guesses[j]
        if most >= enough or parts_on_s[g] <= most:
            break
        if caps[g] > most:
            most = max(most, parts_beating(codes, g, cands, last_seen, j, most))
    return most


@njit(cache=True)
def parts_beating(codes, g, cands, last_seen, mark, best):
    """|Split(C, g)| (as count_parts), or a number <= `best` once the parts so far and the candidates left cannot
    exceed it."""
    n = cands.shape[0]
    parts = 0
    for i in range(n):
        code = codes[g, cands[i]]
        parts += last_seen[code] != mark
        last_seen[code] = mark
        if parts + n - 1 - i <= best:
            break
    return parts


@njit(cache=True)
def most_count_listed(codes, cands, guesses, secret_of_guess, parts_on_s, caps, n_codes, floor=0):
    """max(floor, max over the listed guesses g of |Split(C, g)| + [g in C]).  The listed guesses in C come first
    (at most |C| + 1); any other counts at most |C|, at most its part count on all secrets (`parts_on_s`, by
    guess; guesses listed by it, descending) and at most its `caps` (by guess, as in most_parts_listed), so the
    scan of the rest ends once the best reaches the first two; a guess whose cap cannot beat the best is skipped,
    and a count given up once it cannot."""
    n = cands.shape[0]
    inside = np.zeros(codes.shape[1], dtype=np.bool_)  # by secret
    for c in cands:
        inside[c] = True
    last_seen = np.full(n_codes, -1, dtype=np.int64)
    best = floor
    for j in range(guesses.shape[0]):
        g = guesses[j]
        s = secret_of_guess[g]
        if s >= 0 and inside[s] and caps[g] + 1 > best:
            best = max(best, parts_beating(codes, g, cands, last_seen, j, best - 1) + 1)
    for j in range(guesses.shape[0]):
        g = guesses[j]
        if best >= n or parts_on_s[g] <= best:
            break
        s = secret_of_guess[g]
        if caps[g] > best and (s < 0 or not inside[s]):
            best = max(best, parts_beating(codes, g, cands, last_seen, guesses.shape[0] + j, best))
    return best


class HardLowerBounds:
    """Hard-mode LB_i / V_i over one code matrix, memoised per (level, candidate set, rule)."""

    def __init__(self, normal: LowerBounds, words: np.ndarray, n_symbols: int):
        self.normal = normal
        self.codes, self.n_codes, self.btab = normal.codes, normal.n_codes, normal.btab
        self.words = np.asarray(words)
        self.counts = letter_counts(self.words, n_symbols)
        self.n_symbols = n_symbols
        self.everyone = normal.everyone
        self.memo = BoundedMemo(VALUES_LIMIT)  # (level, candidate set, rule) -> (value, exact)
        self.allowed_memo = BoundedMemo(RULES_LIMIT)  # rule -> its allowed guesses
        self.secret_of_guess = np.full(len(self.words), -1, dtype=np.int64)
        self.secret_of_guess[normal.guess_of_secret] = np.arange(len(normal.guess_of_secret))
        self.parts_on_s = np.empty(len(self.words), dtype=np.int64)  # |Split(S, g)| by guess
        self.parts_on_s[normal.column_guess] = normal.parts_sorted

    def start(self) -> Rule:
        return Rule(self.words.shape[1], self.n_symbols)

    def allowed(self, rule: Rule) -> np.ndarray:
        """The guesses `rule` allows, by descending part count on all secrets (what the part-count scans need)."""
        key = rule.key()
        listed = self.allowed_memo.get(key)
        if listed is None:
            legal = np.flatnonzero(rule.allowed(self.words, self.counts)).astype(np.int64)
            listed = self.allowed_memo[key] = legal[np.argsort(-self.parts_on_s[legal], kind="stable")]
        return listed

    def lb(self, cands: np.ndarray, rule: Rule, level: int, budget: int = HUGE, caps=None) -> tuple[int, bool]:
        """(LB_level(C, R), exact); when not exact the value is a lower bound above `budget`.  `caps` (by guess): part
        counts on a set containing C, which LB_2 / LB_3 then stop by (see `_caps_on`)."""
        n = len(cands)
        if n <= 2 or level == 1:
            return int(self.btab[n]), True
        key = (level, cands.tobytes(), rule.key())
        known = self.memo.get(key)
        if known is not None and (known[1] or known[0] > budget):
            return known
        guesses = self.allowed(rule)
        if level <= 3 and len(guesses) == len(self.words):  # nothing revealed: the minimum over every guess
            return self.normal.lb(cands, level, budget)
        caps = self.parts_on_s if caps is None else caps
        if level == 2:  # Bound(n, k) = 2n - 1 for every k >= n - 1; above the budget unless a guess beats `beyond`
            beyond = int(parts_beyond(n, budget))
            most = most_parts_listed(self.codes, cands, guesses, self.parts_on_s, caps, self.n_codes, n - 1,
                                     max(1, beyond))
            result = self.memo[key] = int(bound(n, most)), most > beyond
            return result
        if level == 3 and n <= self.normal.k_s + 1:  # V_1(g, C) = 3|C| - |Split(C, g)| - [g in C] (bounds.py)
            result = self.memo[key] = lb3_by_count(n, budget, lambda floor: most_count_listed(
                self.codes, cands, guesses, self.secret_of_guess, self.parts_on_s, caps, self.n_codes, floor))
            return result
        if level == 3:
            result = lb3_by_least(budget, lambda ceiling: least_v1_listed(
                self.codes, cands, guesses, self.parts_on_s, caps, self.n_codes, self.btab, ceiling))
        else:
            values, parts = v1_listed(self.codes, cands, guesses, self.n_codes, self.btab)
            on_c = self._caps_on(guesses, parts)
            result = least_value(values, guesses, budget,
                                 lambda g, cap: self.v(int(g), cands, rule, level - 2, cap, on_c))
        self.memo[key] = result
        return result

    def _caps_on(self, guesses, parts) -> np.ndarray:
        """Part counts on C by guess (`parts` of the listed `guesses`; all secrets' counts for the others).  A class D
        of C splits into no more parts than C, so D's LB_2 / LB_3 scans skip a guess whose count on C cannot beat
        their best: a tighter stop than the count on all secrets."""
        caps = self.parts_on_s.copy()
        caps[guesses] = parts
        return caps

    def v(self, g: int, cands: np.ndarray, rule: Rule, level: int, budget: int = HUGE, caps=None) -> tuple[int, bool]:
        """(V_level(g, C, R), exact): classes start at LB_1 and are raised largest first (see `raised_sum`); `caps`
        as in `lb`, for C's classes."""
        row = self.codes[g]
        return raised_sum(row, cands, self.n_codes, self.btab, level, budget, 3,
                          lambda cls, step, cap: self.lb(cls, rule.after(self.words[g], int(row[cls[0]])), step, cap,
                                                         caps))

    def opener(self, g: int, level: int, budget: int = HUGE) -> int:
        """V_level(g, S) in hard mode from the start of the game (early exit above `budget`)."""
        return self.v(int(g), self.everyone, self.start(), level, budget)[0]
