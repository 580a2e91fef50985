"""Part-count scans of the hard-mode bounds, and LB_2 / LB_3 of one class in one numba call.

LB_2(C, s) = Bound(|C|, most parts of a guess allowed in s) and, for small C, LB_3(C, s) = 3|C| - the most parts
(+ 1 for a win) of such a guess: each is a scan of the allowed guesses' part counts on C, first those of C's
winning guesses (their best is the floor of the rest), pruned by each guess's letter ceiling and, for a subset of
a class whose counts are known, by its count there (`scan_guesses`).  A funnel level asks this of hundreds of
thousands of classes, so the whole question -- the budget's part count, both scans -- is one kernel call
(`lb2_in_state`, `lb3_in_state`) over the tuple of the game's arrays and, optionally, a superset's that
`scan_arrays` builds.
"""

import numpy as np
from numba import njit

from pipeline.search.bounds.lower import bound, parts_above
from pipeline.search.bounds.max_parts import colour_table, letter_ceiling

LETTERS_FROM = 8  # part scans of larger sets skip guesses by their letter ceiling (smaller: not worth its table)


@njit(cache=True)
def allowed_among(words, counts, greens, at_least, guesses):
    """The guesses (indices into `words`) that the state (greens, at_least) allows, in order."""
    out = np.empty(guesses.shape[0], dtype=np.int32)
    n = 0
    for g in guesses:
        ok = True
        for i in range(greens.shape[0]):
            if greens[i] >= 0 and words[g, i] != greens[i]:
                ok = False
                break
        if ok:
            for x in range(at_least.shape[0]):
                if at_least[x] > counts[g, x]:
                    ok = False
                    break
        if ok:
            out[n] = g
            n += 1
    return out[:n]


@njit(cache=True, inline="always")
def split_score(line, cands, win, bonus, best, seen, mark):
    """|Split(C, g)| + bonus * [g wins on a candidate] for g's code line (line[c] = g's code on candidate c),
    or a number <= best once even all the remaining candidates in new parts (and the bonus) could not beat
    `best`.  `seen` marks the codes met with `mark`."""
    n = cands.shape[0]
    parts = 0
    won = 0
    for i in range(n):
        code = line[cands[i]]
        if seen[code] != mark:
            seen[code] = mark
            parts += 1
        if code == win:
            won = bonus
        if parts + (n - 1 - i) + bonus <= best:
            break
    return parts + won


@njit(cache=True)
def submatrix(codes, rows, cols):
    """codes[rows][:, cols], contiguous."""
    out = np.empty((rows.shape[0], cols.shape[0]), dtype=codes.dtype)
    for j in range(rows.shape[0]):
        for k in range(cols.shape[0]):
            out[j, k] = codes[rows[j], cols[k]]
    return out


def scan_arrays(solver, capping=None) -> tuple:
    """The arrays tuple of the kernels below for a HardBoundSolver: (codes_t, n_codes, win, words, counts, win_guess (empty: none),
    letter_keys, no_keys, secret_letters, capped, caps, row_of, local, where), the last four a superset's
    `capping` (capped True) or placeholders of the same types."""
    codes_t = solver.codes_t
    if capping is None:
        none = np.zeros(0, dtype=np.int64)
        capping = (none, none, np.zeros((0, 0), dtype=codes_t.dtype), none)
    win_guess = solver.win_guess if solver.win_guess is not None else np.zeros(0, dtype=np.int64)
    keys = solver.letter_keys
    return (codes_t, solver.n_codes, solver.win, solver.words, solver.counts, win_guess, keys,
            np.ascontiguousarray(keys[:0]), solver.secret_letters, len(capping[0]) > 0, *capping)


