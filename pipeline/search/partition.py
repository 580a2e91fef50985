"""Split(C, g): counting and splitting a candidate set by a guess -- the one place search/ does it.

A guess g cuts a candidate set C (an int array of secret indices) into
classes: the candidates with the same response code.  A code *line* is the
codes of one guess for every secret: a row codes[g] of the (G, S) code
matrix, or a column codes_t[:, g] of its (S, G) transpose (a strided view,
which reads consecutive guesses of one candidate from the same cache lines).

Every kernel counts with `counts`, a zeroed int array over the codes
(n_codes = 3**L long), and leaves it zeroed.  Three shapes of work:

- `class_counts`: integer statistics of the split in one pass (number of
  classes, largest class, sum t^2 and sum table[t] over the class sizes t),
  computed incrementally, so they do not depend on the order of C;
- `tally` (+ `clear`): the class codes in order of first appearance and
  their sizes in `counts`, for sums whose floating-point order matters;
- `split_classes`: the members of the classes written contiguously (a
  stable counting sort), classes in order of first appearance or of code.

`guess_counts` runs `class_counts` for every guess in parallel chunks
(`split_stats` and `split_parts` are its Python faces); `popcount` counts the
set bits of a 64-bit word.
"""

import numpy as np
from numba import njit, prange

ROW_SCAN_MIN = 100  # from this many candidates a guess's row is read; below it the transposed matrix
N_CHUNKS = 64  # guesses are split into this many chunks across threads


@njit(cache=True, inline="always")
def class_counts(line, cand, counts, table, win):
    """(parts, largest, sum t^2, sum table[t], size of the win class) of Split(C, g) for the code line of g.

    Incremental: when a class grows from k to k+1 members, sum t^2 grows by
    2k+1 and sum table[t] by table[k+1]-table[k] (`table` needs |C|+1 entries;
    unused results cost nothing once inlined).  `counts` is left zeroed.
    """
    parts = 0
    largest = 0
    sum_sq = 0
    total = table[0] - table[0]
    for c in cand:
        r = line[c]
        k = counts[r]
        counts[r] = k + 1
        sum_sq += 2 * k + 1
        total += table[k + 1] - table[k]
        if k == 0:
            parts += 1
        if k >= largest:
            largest = k + 1
    n_win = counts[win]
    if cand.shape[0] * 4 > counts.shape[0]:
        counts[:] = 0
    else:
        for c in cand:
            counts[line[c]] = 0
    return parts, largest, sum_sq, total, n_win


@njit(cache=True, inline="always")
def guess_class_counts(codes, codes_t, g, cand, counts, table, win):
    """`class_counts` of guess g, reading the row codes[g] for large sets and the column codes_t[:, g] for small."""
    if cand.shape[0] >= ROW_SCAN_MIN:
        return class_counts(codes[g], cand, counts, table, win)
    return class_counts(codes_t[:, g], cand, counts, table, win)


@njit(cache=True, parallel=True)
def guess_counts(codes, cand, n_codes, table, win):
    """`class_counts` of every guess (row g of `codes`; pass codes_t.T for the transposed storage).

    Returns arrays over the guesses: parts (int32), largest class (int32),
    sum t^2 (int64), sum table[t] (table's dtype) and win-class size (int32).
    """
    n_guesses = codes.shape[0]
    parts = np.empty(n_guesses, dtype=np.int32)
    largest = np.empty(n_guesses, dtype=np.int32)
    sum_sq = np.empty(n_guesses, dtype=np.int64)
    sums = np.empty(n_guesses, dtype=table.dtype)
    n_win = np.empty(n_guesses, dtype=np.int32)
    chunk = (n_guesses + N_CHUNKS - 1) // N_CHUNKS
    for k in prange(N_CHUNKS):
        counts = np.zeros(n_codes, dtype=np.int32)
        for g in range(k * chunk, min(n_guesses, (k + 1) * chunk)):
            parts[g], largest[g], sum_sq[g], sums[g], n_win[g] = class_counts(codes[g], cand, counts, table, win)
    return parts, largest, sum_sq, sums, n_win


def split_stats(codes, candidates, n_codes):
    """Per guess row of `codes`: (number of parts, largest part, sum of squared part sizes, sum t ln t)."""
    candidates = np.asarray(candidates)
    sizes = np.arange(len(candidates) + 1, dtype=np.float64)
    tlogt = sizes * np.log(np.maximum(sizes, 1.0))
    return guess_counts(codes, candidates, int(n_codes), tlogt, 0)[:4]


