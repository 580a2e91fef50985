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

The default for the greedy trees is the "paper" arithmetic, which reproduces the published Table 1 figures
(all nine rows, 8019 for Information, InSet, ExpSizeSplit included): the values are the float64 sums the
paper's own code computes (its `new_valuations.py`) -- Information = sum t*ln(t), not divided by |C|
(|C| is fixed at a node, so the order is that of minus the entropy up to rounding), and ExpSizeSplit =
sum (t/|C|)*t, divided first and multiplied after -- the classes summed left to right in the order they
first appear when the candidates are scanned in index order, compared with plain float comparison (so
rounding can make unequal values tie or equal ones differ), full ties again to the lowest guess index
(alphabetical: the lists are sorted).  The textbook forms sum (t/|C|) log(t/|C|) and sum t*t/|C| round
differently and give 8022 for that row.  Each term is taken from a per-node table (`paper_terms`), which
gives the same bits as computing it in place.
"""

import itertools
import math
from collections import namedtuple

import numpy as np
from numba import njit

from pipeline.search.partition import ROW_SCAN_MIN, guess_class_counts, tally

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


Arithmetic = namedtuple("Arithmetic", ["paper", "tlogt", "info_term", "exp_term", "values", "class_code"])
Arithmetic.__doc__ = """An arithmetic as the kernels take it: `paper` (bool), the exact arithmetic's t ln t table
(`tlogt_table`), the paper's per-|C| term tables (`paper_terms`), a (2, 5) scratch of values (int64 for the
exact arithmetic, float64 for the paper's: the dtype is what keeps exact values exact) and a class-code
scratch of n_codes entries."""


def arithmetic_of(name: str, max_size: int, n_codes: int) -> Arithmetic:
    """The kernels' form of arithmetic `name` for candidate sets of up to `max_size` secrets."""
    check_arithmetic(name)
    paper = name == "paper"
    size = max(int(max_size), 1) + 1
    return Arithmetic(paper, np.zeros(1, dtype=np.int64) if paper else tlogt_table(max_size),
                      np.zeros(size), np.zeros(size), np.zeros((2, 5), dtype=np.float64 if paper else np.int64),
                      np.zeros(int(n_codes), dtype=np.int64))


@njit(cache=True)
def paper_terms(m, info_term, exp_term):
    """info_term[t] = t*ln(t) and exp_term[t] = (t/m)*t in float64, for t = 1..m (the paper code's terms)."""
    for t in range(1, m + 1):
        info_term[t] = t * math.log(t)
        exp_term[t] = (t / m) * t


@njit(cache=True, inline="always")
def _paper_line(line, candidates, counts, arith):
    """(parts, largest, float sum (t/|C|)*t, float sum t*ln t), classes summed in first-appearance order."""
    k = tally(line, candidates, counts, arith.class_code)
    largest = 0
    exp = 0.0
    info = 0.0
    for j in range(k):
        r = arith.class_code[j]
        t = counts[r]
        counts[r] = 0
        largest = max(largest, t)
        exp += arith.exp_term[t]
        info += arith.info_term[t]
    return k, largest, exp, info


@njit(cache=True, inline="always")
def _paper_stats(codes, codes_t, g, candidates, counts, arith):
    """`_paper_line` of guess g, reading its row for large sets and its transposed column for small ones."""
    if candidates.shape[0] >= ROW_SCAN_MIN:
        return _paper_line(codes[g], candidates, counts, arith)
    return _paper_line(codes_t[:, g], candidates, counts, arith)


