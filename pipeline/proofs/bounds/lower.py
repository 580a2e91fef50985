"""Lower bounds on MinTotal, from their definitions (docs/algorithms.md §4), for the checker.

    Bound(n, k)  least sum of depths of n nodes, each with at most k children (root depth 1)
    LB_1(C)      Bound(|C|, K_S)
    LB_2(C)      Bound(|C|, max over all guesses g of |Split(C, g)|)
    V_i(g, C)    |C| + sum of LB_i(C') over the classes C' of Split(C, g) other than {g}
    LB_i(C)      min over useful g of V_{i-2}(g, C)            (i >= 3)

Every value is a lower bound, so a computation may stop as soon as it knows
the answer exceeds a `budget` (then it returns a value > budget flagged not
exact): checking "V_i(g, S) > UB" or "LB_j(C) >= bound" needs no more.
Facts used for speed: Bound(n, k) = 2n - 1 once k >= n - 1, so while every
class has at most K_S + 1 members V_1(g, C) = 3|C| - |Split(C, g)| - [g in C]
and LB_3 is a maximum part count; a guess's part count on C is at most its
count on S, so scans visit guesses by that count, descending, and stop early.
"""

import numpy as np
from numba import njit, prange

from pipeline.proofs.bounds.memo import VALUES_LIMIT, BoundedMemo

HUGE = np.int64(1) << 60


@njit(cache=True)
def bound(n, k):
    """Bound(n, k) by filling levels: level d holds at most k**(d-1) nodes."""
    total, depth, room, left = 0, 1, 1, n
    while left > 0:
        if room == 0:
            return HUGE
        here = min(room, left)
        total += here * depth
        left -= here
        depth += 1
        room = min(room * k, left)
    return total


@njit(cache=True)
def parts_beyond(n, budget):
    """The largest part count k (0 to n - 1) with Bound(n, k) > budget, 0 when there is none.  Bound(n, k) falls as
    k grows and is flat from k = n - 1, so LB_2(C) = Bound(|C|, most parts) > budget exactly when no guess splits C
    into more than this many parts: a scan that starts its best there shows it (or finds a guess that beats it)."""
    k = 0
    while k < n - 1 and bound(n, k + 1) > budget:
        k += 1
    return k


@njit(cache=True)
def bound_column(n_max, k):
    out = np.zeros(n_max + 1, dtype=np.int64)
    for n in range(1, n_max + 1):
        out[n] = bound(n, k)
    return out


@njit(cache=True)
def count_parts(matrix, index, cands, last_seen, mark):
    """|Split(C, g)| for the guess g whose codes over the secrets are row `index` of `matrix` (codes, or codes_t.T
    for a column of codes_t); `last_seen` holds the last mark per code: pass a mark not used with it before.
    Indexing the matrix rather than taking a row view keeps numba from counting references per call."""
    parts = 0
    for c in cands:
        code = matrix[index, c]
        parts += last_seen[code] != mark
        last_seen[code] = mark
    return parts


@njit(cache=True, parallel=True)
def parts_on_all(codes, n_codes):
    """|Split(S, g)| for every guess g (codes: guesses x secrets)."""
    out = np.empty(codes.shape[0], dtype=np.int64)
    everyone = np.arange(codes.shape[1]).astype(np.int32)
    for g in prange(codes.shape[0]):
        last_seen = np.full(n_codes, -1, dtype=np.int64)
        out[g] = count_parts(codes, g, everyone, last_seen, 0)
    return out


BLOCK = 64  # guesses counted together: each secret of C then reads one contiguous run of its row


@njit(cache=True)
def _count_block(codes_t, cands, first, counts, win, btab, parts, totals):
    """Parts and V_1 of the guesses in columns first..first+BLOCK of the secret-major matrix, over C.
    `counts` (BLOCK x n_codes) must be zero and is left zero."""
    width = min(BLOCK, codes_t.shape[1] - first)
    for j in range(width):
        parts[j] = 0
        totals[j] = cands.shape[0]
    for c in cands:
        row = codes_t[c]
        for j in range(width):
            counts[j, row[first + j]] += 1
    for c in cands:
        row = codes_t[c]
        for j in range(width):
            code = row[first + j]
            t = counts[j, code]
            if t > 0:
                parts[j] += 1
                if code != win:
                    totals[j] += btab[t]
                counts[j, code] = 0
    return width


