"""Valuations v(g, C) of a guess for a candidate set, and their lexicographic combinations.

The five valuations of docs/algorithms.md §2, all in "minimise" form.  With
P = Split(C, g) (win class included) and t = |part|:

    InSet         -[g in C]
    MaxSizeSplit  max t
    MostParts     -|P|
    Information   sum (t/|C|) log(t/|C|)  (= -entropy)
    ExpSizeSplit  sum t^2 / |C|

In the "exact" arithmetic every value is an exact integer so that ties
behave like exact maths (a full tie falls back to the lowest guess index,
i.e. alphabetical):

- ExpSizeSplit is compared by the integer sum t^2 (|C| is fixed at a node);
- Information is compared by sum t*ln t (again |C| is fixed), held as a
  fixed-point integer built from exact prime factorisations:
  t ln t = sum_p t*v_p(t)*ln p with each ln p rounded once to a multiple of
  2**-INFO_BITS.  Equal products prod t^t (e.g. {4,1,1,1,1} and {2,2,2,2})
  therefore give identical integers whatever the summation order, which a
  float sum does not guarantee.

The default for the greedy trees is the "paper" arithmetic, which reproduces the published Table 1 figures: the
values are float64 sums as a straightforward Python implementation computes
them -- Information = sum (t/|C|)*log(t/|C|) and ExpSizeSplit = sum t*t/|C|,
the classes summed left to right in the order they first appear when the
candidates are scanned in index order -- compared with plain float
comparison (so rounding can make unequal values tie or equal ones differ),
full ties again to the lowest guess index.  Each term is taken from a
per-node table (`paper_terms`), which gives the same bits as computing it
in place.
"""

import itertools
import math

import numpy as np
from numba import njit

VALUATIONS = ("InSet", "MaxSizeSplit", "MostParts", "Information", "ExpSizeSplit")
IN_SET, MAX_SIZE_SPLIT, MOST_PARTS, INFORMATION, EXP_SIZE_SPLIT = range(5)
BEST_COMBINATION = ("MostParts", "InSet", "ExpSizeSplit")
INFO_BITS = 40
ARITHMETICS = ("paper", "exact")  # see the module doc


def parse_combination(spec) -> tuple[str, ...]:
    """Names of a combination from "MostParts,InSet,ExpSizeSplit" or a list of names.

    Raises ValueError for an empty combination, an unknown name (listing the
    known ones) or a repeated name.
    """
    names = spec.split(",") if isinstance(spec, str) else list(spec)
    names = [str(n).strip() for n in names if str(n).strip()]
    if not names:
        raise ValueError(f"empty valuation combination {spec!r}; use names from {', '.join(VALUATIONS)}")
    unknown = [n for n in names if n not in VALUATIONS]
    if unknown:
        raise ValueError(
            f"unknown valuation name(s) {', '.join(map(repr, unknown))} in {spec!r}; "
            f"known names are {', '.join(VALUATIONS)}"
        )
    if len(set(names)) != len(names):
        raise ValueError(f"valuation combination {spec!r} repeats a name")
    return tuple(names)


def all_combinations() -> list[tuple[str, ...]]:
    """The 325 ordered non-empty combinations of distinct valuations."""
    return [p for k in range(1, len(VALUATIONS) + 1) for p in itertools.permutations(VALUATIONS, k)]


def check_arithmetic(arithmetic) -> str:
    """`arithmetic` if it is one of ARITHMETICS, else ValueError naming the choices."""
    if arithmetic not in ARITHMETICS:
        raise ValueError(f"unknown arithmetic {arithmetic!r}; use one of {', '.join(ARITHMETICS)}")
    return arithmetic


def combination_ids(combination) -> np.ndarray:
    """Valuation ids (indices into VALUATIONS) of a combination, as the kernels take them."""
    return np.array([VALUATIONS.index(n) for n in parse_combination(combination)], dtype=np.int64)


