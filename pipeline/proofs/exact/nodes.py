"""The exact search's scans of one node, in numba: whether a candidate gives every candidate its own answer, the
guesses' part counts, and the guesses worth searching with their floors.  pipeline/proofs/exact/search.py puts
them together."""

import numpy as np
from numba import njit

from pipeline.proofs.bounds.lower import HUGE
from pipeline.proofs.game.hard_mode import legal_word

INFEASIBLE = 1 << 40  # the value of a set no strategy solves in the guesses left
NO_LIMIT = -1  # guesses left when there is no limit


@njit(cache=True)
def one_fewer(left):
    """The guesses left one guess deeper."""
    return NO_LIMIT if left == NO_LIMIT else left - 1


@njit(cache=True)
def part_counts(codes, guesses, cands, n_codes):
    """(how many parts each listed guess makes of C, whether one gives every candidate its own answer): the scan
    stops at the first that does (the counts after it are left 0)."""
    last = np.full(n_codes, -1, dtype=np.int64)
    parts = np.zeros(guesses.shape[0], dtype=np.int64)
    for j in range(guesses.shape[0]):
        row = codes[guesses[j]]
        for c in cands:
            if last[row[c]] != j:
                last[row[c]] = j
                parts[j] += 1
        if parts[j] == cands.shape[0]:
            return parts, True
    return parts, False


@njit(cache=True)
def node_options(codes, guesses, cands, parts, n_codes, costs, beta, searched):
    """(the listed guesses that split C, the `searched` ones of them with floor < beta, best floor first (ties:
    the least sum of squared class sizes first, then list order), their floors, k): `parts` their part counts on
    C (part_counts), k the most; a guess's floor is |C| + sum over its non-win classes of costs[k, size], counted
    into one row of n_codes that is cleared by the candidates it counted."""
    count = np.zeros(n_codes, dtype=np.int64)
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
def perfect_candidate(codes, guess_of_secret, words, counts, fixed, least, cands, seen) -> bool:
    """Does some candidate that is a legal guess (under the rule fixed / least) give every candidate its own
    answer?  Then MinTotal(C) = 2|C| - 1, its least possible value (one secret found by the first guess, each
    other by the second).  `seen` is a False row of n_codes, left False."""
    for c in cands:
        g = guess_of_secret[c]
        if g >= 0 and legal_word(words[g], counts[g], fixed, least) and separates(codes[g], cands, seen):
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