@njit(cache=True, inline="always")
def guess_values(codes, codes_t, g, candidates, in_c, secret_of_guess, counts, arith, out):
    """The five minimise-form values of guess g on C into `out` (VALUATIONS order, `arith`'s arithmetic).

    `in_c` is a boolean mask over secrets marking the candidates; `counts` a
    zeroed scratch array of size n_codes (left zeroed).
    """
    if arith.paper:
        parts, largest, exp, info = _paper_stats(codes, codes_t, g, candidates, counts, arith)
        out[INFORMATION], out[EXP_SIZE_SPLIT] = info, exp
    else:
        parts, largest, sum_sq, tlogt, _ = guess_class_counts(codes, codes_t, g, candidates, counts, arith.tlogt,
                                                               counts.shape[0] - 1)
        out[INFORMATION], out[EXP_SIZE_SPLIT] = tlogt, sum_sq
    s = secret_of_guess[g]
    out[IN_SET] = -1 if (s >= 0 and in_c[s]) else 0
    out[MAX_SIZE_SPLIT] = largest
    out[MOST_PARTS] = -parts


@njit(cache=True)
def lex_better(cur, best, combo):
    """Does `cur` come strictly before `best` comparing the combination's valuations in order? (A full tie does not.)"""
    for k in combo:
        if cur[k] != best[k]:
            return cur[k] < best[k]
    return False


@njit(cache=True)
def best_guess(codes, codes_t, candidates, in_c, secret_of_guess, counts, arith, combo, allowed):
    """Index of the guess minimising the combination `combo` over G (lowest index on a full tie).

    `allowed` is a mask over G of the guesses that may be played (hard
    mode), empty = all of G; the other arguments as in guess_values.
    """
    if arith.paper:
        paper_terms(candidates.shape[0], arith.info_term, arith.exp_term)
    cur, best = arith.values[0], arith.values[1]
    best_g = -1
    every = allowed.shape[0] == 0
    for g in range(codes.shape[0]):
        if not every and not allowed[g]:
            continue
        guess_values(codes, codes_t, g, candidates, in_c, secret_of_guess, counts, arith, cur)
        if best_g < 0 or lex_better(cur, best, combo):
            best_g = g
            best[:] = cur
    return best_g


@njit(cache=True)
def all_values(codes, codes_t, candidates, in_c, secret_of_guess, counts, arith, out):
    """Fill the (G, 5) matrix `out` (int64 exact, float64 paper) with the values of every guess."""
    if arith.paper:
        paper_terms(candidates.shape[0], arith.info_term, arith.exp_term)
    for g in range(codes.shape[0]):
        guess_values(codes, codes_t, g, candidates, in_c, secret_of_guess, counts, arith, out[g])


def transposed(codes: np.ndarray) -> np.ndarray:
    """The (S, G) C-contiguous transpose of a (G, S) code matrix, as the scanning kernels take it."""
    return np.ascontiguousarray(codes.T)


def values(codes, secret_of_guess, n_codes, candidates, arithmetic="exact") -> np.ndarray:
    """Values of every guess for the candidate set (columns in VALUATIONS order).

    "exact": the int64 values of the exact arithmetic (Information as the
    fixed-point sum t ln t, ExpSizeSplit as sum t^2); "paper": the float64
    values the paper arithmetic compares (Information as sum t ln t).  `candidates` in
    the order the paper sums them.
    """
    arith = arithmetic_of(arithmetic, len(candidates), n_codes)
    candidates = np.asarray(candidates, dtype=np.int64)
    in_c = np.zeros(codes.shape[1], dtype=np.bool_)
    in_c[candidates] = True
    out = np.empty((codes.shape[0], 5), dtype=arith.values.dtype)
    all_values(codes, transposed(codes), candidates, in_c, np.asarray(secret_of_guess, dtype=np.int32),
               np.zeros(n_codes, dtype=np.int32), arith, out)
    return out


def rank(codes, secret_of_guess, n_codes, candidates, combination=BEST_COMBINATION, arithmetic="exact") -> np.ndarray:
    """All guess indices ordered best first by the combination, ties by guess index."""
    vals = values(codes, secret_of_guess, n_codes, candidates, arithmetic)
    ids = combination_ids(combination)
    keys = [np.arange(len(vals))] + [vals[:, k] for k in ids[::-1]]
    return np.lexsort(keys)
