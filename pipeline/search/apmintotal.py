"""ApMinTotal(C, n): the paper's upper bound, searched in numba (docs/algorithms.md §3).

    ApMinTotal(C, n) = 1                                      if |C| = 1
                     = 3                                      if |C| = 2 (guess a candidate)
                     = min_{g in Best_n(C)} |C| + sum_{C' in Split(C, g), C' != {g}} ApMinTotal(C', n)

Best_n(C) is the n useful guesses (at least two parts) with the lowest
(MostParts, InSet, ExpSizeSplit), ties by guess index; the strategy takes the
first guess of that ranking that reaches the minimum.  `ranking="MaxSizeSplit"`
ranks by (MostParts, InSet, MaxSizeSplit) instead: the authors' earlier code
(its BaseOptimizer's mostParts, firstValid, maxSizeSplit), which gives the
paper's Primel figure at n = 20 (29011; ExpSizeSplit gives 29021).

Beyond the paper, and without changing any value or chosen guess:
- exact lower bounds: ApMinTotal(C') >= MinTotal(C') >= 2|C'| - 1, so a guess
  with k parts is worth at least 3|C| - k - [g in C].  That bound never
  decreases along the ranking, so the scan of Best_n stops at the first guess
  whose bound reaches the best value found (this also covers "a candidate
  splitting C into singletons is optimal");
- alpha-beta: every call gets a budget beta and only needs the exact value if
  it is below beta; otherwise it returns some value >= beta.  A class's budget
  is what its guess may still spend given the exact values and lower bounds of
  its siblings; a guess is dropped as soon as its running total reaches the
  best value so far (later guesses must be strictly better, which keeps the
  first-in-ranking tie rule); classes are searched largest first, which
  raises the running total fastest;
- ranking Best_n, the cost of the search: for sets of up to PAIR_MAX members (when the guess list is dense)
  from 8-bit pairwise comparisons of the candidates' codes, vectorised over blocks of guesses
  (`_pair_stats`; 3-10x faster than counting classes guess by guess); larger sets count classes, the
  parent's ranking first, dropping a guess as soon as it has lost too many candidates to shared classes
  to enter the ranking;
- a guess outside C splitting C into singletons (when no candidate does) is first in Best_n and worth
  2|C|, the least any guess can reach: the scan stops there;
- a memo keyed by the sorted candidate set (hash table with the sets kept in
  a pool and compared exactly), holding exact values with their guess and
  proven lower bounds, bounded by `max_entries` and `max_pool` set members.

The game's rules, as the exact solver plays them:
- hard mode: Best_n(C) ranks only the guesses the NYT rule allows after the
  responses that led to C (`pipeline.search.hard_mode`); the state travels
  with every node and is part of the memo key;
- a guess limit: a node with one guess left and two or more candidates is
  infeasible (value IMPOSSIBLE, which sums keep above any real total), so a
  guess whose subtree would need more guesses loses to any feasible one;
  the guesses left are part of the memo key.  ApMinTotal is then the best
  strategy within Best_n that meets the limit (or IMPOSSIBLE if none does).

The recursion runs inside numba on an explicit stack; candidate sets are
sorted int64 arrays of secret indices.
"""

from collections import namedtuple
from dataclasses import dataclass, field

import numpy as np
from numba import njit

from pipeline.search.arrays import kernel_input, zeroed
from pipeline.search.breadth_first import NODES, UNLIMITED, expand, new_nodes, node_arrays, node_set
from pipeline.search.hard_mode import allowed_into, initial_state, is_allowed, symbol_counts, update_state
from pipeline.search.partition import ROW_SCAN_MIN, guess_of_secret, split_classes
from pipeline.search.tree import Tree, from_arrays
from pipeline.search.valuations import transposed