def tlogt_table(max_size: int) -> np.ndarray:
    """Fixed-point t*ln t for t = 0..max_size from exact prime factorisations (see module doc)."""
    max_size = max(int(max_size), 1)
    smallest = list(range(max_size + 1))  # smallest prime factor sieve
    for p in range(2, math.isqrt(max_size) + 1):
        if smallest[p] == p:
            for q in range(p * p, max_size + 1, p):
                if smallest[q] == q:
                    smallest[q] = p
    log_p: dict[int, int] = {}
    table = np.zeros(max_size + 1, dtype=np.int64)
    for t in range(2, max_size + 1):
        total, rest = 0, t
        while rest > 1:
            p = smallest[rest]
            if p not in log_p:
                log_p[p] = round(math.log(p) * 2**INFO_BITS)
            total += t * log_p[p]
            rest //= p
        table[t] = total
    return table


SMALL_SET = 100  # below this many candidates, scan the transposed matrix


@njit(cache=True, inline="always")
def _stats_of(line, candidates, counts, tlogt):
    """(parts, largest, sum t^2, fixed-point sum t ln t) of one guess, in one pass.

    Incremental form: when a class grows from k to k+1 members, sum t^2 grows
    by 2k+1 and sum t ln t by tlogt[k+1]-tlogt[k].  `counts` is left zeroed.
    """
    parts = 0
    largest = 0
    sum_sq = 0
    info = 0
    for c in candidates:
        r = line[c]
        k = counts[r]
        counts[r] = k + 1
        sum_sq += 2 * k + 1
        info += tlogt[k + 1] - tlogt[k]
        if k == 0:
            parts += 1
        if k >= largest:
            largest = k + 1
    if candidates.shape[0] * 4 > counts.shape[0]:
        counts[:] = 0
    else:
        for c in candidates:
            counts[line[c]] = 0
    return parts, largest, sum_sq, info


@njit(cache=True, inline="always")
def _stats_t(codes_t, g, candidates, counts, tlogt):
    """As _stats_of for column g of the transposed (S, G) matrix."""
    parts = 0
    largest = 0
    sum_sq = 0
    info = 0
    for c in candidates:
        r = codes_t[c, g]
        k = counts[r]
        counts[r] = k + 1
        sum_sq += 2 * k + 1
        info += tlogt[k + 1] - tlogt[k]
        if k == 0:
            parts += 1
        if k >= largest:
            largest = k + 1
    for c in candidates:
        counts[codes_t[c, g]] = 0
    return parts, largest, sum_sq, info


@njit(cache=True, inline="always")
def guess_stats(codes, codes_t, g, candidates, counts, tlogt):
    """(parts, largest, sum t^2, fixed-point sum t ln t) of Split(C, g).

    Large sets gather from the row codes[g]; small ones read the transposed
    (S, G) matrix, so that consecutive guesses read each candidate's row
    sequentially (a gather from 12972 rows of the (G, S) matrix costs one
    cache miss per candidate per guess).
    """
    if candidates.shape[0] >= SMALL_SET:
        return _stats_of(codes[g], candidates, counts, tlogt)
    return _stats_t(codes_t, g, candidates, counts, tlogt)


@njit(cache=True)
def lex_better(cur, best, combo):
    """Does `cur` come strictly before `best` comparing the combination's valuations in order? (A full tie does not.)"""
    for k in combo:
        if cur[k] != best[k]:
            return cur[k] < best[k]
    return False