@njit(cache=True)
def scan_guesses(arrays, cands, guesses, floor, stop, bonus, keys, table):
    """max(floor, max over `guesses` of |Split(C, g)| + bonus * [g wins on a candidate]), exact below `stop`:
    the scan ends once the best reaches it.  A guess is skipped when its letter ceiling (max_parts.py; `keys`
    has a row per guess, or none to skip nothing) + bonus cannot beat the best so far, and its count is
    abandoned once even all its remaining candidates in new parts (and `bonus` for a win) could not.
    bonus = 0 gives the most parts (LB_2); bonus = 1 what LB_3 needs when every class fits in two levels.

    When the arrays carry a superset P's capping (C a subset of P whose part counts are known), caps[g] >=
    |Split(C, g)| (g's part count on P, as a part of C lies in a part of P; UNBOUNDED for a guess without one)
    skips a guess that cannot beat the best before anything else about it is read, and a guess with a row in
    `local` (local[row_of[g], where[c]] = g's code on candidate c of P) is counted there, a few cache lines
    instead of one a candidate; any other guess (row_of -1) is counted from `codes_t`."""
    codes_t, n_codes, win, capped = arrays[0], arrays[1], arrays[2], arrays[9]
    caps, row_of, local = arrays[10], arrays[11], arrays[12]
    positions = arrays[13][cands] if capped else np.zeros(0, dtype=np.int64)
    seen = np.full(n_codes, -1, dtype=np.int64)
    best = floor
    use_letters = keys.shape[0] > 0
    for j in range(guesses.shape[0]):
        if best >= stop:
            break
        g = guesses[j]
        if capped and caps[g] + bonus <= best:
            continue
        if use_letters and letter_ceiling(keys[g], table) + bonus <= best:
            continue
        row = row_of[g] if capped else -1
        if row >= 0:
            best = max(best, split_score(local[row], positions, win, bonus, best, seen, j))
        else:
            best = max(best, split_score(codes_t[:, g], cands, win, bonus, best, seen, j))
    return best


@njit(cache=True)
def most_split_in_state(arrays, cands, greens, at_least, allowed, bonus, stop, floor):
    """The scan of the guesses `allowed` in the state (greens, at_least), from `floor`, exact below `stop`:
    C's allowed winning guesses first (each candidate has at most one, so no other guess wins), whose best is the
    floor of the scan of all, which then counts no win."""
    words, counts, win_guess = arrays[3], arrays[4], arrays[5]
    if cands.shape[0] > LETTERS_FROM and arrays[6].shape[0] > 0:
        keys, table = arrays[6], colour_table(cands, arrays[8])
    else:
        keys, table = arrays[7], np.zeros((1, 1), dtype=np.int64)
    best = floor
    if win_guess.shape[0] > 0:
        winners = win_guess[cands]
        winners = allowed_among(words, counts, greens, at_least, winners[winners >= 0])
        best = scan_guesses(arrays, cands, winners, best, stop, bonus, keys, table)
        stop, bonus = min(stop, cands.shape[0]), 0
    return scan_guesses(arrays, cands, allowed, best, stop, bonus, keys, table)


@njit(cache=True)
def lb2_in_state(arrays, cands, greens, at_least, allowed, budget):
    """(LB_2(C, s), exact) = Bound(|C|, most parts of an allowed guess), or only a bound above `budget`.

    Bound falls as the part count k rises, so LB_2 > budget exactly when no allowed guess makes more than k_max
    parts (the largest k with Bound(|C|, k) > budget): a scan that only has to show that skips every guess whose
    letter ceiling is at most k_max, which a scan for the exact maximum (whose best so far is lower) must count.
    Only when some guess beats k_max is the maximum needed; Bound is flat from k = |C| - 1, so that scan stops
    there."""
    n = cands.shape[0]
    k_max = parts_above(n, budget)
    floor = 0
    if k_max > 0:
        floor = most_split_in_state(arrays, cands, greens, at_least, allowed, 0, k_max + 1, k_max)
        if floor <= k_max:
            return bound(n, k_max), False
    return bound(n, max(1, most_split_in_state(arrays, cands, greens, at_least, allowed, 0, n - 1, floor))), True


@njit(cache=True)
def lb3_in_state(arrays, btab, cands, greens, at_least, allowed, budget):
    """(LB_3(C, s), exact, applies): 3|C| - max over allowed g of (|Split(C, g)| + [g wins]), where |C| <= K_S + 1
    puts every class of a split in Bound's two flat levels (applies False otherwise, or when no allowed guess
    splits C).  As in `lb2_in_state`, LB_3 > budget needs only a scan showing that no allowed guess scores above
    3|C| - budget - 1 (a guess that splits nothing scores at most 1, and then no guess is useful and LB_3 is
    unbounded: the bound holds too)."""
    n = cands.shape[0]
    if btab[n] != 2 * n - 1:  # n > K_S + 1: a class could need a third level
        return 0, False, False
    k_max = 3 * n - budget - 1
    if k_max > n:  # no guess scores above |C| + 1: LB_3 >= 2|C| - 1 > budget
        return 2 * n - 1, False, True
    floor = 0
    if k_max >= 2:
        floor = most_split_in_state(arrays, cands, greens, at_least, allowed, 1, k_max + 1, k_max)
        if floor <= k_max:
            return 3 * n - k_max, False, True
    best = most_split_in_state(arrays, cands, greens, at_least, allowed, 1, n + 1, floor)
    return 3 * n - best, 3 * n - best <= budget, best >= 2