def split_parts(codes, candidates, n_codes):
    """Number of classes of Split(C, g) for every guess row of `codes` (the MostParts count)."""
    candidates = np.asarray(candidates)
    return guess_counts(codes, candidates, int(n_codes), np.zeros(len(candidates) + 1, dtype=np.int64), 0)[0]


@njit(cache=True, inline="always")
def tally(line, cand, counts, class_code):
    """Count the classes of Split(C, g): returns their number k, their codes in order of first appearance in
    class_code[:k] and leaves their sizes in counts[code] (`clear` zeroes them)."""
    k = 0
    for c in cand:
        r = line[c]
        if counts[r] == 0:
            class_code[k] = r
            k += 1
        counts[r] += 1
    return k


@njit(cache=True, inline="always")
def clear(counts, class_code, k):
    """Zero the counts `tally` left for the classes class_code[:k]."""
    for j in range(k):
        counts[class_code[j]] = 0


@njit(cache=True)
def split_classes(line, cand, counts, win, min_size, by_code, out, base, class_start, class_code):
    """Stable split of `cand` by response code: the non-win classes of at least `min_size` members.

    Class j goes to out[class_start[j]:class_start[j+1]] (positions from `base`
    on) with code class_code[j]; classes in order of first appearance, or of
    code when `by_code`; members keep their order in `cand`.  `class_code`
    needs room for every distinct code of C.  Returns (classes written,
    members of the smaller non-win classes, number of those classes).
    """
    n_all = tally(line, cand, counts, class_code)
    k = 0
    small_members = 0
    n_small = 0
    for j in range(n_all):
        r = class_code[j]
        size = counts[r]
        if r != win and size >= min_size:
            class_code[k] = r
            k += 1
            continue
        if r != win:
            small_members += size
            n_small += 1
        counts[r] = 0
    if by_code:
        class_code[:k].sort()
    pos = base
    for j in range(k):
        r = class_code[j]
        class_start[j] = pos
        pos += counts[r]
        counts[r] = -class_start[j] - 1  # a negative count is the class's write cursor
    class_start[k] = pos
    for c in cand:
        r = line[c]
        cursor = counts[r]
        if cursor < 0:
            out[-cursor - 1] = c
            counts[r] = cursor - 1
    clear(counts, class_code, k)
    return k, small_members, n_small


def split(row: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The classes of Split(C, g) for one guess row, win class included: (class codes ascending, class members)."""
    candidates = np.asarray(candidates)
    n = len(candidates)
    counts = np.zeros(int(row[candidates].max(initial=0)) + 1, dtype=np.int64)
    members = np.empty(n, dtype=candidates.dtype)
    starts = np.empty(n + 1, dtype=np.int64)
    codes = np.empty(n, dtype=np.int64)
    k, _, _ = split_classes(row, candidates, counts, -1, 1, True, members, 0, starts, codes)
    return codes[:k], np.split(members, starts[1:k])


@njit(cache=True)
def popcount(x):
    """Number of set bits of a 64-bit word."""
    x = np.uint64(x)
    x = x - ((x >> np.uint64(1)) & np.uint64(0x5555555555555555))
    x = (x & np.uint64(0x3333333333333333)) + ((x >> np.uint64(2)) & np.uint64(0x3333333333333333))
    x = (x + (x >> np.uint64(4))) & np.uint64(0x0F0F0F0F0F0F0F0F)
    return np.int64((x * np.uint64(0x0101010101010101)) >> np.uint64(56))


def guess_of_secret(secret_of_guess: np.ndarray, n_secrets: int, require_all: bool = True) -> np.ndarray:
    """Inverse of secret_of_guess: the guess index of every secret (int64), -1 for a secret that is no guess.

    With `require_all` a secret that is no guess is a ValueError (S must be a subset of G).
    """
    secret_of_guess = np.asarray(secret_of_guess)
    out = np.full(n_secrets, -1, dtype=np.int64)
    idx = np.flatnonzero(secret_of_guess >= 0)
    out[secret_of_guess[idx]] = idx
    if require_all and (out < 0).any():
        raise ValueError("every secret must also be an allowed guess")
    return out