@njit(cache=True)
def best_guess(codes, codes_t, candidates, in_c, secret_of_guess, counts, tlogt, combo, allowed):
    """Index of the guess minimising the combination `combo` over G (lowest index on a full tie).

    `in_c` is a boolean mask over secrets marking the candidates; `counts`
    a zeroed scratch array of size n_codes; `allowed` a mask over G of the
    guesses that may be played (hard mode), empty = all of G.
    """
    best = np.empty(5, dtype=np.int64)
    cur = np.empty(5, dtype=np.int64)
    best_g = -1
    every = allowed.shape[0] == 0
    for g in range(codes.shape[0]):
        if not every and not allowed[g]:
            continue
        parts, largest, sum_sq, info = guess_stats(codes, codes_t, g, candidates, counts, tlogt)
        s = secret_of_guess[g]
        cur[0] = -1 if (s >= 0 and in_c[s]) else 0
        cur[1] = largest
        cur[2] = -parts
        cur[3] = info
        cur[4] = sum_sq
        if best_g < 0 or lex_better(cur, best, combo):
            best_g = g
            best[:] = cur
    return best_g


@njit(cache=True)
def all_values(codes, codes_t, candidates, in_c, secret_of_guess, n_codes, tlogt):
    """(G, 5) int64 matrix of minimise-form values of every guess, columns in VALUATIONS order."""
    out = np.empty((codes.shape[0], 5), dtype=np.int64)
    counts = np.zeros(n_codes, dtype=np.int32)
    for g in range(codes.shape[0]):
        parts, largest, sum_sq, info = guess_stats(codes, codes_t, g, candidates, counts, tlogt)
        s = secret_of_guess[g]
        out[g, 0] = -1 if (s >= 0 and in_c[s]) else 0
        out[g, 1] = largest
        out[g, 2] = -parts
        out[g, 3] = info
        out[g, 4] = sum_sq
    return out


@njit(cache=True)
def paper_terms(m, info_term, exp_term):
    """info_term[t] = (t/m)*log(t/m) and exp_term[t] = t*t/m in float64, for t = 1..m."""
    for t in range(1, m + 1):
        f = t / m
        info_term[t] = f * math.log(f)
        exp_term[t] = (t * t) / m


@njit(cache=True, inline="always")
def _paper_stats_of(line, candidates, counts, info_term, exp_term):
    """(parts, largest, float sum t^2/|C|, float sum (t/|C|) log(t/|C|)), classes in first-appearance order.

    Counts first, then sums each class when its first member comes up again
    (zeroing its count, so `counts` is left zeroed).
    """
    for c in candidates:
        counts[line[c]] += 1
    parts = 0
    largest = 0
    exp = 0.0
    info = 0.0
    for c in candidates:
        r = line[c]
        t = counts[r]
        if t > 0:
            counts[r] = 0
            parts += 1
            largest = max(largest, t)
            exp += exp_term[t]
            info += info_term[t]
    return parts, largest, exp, info


@njit(cache=True, inline="always")
def _paper_stats_t(codes_t, g, candidates, counts, info_term, exp_term):
    """As _paper_stats_of for column g of the transposed (S, G) matrix."""
    for c in candidates:
        counts[codes_t[c, g]] += 1
    parts = 0
    largest = 0
    exp = 0.0
    info = 0.0
    for c in candidates:
        r = codes_t[c, g]
        t = counts[r]
        if t > 0:
            counts[r] = 0
            parts += 1
            largest = max(largest, t)
            exp += exp_term[t]
            info += info_term[t]
    return parts, largest, exp, info


@njit(cache=True, inline="always")
def paper_stats(codes, codes_t, g, candidates, counts, info_term, exp_term):
    """guess_stats in the paper arithmetic: (parts, largest, ExpSizeSplit, Information) as floats."""
    if candidates.shape[0] >= SMALL_SET:
        return _paper_stats_of(codes[g], candidates, counts, info_term, exp_term)
    return _paper_stats_t(codes_t, g, candidates, counts, info_term, exp_term)


