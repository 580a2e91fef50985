"""Best_n(C) for ApMinTotal: the n useful guesses of a candidate set with the lowest (MostParts, InSet,
ExpSizeSplit) -- or MaxSizeSplit -- ties by guess index (the ranking of pipeline.search.apmintotal.value).

Ranking Best_n is the cost of the search, so it has two ways of counting Split(C, g):
- for sets of up to PAIR_MAX members (when the guess list is dense), 8-bit pairwise comparisons of the
  candidates' codes, vectorised over blocks of guesses (`_pair_stats`; 3-10x faster than counting classes
  guess by guess);
- larger sets count classes, the parent's ranking first, dropping a guess as soon as it has lost too many
  candidates to shared classes to enter the ranking (`_bounded_counts`).
Both give the same ranking.  Every kernel reads the search's context (apmintotal.ApContext).
"""

import numpy as np
from numba import njit

from pipeline.search.partition import ROW_SCAN_MIN

PAIR_BLOCK = 512  # guesses per block of `_pair_stats` (its rows of candidates' codes stay in L1)
PAIR_MAX = 255  # `_pair_stats` counts in uint8
PAIR_RATIO = 160  # pairwise when |C| * |G| <= PAIR_RATIO * (guesses listed): measured, it costs ~|C|^2 |G| / 300 steps
                  # of the counting scan's |C| per listed guess (10x faster at |C| = 10, 2x at 120 on Wordle)
LOST, PAIRS, MOST = range(3)  # rows of ctx.split_stats


@njit(cache=True, inline="always")
def _bounded_counts(line, cand, counts, max_lost):
    """(parts, largest, sum t^2, lost) of Split(C, g) for the code line of g, where lost = |C| - parts.

    Stops early, with partial figures and lost > max_lost, once the split has two parts and has already lost
    more than max_lost candidates to shared classes: such a guess is useful but cannot rank high enough.
    `counts` is left zeroed.
    """
    m = cand.shape[0]
    parts, largest, sum_sq, lost = 0, 0, 0, 0
    i = 0
    while i < m:
        r = line[cand[i]]
        k = counts[r]
        counts[r] = k + 1
        i += 1
        sum_sq += 2 * k + 1
        if k == 0:
            parts += 1
        else:
            lost += 1
        if k >= largest:
            largest = k + 1
        if lost > max_lost and parts >= 2:
            break
    if i * 4 > counts.shape[0]:
        counts[:] = 0
    else:
        for j in range(i):
            counts[line[cand[j]]] = 0
    return parts, largest, sum_sq, lost


@njit(cache=True, inline="always")
def _insert(top_g, top_key, n, key, g):
    """Put (key, g) into the ranking top_g/top_key[:n] (sorted by key, then guess index) unless it is there
    already or ranks below a full ranking; returns the new length."""
    breadth = top_g.shape[0]
    if n == breadth and (key > top_key[n - 1] or (key == top_key[n - 1] and g >= top_g[n - 1])):
        return n
    for j in range(n):
        if top_g[j] == g:
            return n
    pos = n if n < breadth else breadth - 1
    while pos > 0 and (top_key[pos - 1] > key or (top_key[pos - 1] == key and top_g[pos - 1] > g)):
        top_key[pos] = top_key[pos - 1]
        top_g[pos] = top_g[pos - 1]
        pos -= 1
    top_key[pos] = key
    top_g[pos] = g
    return n + 1 if n < breadth else n


