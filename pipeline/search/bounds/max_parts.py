"""max_g |Split(C, g)|: the part count behind LB_2, computed exactly but counting few guesses.

Counting the parts of one guess on C costs |C| reads, and there are |G|
guesses; LB_2 asks for this maximum on every large response class of every
opener, so it dominates the funnel's first levels.  The scan proves the
maximum while counting only guesses that some cheap upper bound cannot rule
out.  Three bounds on |Split(C, g)|, all exact-safe:

* parts on S (|Split(C, g)| <= |Split(S, g)|): guesses are laid out by
  descending parts on S, so the scan ends once they fall to the best so far;
* a letter ceiling: how many colours each guess letter can show at its
  position over C, multiplied over positions (needs the encoded words);
* a neighbour bound: |Split(C, g)| is the number of candidates whose code
  differs from that of every candidate before them; comparing each with only
  a few earlier, similar candidates can only overcount, and vectorises over
  guesses.  Candidates are ordered along a maximum spanning tree of how often
  they agree over a sample of strong guesses, so similar ones are near.
"""

from typing import NamedTuple

import numpy as np
from numba import njit

from pipeline.search.arrays import kernel_input
from pipeline.search.partition import popcount

BLOCK = 512  # guesses counted together: each candidate's codes for the block are one contiguous read
FIRST_BLOCK = 32  # the strongest guesses are counted first, so the bounds prune against a good best
NEIGHBOUR_SIZES = (8, 200)  # the neighbour bound is used for classes of this many candidates (inclusive)
NEIGHBOURS = 8  # earlier candidates each candidate is compared with
SIMILARITY_SAMPLE = 16  # strong guesses over which two candidates' agreement is counted


class PartsIndex(NamedTuple):
    """Plain arrays for `max_parts`, guesses ordered by descending |Split(S, g)|.

    codes_t: |S| x |G| codes in that guess order; parts: |Split(S, g)| in that
    order; keys: colour-table keys of the guesses (0 rows without words);
    secrets: letters of the secrets (0 rows without words).
    """

    codes_t: np.ndarray
    parts: np.ndarray
    keys: np.ndarray
    secrets: np.ndarray


def guess_order(global_parts) -> np.ndarray:
    """Guess indices by descending parts on S (ties by index): the column order of a PartsIndex."""
    return np.argsort(-np.asarray(global_parts), kind="stable")


def parts_index(codes, global_parts, encoded_guesses=None, encoded_secrets=None) -> PartsIndex:
    """Build the scan's layout from the |G| x |S| code matrix and each guess's parts on S."""
    order = guess_order(global_parts)
    keys, secrets = word_arrays(encoded_guesses, encoded_secrets)
    return PartsIndex(np.ascontiguousarray(codes.T[:, order]), np.asarray(global_parts, dtype=np.int64)[order],
                      np.ascontiguousarray(keys[order]) if len(keys) else keys, secrets)


def word_arrays(encoded_guesses, encoded_secrets):
    """(guess colour-table keys, secret letters); empty when the words are not given.

    A key is the letter for a letter the guess holds once, letter + 64 for a repeated one.
    """
    if encoded_guesses is None or encoded_secrets is None:
        return np.zeros((0, 1), dtype=np.int64), kernel_input(np.zeros((0, 1)), dtype=np.uint8)
    guesses = np.asarray(encoded_guesses, dtype=np.int64)
    keys = guesses.copy()
    for i in range(guesses.shape[1]):
        for j in range(guesses.shape[1]):
            if i != j:
                keys[:, i] = np.where(guesses[:, i] == guesses[:, j], guesses[:, i] + 64, keys[:, i])
    return keys, kernel_input(encoded_secrets, dtype=np.uint8)