@njit(cache=True)
def best_guess_paper(codes, codes_t, candidates, in_c, secret_of_guess, counts, info_term, exp_term, combo,
                     allowed):
    """best_guess in the paper arithmetic (float values, plain float comparison, lowest index on a full tie).

    `info_term`/`exp_term` must hold paper_terms(|C|, ...); `allowed` as in best_guess.
    """
    best = np.empty(5, dtype=np.float64)
    cur = np.empty(5, dtype=np.float64)
    best_g = -1
    every = allowed.shape[0] == 0
    for g in range(codes.shape[0]):
        if not every and not allowed[g]:
            continue
        parts, largest, exp, info = paper_stats(codes, codes_t, g, candidates, counts, info_term, exp_term)
        s = secret_of_guess[g]
        cur[0] = -1.0 if (s >= 0 and in_c[s]) else 0.0
        cur[1] = largest
        cur[2] = -parts
        cur[3] = info
        cur[4] = exp
        if best_g < 0 or lex_better(cur, best, combo):
            best_g = g
            best[:] = cur
    return best_g


@njit(cache=True)
def all_values_paper(codes, codes_t, candidates, in_c, secret_of_guess, n_codes):
    """(G, 5) float64 matrix of the paper-arithmetic values of every guess, columns in VALUATIONS order."""
    m = candidates.shape[0]
    info_term = np.zeros(m + 1, dtype=np.float64)
    exp_term = np.zeros(m + 1, dtype=np.float64)
    paper_terms(m, info_term, exp_term)
    out = np.empty((codes.shape[0], 5), dtype=np.float64)
    counts = np.zeros(n_codes, dtype=np.int32)
    for g in range(codes.shape[0]):
        parts, largest, exp, info = paper_stats(codes, codes_t, g, candidates, counts, info_term, exp_term)
        s = secret_of_guess[g]
        out[g, 0] = -1.0 if (s >= 0 and in_c[s]) else 0.0
        out[g, 1] = largest
        out[g, 2] = -parts
        out[g, 3] = info
        out[g, 4] = exp
    return out


def transposed(codes: np.ndarray) -> np.ndarray:
    """The (S, G) C-contiguous transpose of a (G, S) code matrix, as the scanning kernels take it."""
    return np.ascontiguousarray(codes.T)


def values(codes, secret_of_guess, n_codes, candidates, arithmetic="exact") -> np.ndarray:
    """Values of every guess for the candidate set (columns in VALUATIONS order).

    "exact": the int64 values of the exact arithmetic (see float_values for
    textbook units); "paper": the float64 values the paper arithmetic compares,
    already in textbook units.  `candidates` in the order the paper sums them.
    """
    check_arithmetic(arithmetic)
    candidates = np.asarray(candidates, dtype=np.int64)
    in_c = np.zeros(codes.shape[1], dtype=np.bool_)
    in_c[candidates] = True
    sog = np.asarray(secret_of_guess, dtype=np.int32)
    if arithmetic == "paper":
        return all_values_paper(codes, transposed(codes), candidates, in_c, sog, n_codes)
    return all_values(codes, transposed(codes), candidates, in_c, sog, n_codes, tlogt_table(len(candidates)))


def rank(codes, secret_of_guess, n_codes, candidates, combination=BEST_COMBINATION, arithmetic="exact") -> np.ndarray:
    """All guess indices ordered best first by the combination, ties by guess index."""
    vals = values(codes, secret_of_guess, n_codes, candidates, arithmetic)
    ids = combination_ids(combination)
    keys = [np.arange(len(vals))] + [vals[:, k] for k in ids[::-1]]
    return np.lexsort(keys)


def float_values(vals: np.ndarray, n_candidates: int) -> np.ndarray:
    """Exact-arithmetic values in textbook units (Information in nats, ExpSizeSplit as sum t^2/|C|)."""
    out = vals.astype(np.float64)
    out[:, INFORMATION] = vals[:, INFORMATION] / 2.0**INFO_BITS / n_candidates - math.log(n_candidates)
    out[:, EXP_SIZE_SPLIT] = vals[:, EXP_SIZE_SPLIT] / n_candidates
    return out