@njit(cache=True, inline="always")
def _max_lost(top_key, n, scale, inset):
    """The most candidates a guess may lose to shared classes and still enter the ranking (|C| while it is not
    full): its rank (|C| - parts) * 2 + 1 - inset must not exceed the last one's."""
    if n < top_key.shape[0]:
        return np.int64(1 << 40)
    return (top_key[n - 1] // scale - 1 + inset) // 2


@njit(cache=True)
def best_n(ctx, cand, top_g, top_key, allowed, guesses, useful, seeds, stop_perfect):
    """Best_n(C) over the guesses listed (in index order) into top_g/top_key (n = their length), best first;
    returns how many were found, how many useful guesses it copied to `useful` (in the same order) and, when
    `stop_perfect`, the first listed guess outside C that splits C into singletons (else -1).

    key = ((|C| - parts) * 2 + (1 - [g in C])) * (|C|^2 + 1) + sum t^2 orders by
    (MostParts, InSet, ExpSizeSplit) -- with the largest part t in place of
    sum t^2 when ctx.by_largest: (MostParts, InSet, MaxSizeSplit); equal keys
    keep guess-index order.
    Only useful guesses (at least two parts) are ranked, and only those
    `allowed` marks (an empty `allowed` allows every guess: normal mode).
    A guess that does not split C splits none of its subsets, and a guess
    hard mode forbids stays forbidden below, so `useful` is all a class of C
    needs to scan.  The `seeds` (e.g. the parent's ranking) are ranked first,
    so that the ranking fills with good guesses early and most guesses can
    be dropped after a few candidates (`_bounded_counts`); they change no
    result.  With `stop_perfect` (no candidate splits C into singletons) a
    perfect split outside C is first in Best_n and worth 2|C|, the least any
    guess can reach: the scan stops there, its ranking and list incomplete.
    """
    m = cand.shape[0]
    for c in cand:
        ctx.in_c[c] = True
    if m <= PAIR_MAX and m * ctx.codes.shape[0] <= PAIR_RATIO * guesses.shape[0]:
        _pair_stats(ctx.codes_t, cand, ctx.split_stats, ctx.equal)
        n, u, perfect = _rank_from_stats(ctx, cand, top_g, top_key, allowed, guesses, useful, stop_perfect)
    else:
        n, u, perfect = _rank_by_counting(ctx, cand, top_g, top_key, allowed, guesses, useful, seeds, stop_perfect)
    for c in cand:
        ctx.in_c[c] = False
    return n, u, perfect


@njit(cache=True)
def _pair_stats(codes_t, cand, stats, equal):
    """Split(C, g) figures of every guess g from pairwise comparisons of the candidates' codes, 8-bit and
    vectorised over blocks of consecutive guesses (for small C, several times faster than counting classes):
    stats[LOST, g] = |C| - parts, stats[PAIRS, g] = pairs of candidates in one class (sum t^2 = |C| + 2 pairs),
    stats[MOST, g] = largest class - 1.  Candidate i adds the number of earlier candidates in its class to
    PAIRS, one to LOST if that number is not zero, and it is at most the largest class - 1 (reached by the
    last member of a largest class).  Needs |C| <= PAIR_MAX."""
    m = cand.shape[0]
    n_guesses = codes_t.shape[1]
    for g0 in range(0, n_guesses, PAIR_BLOCK):
        w = min(PAIR_BLOCK, n_guesses - g0)
        lost, pairs, most = stats[LOST, g0:g0 + w], stats[PAIRS, g0:g0 + w], stats[MOST, g0:g0 + w]
        lost[:] = 0
        pairs[:] = 0
        most[:] = 0
        for i in range(1, m):
            row = codes_t[cand[i], g0:g0 + w]
            same = equal[:w]
            same[:] = 0
            for j in range(i):
                other = codes_t[cand[j], g0:g0 + w]
                for b in range(w):
                    same[b] += np.uint8(row[b] == other[b])
            for b in range(w):
                pairs[b] += same[b]
                lost[b] += same[b] > 0
                most[b] = max(most[b], same[b])


@njit(cache=True)
def _rank_from_stats(ctx, cand, top_g, top_key, allowed, guesses, useful, stop_perfect):
    """best_n's selection from ctx.split_stats (`_pair_stats`): (ranking length, useful guesses, perfect)."""
    m = cand.shape[0]
    scale = m * m + 1
    n, u = 0, 0
    every = allowed.shape[0] == 0
    stats = ctx.split_stats
    for g in guesses:
        if not every and not allowed[g]:
            continue
        lost = stats[LOST, g]
        if m - lost < 2:
            continue
        useful[u] = g
        u += 1
        s = ctx.secret_of_guess[g]
        inset = 1 if (s >= 0 and ctx.in_c[s]) else 0
        if stop_perfect and lost == 0 and inset == 0:
            return n, u, g
        third = stats[MOST, g] + 1 if ctx.by_largest else m + 2 * stats[PAIRS, g]
        n = _insert(top_g, top_key, n, (lost * 2 + 1 - inset) * scale + third, g)
    return n, u, -1


@njit(cache=True)
def _rank_by_counting(ctx, cand, top_g, top_key, allowed, guesses, useful, seeds, stop_perfect):
    """best_n's selection counting the classes of each listed guess (seeds first, then dropping a guess as soon
    as it cannot enter the ranking): (ranking length, useful guesses, perfect)."""
    n, u = 0, 0
    every = allowed.shape[0] == 0
    for g in seeds:
        if every or allowed[g]:
            n, _, _, _ = _rank_guess(ctx, cand, g, top_g, top_key, n, False)
    for g in guesses:
        if not every and not allowed[g]:
            continue
        n, parts, lost, inset = _rank_guess(ctx, cand, g, top_g, top_key, n, True)
        if parts >= 2:
            useful[u] = g
            u += 1
            if stop_perfect and lost == 0 and inset == 0:
                return n, u, g
    return n, u, -1


@njit(cache=True, inline="always")
def _rank_guess(ctx, cand, g, top_g, top_key, n, bounded):
    """Count Split(C, g) (stopping early when `bounded` and g cannot enter the ranking) and rank g if it is
    useful and good enough; returns (ranking length, parts, lost, [g in C]).  ctx.in_c marks C."""
    m = cand.shape[0]
    scale = m * m + 1
    s = ctx.secret_of_guess[g]
    inset = 1 if (s >= 0 and ctx.in_c[s]) else 0
    max_lost = _max_lost(top_key, n, scale, inset) if bounded else np.int64(m)
    if m >= ROW_SCAN_MIN:
        parts, largest, sum_sq, lost = _bounded_counts(ctx.codes[g], cand, ctx.counts, max_lost)
    else:
        parts, largest, sum_sq, lost = _bounded_counts(ctx.codes_t[:, g], cand, ctx.counts, max_lost)
    if parts >= 2 and lost <= max_lost:
        key = (lost * 2 + 1 - inset) * scale + (largest if ctx.by_largest else sum_sq)
        n = _insert(top_g, top_key, n, key, g)
    return n, parts, lost, inset