@njit(cache=True)
def max_parts(codes_t, parts, keys, secrets, candidates, n_codes):
    """max_g |Split(C, g)|, stopping once it reaches |C| - 1 (Bound is flat from there).

    The arguments before `candidates` are a PartsIndex; codes are < n_codes.
    """
    return most_parts_above(codes_t, parts, keys, secrets, candidates, n_codes, 1, candidates.shape[0] - 1)


@njit(cache=True)
def most_parts_above(codes_t, parts, keys, secrets, candidates, n_codes, floor, stop):
    """max(floor, max_g |Split(C, g)|), exact below `stop`; a result >= stop only says the maximum is >= stop.

    Guesses are taken in blocks in the index's order (descending parts on S);
    a guess is counted only if none of the module's upper bounds puts it at or
    below the best count so far (which starts at `floor`: a high floor prunes
    more).  With stop = |C| the result is always exact (no guess makes more).
    """
    n = candidates.shape[0]
    n_guesses = codes_t.shape[1]
    lo, hi = NEIGHBOUR_SIZES
    use_neighbours = lo <= n <= hi
    if use_neighbours:
        ordered, neighbours = _neighbours(codes_t, candidates)
    else:
        ordered, neighbours = candidates, np.zeros((0, 0), dtype=np.int64)
    neighbour_ceiling = np.full(BLOCK, n, dtype=np.int32)
    differs = np.empty(BLOCK, dtype=codes_t.dtype)
    use_letters = n > 8 and keys.shape[0] > 0
    table = colour_table(candidates, secrets) if use_letters else np.zeros((1, 1), dtype=np.int64)
    words = (n_codes + 63) // 64
    bits = np.zeros(BLOCK * words, dtype=np.uint64)
    selected = np.empty(BLOCK, dtype=np.int32)
    best = floor
    start = 0
    while start < n_guesses and best < stop and parts[start] > best:
        end = start + 1
        while end < min(n_guesses, start + (FIRST_BLOCK if start == 0 else BLOCK)) and parts[end] > best:
            end += 1
        if use_neighbours:
            _neighbour_bound(codes_t, ordered, neighbours, start, end, neighbour_ceiling, differs)
        m = 0
        for g in range(start, end):
            if neighbour_ceiling[g - start] <= best or (use_letters and letter_ceiling(keys[g], table) <= best):
                continue
            selected[m] = g - start
            m += 1
        best = max(best, _count_most_parts(codes_t, candidates, start, end, selected[:m], bits, words))
        start = end
    return best


@njit(cache=True)
def _count_most_parts(codes_t, candidates, start, end, selected, bits, words):
    """max |Split(C, g)| over the guesses start + selected, counted as bitsets of codes seen."""
    m = selected.shape[0]
    bits[: m * words] = 0
    for c in candidates:
        row = codes_t[c, start:end]
        for j in range(m):
            code = np.int64(row[selected[j]])
            bits[j * words + (code >> 6)] |= np.uint64(1) << np.uint64(code & 63)
    most = 0
    for j in range(m):
        count = 0
        for w in range(words):
            count += popcount(bits[j * words + w])
        most = max(most, count)
    return most


@njit(cache=True)
def _neighbour_bound(codes_t, ordered, neighbours, start, end, out, differs):
    """out[g - start] >= |Split(C, g)| for guesses start..end-1: 1 + the candidates whose code
    differs from those of all their listed neighbours."""
    width = end - start
    out[:width] = 1
    for p in range(1, ordered.shape[0]):
        a = codes_t[ordered[p], start:end]
        b = codes_t[neighbours[p, 0], start:end]
        for g in range(width):
            differs[g] = a[g] ^ b[g]
        for q in range(1, neighbours.shape[1]):
            if neighbours[p, q] < 0:
                break
            b = codes_t[neighbours[p, q], start:end]
            for g in range(width):
                differs[g] = min(differs[g], a[g] ^ b[g])
        for g in range(width):
            out[g] += min(differs[g], 1)


