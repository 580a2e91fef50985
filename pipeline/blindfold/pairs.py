"""Pairs of secrets and the guesses that separate them (blindfold Wordle).

A fixed guess set F identifies every secret iff every pair of secrets
{s, t} is separated by some g in F, i.e. codes[g, s] != codes[g, t].

Everything here works on the |G| x |S| code matrix `codes` (any unsigned
dtype) and on arrays of secret indices; pairs are two int32 arrays
(i, j) with i < j.  Nothing loops over pairs in Python: grouping is done
with numpy sorts and the per-pair work in numba kernels.
"""

from __future__ import annotations

import numpy as np
from numba import njit, prange

from pipeline.search.partition import class_counts, popcount

# ---------------------------------------------------------------------------
# pairs inside groups


@njit(cache=True)
def _pairs_in_groups(order, starts, out_i, out_j):
    k = 0
    for g in range(starts.shape[0] - 1):
        a, b = starts[g], starts[g + 1]
        for x in range(a, b):
            for y in range(x + 1, b):
                u, v = order[x], order[y]
                if u < v:
                    out_i[k] = u
                    out_j[k] = v
                else:
                    out_i[k] = v
                    out_j[k] = u
                k += 1


def pairs_within_labels(labels: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """All pairs (i < j) of indices carrying the same label.

    `labels` is an integer array with one label per secret; returns the
    pairs sorted by (i, j).
    """
    labels = np.asarray(labels)
    n = labels.shape[0]
    if n < 2:
        return _empty_pairs()
    order = np.argsort(labels, kind="stable").astype(np.int64)
    sorted_labels = labels[order]
    change = np.flatnonzero(sorted_labels[1:] != sorted_labels[:-1]) + 1
    starts = np.concatenate(([0], change, [n])).astype(np.int64)
    sizes = np.diff(starts)
    keep = sizes >= 2
    if not keep.any():
        return _empty_pairs()
    # only groups of size >= 2 contribute; keep their boundaries
    group_starts = starts[:-1][keep]
    group_sizes = sizes[keep]
    new_order = _gather_groups(order, group_starts, group_sizes)
    new_starts = np.concatenate(([0], np.cumsum(group_sizes))).astype(np.int64)
    total = int((group_sizes * (group_sizes - 1) // 2).sum())
    out_i = np.empty(total, dtype=np.int32)
    out_j = np.empty(total, dtype=np.int32)
    _pairs_in_groups(new_order, new_starts, out_i, out_j)
    return sort_pairs(out_i, out_j)


@njit(cache=True)
def _gather_groups_kernel(order, group_starts, group_sizes, out):
    k = 0
    for g in range(group_starts.shape[0]):
        for x in range(group_starts[g], group_starts[g] + group_sizes[g]):
            out[k] = order[x]
            k += 1


def _gather_groups(order, group_starts, group_sizes):
    out = np.empty(int(group_sizes.sum()), dtype=np.int64)
    _gather_groups_kernel(order, group_starts.astype(np.int64), group_sizes.astype(np.int64), out)
    return out


def _empty_pairs() -> tuple[np.ndarray, np.ndarray]:
    return np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int32)


def sort_pairs(i: np.ndarray, j: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Normalise pairs to i < j, drop i == j and duplicates, sort by (i, j)."""
    i = np.asarray(i, dtype=np.int64)
    j = np.asarray(j, dtype=np.int64)
    lo, hi = np.minimum(i, j), np.maximum(i, j)
    keep = lo != hi
    lo, hi = lo[keep], hi[keep]
    if lo.size == 0:
        return _empty_pairs()
    key = np.unique(lo * (int(hi.max()) + 1) + hi)
    span = int(hi.max()) + 1
    return (key // span).astype(np.int32), (key % span).astype(np.int32)


def merge_pairs(*pair_sets: tuple[np.ndarray, np.ndarray]) -> tuple[np.ndarray, np.ndarray]:
    """Union of several pair sets (each a tuple (i, j))."""
    sets = [p for p in pair_sets if len(p[0])]
    if not sets:
        return _empty_pairs()
    return sort_pairs(np.concatenate([p[0] for p in sets]), np.concatenate([p[1] for p in sets]))


def difference_pairs(
    new: tuple[np.ndarray, np.ndarray], old: tuple[np.ndarray, np.ndarray], n_secrets: int
) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of `new` that are not in `old`."""
    ni, nj = new
    if len(ni) == 0 or len(old[0]) == 0:
        return np.asarray(ni, dtype=np.int32), np.asarray(nj, dtype=np.int32)
    kn = ni.astype(np.int64) * n_secrets + nj
    ko = old[0].astype(np.int64) * n_secrets + old[1]
    keep = ~np.isin(kn, ko)
    return ni[keep].astype(np.int32), nj[keep].astype(np.int32)


# ---------------------------------------------------------------------------
# seed pairs (likely hard: separated by few guesses)


def one_position_pairs(enc_secrets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of secrets that differ in exactly one position (e.g. fight/light).

    `enc_secrets` is the (S, L) symbol array from `encode_words`.
    """
    enc = np.asarray(enc_secrets, dtype=np.int64)
    n, length = enc.shape
    if n < 2:
        return _empty_pairs()
    base = int(enc.max()) + 2  # one spare symbol as the mask
    mask = base - 1
    weights = base ** np.arange(length, dtype=np.int64)
    if float(base) ** length >= 2.0**62:
        raise ValueError("words too long for an int64 key")
    full = enc @ weights
    parts = []
    for k in range(length):
        keys = full + (mask - enc[:, k]) * weights[k]
        parts.append(pairs_within_labels(keys))
    return merge_pairs(*parts)


def anagram_pairs(enc_secrets: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of distinct secrets with the same multiset of letters (e.g. least/steal)."""
    enc = np.sort(np.asarray(enc_secrets, dtype=np.int64), axis=1)
    n, length = enc.shape
    if n < 2:
        return _empty_pairs()
    base = int(enc.max()) + 1
    if float(base) ** length >= 2.0**62:
        _, labels = np.unique(enc, axis=0, return_inverse=True)
    else:
        labels = enc @ (base ** np.arange(length, dtype=np.int64))
    return pairs_within_labels(labels)


def same_letters_pairs(enc_secrets: np.ndarray, max_positions: int = 2) -> tuple[np.ndarray, np.ndarray]:
    """Pairs of secrets made of the same set of letters whose spellings differ in at most `max_positions`
    positions (angel/angle, abbas/babas): Poirrier's starting rows for every allowed word a secret (2721 pairs
    on the 12974 words)."""
    enc = np.asarray(enc_secrets, dtype=np.int64)
    if enc.shape[0] < 2:
        return _empty_pairs()
    present = np.zeros((enc.shape[0], int(enc.max()) + 1), dtype=bool)
    present[np.arange(enc.shape[0])[:, None], enc] = True
    _, labels = np.unique(present, axis=0, return_inverse=True)
    i, j = pairs_within_labels(labels.ravel())
    keep = (enc[i] != enc[j]).sum(axis=1) <= max_positions
    return i[keep], j[keep]


def seed_pairs(
    enc_secrets: np.ndarray,
    *,
    one_position: bool = True,
    anagrams: bool = True,
    extra: tuple[np.ndarray, np.ndarray] | None = None,
) -> tuple[np.ndarray, np.ndarray]:
    """The starting pairs of the lazy loop: one-position pairs, anagrams and `extra`."""
    sets = []
    if one_position:
        sets.append(one_position_pairs(enc_secrets))
    if anagrams:
        sets.append(anagram_pairs(enc_secrets))
    if extra is not None:
        sets.append(sort_pairs(*extra))
    return merge_pairs(*sets)


# ---------------------------------------------------------------------------
# classes a fixed guess set leaves unseparated


def class_labels(codes: np.ndarray, guesses) -> np.ndarray:
    """Label per secret such that two secrets share a label iff every guess
    in `guesses` gives them the same code.  Labels are 0..k-1 (int64)."""
    n_secrets = codes.shape[1]
    labels = np.zeros(n_secrets, dtype=np.int64)
    span = int(np.iinfo(codes.dtype).max) + 1 if codes.dtype.kind == "u" else 1 << 32
    for g in np.asarray(guesses, dtype=np.int64).ravel():
        combined = labels * span + codes[g].astype(np.int64)
        _, labels = np.unique(combined, return_inverse=True)
        labels = labels.astype(np.int64).ravel()
    return labels


def unseparated_classes(codes: np.ndarray, guesses) -> list[np.ndarray]:
    """Classes (sorted int arrays of secret indices, size >= 2) that `guesses` does
    not separate, largest first.  Empty list iff `guesses` identifies every secret."""
    labels = class_labels(codes, guesses)
    counts = np.bincount(labels)
    big = np.flatnonzero(counts >= 2)
    if big.size == 0:
        return []
    order = np.argsort(labels, kind="stable")
    starts = np.concatenate(([0], np.cumsum(counts)))
    classes = [order[starts[c] : starts[c + 1]] for c in big]
    classes.sort(key=lambda c: (-len(c), int(c[0])))
    return [np.sort(c) for c in classes]


def separates_all(codes: np.ndarray, guesses) -> bool:
    """True iff the fixed guesses identify every secret."""
    labels = class_labels(codes, guesses)
    return int(labels.max(initial=-1)) + 1 == codes.shape[1]


def unseparated_pairs(codes: np.ndarray, guesses) -> tuple[np.ndarray, np.ndarray]:
    """All pairs inside the classes `guesses` leaves unseparated."""
    labels = class_labels(codes, guesses)
    counts = np.bincount(labels)
    if counts.max(initial=0) < 2:
        return _empty_pairs()
    return pairs_within_labels(labels)


# ---------------------------------------------------------------------------
# which guesses separate which pairs (sparse rows of the covering MIP)


@njit(cache=True, parallel=True)
def _sep_counts(codes_t, pi, pj, cols, counts):
    for p in prange(pi.shape[0]):
        a = codes_t[pi[p]]
        b = codes_t[pj[p]]
        c = 0
        for k in range(cols.shape[0]):
            g = cols[k]
            if a[g] != b[g]:
                c += 1
        counts[p] = c


@njit(cache=True, parallel=True)
def _sep_fill(codes_t, pi, pj, cols, indptr, indices):
    for p in prange(pi.shape[0]):
        a = codes_t[pi[p]]
        b = codes_t[pj[p]]
        pos = indptr[p]
        for k in range(cols.shape[0]):
            g = cols[k]
            if a[g] != b[g]:
                indices[pos] = k
                pos += 1


def transpose_codes(codes: np.ndarray) -> np.ndarray:
    """Secret-major copy of the code matrix (row s = codes[:, s]), for fast pair access."""
    return np.ascontiguousarray(codes.T)


def separator_counts(codes_t: np.ndarray, i, j, columns=None) -> np.ndarray:
    """Number of guesses (among `columns`, default all) separating each pair.

    `codes_t` is the secret-major matrix from `transpose_codes`."""
    pi, pj, cols = _pair_arrays(codes_t, i, j, columns)
    counts = np.empty(pi.shape[0], dtype=np.int64)
    if pi.size:
        _sep_counts(codes_t, pi, pj, cols, counts)
    return counts


def separators(codes_t: np.ndarray, i, j, columns=None) -> tuple[np.ndarray, np.ndarray]:
    """CSR structure (indptr, indices) with one row per pair: the positions k in
    `columns` (default: all guesses, so k is the guess index) of the guesses
    separating pair (i[p], j[p]), ascending.

    `codes_t` is the secret-major matrix from `transpose_codes`.
    """
    counts = separator_counts(codes_t, i, j, columns)
    indptr = np.zeros(counts.shape[0] + 1, dtype=np.int64)
    np.cumsum(counts, out=indptr[1:])
    indices = np.empty(int(indptr[-1]), dtype=np.int32)
    if counts.size:
        _sep_fill(codes_t, *_pair_arrays(codes_t, i, j, columns), indptr, indices)
    return indptr, indices


def _pair_arrays(codes_t: np.ndarray, i, j, columns):
    """The kernels' arrays: pair ends (int64) and the guess columns (`_columns`)."""
    return np.ascontiguousarray(i, dtype=np.int64), np.ascontiguousarray(j, dtype=np.int64), _columns(codes_t, columns)


def _columns(codes_t: np.ndarray, columns) -> np.ndarray:
    if columns is None:
        return np.arange(codes_t.shape[1], dtype=np.int64)
    return np.ascontiguousarray(columns, dtype=np.int64)


# ---------------------------------------------------------------------------
# dominance reductions of the covering matrix (exact: they keep the optimum)


@njit(cache=True, parallel=True)
def _column_bits(codes_t, pi, pj, cols, bits):
    n_pairs = pi.shape[0]
    for k in prange(cols.shape[0]):
        g = cols[k]
        for p in range(n_pairs):
            if codes_t[pi[p], g] != codes_t[pj[p], g]:
                bits[k, p >> 6] |= np.uint64(1) << np.uint64(p & 63)


def column_bits(codes_t: np.ndarray, i, j, columns=None) -> np.ndarray:
    """(n_columns, ceil(P/64)) uint64 bitsets: bit p of row k is set iff guess
    columns[k] separates pair p."""
    pi, pj, cols = _pair_arrays(codes_t, i, j, columns)
    bits = np.zeros((cols.shape[0], max(1, (pi.shape[0] + 63) // 64)), dtype=np.uint64)
    if pi.size and cols.size:
        _column_bits(codes_t, pi, pj, cols, bits)
    return bits


@njit(cache=True, parallel=True)
def _popcounts(bits, out):
    for r in prange(bits.shape[0]):
        c = 0
        for w in range(bits.shape[1]):
            c += popcount(bits[r, w])
        out[r] = c


def popcounts(bits: np.ndarray) -> np.ndarray:
    """Number of set bits in each row of a uint64 bitset matrix."""
    out = np.empty(bits.shape[0], dtype=np.int64)
    if bits.shape[0]:
        _popcounts(bits, out)
    return out


@njit(cache=True, parallel=True)
def _earlier_subset(bits, order, of_earlier, out):
    """out[order[a]] = order[b] for the first b < a whose row of `bits` contains row order[a] (of_earlier) or is
    contained in it (not of_earlier); rows without one keep their value."""
    n_words = bits.shape[1]
    for a in prange(order.shape[0]):
        r = order[a]
        for b in range(a):
            q = order[b]
            small, big = (r, q) if of_earlier else (q, r)
            inside = True
            for w in range(n_words):
                if bits[small, w] & ~bits[big, w]:
                    inside = False
                    break
            if inside:
                out[r] = q
                break


def column_dominators(bits: np.ndarray) -> np.ndarray:
    """For each column, -1 if it is kept, else the index of an undominated column
    whose set of separated pairs contains its own (ties: the later index is the
    dominated one).  Dropping dominated columns keeps the optimum of the covering
    problem, since any cover can swap them for their dominators."""
    counts = popcounts(bits)
    order = np.lexsort((np.arange(bits.shape[0]), -counts)).astype(np.int64)
    dom = np.full(bits.shape[0], -1, dtype=np.int64)
    if bits.shape[0] > 1:
        _earlier_subset(bits, order, True, dom)
    # follow chains to an undominated column (dominators sit earlier in `order`)
    final = dom.copy()
    for r in order:
        q = final[r]
        if q >= 0 and final[q] >= 0:
            final[r] = final[q]
    return final


def row_bits(column_bitsets: np.ndarray, n_pairs: int, keep_columns=None) -> np.ndarray:
    """Transpose column bitsets (from `column_bits`) into per-pair bitsets over
    the kept columns: (n_pairs, ceil(n_kept/64)) uint64."""
    cols = np.arange(column_bitsets.shape[0]) if keep_columns is None else np.asarray(keep_columns)
    dense = np.unpackbits(column_bitsets[cols].view(np.uint8), axis=1, bitorder="little")[:, :n_pairs]
    return _pack_rows(np.ascontiguousarray(dense.T))


def _pack_rows(dense_bool: np.ndarray) -> np.ndarray:
    n, m = dense_bool.shape
    padded = np.zeros((n, max(1, (m + 63) // 64) * 64), dtype=np.uint8)
    padded[:, :m] = dense_bool
    return np.packbits(padded, axis=1, bitorder="little").view(np.uint64)


def dominated_rows(pair_bits: np.ndarray) -> np.ndarray:
    """Pairs whose separator set contains another pair's (ties: the later index):
    their covering constraint is implied, so they can be left out of the model."""
    counts = popcounts(pair_bits)
    order = np.lexsort((np.arange(pair_bits.shape[0]), counts)).astype(np.int64)
    earlier = np.full(pair_bits.shape[0], -1, dtype=np.int64)
    if pair_bits.shape[0] > 1:
        _earlier_subset(pair_bits, order, False, earlier)
    return earlier >= 0


# ---------------------------------------------------------------------------
# scoring candidate guesses against a partition (for greedy / local search)


@njit(cache=True, parallel=True)
def _pairs_left(codes, members, starts, cols, n_codes, out):
    """out[k] = pairs inside the classes members[starts[c]:starts[c+1]] that guess cols[k] leaves together:
    the sum over its sub-classes of t(t-1)/2 = (sum t^2 - class size) / 2."""
    n_classes = starts.shape[0] - 1
    zeros = np.zeros(members.shape[0] + 1, dtype=np.int64)
    for k in prange(cols.shape[0]):
        row = codes[cols[k]]
        counts = np.zeros(n_codes, dtype=np.int64)
        total = 0
        for c in range(n_classes):
            _, _, sum_sq, _, _ = class_counts(row, members[starts[c]:starts[c + 1]], counts, zeros, 0)
            total += (sum_sq - (starts[c + 1] - starts[c])) // 2
        out[k] = total


def pairs_left_after(codes: np.ndarray, labels: np.ndarray, columns=None) -> np.ndarray:
    """For each guess (row index in `columns`, default all), the number of pairs
    still unseparated after refining the partition `labels` (one label per
    secret, e.g. from `class_labels`) by that guess."""
    cols = np.arange(codes.shape[0], dtype=np.int64) if columns is None else np.ascontiguousarray(columns, dtype=np.int64)
    labels = np.asarray(labels, dtype=np.int64)
    counts = np.bincount(labels)
    in_big = counts[labels] >= 2
    members = np.flatnonzero(in_big)
    out = np.zeros(cols.shape[0], dtype=np.int64)
    if members.size == 0 or cols.size == 0:
        return out
    order = members[np.argsort(labels[members], kind="stable")]
    sizes = np.bincount(labels[order])
    sizes = sizes[sizes > 0]
    starts = np.concatenate(([0], np.cumsum(sizes))).astype(np.int64)
    n_codes = int(codes.max()) + 1
    _pairs_left(codes, order.astype(np.int64), starts, cols, n_codes, out)
    return out


def unseparated_pair_count(codes: np.ndarray, guesses) -> int:
    """Number of pairs of secrets that `guesses` leaves unseparated."""
    counts = np.bincount(class_labels(codes, guesses))
    return int((counts * (counts - 1) // 2).sum())


def hardest_pairs(codes_t: np.ndarray, i, j, k: int, columns=None) -> tuple[np.ndarray, np.ndarray]:
    """The k pairs separated by the fewest guesses (among `columns`), ties by (i, j)."""
    i = np.asarray(i, dtype=np.int32)
    j = np.asarray(j, dtype=np.int32)
    if len(i) <= k:
        return i, j
    counts = separator_counts(codes_t, i, j, columns)
    pick = np.sort(np.argsort(counts, kind="stable")[:k])
    return i[pick], j[pick]