RANKINGS = ("ExpSizeSplit", "MaxSizeSplit")  # what orders Best_n after (MostParts, InSet)
INF = 1 << 60
IMPOSSIBLE = 1 << 40  # value of a node no strategy within Best_n solves in the guesses left (sums stay < INF)
# counters in the `info` array
ENTRIES, POOL_USED, SCANS, HITS, DROPPED, MAX_ENTRIES, MAX_POOL = range(7)
PAIR_BLOCK = 512  # guesses per block of `_pair_stats` (its rows of candidates' codes stay in L1)
PAIR_MAX = 255  # `_pair_stats` counts in uint8
PAIR_RATIO = 160  # pairwise when |C| * |G| <= PAIR_RATIO * (guesses listed): measured, it costs ~|C|^2 |G| / 300 steps
                  # of the counting scan's |C| per listed guess (10x faster at |C| = 10, 2x at 120 on Wordle)
LOST, PAIRS, MOST = range(3)  # rows of ctx.split_stats


ApContext = namedtuple("ApContext", ["codes", "codes_t", "secret_of_guess", "guess_of_secret", "counts", "in_c",
                                     "breadth", "win", "hard", "words", "word_counts", "allowed", "split_stats",
                                     "equal", "by_largest", "lists"])
ApContext.__doc__ = """What every search kernel reads: the (G, S) code matrix and its transpose, secret_of_guess and
its inverse, scratch (zeroed counts over the codes, a mask over the secrets), the breadth n, the win code, hard mode
with the encoded guesses, their symbol counts and a mask over the guesses, scratch for `_pair_stats` (its (3, G)
figures and a uint8 row of PAIR_BLOCK counters), whether
Best_n's third key is MaxSizeSplit (else ExpSizeSplit), and room for the guess list of each depth of the search
(`lists`: row d + 1 holds the useful guesses of the node at depth d; the search grows a copy when it goes deeper)."""

ApMemo = namedtuple("ApMemo", ["hash", "offset", "length", "value", "exact", "guess", "pool"])
ApMemo.__doc__ = """The memo: an open-addressing table of slots (key hash, offset and length of the key in `pool`,
value, whether the value is exact or only a lower bound, the guess behind an exact value) and the key pool."""


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


@njit(cache=True)
def _perfect_candidate(ctx, cand, greens, at_least):
    """The lowest-index candidate guess (allowed in hard mode) splitting C into singletons, or -1.

    It is first in Best_n (most parts, in C, smallest sizes; ties by index) and its total 2|C| - 1 is the
    least possible, so the ranking scan is not needed."""
    if cand.shape[0] > ctx.counts.shape[0]:
        return -1
    best = -1
    for c in cand:
        g = ctx.guess_of_secret[c]
        if g < 0 or (best >= 0 and g > best):
            continue
        if ctx.hard and not is_allowed(ctx.words[g], ctx.word_counts[g], greens, at_least):
            continue
        line = ctx.codes_t[:, g]
        perfect = True
        for x in cand:
            r = line[x]
            if ctx.counts[r] != 0:
                perfect = False
                break
            ctx.counts[r] = 1
        for x in cand:
            ctx.counts[line[x]] = 0
        if perfect:
            best = g
    return best


@njit(cache=True)
def _hash(cand):
    h = np.int64(-3750763034362895579)  # FNV-1a offset basis (as int64)
    for c in cand:
        h = (h ^ c) * np.int64(1099511628211)
    return h


@njit(cache=True)
def _find(cand, h, memo):
    """Slot holding `cand`, or -(empty slot) - 1 where it would go."""
    mask = memo.hash.shape[0] - 1
    slot = h & mask
    m = cand.shape[0]
    while memo.length[slot] != 0:
        if memo.hash[slot] == h and memo.length[slot] == m:
            off = memo.offset[slot]
            same = True
            for i in range(m):
                if memo.pool[off + i] != cand[i]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask
    return -slot - 1


@njit(cache=True)
def _store(cand, h, slot, value, exact, guess, memo, info):
    if slot < 0:  # look again: the recursion may have filled the empty slot found on entry
        slot = _find(cand, h, memo)
    if slot < 0:
        if info[ENTRIES] >= info[MAX_ENTRIES] or info[POOL_USED] + cand.shape[0] > info[MAX_POOL]:
            info[DROPPED] += 1
            return
        slot = -slot - 1
        off = info[POOL_USED]
        memo.pool[off: off + cand.shape[0]] = cand
        info[POOL_USED] += cand.shape[0]
        info[ENTRIES] += 1
        memo.hash[slot], memo.offset[slot], memo.length[slot] = h, off, cand.shape[0]
    elif not exact and value <= memo.value[slot]:
        return
    memo.value[slot], memo.exact[slot], memo.guess[slot] = value, exact, guess