@njit(cache=True)
def _popcount(x):
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return int((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


WIDE = 256  # guesses whose part counts are taken together, as bit sets of the codes seen
ROOT_CHUNK = 512  # openers per root_v12 call (about a second of V_2 on a Wordle): Ctrl-C waits for no more


@njit(cache=True)
def _mark_codes(codes_t, cands, first, width, bits):
    """bits[j] := the set of codes column first + j gives the candidates."""
    one = np.uint64(1)
    bits[:] = 0
    for c in cands:
        row = codes_t[c, first:first + width]
        for j in range(width):
            code = row[j]
            bits[j, code >> 6] |= one << np.uint64(code & 63)


@njit(cache=True)
def _codes_marked(bits, j):
    """How many codes bits[j] holds: the number of parts."""
    p = 0
    for w in range(bits.shape[1]):
        p += _popcount(bits[j, w])
    return p


@njit(cache=True)
def max_parts(codes_t, cands, parts_on_s, enough, bits, floor=0):
    """max(floor, max over every guess g of |Split(C, g)|).  Columns are sorted by part count on all secrets,
    descending: that count caps a guess's count on C, so the scan ends once no later column can beat
    the best found (or `floor`), or once a guess reaches `enough`.  `bits` (WIDE x ceil(n_codes / 64) uint64)
    is scratch."""
    best = floor
    for first in range(0, codes_t.shape[1], WIDE):
        if parts_on_s[first] <= best:
            break
        width = min(WIDE, codes_t.shape[1] - first)
        _mark_codes(codes_t, cands, first, width, bits)
        for j in range(width):
            best = max(best, _codes_marked(bits, j))
        if best >= enough:
            break
    return best


@njit(cache=True)
def most_parts_inside(codes_t, cands, inside_columns, parts_on_s, bits, floor=0):
    """max(floor, max over every column g of |Split(C, g)| + [g in C]) (`inside_columns`: the columns of C's own
    guesses).  The guesses in C are counted first (at most |C| + 1); a guess outside C counts at most |C|, so the
    scan of the rest (max_parts) is skipped when the best reaches that, and otherwise stops there or once no later
    column can beat the best so far."""
    n = cands.shape[0]
    best = max(floor, most_parts_among(codes_t, cands, inside_columns, bits) + 1)
    if best >= n:  # no guess outside C makes more than |C| parts
        return best
    return max_parts(codes_t, cands, parts_on_s, n, bits, best)


@njit(cache=True)
def most_parts_among(codes_t, cands, columns, bits):
    """max over the listed columns g of |Split(C, g)| (0 when none are listed); `bits` sizes the codes."""
    last_seen = np.full(bits.shape[1] * 64, -1, dtype=np.int64)
    by_column = codes_t.T
    best = 0
    for j in range(columns.shape[0]):
        best = max(best, count_parts(by_column, columns[j], cands, last_seen, j))
    return best


@njit(cache=True, parallel=True)
def parts_every_column(codes_t, cands, n_codes, inside_of_column):
    """|Split(C, g)| + [g in C] for every column g of the secret-major matrix.  When every class of C has
    at most K_S + 1 members, Bound(t, K_S) = 2t - 1 for all of them and V_1(g, C) = 3|C| - this number."""
    n_cols = codes_t.shape[1]
    out = np.empty(n_cols, dtype=np.int64)
    n_blocks = (n_cols + WIDE - 1) // WIDE
    for b in prange(n_blocks):
        first = b * WIDE
        width = min(WIDE, n_cols - first)
        bits = np.zeros((WIDE, (n_codes + 63) // 64), dtype=np.uint64)
        _mark_codes(codes_t, cands, first, width, bits)
        for j in range(width):
            out[first + j] = _codes_marked(bits, j) + inside_of_column[first + j]
    return out


def parts_scratch(n_codes: int) -> np.ndarray:
    return np.zeros((WIDE, (n_codes + 63) // 64), dtype=np.uint64)


@njit(cache=True, parallel=True)
def v1_every_column(codes_t, cands, n_codes, btab):
    """V_1(g, C) for every column g of the secret-major matrix; HUGE where g does not split C (|C| >= 2)."""
    n_cols = codes_t.shape[1]
    out = np.empty(n_cols, dtype=np.int64)
    n_blocks = (n_cols + BLOCK - 1) // BLOCK
    workers = 16
    for w in prange(workers):
        counts = np.zeros((BLOCK, n_codes), dtype=np.int32)
        parts = np.empty(BLOCK, dtype=np.int64)
        totals = np.empty(BLOCK, dtype=np.int64)
        for b in range(w, n_blocks, workers):
            width = _count_block(codes_t, cands, b * BLOCK, counts, n_codes - 1, btab, parts, totals)
            for j in range(width):
                out[b * BLOCK + j] = totals[j] if parts[j] >= 2 else HUGE
    return out


@njit(cache=True)
def least_v1(codes_t, cands, n_codes, btab, parts_on_s, ceiling=HUGE):
    """min(ceiling, min over useful columns g of V_1(g, C)), for any C.  Bound(t, k) >= 2t - 1, so V_1(g, C) >=
    3|C| - 1 - |Split(C, g)| >= 3|C| - 1 - (g's part count on all secrets): with columns in that count's descending
    order, the scan stops at the first block whose first column cannot go below the least value so far."""
    n = cands.shape[0]
    counts = np.zeros((BLOCK, n_codes), dtype=np.int32)
    parts = np.empty(BLOCK, dtype=np.int64)
    totals = np.empty(BLOCK, dtype=np.int64)
    least = ceiling
    for first in range(0, codes_t.shape[1], BLOCK):
        if 3 * n - 1 - parts_on_s[first] >= least:
            break
        width = _count_block(codes_t, cands, first, counts, n_codes - 1, btab, parts, totals)
        for j in range(width):
            if parts[j] >= 2:
                least = min(least, totals[j])
    return least


@njit(cache=True)
def split(row, cands, n_codes):
    """The non-win classes of Split(C, g): (members grouped by class, start of each class, sizes)."""
    win = n_codes - 1
    size = np.zeros(n_codes, dtype=np.int64)
    for c in cands:
        size[row[c]] += 1
    size[win] = 0
    start = np.zeros(n_codes + 1, dtype=np.int64)
    for code in range(n_codes):
        start[code + 1] = start[code] + size[code]
    members = np.empty(start[n_codes], dtype=np.int32)
    fill = start[:n_codes].copy()
    for c in cands:
        code = row[c]
        if code != win:
            members[fill[code]] = c
            fill[code] += 1
    used = np.flatnonzero(size)
    return members, start[used], size[used]


@njit(cache=True, parallel=True)
def root_v12(codes, codes_t, openers, n_codes, btab, level, budget, parts_on_s):
    """V_1 or V_2 of each opener over all secrets; classes largest first, stopping once above `budget`."""
    n = codes.shape[1]
    everyone = np.arange(n).astype(np.int32)
    out = np.empty(openers.shape[0], dtype=np.int64)
    for j in prange(openers.shape[0]):
        members, starts, sizes = split(codes[openers[j]], everyone, n_codes)
        value = n
        for t in sizes:
            value += btab[t]
        if level >= 2:
            bits = np.zeros((WIDE, (n_codes + 63) // 64), dtype=np.uint64)
            for c in np.argsort(-sizes, kind="mergesort"):
                t = sizes[c]
                if value > budget or t < 4:
                    break
                k = max_parts(codes_t, members[starts[c]:starts[c] + t], parts_on_s, t - 1, bits)
                value += bound(t, k) - btab[t]
        out[j] = value
    return out


def lb3_by_count(n: int, budget, most_above) -> tuple[int, bool]:
    """(LB_3(C), exact) for |C| = n <= K_S + 1, where LB_3 = 3n - the most a useful guess scores (|Split(C, g)| +
    [g in C]; LB_3 unbounded when no guess scores 2), given most_above(floor) = max(floor, that most).  LB_3 >
    budget exactly when no guess scores above 3n - budget - 1, so the scan starts its best there and a guess that
    cannot beat it is not counted; a score is at most n + 1, so from there no scan is needed (LB_3 >= 2n - 1)."""
    beyond = 3 * n - budget - 1
    if beyond >= n + 1:
        return 2 * n - 1, False
    floor = max(0, int(beyond))
    most = int(most_above(floor))
    if floor > 0 and most == floor:
        return 3 * n - floor, False
    return (3 * n - most if most >= 2 else int(HUGE)), True


def lb3_by_least(budget, least_below) -> tuple[int, bool]:
    """(LB_3(C), exact) for a set larger than K_S + 1, given least_below(ceiling) = min(ceiling, the least V_1 of a
    useful guess): the scan stops at budget + 1, since no useful guess gives V_1 <= budget then; such an answer
    is a bound above the budget, not exact."""
    ceiling = min(budget + 1, HUGE)
    least = int(least_below(ceiling))
    return least, least < ceiling or ceiling == HUGE


def raised_sum(row, cands, n_codes, btab, level, budget, smallest, bound_of):
    """(V_level(g, C), exact) for the guess whose codes are `row`: |C| + each class at LB_1, then classes of at
    least `smallest` members raised to bound_of(class, step, cap) -> (value, exact) = LB_step, largest first,
    stopping once the total exceeds `budget`.  From level 4 on they are raised twice, to LB_3 (cheap) and then
    to LB_level, so that each costly class starts with little slack: LB_3 <= LB_i for every i >= 3, since
    LB_{i+2} >= LB_i (V_i grows with its classes' bounds) from LB_3 >= LB_1 and LB_4 >= LB_2 (a part of C
    splits into no more parts than C), and LB_4 >= LB_3 from LB_2 >= LB_1."""
    members, starts, sizes = split(row, cands, n_codes)
    raised = btab[sizes]
    total = len(cands) + int(raised.sum())
    exact = True
    if level == 1:
        return total, exact
    order = np.argsort(-sizes, kind="stable")
    order = order[sizes[order] >= smallest].tolist()
    for step in raise_steps(level):
        exact = True
        for c in order:
            if total > budget:
                return total, False
            value, done = bound_of(members[starts[c]:starts[c] + sizes[c]], step, budget - total + int(raised[c]))
            total = min(total + value - int(raised[c]), HUGE)
            raised[c] = value
            exact = exact and done
    return total, exact


def raise_steps(level: int) -> tuple[int, ...]:
    """The bounds V_level raises its classes to, in turn (see `raised_sum`)."""
    return (3, level) if level >= 4 else (level,)


def least_value(keys, guesses, budget, value_of):
    """(min over j of value_of(guesses[j]), exact), given keys[j] <= that value: guesses are visited by key
    ascending, and once the next key is no smaller than the least value found, nothing later can be
    smaller.  value_of(g, cap) -> (value, exact) may stop early above cap."""
    least, least_exact = HUGE, HUGE
    for j in np.argsort(keys, kind="stable"):
        key = int(keys[j])
        if key >= least or key >= HUGE:
            break
        if key > budget:
            return key, False
        value, exact = value_of(guesses[j], min(budget, least - 1))
        least = min(least, value)
        if exact:
            least_exact = min(least_exact, value)
    return least, least == least_exact


class LowerBounds:
    """LB_i / V_i over one code matrix (guesses x secrets), memoised per (level, candidate set).

    Candidate sets are sorted int32 arrays of secret indices.  `guess_of_secret[s]` is the guess
    index of secret s (every secret is an allowed guess).  K_S is computed here, not read.
    """

    def __init__(self, codes: np.ndarray, guess_of_secret: np.ndarray, n_codes: int):
        self.codes = codes
        self.guess_of_secret = np.asarray(guess_of_secret, dtype=np.int64)
        self.n_codes = int(n_codes)
        self.everyone = np.arange(codes.shape[1], dtype=np.int32)
        parts = parts_on_all(codes, self.n_codes)
        self.k_s = int(parts.max())
        self.column_guess = np.argsort(-parts, kind="stable")  # the guess behind each column of codes_t
        self.parts_sorted = parts[self.column_guess]
        self.codes_t = np.ascontiguousarray(codes[self.column_guess].T)
        self.column_of_guess = np.argsort(self.column_guess)
        self.bits = parts_scratch(self.n_codes)
        self.btab = bound_column(codes.shape[1], self.k_s)
        self.memo = BoundedMemo(VALUES_LIMIT)  # (level, candidate set) -> (value, exact)

    def lb(self, cands: np.ndarray, level: int, budget: int = HUGE, within=None) -> tuple[int, bool]:
        """(LB_level(C), exact); when not exact the value is a lower bound above `budget`.  `within`: the scan
        context of a set containing C (see _within), which LB_3 then counts over."""
        n = len(cands)
        if n <= 2 or level == 1 or (level == 2 and n <= 3):
            return int(self.btab[n]), True
        key = (level, cands.tobytes())
        known = self.memo.get(key)
        if known is not None and (known[1] or known[0] > budget):
            return known
        if level == 2:
            result = self._lb2(cands, budget)
        elif level == 3 and within is not None:  # C inside a set P of at most K_S + 1: P's columns (see _within)
            parent, sub_t, caps, place = within
            local, inside = np.searchsorted(parent, cands).astype(np.int32), place[self.inside_columns(cands)]
            result = lb3_by_count(n, budget, lambda floor: most_parts_inside(sub_t, local, inside, caps, self.bits,
                                                                             floor))
        elif level == 3 and n <= self.k_s + 1:  # every class of C has Bound(t, K_S) = 2t - 1: V_1 = 3|C| - count
            inside = self.inside_columns(cands)
            result = lb3_by_count(n, budget, lambda floor: most_parts_inside(self.codes_t, cands, inside,
                                                                             self.parts_sorted, self.bits, floor))
        elif level == 3:
            result = lb3_by_least(budget, lambda ceiling: least_v1(self.codes_t, cands, self.n_codes, self.btab,
                                                                   self.parts_sorted, ceiling))
        else:
            result = self._least_v(cands, level - 2, budget)
        self.memo[key] = result
        return result

    def _lb2(self, cands, budget):
        """(LB_2(C), exact), or Bound(|C|, k) > budget (not exact) when no guess makes more than the k of
        `parts_beyond`: the scan starts its best at k, so it skips every guess that cannot beat it."""
        n = len(cands)
        beyond = int(parts_beyond(n, budget))
        k = max_parts(self.codes_t, cands, self.parts_sorted, n - 1, self.bits, beyond)
        return int(bound(n, k)), k > beyond

    def v1_columns(self, cands) -> tuple[np.ndarray, np.ndarray | None]:
        """(V_1(g, C) for every column of codes_t, HUGE where g is not useful; for C of at most K_S + 1 members
        the part count of every column on C, else None)."""
        n = len(cands)
        if n > self.k_s + 1:
            return v1_every_column(self.codes_t, cands, self.n_codes, self.btab), None
        inside = np.zeros(len(self.column_guess), dtype=np.int64)
        inside[self.inside_columns(cands)] = 1
        count = parts_every_column(self.codes_t, cands, self.n_codes, inside)
        return np.where(count - inside >= 2, 3 * n - count, HUGE), count - inside

    def inside_columns(self, cands) -> np.ndarray:
        """The columns of codes_t that are the guesses of C's own secrets."""
        return self.column_of_guess[self.guess_of_secret[cands]]

    def _least_v(self, cands, level, budget):
        """min over useful g of V_level(g, C) (see `least_value`); from V_3 on, the LB_3 scans of C's subsets go
        through C's own columns (`_within`; V_2 raises its classes to LB_2 only)."""
        keys, parts = self.v1_columns(cands)
        within = self._within(cands, parts) if parts is not None and level >= 3 else None
        return least_value(keys, self.column_guess, budget,
                           lambda g, cap: self.v(int(g), cands, level, cap, within))

    def _within(self, cands, parts):
        """(C, its rows of codes_t with the columns that split C, by their part count on C (`parts`), descending;
        those counts; each column's place among them, -1 for the others).  A subset D of C splits into no more
        parts than C does, so D's LB_3 scan (lb) reads only these columns and stops once their count on C cannot
        beat D's best; a column that does not split C does not split D, and D's own guesses split C."""
        order = np.argsort(-parts, kind="stable")
        order = order[parts[order] >= 2]
        place = np.full(len(parts), -1, dtype=np.int64)
        place[order] = np.arange(len(order))
        return cands, np.ascontiguousarray(self.codes_t[cands][:, order]), parts[order], place

    def v(self, g: int, cands: np.ndarray, level: int, budget: int = HUGE, within=None) -> tuple[int, bool]:
        """(V_level(g, C), exact): classes start at LB_1 and are raised largest first (see `raised_sum`)."""
        smallest = 4 if level == 2 else 3  # smaller classes have LB_level = LB_1
        return raised_sum(self.codes[g], cands, self.n_codes, self.btab, level, budget, smallest,
                          lambda cls, step, cap: self.lb(cls, step, cap, within))

    def openers(self, openers, level: int, budget: int = HUGE) -> np.ndarray:
        """V_level(g, S) of each opener (early exit above `budget`)."""
        openers = np.asarray(openers, dtype=np.int64)
        if level <= 2:  # a kernel call per ROOT_CHUNK openers: a signal is handled between two calls
            return np.concatenate([np.empty(0, dtype=np.int64)] + [
                root_v12(self.codes, self.codes_t, openers[at:at + ROOT_CHUNK], self.n_codes, self.btab, level,
                         budget, self.parts_sorted) for at in range(0, len(openers), ROOT_CHUNK)])
        return np.array([self.v(int(g), self.everyone, level, budget)[0] for g in openers], dtype=np.int64)