@njit(cache=True)
def _neighbours(codes_t, candidates):
    """(C in Prim order of a maximum spanning tree on agreement, each one's NEIGHBOURS most agreeing
    predecessors -- secret indices, -1 padded).  Agreement = equal codes over SIMILARITY_SAMPLE guesses."""
    n = candidates.shape[0]
    agree = _agreement(codes_t, candidates)
    order = _prim_order(agree)
    neighbours = np.full((n, NEIGHBOURS), -1, dtype=np.int64)
    for p in range(1, n):
        weights = np.empty(p, dtype=np.int64)
        for q in range(p):
            weights[q] = -agree[order[p], order[q]]
        for q, k in enumerate(np.argsort(weights, kind="mergesort")[:NEIGHBOURS]):
            neighbours[p, q] = candidates[order[k]]
    return candidates[order], neighbours


@njit(cache=True)
def _agreement(codes_t, candidates):
    n = candidates.shape[0]
    sample = min(SIMILARITY_SAMPLE, codes_t.shape[1])
    agree = np.zeros((n, n), dtype=np.int32)
    for i in range(n):
        a = codes_t[candidates[i], :sample]
        for j in range(i + 1, n):
            b = codes_t[candidates[j], :sample]
            same = 0
            for g in range(sample):
                same += a[g] == b[g]
            agree[i, j] = same
            agree[j, i] = same
    return agree


@njit(cache=True)
def _prim_order(weight):
    """Vertices in the order Prim's algorithm adds them to a maximum spanning tree, from vertex 0."""
    n = weight.shape[0]
    in_tree = np.zeros(n, dtype=np.bool_)
    link = np.full(n, -1, dtype=np.int64)
    order = np.empty(n, dtype=np.int64)
    u = 0
    for p in range(n):
        in_tree[u] = True
        order[p] = u
        nxt, strongest = -1, -2
        for v in range(n):
            if not in_tree[v]:
                link[v] = max(link[v], weight[u, v])
                if link[v] > strongest:
                    nxt, strongest = v, link[v]
        u = nxt
    return order


@njit(cache=True)
def _letter_masks(candidates, secrets):
    """Per position i, 64-bit letter masks over C: letters at i (green possible), letters present
    elsewhere (yellow possible); plus letters missing from some word (grey possible)."""
    length = secrets.shape[1]
    at = np.zeros(length, dtype=np.int64)
    elsewhere = np.zeros(length, dtype=np.int64)
    missing = np.int64(0)
    for c in candidates:
        word = np.int64(0)
        for i in range(length):
            word |= np.int64(1) << secrets[c, i]
        missing |= ~word
        for i in range(length):
            bit = np.int64(1) << secrets[c, i]
            at[i] |= bit
            elsewhere[i] |= word & ~bit
    return at, elsewhere, missing


@njit(cache=True)
def colour_table(candidates, secrets):
    """How many colours a guess letter can show at each position over C: table[i, key].

    A single letter x at i is green / yellow / grey exactly as s[i] == x /
    x elsewhere in s / x not in s; a repeated letter may show any non-green
    colour, so only the green test is used for it.  The product over positions
    bounds |Split(C, h)| (distinct codes <= product of distinct digits).
    """
    at, elsewhere, missing = _letter_masks(candidates, secrets)
    table = np.zeros((secrets.shape[1], 128), dtype=np.int64)
    for i in range(secrets.shape[1]):
        for x in range(64):
            bit = np.int64(1) << x
            green = 1 if at[i] & bit else 0
            table[i, x] = green + (1 if elsewhere[i] & bit else 0) + (1 if missing & bit else 0)
            table[i, 64 + x] = green + (2 if at[i] & ~bit else 0)
    return table


@njit(cache=True)
def letter_ceiling(keys, table):
    """An upper bound on |Split(C, g)| for the guess with colour-table keys `keys` (see `colour_table`)."""
    product = 1
    for i in range(keys.shape[0]):
        product *= table[i, keys[i]]
    return product
