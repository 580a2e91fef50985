"""Split(C, g): the classes a guess cuts a candidate set into.

`codes` is the |G| x |S| code matrix, `candidates` an int array of secret
indices (the set C), `n_codes` = 3**L.  Counting is done with a count array
over the codes, reset by revisiting only the codes that were touched.
"""

import numpy as np
from numba import njit, prange


@njit(cache=True)
def _row_stats(row, candidates, counts):
    parts = 0
    largest = 0
    sum_sq = 0
    sum_tlogt = 0.0
    for c in candidates:
        counts[row[c]] += 1
    for c in candidates:
        t = counts[row[c]]
        if t > 0:
            parts += 1
            if t > largest:
                largest = t
            sum_sq += t * t
            sum_tlogt += t * np.log(t)
            counts[row[c]] = 0
    return parts, largest, sum_sq, sum_tlogt


@njit(cache=True, parallel=True)
def split_stats(codes, candidates, n_codes):
    """Per guess: (number of parts, largest part, sum of squared part sizes, sum t*ln t)."""
    n_guesses = codes.shape[0]
    parts = np.empty(n_guesses, dtype=np.int32)
    largest = np.empty(n_guesses, dtype=np.int32)
    sum_sq = np.empty(n_guesses, dtype=np.int64)
    sum_tlogt = np.empty(n_guesses, dtype=np.float64)
    n_chunks = 64
    chunk = (n_guesses + n_chunks - 1) // n_chunks
    for k in prange(n_chunks):
        counts = np.zeros(n_codes, dtype=np.int32)
        for g in range(k * chunk, min(n_guesses, (k + 1) * chunk)):
            p, m, s, e = _row_stats(codes[g], candidates, counts)
            parts[g] = p
            largest[g] = m
            sum_sq[g] = s
            sum_tlogt[g] = e
    return parts, largest, sum_sq, sum_tlogt


@njit(cache=True, parallel=True)
def split_parts(codes, candidates, n_codes):
    """Number of parts of Split(C, g) for every guess (the MostParts count)."""
    n_guesses = codes.shape[0]
    parts = np.empty(n_guesses, dtype=np.int32)
    n_chunks = 64
    chunk = (n_guesses + n_chunks - 1) // n_chunks
    for k in prange(n_chunks):
        seen = np.zeros(n_codes, dtype=np.bool_)
        for g in range(k * chunk, min(n_guesses, (k + 1) * chunk)):
            row = codes[g]
            p = 0
            for c in candidates:
                if not seen[row[c]]:
                    seen[row[c]] = True
                    p += 1
            for c in candidates:
                seen[row[c]] = False
            parts[g] = p
    return parts


def split(row: np.ndarray, candidates: np.ndarray) -> tuple[np.ndarray, list[np.ndarray]]:
    """The classes of Split(C, g) for one guess row: (class codes ascending, class members)."""
    response = row[candidates]
    order = np.argsort(response, kind="stable")
    sorted_codes = response[order]
    starts = np.flatnonzero(np.r_[True, sorted_codes[1:] != sorted_codes[:-1]])
    members = np.split(candidates[order], starts[1:])
    return sorted_codes[starts], members
