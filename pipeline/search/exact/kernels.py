"""Numba kernels of the exact search (exact.py; its node steps in exact_steps.py): hashing, the memo, guess
scans, class bounds.

Everything a kernel needs travels in three named tuples of plain arrays:
`ExactTables` (read-only game data and hash words), `Memo` (the bounded hash table) and `Work`
(the search stack: per-depth frame fields and rows, the candidate pool and
scratch space).  Frame d's scalar fields are `work.frames[d, FIELD]`.

Candidate sets live in one int32 pool: a node's set is pool[lo:lo+n] and the
classes of the guess it is evaluating are written after `free`.  Sets are
hashed by two independent sums of random 64-bit words (a false match has
probability about 2**-128 per lookup); in hard mode the hard-mode state and,
under a guess limit, the number of guesses left are hashed in too.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from pipeline.search.arrays import zeroed
from pipeline.search.hard_mode import MAX_SYMBOLS
from pipeline.search.partition import ROW_SCAN_MIN, class_counts, split_classes

INF = 1 << 40
IMPOSSIBLE = INF  # the value of a set that cannot be solved within the guesses left
UNLIMITED = 1 << 30
EMPTY, EXACT, LOWER = 0, 1, 2
STAT_NODES, STAT_HITS, STAT_EVALS, STAT_SCANS = 0, 1, 2, 3
SMALL_SET = 96  # up to this size the pairwise scan over gathered codes is faster (measured against 32-128:
#                docs/benchmarks.md; its 16-bit counts go 16 guesses per AVX2 instruction)
BLOCK = 256  # guesses per block of the small scan (SMALL_SET x BLOCK gathered codes stay in cache)
CAND_CHECK = 16  # classes up to this size are checked for a candidate splitting them into singletons (or
#                  leaving one pair) when bounded (against 8: SALET 757 nodes not 1335, hard SALET 0.23-0.24 s
#                  not 0.25-0.28 s, CRANE within run-to-run spread; docs/benchmarks.md)
KEY_SHIFT = 24  # ordering key = sum of squared class sizes << KEY_SHIFT | position in the node's rows
KEY_MASK = (1 << KEY_SHIFT) - 1

# frame fields
# N_KEPT: guesses kept in the node's rows by its scan (IDX: the next of them to bound, SORTED: how many are
# in order); N_BIG_CLASSES: classes of 3+ of the current guess; N_OPEN: those still to search (not exact),
# OPEN_AT: the next of them
(LO, N, FREE, BETA, LEFT, PHASE, N_KEPT, IDX, SORTED, BEST, BEST_GUESS, NODE_LB, FLOOR, N_BIG_CLASSES, N_OPEN,
 OPEN_AT, TOTAL, GUESS, LIST_LEN, ULEN, KCAP, KMAX, HASHED) = range(23)
N_FIELDS = 23

ExactTables = namedtuple("ExactTables", ["codes", "codes_t", "win", "guess_of_secret", "words", "word_counts",
                                         "hard", "hash_secret_a", "hash_secret_b", "hash_green", "hash_count",
                                         "hash_left"])
ExactTables.__doc__ = """The read-only tables every exact-search kernel reads: the (G, S) code matrix and its
transpose, the win code, guess_of_secret, the encoded guesses and their symbol counts (hard mode), whether hard
mode is on, and the random odd 64-bit words the memo keys are sums of: two per secret (`hash_secret_a`,
`hash_secret_b`: the set's two hashes), one per (position, green symbol + 1) and per (symbol, required count)
(the hard-mode state) and one per number of guesses left (under a limit)."""
Memo = namedtuple("Memo", ["keys", "flags", "vals", "fill"])  # fill: [entries stored, most slots allowed]
MEMO_START_BITS = 14  # a memo starts this small and doubles while it is over half full, up to its limit
Work = namedtuple("Work", ["frames", "frame_hashes", "pool", "guess_lists", "kept_guess", "kept_lower", "kept_key",
                           "starts", "ccode", "cbound", "cexact", "chash", "corder", "btab", "greens", "at_least",
                           "counts", "stamp", "dense", "scratch", "req", "revealed", "stats"])
Work.__doc__ = """The search stack and scratch of one solver, per depth d of the search (one frame per node on the
stack): `frames[d, FIELD]` the node's scalar fields; `frame_hashes[d]` its set's two hashes (the memo key, with
the state and guesses left folded in) and its hard-mode state's hash; `guess_lists[d + 1]` the guesses node d may
consider (row 0 every guess, in index order); the guesses its scan kept, with their lower bounds and ordering
keys (`kept_guess`, `kept_lower`, `kept_key`: sum of squared class sizes << KEY_SHIFT | position in these rows);
the classes of its current guess (`starts` into the pool, then per class `ccode` its code, `cbound` its bound,
`cexact` whether that bound is its value, `chash` its hashes, `corder` the order they are searched in); `btab`
its row of counting bounds; its hard-mode state (`greens`, `at_least`); the candidate `pool`; scratch for the
kernels (`counts`, `stamp`, `dense`, `scratch`, `req`, `revealed`) and the search counters (`stats`)."""


def make_work(n_guesses, n_secrets, n_codes, length, max_depth, code_dtype):
    """Allocate the search stack and scratch space for one solver (the large arrays on ordinary pages)."""
    d1 = max_depth + 1
    return Work(
        frames=np.zeros((max_depth, N_FIELDS), dtype=np.int64),
        frame_hashes=np.zeros((max_depth, 3), dtype=np.uint64),
        pool=zeroed(n_secrets * d1 + 1, np.int32), guess_lists=zeroed((d1, n_guesses), np.int32),
        kept_guess=zeroed((max_depth, n_guesses), np.int32),
        kept_lower=zeroed((max_depth, n_guesses), np.int64),
        kept_key=zeroed((max_depth, n_guesses), np.int64),
        starts=np.empty((max_depth, n_codes + 1), dtype=np.int64),
        ccode=np.empty((max_depth, n_codes), dtype=np.int64),
        cbound=np.empty((max_depth, n_codes), dtype=np.int64),
        cexact=np.empty((max_depth, n_codes), dtype=np.bool_),
        chash=np.empty((max_depth, n_codes, 2), dtype=np.uint64),
        corder=np.empty((max_depth, n_codes), dtype=np.int64),
        btab=zeroed((d1, n_secrets + 1), np.int64),
        greens=np.empty((max_depth, length), dtype=np.int8),
        at_least=np.empty((max_depth, MAX_SYMBOLS), dtype=np.int8),
        counts=np.zeros(n_codes, dtype=np.int64), stamp=np.zeros(n_codes + 1, dtype=np.int64),
        dense=np.zeros((SMALL_SET, BLOCK), dtype=code_dtype),
        scratch=np.zeros((4, BLOCK), dtype=np.int16), req=np.zeros((2, MAX_SYMBOLS), dtype=np.int64),
        revealed=np.zeros(MAX_SYMBOLS, dtype=np.int64), stats=np.zeros(4, dtype=np.int64))


# ---- hashing and the memo -------------------------------------------------------------------------------

def new_memo(max_bits):
    """An empty memo of at most 2**max_bits slots.  It starts small and grows as it fills: a search touches
    only the memory its entries need (fresh pages are costly on a VM that hands freed memory back to its
    host: about 16 ms per MB, 2.6 s for a fully touched 2**22-slot table)."""
    size = 1 << min(max_bits, MEMO_START_BITS)
    fill = np.array([0, 1 << max_bits], dtype=np.int64)
    return Memo(zeroed((size, 2), np.uint64), zeroed(size, np.int8), zeroed((size, 3), np.int64), fill)


@njit(cache=True)
def memo_grown(memo):
    """The memo itself, or (when over half full and below its limit) a copy of twice its size."""
    size = memo.flags.shape[0]
    if 2 * memo.fill[0] <= size or size >= memo.fill[1]:
        return memo
    big = Memo(np.zeros((2 * size, 2), dtype=np.uint64), np.zeros(2 * size, dtype=np.int8),
               np.zeros((2 * size, 3), dtype=np.int64), memo.fill)
    memo.fill[0] = 0
    for slot in range(size):
        if memo.flags[slot] != EMPTY:
            memo_store(big, memo.keys[slot, 0], memo.keys[slot, 1], memo.vals[slot, 2], memo.vals[slot, 0],
                       memo.flags[slot], memo.vals[slot, 1])
    return big


@njit(cache=True, inline="always")
def set_hash(tables, pool, lo, n):
    """The two hashes of the set pool[lo:lo+n]: sums of its secrets' random words."""
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for j in range(lo, lo + n):
        h1 += tables.hash_secret_a[pool[j]]
        h2 += tables.hash_secret_b[pool[j]]
    return h1, h2


@njit(cache=True, inline="always")
def state_hash(tables, greens, at_least):
    """Hash of a hard-mode state (0 in normal mode)."""
    h = np.uint64(0)
    if not tables.hard:
        return h
    for i in range(greens.shape[0]):
        h += tables.hash_green[i, greens[i] + 1]
    for x in range(at_least.shape[0]):
        if at_least[x] > 0:
            h += tables.hash_count[x, at_least[x]]
    return h


@njit(cache=True, inline="always")
def child_state_hash(tables, greens, at_least, h, g, code, revealed):
    """state_hash of the state after playing guess g and seeing `code`, from the parent's hash h.

    Only what changes is added or removed; `revealed` (MAX_SYMBOLS int64, all zero) is left all zero.
    """
    if not tables.hard:
        return h
    words = tables.words  # scalar indexing: a row view would cost two atomic reference counts
    c = code
    for i in range(words.shape[1]):
        colour = c % 3
        c //= 3
        x = words[g, i]
        if colour == 2 and greens[i] != x:
            h += tables.hash_green[i, x + 1] - tables.hash_green[i, greens[i] + 1]
        if colour > 0:
            revealed[x] += 1
    for i in range(words.shape[1]):
        x = words[g, i]
        r = revealed[x]
        if r > at_least[x]:
            h += tables.hash_count[x, r]
            if at_least[x] > 0:
                h -= tables.hash_count[x, at_least[x]]
        revealed[x] = 0
    return h


@njit(cache=True, inline="always")
def node_key(tables, set_h1, set_h2, st_hash, left):
    """Memo key of a node: its candidate set, the hard-mode state and (under a limit) the guesses left."""
    h2 = set_h2
    if left < tables.hash_left.shape[0]:
        h2 += tables.hash_left[left]
    return set_h1 + st_hash, h2


@njit(cache=True, inline="always")
def memo_find(memo, h1, h2):
    """The slot of key (h1, h2) in its 4-slot bucket, or -1."""
    base = np.int64(h1 & np.uint64(memo.flags.shape[0] - 1)) & ~np.int64(3)
    for slot in range(base, base + 4):
        if memo.flags[slot] != EMPTY and memo.keys[slot, 0] == h1 and memo.keys[slot, 1] == h2:
            return slot
    return -1


@njit(cache=True)
def memo_store(memo, h1, h2, n, value, flag, guess):
    """Store an exact value or a lower bound; evict the smallest set of the 4-slot bucket."""
    slot = memo_find(memo, h1, h2)
    if slot >= 0:
        if memo.flags[slot] == EXACT or (flag == LOWER and memo.vals[slot, 0] >= value):
            return
    else:
        base = np.int64(h1 & np.uint64(memo.flags.shape[0] - 1)) & ~np.int64(3)
        slot = base
        for s in range(base, base + 4):
            if memo.flags[s] == EMPTY:
                slot = s
                break
            if memo.vals[s, 2] < memo.vals[slot, 2]:
                slot = s
        if memo.flags[slot] == EMPTY:
            memo.fill[0] += 1
    memo.keys[slot, 0] = h1
    memo.keys[slot, 1] = h2
    memo.flags[slot] = flag
    memo.vals[slot, 0] = value
    memo.vals[slot, 1] = guess
    memo.vals[slot, 2] = n


# ---- counting bound -----------------------------------------------------------------------------------

@njit(cache=True)
def fill_bound_row(row, n, k):
    """row[s] = Bound(s, k) for s = 0..n (docs/algorithms.md §4), level by level: a lower bound on MinTotal of any
    set of s candidates on which no guess makes more than k classes."""
    row[0] = 0
    depth = 1
    width = 1
    capacity = 1  # nodes the current level can still take
    for s in range(1, n + 1):
        if capacity == 0:
            depth += 1
            width = min(width * k, n + 1)
            capacity = width
        row[s] = row[s - 1] + depth
        capacity -= 1


# ---- the hard-mode rule over a list of guesses -----------------------------------------------------------

@njit(cache=True)
def load_rule(at_least, req):
    """Required symbols of a state as a short list: req[0, :m] symbols, req[1, :m] counts; returns m."""
    m = 0
    for x in range(at_least.shape[0]):
        if at_least[x] > 0:
            req[0, m] = x
            req[1, m] = at_least[x]
            m += 1
    return m


@njit(cache=True, inline="always")
def allowed(words, word_counts, g, greens, req, m):
    """Does the hard-mode rule (greens, req[:, :m]) allow guess g?  Scalar indexing only and one exit: a row
    view (words[g]) or an early return would leave numba an atomic reference count increment and decrement
    per array argument and guess (measured: most of hard mode's exact-search time)."""
    ok = True
    for i in range(words.shape[1]):
        ok &= greens[i] < 0 or words[g, i] == greens[i]
    for r in range(m):
        ok &= word_counts[g, req[0, r]] >= req[1, r]
    return ok


@njit(cache=True)
def filter_list(tables, w, d):
    """Copy the guesses node d may consider (its list; in hard mode only those its state allows) to
    w.guess_lists[d + 1]; returns how many."""
    src = w.guess_lists[d]
    out = w.guess_lists[d + 1]
    length = w.frames[d, LIST_LEN]
    if not tables.hard:
        out[:length] = src[:length]
        return length
    greens, req, words, word_counts = w.greens[d], w.req, tables.words, tables.word_counts
    m = load_rule(w.at_least[d], req)
    u = 0
    for t in range(length):
        g = src[t]
        if allowed(words, word_counts, g, greens, req, m):
            out[u] = g
            u += 1
    return u


# ---- ordering ---------------------------------------------------------------------------------------------

@njit(cache=True)
def select_smallest(a, b):
    """Reorder the distinct values of `a` in place so that a[:b] holds the b smallest (in any order).

    Quickselect with a median-of-three pivot; unlike np.partition it allocates nothing."""
    k = b - 1
    lo, hi = 0, a.shape[0] - 1
    while lo < hi:
        x, y, z = a[lo], a[(lo + hi) // 2], a[hi]
        pivot = max(min(x, y), min(max(x, y), z))
        i, j = lo, hi
        while i <= j:
            while a[i] < pivot:
                i += 1
            while a[j] > pivot:
                j -= 1
            if i <= j:
                a[i], a[j] = a[j], a[i]
                i += 1
                j -= 1
        if k <= j:
            hi = j
        elif k >= i:
            lo = i
        else:
            return


# ---- perfect splits ---------------------------------------------------------------------------------------

@njit(cache=True, inline="always")
def repeated_codes(codes, g, pool, lo, n, stamp, limit):
    """How many candidates of pool[lo:lo+n] get a code under guess g (row g of `codes`; pass codes_t.T to read the
    transposed storage) that an earlier one got (n minus the number of classes), counting stops once past
    `limit`.  Scalar indexing, no row view (a view costs two atomic reference counts)."""
    stamp[-1] += 1
    mark = stamp[-1]
    repeats = 0
    for j in range(lo, lo + n):
        code = codes[g, pool[j]]
        if stamp[code] == mark:
            repeats += 1
            if repeats > limit:
                break
        stamp[code] = mark
    return repeats


@njit(cache=True)
def candidate_split(codes, guess_of_secret, words, word_counts, pool, stamp, lo, n, greens, req, m, near):
    """(g, 0) for a candidate guess g splitting the set into singletons (MinTotal 2n - 1); else, with `near`,
    (g, 1) for a candidate leaving one pair and singletons (2n: no set without a perfect candidate does
    better); else (-1, -1).  With m >= 0 (hard mode) only candidates the rule (greens, req[:, :m]) allows
    count; candidates consistent with the responses always are.  Plain arrays, not the search's named
    tuples: this runs once per small class, and a call taking those tuples counts a reference to each of
    their arrays."""
    found = -1
    limit = 1 if near else 0
    for j in range(lo, lo + n):
        g = guess_of_secret[pool[j]]
        if g < 0 or (m >= 0 and not allowed(words, word_counts, g, greens, req, m)):
            continue
        repeats = repeated_codes(codes, g, pool, lo, n, stamp, limit)
        if repeats == 0:
            return g, 0
        if near and repeats == 1 and found < 0:
            found = g
    return found, (1 if found >= 0 else -1)


@njit(cache=True)
def perfect_in_list(tables, w, lst, length, lo, n):
    """The first guess of lst[:length] splitting the set into singletons, or -1 (early exit per guess).

    Small sets read the transposed matrix: their few rows of it stay in cache while every guess is tried."""
    if n < ROW_SCAN_MIN:
        return _first_perfect(tables.codes_t.T, w, lst, length, lo, n)
    return _first_perfect(tables.codes, w, lst, length, lo, n)


@njit(cache=True)
def _first_perfect(codes, w, lst, length, lo, n):
    """perfect_in_list over one storage of the matrix (rows indexed by guess)."""
    pool, stamp = w.pool, w.stamp
    for t in range(length):
        if repeated_codes(codes, lst[t], pool, lo, n, stamp, 0) == 0:
            return lst[t]
    return -1


# ---- scans: every guess of the node's list, once ----------------------------------------------------------

@njit(cache=True)
def scan(tables, w, d, length, lo, n, beta):
    """One pass over the node's list w.guess_lists[d + 1][:length] (compacted in place to the useful guesses).

    Every useful guess g gets the lower bound |C| + sum of Bound(|C'|, KCAP) over its non-win classes (the
    parent's counting bound; classes are subsets of the parent's set).  Guesses with a bound below beta go
    to the node's rows with their ordering key.  Returns (useful count, kept count, min bound of the guesses
    left out, most classes, a candidate perfect splitter or -1, a perfect splitter or -1).  Small sets (up to
    SMALL_SET) gather their codes per candidate and compare them pairwise (sum t^2 = n + 2 * equal pairs,
    classes = n - repeats); there the bound is 3n - classes - [g in C] (2|C'| - 1 per non-win class).
    Small sets go block by block (_next_block): the gathered codes stay in cache, and a perfect splitter
    ends the scan without gathering the rest of the list.
    """
    lst = w.guess_lists[d + 1]
    small = n <= SMALL_SET
    pairs, repeats, wins = w.scratch[0], w.scratch[1], w.scratch[2]
    counts, cand, btab = w.counts, w.pool[lo: lo + n], w.btab[d]
    kept_guess, kept_lower, kept_key = w.kept_guess[d], w.kept_lower[d], w.kept_key[d]
    codes, codes_t, pool, dense, scratch, win = tables.codes, tables.codes_t, w.pool, w.dense, w.scratch, tables.win
    u = 0
    m = 0
    kmax = 0
    excluded = INF
    b0 = 0
    while b0 < length:
        if small:
            b1, first, width = _next_block(lst, b0, length)
            _gather(codes_t, win, pool, dense, scratch, lst, b0, first, width, lo, n)
            _pairs(dense, scratch, n, width)
        else:
            b1, first = length, 0
        for t in range(b0, b1):
            g = lst[t]
            if small:
                at = g - first if first >= 0 else t - b0
                k, sum_sq, n_win = n - repeats[at], np.int64(n + 2 * pairs[at]), wins[at]
                lower = 3 * n - k - n_win
            else:
                k, _, sum_sq, bounds, n_win = class_counts(codes[g], cand, counts, btab, win)
                lower = n + bounds - btab[n_win]  # |C| + Bound(|C'|, KCAP) over the non-win classes
            if k == 1 and n_win == 0:
                continue
            lst[u] = g
            u += 1
            kmax = max(kmax, k)
            if k == n:
                return u, m, excluded, kmax, (g if n_win > 0 else -1), g
            if lower < beta:
                kept_guess[m], kept_lower[m], kept_key[m] = g, lower, (sum_sq << KEY_SHIFT) | m
                m += 1
            else:
                excluded = min(excluded, lower)
        b0 = b1
    return u, m, excluded, kmax, -1, -1


@njit(cache=True, inline="always")
def _next_block(lst, b0, length):
    """(b1, first, width): the list positions b0..b1-1 of the next small-scan block, the first guess of its
    window (or -1) and how many codes per candidate it gathers.

    Where the list fills at least half of the BLOCK guess numbers from lst[b0] on, the block is that window:
    its codes are read as contiguous rows and the guesses of the window not in the list are computed and
    ignored.  Elsewhere it is the next BLOCK positions, gathered one by one."""
    first = lst[b0]
    b1 = b0
    while b1 < length and lst[b1] < first + BLOCK:
        b1 += 1
    span = lst[b1 - 1] - first + 1
    if 2 * (b1 - b0) >= span:
        return b1, first, span
    b1 = min(length, b0 + BLOCK)
    return b1, -1, b1 - b0


@njit(cache=True)
def _gather(codes_t, win, pool, dense, scratch, lst, b0, first, width, lo, n):
    """Gather `width` codes of each candidate pool[lo + j] into dense row j: of the guesses first, first + 1, ...
    (a contiguous read) when first >= 0, else of those at list positions b0, b0 + 1, ...; mark in scratch[2]
    whether each guess is a candidate.  Plain arrays, not the search's named tuples: a call taking those
    counts a reference to each of their arrays, and this runs once per block."""
    inside = scratch[2]
    inside[:width] = 0
    for j in range(n):
        secret = pool[lo + j]
        if first >= 0:
            for t in range(width):
                dense[j, t] = codes_t[secret, first + t]
        else:
            for t in range(width):
                dense[j, t] = codes_t[secret, lst[b0 + t]]
        for t in range(width):
            inside[t] += dense[j, t] == win


@njit(cache=True)
def _pairs(dense, scratch, n, width):
    """From the gathered codes of n candidates, per guess: equal-code pairs (scratch[0]) and candidates equal to an
    earlier one (scratch[1])."""
    pairs, repeats, seen = scratch[0], scratch[1], scratch[3]
    pairs[:width] = 0
    repeats[:width] = 0
    for j in range(1, n):
        seen[:width] = 0
        for i in range(j):
            _pair_pass(dense, i, j, pairs, seen, width)
        for t in range(width):
            repeats[t] += seen[t]


@njit(cache=True, inline="always")
def _pair_pass(dense, i, j, pairs, seen, length):
    """Add the equal codes of gathered candidates i and j to the pair counts and the repeat marks (rows indexed,
    not taken as views: a view costs two atomic reference counts, and this runs once per pair per block)."""
    for t in range(length):
        e = np.int16(dense[i, t] == dense[j, t])
        pairs[t] += e
        seen[t] |= e


# ---- splitting a node by one guess and bounding its classes ---------------------------------------------

@njit(cache=True)
def split_guess(tables, w, d, g):
    """Split node d's set by guess g.  Classes of 1 and 2 are only counted (they cost 1 and 3); classes of 3
    or more are written to the pool after FREE (w.starts[d], w.ccode[d]) in order of first appearance.  Returns
    (number of classes of 3+, total cost of the small ones, number of non-win classes of 2 or more)."""
    lo, n, free = w.frames[d, LO], w.frames[d, N], w.frames[d, FREE]
    k, small_members, n_small = split_classes(tables.codes[g], w.pool[lo: lo + n], w.counts, tables.win, 3, False,
                                              w.pool, free, w.starts[d], w.ccode[d])
    return k, 2 * small_members - n_small, small_members - n_small + k