# fields of a search frame (one row of `frames` per depth)
(OFF, LEN, BETA, BEST, BEST_G, RANK, N_RANKED, TOTAL, CLASS, N_BIG, HASH, SLOT, SEG, END,
 LEFT, KEY, KLEN, ULEN) = range(18)
N_FIELDS = 18
ENTER, NEXT_GUESS, NEXT_CLASS, RETURN = range(4)
KEY_SPACE = 80  # room for a node key's state tokens: at most length + MAX_SYMBOLS + 1 (length <= 11)


@njit(cache=True)
def _largest_first(order, starts):
    """Sort class indices by decreasing class size (stable): big classes raise the bound most."""
    for q in range(1, order.shape[0]):
        j = order[q]
        size = starts[j + 1] - starts[j]
        p = q
        while p > 0 and starts[order[p - 1] + 1] - starts[order[p - 1]] < size:
            order[p] = order[p - 1]
            p -= 1
        order[p] = j


@njit(cache=True)
def _grow_rows(a):
    out = np.empty((2 * a.shape[0], a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def _write_key(cand, out, base, hard, greens, at_least, left):
    """A node's memo key into `out`; returns its length.

    The sorted candidate set, then in hard mode one token per green
    (position, symbol) and per required symbol count, then the guesses
    left when they are limited.  Tokens are >= base (the number of
    secrets), so two keys are equal exactly when set, state and guesses
    left are: values depend on all three.
    """
    m = cand.shape[0]
    out[:m] = cand
    k = m
    if hard:
        for i in range(greens.shape[0]):
            if greens[i] >= 0:
                out[k] = base + 64 + i * 64 + greens[i]
                k += 1
        for x in range(at_least.shape[0]):
            if at_least[x] > 0:
                out[k] = base + 1024 + x * 16 + at_least[x]
                k += 1
    if left < UNLIMITED:
        out[k] = base + 4096 + left
        k += 1
    return k


@njit(cache=True)
def _open(arena, f, d, ctx, memo, info, greens, at_least, top_g, top_key, lists, seeds):
    """ENTER for a set of >= 3 candidates with guesses to spare: memo look-up, a perfectly splitting candidate,
    else rank Best_n(C) over the node's list lists[d] (its useful guesses go to lists[d + 1]; `seeds`, the
    parent's ranking, are ranked first), unless that scan meets a perfect split, worth 2|C|.

    Returns (arena, hit, value, guess); on a miss the frame is ready for NEXT_GUESS.
    """
    m = f[LEN]
    f[KEY] = f[SEG] + 4 * m + 1
    f[END] = f[KEY] + m + KEY_SPACE
    if f[END] > arena.shape[0]:
        bigger = np.empty(2 * f[END], dtype=np.int64)
        bigger[: arena.shape[0]] = arena
        arena = bigger
    cand = arena[f[OFF]: f[OFF] + m]
    f[KLEN] = _write_key(cand, arena[f[KEY]: f[END]], ctx.codes.shape[1], ctx.hard, greens[d], at_least[d], f[LEFT])
    key = arena[f[KEY]: f[KEY] + f[KLEN]]
    f[HASH] = _hash(key)
    f[SLOT] = _find(key, f[HASH], memo)
    slot = f[SLOT]
    if slot >= 0 and (memo.exact[slot] or memo.value[slot] >= f[BETA]):
        info[HITS] += 1
        return arena, True, memo.value[slot], (memo.guess[slot] if memo.exact[slot] else np.int64(-1))
    g = _perfect_candidate(ctx, cand, greens[d], at_least[d])
    if g >= 0:
        _store(key, f[HASH], f[SLOT], 2 * m - 1, True, g, memo, info)
        return arena, True, np.int64(2 * m - 1), np.int64(g)
    info[SCANS] += 1
    allowed = ctx.allowed[:0]
    if ctx.hard:
        allowed = ctx.allowed
        allowed_into(ctx.words, ctx.word_counts, greens[d], at_least[d], allowed)
    f[N_RANKED], f[ULEN], g = best_n(ctx, cand, top_g[d], top_key[d], allowed, lists[d, :f[ULEN]], lists[d + 1],
                                     seeds, True)
    if g >= 0:
        _store(key, f[HASH], f[SLOT], 2 * m, True, g, memo, info)
        return arena, True, np.int64(2 * m), np.int64(g)
    f[RANK], f[BEST], f[BEST_G] = 0, f[BETA], -1
    return arena, False, np.int64(0), np.int64(-1)


@njit(cache=True)
def _closed_form(arena, f, ctx):
    """ENTER's values known without a search, as (value, guess); value -1 when the node must be opened."""
    m = f[LEN]
    if m == 1:
        return np.int64(1), ctx.guess_of_secret[arena[f[OFF]]]
    if f[LEFT] <= 1:
        return np.int64(IMPOSSIBLE), np.int64(-1)
    if m == 2:
        return np.int64(3), ctx.guess_of_secret[arena[f[OFF]]]
    if 2 * m - 1 >= f[BETA]:
        return np.int64(2 * m - 1), np.int64(-1)
    return np.int64(-1), np.int64(-1)


@njit(cache=True)
def _split_next(arena, f, d, ctx, top_g, top_key):
    """NEXT_GUESS: split C by the next ranked guess and order the classes to search, largest first (True);
    False when no guess is left whose lower bound is below the best total so far."""
    m = f[LEN]
    i = f[RANK]
    lower = f[BEST]
    if i < f[N_RANKED]:
        rank = top_key[d, i] // (m * m + 1)  # (m - parts) * 2 + 1 - inset
        lower = 3 * m - (m - rank // 2) - (1 - rank % 2)  # 3|C| - parts - [g in C]
    if lower >= f[BEST]:  # the bound never decreases along the ranking
        return False
    seg = f[SEG]
    starts = arena[seg + m: seg + 2 * m + 1]
    order = arena[seg + 3 * m + 1: seg + 4 * m + 1]
    k, _, _ = split_classes(ctx.codes[top_g[d, i]], arena[f[OFF]: f[OFF] + m], ctx.counts, ctx.win, 1, True,
                            arena[seg: seg + m], 0, starts, arena[seg + 2 * m + 1: seg + 3 * m + 1])
    smallest = 2 if f[LEFT] == 2 else 3  # with one guess left after this, a pair is a failure
    n_big = 0
    for j in range(k):
        if starts[j + 1] - starts[j] >= smallest:
            order[n_big] = j
            n_big += 1
    _largest_first(order[:n_big], starts)
    f[N_BIG], f[CLASS], f[TOTAL] = n_big, 0, lower
    return True


@njit(cache=True)
def _push_class(arena, frames, d, ctx, top_g, greens, at_least):
    """NEXT_CLASS: frame d + 1 searches the next class of frame d's guess with the budget it has left."""
    f, child = frames[d], frames[d + 1]
    m, seg = f[LEN], f[SEG]
    j = arena[seg + 3 * m + 1 + f[CLASS]]
    lo, hi = arena[seg + m + j], arena[seg + m + j + 1]
    child[OFF], child[LEN] = seg + lo, hi - lo
    child[BETA] = f[BEST] - f[TOTAL] + 2 * (hi - lo) - 1
    child[SEG] = f[END]
    child[LEFT] = f[LEFT] - 1 if f[LEFT] < UNLIMITED else UNLIMITED
    child[ULEN] = f[ULEN]
    if ctx.hard:
        greens[d + 1], at_least[d + 1] = update_state(greens[d], at_least[d], ctx.words[top_g[d, f[RANK]]],
                                                      arena[seg + 2 * m + 1 + j])


@njit(cache=True)
def solve(root, beta, ctx, memo, info, greens0, at_least0, left0):
    """(value, guess): ApMinTotal(root) and its guess if the value is < beta, else (some value >= beta, -1).

    The search starts in hard-mode state (greens0, at_least0) with left0
    guesses left (UNLIMITED: no limit); a value >= IMPOSSIBLE means no
    strategy within Best_n finds every candidate in time.  The recursion of
    the module docstring, run on an explicit stack (numba cannot reliably
    cache self-recursive functions).  Frame d's candidate set and its
    workspace live in one int64 arena: the set at [OFF, OFF+LEN), then at
    SEG the current guess's classes (m), class starts (m+1), class codes (m),
    the order of the classes still to search (m) and the memo key.  A
    child's set is a class of its parent, so it is never copied.
    """
    arena = np.empty(8 * root.shape[0] + 64 + KEY_SPACE, dtype=np.int64)
    arena[: root.shape[0]] = root
    frames = np.zeros((16, N_FIELDS), dtype=np.int64)
    top_g = np.zeros((16, ctx.breadth), dtype=np.int64)
    top_key = np.zeros((16, ctx.breadth), dtype=np.int64)
    greens = np.empty((16, greens0.shape[0]), dtype=np.int8)
    at_least = np.empty((16, at_least0.shape[0]), dtype=np.int8)
    greens[0], at_least[0] = greens0, at_least0
    lists = ctx.lists
    n_guesses = ctx.codes.shape[0]
    lists[0, :n_guesses] = np.arange(n_guesses)
    d = 0
    frames[0, OFF], frames[0, LEN], frames[0, BETA] = 0, root.shape[0], beta
    frames[0, SEG], frames[0, LEFT], frames[0, ULEN] = root.shape[0], left0, n_guesses
    ret_v, ret_g = np.int64(0), np.int64(-1)
    mode = ENTER
    while True:
        f = frames[d]
        if mode == ENTER:
            mode = RETURN
            ret_v, ret_g = _closed_form(arena, f, ctx)
            if ret_v < 0:
                seeds = top_g[d - 1, :frames[d - 1, N_RANKED]] if d > 0 else top_g[0, :0]
                arena, hit, ret_v, ret_g = _open(arena, f, d, ctx, memo, info, greens, at_least, top_g, top_key,
                                                 lists, seeds)
                mode = RETURN if hit else NEXT_GUESS
        if mode == NEXT_GUESS:
            if _split_next(arena, f, d, ctx, top_g, top_key):
                mode = NEXT_CLASS
            else:
                mode = RETURN
                ret_v, ret_g = (f[BEST], f[BEST_G]) if f[BEST_G] >= 0 else (f[BETA], np.int64(-1))
                _store(arena[f[KEY]: f[KEY] + f[KLEN]], f[HASH], f[SLOT], ret_v, ret_g >= 0, ret_g, memo, info)
        if mode == NEXT_CLASS:
            if f[CLASS] < f[N_BIG] and f[TOTAL] < f[BEST]:
                if d + 1 == frames.shape[0]:
                    frames, top_g, top_key = _grow_rows(frames), _grow_rows(top_g), _grow_rows(top_key)
                    greens, at_least = _grow_rows(greens), _grow_rows(at_least)
                if d + 2 >= lists.shape[0]:
                    lists = _grow_rows(lists)
                _push_class(arena, frames, d, ctx, top_g, greens, at_least)
                d += 1
                mode = ENTER
                continue
            if f[TOTAL] < f[BEST]:
                f[BEST], f[BEST_G] = f[TOTAL], top_g[d, f[RANK]]
            f[RANK] += 1
            mode = NEXT_GUESS
            continue
        if mode == RETURN:
            if d == 0:
                return ret_v, ret_g
            d -= 1
            f = frames[d]
            f[TOTAL] += ret_v - (2 * frames[d + 1, LEN] - 1)
            f[CLASS] += 1
            mode = NEXT_CLASS


@njit(cache=True)
def _extract(root, root_guess, ctx, memo, info, greens0, at_least0, left0):
    """Breadth-first strategy tree from `root`: (node_guess, node_parent, node_code, node_size, total).

    Node 0 plays `root_guess` (or the ApMinTotal guess if -1); every other
    node the ApMinTotal guess of its set, in its hard-mode state with its
    guesses left, mostly read back from the memo.  total = -2 if no strategy
    within Best_n meets the guess limit, -1 on an internal failure.
    """
    nodes, pool = new_nodes(root, greens0, at_least0, left0)
    head, total = 0, 0
    while head < nodes.top[NODES]:
        cand = node_set(nodes, pool, head)
        left = nodes.left[head]
        total += cand.shape[0]
        if left < 1 or (cand.shape[0] >= 2 and left == 1):
            return nodes.guess[:0], nodes.parent[:0], nodes.code[:0], nodes.size[:0], np.int64(-2)
        if head == 0 and root_guess >= 0:
            g = root_guess
        elif cand.shape[0] <= 2:
            g = ctx.guess_of_secret[cand[0]]
        else:
            value, g = solve(cand, INF, ctx, memo, info, nodes.greens[head], nodes.at_least[head], left)
            if value >= IMPOSSIBLE or g < 0:
                return nodes.guess[:0], nodes.parent[:0], nodes.code[:0], nodes.size[:0], np.int64(-2)
        pool, k = expand(nodes, pool, head, g, ctx.codes[g], ctx.win, ctx.counts, ctx.hard, ctx.words)
        if k < 0:
            return nodes.guess[:0], nodes.parent[:0], nodes.code[:0], nodes.size[:0], np.int64(-1)
        head += 1
    guess, parent, code, size = node_arrays(nodes)
    return guess, parent, code, size, np.int64(total)


@dataclass
class ApResult:
    """An ApMinTotal strategy as node arrays (breadth first, node 0 the root) plus search figures.

    total is None (and the arrays empty) when no strategy within Best_n finds
    every secret within the guess limit: infeasible, not a total.
    """

    breadth: int
    total: int | None
    opener: int
    node_guess: np.ndarray
    node_parent: np.ndarray
    node_code: np.ndarray
    node_size: np.ndarray
    stats: dict = field(default_factory=dict)

    @property
    def feasible(self) -> bool:
        return self.total is not None

    def tree(self, guesses, length) -> Tree:
        if not self.feasible:
            raise ValueError("no strategy within the guess limit: there is no tree")
        return from_arrays(guesses, length, self.node_guess, self.node_parent, self.node_code, self.node_size)


class ApSearch:
    """One ApMinTotal search context (matrix, breadth, rules, memo) reused across calls.

    Hard mode (`hard_mode`, with `encoded_guesses`) ranks only the guesses
    the NYT rule allows at each node; `ranking` (RANKINGS) is Best_n's key
    after (MostParts, InSet); `max_guesses` (None = unlimited) makes
    a strategy that needs more guesses for some secret infeasible.  Both are
    part of every memo key.  `max_entries` bounds the memoised nodes and
    `max_pool` the total number of key members stored for them (8 bytes
    each); when either is reached new nodes are simply not memoised (values
    stay exact).
    """

    def __init__(self, codes, secret_of_guess, n_codes, breadth, *, codes_t=None, hard_mode=False,
                 encoded_guesses=None, max_guesses=None, max_entries=1_000_000, max_pool=None,
                 ranking="ExpSizeSplit"):
        if ranking not in RANKINGS:
            raise ValueError(f"unknown ranking {ranking!r}; use one of {', '.join(RANKINGS)}")
        if breadth < 1:
            raise ValueError(f"breadth must be at least 1, got {breadth}")
        if max_guesses is not None and max_guesses < 1:
            raise ValueError(f"max_guesses must be at least 1, got {max_guesses}")
        if hard_mode and encoded_guesses is None:
            raise ValueError("hard mode needs the encoded guesses")
        self.codes = kernel_input(codes)
        self.codes_t = kernel_input(transposed(codes) if codes_t is None else codes_t)
        self.secret_of_guess = kernel_input(secret_of_guess, dtype=np.int32)
        n_secrets = self.codes.shape[1]
        self.breadth = int(breadth)
        self.hard = bool(hard_mode)
        self.length = int(round(np.log(n_codes) / np.log(3)))
        self.max_guesses = UNLIMITED if max_guesses is None else int(max_guesses)
        words = kernel_input(encoded_guesses if self.hard else np.zeros((0, self.length)), dtype=np.uint8)
        self.words = words
        self.ctx = ApContext(
            self.codes, self.codes_t, self.secret_of_guess, guess_of_secret(self.secret_of_guess, n_secrets),
            np.zeros(int(n_codes), dtype=np.int32), np.zeros(n_secrets, dtype=np.bool_), self.breadth,
            int(n_codes) - 1, self.hard, words, symbol_counts(words), np.zeros(self.codes.shape[0], dtype=np.bool_),
            np.zeros((3, self.codes.shape[0]), dtype=np.int32), np.zeros(PAIR_BLOCK, dtype=np.uint8),
            ranking == "MaxSizeSplit",
            np.empty((16, self.codes.shape[0]), dtype=np.int32),
        )
        max_pool = 16 * max_entries if max_pool is None else max_pool
        slots = 1 << max(4, int(2 * max_entries - 1).bit_length())
        self.memo = ApMemo(zeroed(slots, np.int64), zeroed(slots, np.int64), zeroed(slots, np.int32),
                           zeroed(slots, np.int64), zeroed(slots, np.bool_), zeroed(slots, np.int64),
                           zeroed(max_pool, np.int64))
        self.info = np.zeros(7, dtype=np.int64)
        self.info[MAX_ENTRIES] = max_entries
        self.info[MAX_POOL] = max_pool

    def _all(self, candidates):
        if candidates is None:
            return np.arange(self.codes.shape[1], dtype=np.int64)
        return np.unique(np.asarray(candidates, dtype=np.int64))

    def _start(self, state, left):
        greens, at_least = initial_state(self.length) if state is None else state
        return greens, at_least, self.max_guesses if left is None else int(left)

    def stats(self) -> dict:
        i = self.info
        return {"memo_entries": int(i[ENTRIES]), "memo_pool": int(i[POOL_USED]), "scans": int(i[SCANS]),
                "memo_hits": int(i[HITS]), "memo_dropped": int(i[DROPPED])}

    def value(self, candidates=None, state=None, left=None) -> int | None:
        """ApMinTotal(C, n) from a hard-mode state with `left` guesses left; None if infeasible."""
        value = int(solve(self._all(candidates), INF, self.ctx, self.memo, self.info, *self._start(state, left))[0])
        return None if value >= IMPOSSIBLE else value

    def ranking(self, candidates=None) -> np.ndarray:
        """Best_n(C) at the start of a game: the guesses ApMinTotal tries, best first."""
        top_g = np.empty(self.breadth, dtype=np.int64)
        top_key = np.empty(self.breadth, dtype=np.int64)
        guesses = np.arange(self.codes.shape[0], dtype=np.int32)
        n, _, _ = best_n(self.ctx, self._all(candidates), top_g, top_key, np.zeros(0, dtype=np.bool_), guesses,
                         np.empty_like(guesses), top_g[:0], False)
        return top_g[:n]

    def strategy(self, candidates=None, opener=-1, state=None, left=None) -> ApResult:
        """The ApMinTotal strategy tree for C, optionally forcing the first guess (total None: infeasible)."""
        cand = self._all(candidates)
        greens, at_least, left = self._start(state, left)
        counts = self.ctx.word_counts
        if opener >= 0 and self.hard and not is_allowed(self.words[opener], counts[opener], greens, at_least):
            raise ValueError(f"guess {opener} breaks hard mode in this state")
        g, p, c, s, total = _extract(cand, int(opener), self.ctx, self.memo, self.info, greens, at_least, left)
        if total == -1:
            raise RuntimeError("strategy extraction failed")
        if total == -2:
            return ApResult(self.breadth, None, int(opener), g, p, c, s, self.stats())
        return ApResult(self.breadth, int(total), int(g[0]), g, p, c, s, self.stats())


def apmintotal(codes, secret_of_guess, n_codes, candidates=None, breadth=10, **options) -> ApResult:
    """ApMinTotal(C, breadth) with its strategy (C = all secrets by default)."""
    return ApSearch(codes, secret_of_guess, n_codes, breadth, **options).strategy(candidates)


def rank_openers(codes, secret_of_guess, n_codes, breadth, candidates=None, codes_t=None,
                 ranking="ExpSizeSplit") -> list[int]:
    """Best_n(S): the openers ApMinTotal(S, breadth) tries, best first (hard mode allows every opener)."""
    search = ApSearch(codes, secret_of_guess, n_codes, breadth, codes_t=codes_t, max_entries=1, ranking=ranking)
    return [int(g) for g in search.ranking(candidates)]
