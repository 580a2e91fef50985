"""The write-up's simple strategies and opener ranking, as pure functions over code matrices.

Opener ranking (`opener_stats`): for each guess g over all secrets S, the classes
of Split(S, g) with sizes t give
    average remaining candidates  = sum t^2 / |S|
    average information (bits)    = sum (t/|S|) log2(|S|/t) = log2|S| - sum t ln t / (|S| ln 2).
When the candidates range over a universe U (U = G: answer list unknown) while the
secrets are still S, with t_U(s) the number of words of U giving s's response:
    average remaining = (1/|S|) sum_s t_U(s),  average bits = (1/|S|) sum_s log2(|U| / t_U(s)).

Simulated play (`play`).  A game is played against one secret; the candidates
range over a *universe* U, the columns of a code matrix `codes` (|G| x |U|):
U = G when the answer list is unknown (every allowed word may be the secret),
U = S when it is known.  After guess g with response r the candidates are
{c in C : codes[g, c] == r}, i.e. filtering always goes through the code matrix.
Guesses are always indices into G (`u_to_g` maps a candidate to its guess index).

Rules:
- RANDOM: guess a uniformly random remaining candidate.  Randomness comes from
  `uniforms[k, turn]` in [0, 1): candidate number floor(u * |C|) of C (C in
  alphabetical order).  The caller draws these per secret from a seeded
  generator, so a result depends only on (seed, secret), not on how secrets are
  split into blocks.
- ELIMINATION, the write-up's rule ("guess the word with the most still-undecided
  letters"): if |C| <= 2, guess the first remaining candidate (alphabetically).
  Otherwise, with n = |C| and f(x) the number of candidates containing letter x
  (at least once), a letter is *undecided* when 0 < f(x) < n: some remaining
  candidates have it and some do not.  The guess is a word of all of G with the
  most distinct undecided letters (a repeated letter counts once), ties broken
  uniformly at random: the tied words in index order, number floor(u * ties) with
  u = `uniforms[k, turn]`.  Such a guess always splits C (the candidates with an
  undecided letter of the guess see it coloured, the others all grey).  When no
  word has an undecided letter (the candidates share one set of letters, e.g.
  anagrams) the first candidate is guessed.  An `opener` (guess index >= 0)
  replaces the rule for the first guess.
- WEIGHTED, a stronger elimination rule kept beside the write-up's: if |C| <= 2,
  guess the first remaining candidate.  Otherwise, with f(x) as above and
    * f_i(x)   = number of candidates with letter x at position i;
    * an undecided letter's weight is w(x) = min(f(x), n - f(x)), the size of the
      smaller side of the split "contains x / does not", so letters that cut
      the candidates nearer to half weigh more; decided letters weigh 0;
    * likewise a (letter, position) pair weighs w_i(x) = min(f_i(x), n - f_i(x)).
  The guess is the word of all of G maximising, lexicographically,
    (sum of w(x) over the distinct letters x of the word,
     sum of w_i(word[i]) over positions i,
     1 if the word is still a candidate else 0),
  ties broken by the alphabetically first word.  The guess always splits C: a
  positive letter score means it contains a letter some candidates lack (all
  grey for those, not for the others); a positive position score means a green
  for some candidates and not others; and two distinct candidates always give
  some position a positive weight.  An `opener` replaces the rule for the first
  guess.

A game that is not won within `cap` guesses is a failure (count 0).
"""

import json
import math

import numpy as np
from numba import njit

from pipeline.search.partition import clear, tally

RANDOM = 0
ELIMINATION = 1  # the write-up's rule: most undecided letters, random ties (seeded)
WEIGHTED = 2  # the weighted elimination rule, deterministic


@njit(cache=True)
def opener_stats(codes, universe, n_codes):
    """Per guess row: parts and largest part of Split(S, g), sum over secrets of t_U, sum of ln t_U.

    `codes` is guesses x S, `universe` guesses x U (the same rows); t_U is the number of
    words of U giving the secret's response, i.e. the candidates left when they range
    over U.  With `universe` = `codes` (U = S) the sums are sum t^2 and sum t ln t."""
    n_rows, n = codes.shape
    n_u = universe.shape[1]
    everyone, everyone_u = np.arange(n), np.arange(n_u)
    parts = np.zeros(n_rows, dtype=np.int32)
    largest = np.zeros(n_rows, dtype=np.int32)
    sum_left = np.zeros(n_rows, dtype=np.int64)
    sum_log = np.zeros(n_rows, dtype=np.float64)
    counts, counts_u = np.zeros(n_codes, dtype=np.int64), np.zeros(n_codes, dtype=np.int64)
    class_code, class_code_u = np.empty(n_codes, dtype=np.int64), np.empty(n_codes, dtype=np.int64)
    for g in range(n_rows):
        k = tally(codes[g], everyone, counts, class_code)
        k_u = tally(universe[g], everyone_u, counts_u, class_code_u)
        m = 0
        left = 0
        e = 0.0
        for j in range(k):  # classes in order of first appearance: the order the float sum is taken in
            t = counts[class_code[j]]
            tu = counts_u[class_code[j]]
            m = max(m, t)
            left += t * tu
            e += t * math.log(tu)
        clear(counts, class_code, k)
        clear(counts_u, class_code_u, k_u)
        parts[g] = k
        largest[g] = m
        sum_left[g] = left
        sum_log[g] = e
    return parts, largest, sum_left, sum_log


def opener_measures(sum_left: np.ndarray, sum_log: np.ndarray, n_secrets: int,
                    n_universe: int) -> tuple[np.ndarray, np.ndarray]:
    """(average remaining candidates, average information in bits) from `opener_stats` sums."""
    avg_remaining = sum_left / n_secrets
    avg_bits = np.log2(n_universe) - sum_log / (n_secrets * np.log(2))
    return avg_remaining, np.maximum(avg_bits, 0.0)


def first_occurrences(encoded: np.ndarray) -> np.ndarray:
    """(n, L) bool: position i holds the first occurrence of its symbol in the word."""
    n, length = encoded.shape
    out = np.ones((n, length), dtype=np.bool_)
    for i in range(1, length):
        for j in range(i):
            out[:, i] &= encoded[:, i] != encoded[:, j]
    return out


@njit(cache=True)
def _letter_counts(cands, u_to_g, enc, first, n_symbols):
    """(f, fpos): f[x] = candidates containing letter x, fpos[i, x] = candidates with x at position i."""
    length = enc.shape[1]
    f = np.zeros(n_symbols, dtype=np.int64)
    fpos = np.zeros((length, n_symbols), dtype=np.int64)
    for c in cands:
        g = u_to_g[c]
        for i in range(length):
            x = enc[g, i]
            fpos[i, x] += 1
            if first[g, i]:
                f[x] += 1
    return f, fpos


@njit(cache=True)
def _undecided_guess(cands, u_to_g, enc, first, n_symbols, u, scores):
    """The write-up's elimination guess (module doc): most distinct undecided letters, ties by uniform `u`.

    `scores` is a scratch array of |G| entries."""
    n = cands.shape[0]
    if n <= 2:
        return u_to_g[cands[0]]
    f, _ = _letter_counts(cands, u_to_g, enc, first, n_symbols)
    best, ties = 0, 0
    for g in range(enc.shape[0]):
        s = 0
        for i in range(enc.shape[1]):
            x = enc[g, i]
            if first[g, i] and 0 < f[x] < n:
                s += 1
        scores[g] = s
        if s > best:
            best, ties = s, 1
        elif s == best:
            ties += 1
    if best == 0:
        return u_to_g[cands[0]]
    pick = min(int(u * ties), ties - 1)
    for g in range(enc.shape[0]):
        if scores[g] == best:
            if pick == 0:
                return g
            pick -= 1
    return -1  # not reached


@njit(cache=True)
def _weighted_guess(cands, u_to_g, enc, first, mark, stamp, n_symbols):
    n = cands.shape[0]
    if n <= 2:
        return u_to_g[cands[0]]
    length = enc.shape[1]
    f, fpos = _letter_counts(cands, u_to_g, enc, first, n_symbols)
    for x in range(n_symbols):
        f[x] = min(f[x], n - f[x])
        for i in range(length):
            fpos[i, x] = min(fpos[i, x], n - fpos[i, x])
    scale = length * n + 1  # position score < scale
    best = -1
    best_key = -1
    for g in range(enc.shape[0]):
        s = 0
        p = 0
        for i in range(length):
            x = enc[g, i]
            p += fpos[i, x]
            if first[g, i]:
                s += f[x]
        key = (s * scale + p) * 2 + (1 if mark[g] == stamp else 0)
        if key > best_key:
            best_key = key
            best = g
    return best


@njit(cache=True)
def _consistent(cands, row, response):
    """The candidates c with row[c] == response, in order."""
    kept = 0
    for c in cands:
        if row[c] == response:
            kept += 1
    nxt = np.empty(kept, dtype=cands.dtype)
    kept = 0
    for c in cands:
        if row[c] == response:
            nxt[kept] = c
            kept += 1
    return nxt


@njit(cache=True)
def play(codes, u_to_g, targets, rule, opener, uniforms, enc, first, n_symbols, cap):
    """Play every target (index into U) with `rule`; returns (guess counts, guess paths).

    counts[k] = guesses used to find targets[k], 0 if not found within `cap`;
    paths[k, :counts] = the guesses (indices into G), -1 after.  RANDOM and
    ELIMINATION read `uniforms[k, turn]`; WEIGHTED reads none.
    """
    n_u = codes.shape[1]
    n_g = codes.shape[0]
    counts = np.zeros(targets.shape[0], dtype=np.int16)
    paths = np.full((targets.shape[0], cap), -1, dtype=np.int32)
    mark = np.zeros(n_g, dtype=np.int64)  # mark[g] == stamp: guess g is a remaining candidate
    scores = np.zeros(n_g, dtype=np.int64)
    stamp = 0
    first_guess = opener
    if rule == WEIGHTED and first_guess < 0:  # deterministic: the same for every target
        stamp += 1
        for c in range(n_u):
            mark[u_to_g[c]] = stamp
        first_guess = _weighted_guess(np.arange(n_u), u_to_g, enc, first, mark, stamp, n_symbols)
    for k in range(targets.shape[0]):
        secret = targets[k]
        cands = np.arange(n_u)
        for turn in range(cap):
            stamp += 1
            for c in cands:
                mark[u_to_g[c]] = stamp
            if rule == RANDOM:
                j = int(uniforms[k, turn] * cands.shape[0])
                g = u_to_g[cands[min(j, cands.shape[0] - 1)]]
            elif turn == 0 and first_guess >= 0:
                g = first_guess
            elif rule == ELIMINATION:
                g = _undecided_guess(cands, u_to_g, enc, first, n_symbols, uniforms[k, turn], scores)
            else:
                g = _weighted_guess(cands, u_to_g, enc, first, mark, stamp, n_symbols)
            paths[k, turn] = g
            if g == u_to_g[secret]:
                counts[k] = turn + 1
                break
            cands = _consistent(cands, codes[g], codes[g][secret])
    return counts, paths


def seeded_uniforms(seed: int, secret_indices, cap: int) -> np.ndarray:
    """(len(secret_indices), cap) uniforms in [0, 1): row k from numpy's PCG64 seeded with (seed, secret)."""
    out = np.empty((len(secret_indices), cap))
    for k, s in enumerate(secret_indices):
        out[k] = np.random.default_rng([int(seed), int(s)]).random(cap)
    return out


def play_tree(tree, codes: np.ndarray, guess_index: dict, length: int, cap: int) -> np.ndarray:
    """Guesses a strategy tree needs for every secret (columns of `codes`, |G| x |S|); 0 if lost or > cap.

    The response at a node is read from the code matrix and turned into the colour key of the child."""
    from pipeline.games.answer import code_to_colours

    win = 3**length - 1
    counts = np.zeros(codes.shape[1], dtype=np.int16)
    for s in range(codes.shape[1]):
        node = tree
        for turn in range(cap):
            g = guess_index.get(node.guess)
            if g is None:
                break
            code = int(codes[g, s])
            if code == win:
                counts[s] = turn + 1
                break
            node = node.children.get(code_to_colours(code, length))
            if node is None:
                break
    return counts


Z95 = 1.959963984540054


def summarize(counts: np.ndarray, per_secret_means: np.ndarray | None = None) -> dict:
    """Mean guesses over won games, a 95% CI over secrets, max, distribution and failures.

    CI: normal approximation mean +- 1.96 s / sqrt(n), s the sample standard
    deviation (ddof=1) of the per-secret guess counts -- or, when the counts pool
    several seeds, of `per_secret_means` (each secret's average over the seeds)
    with n the number of secrets."""
    counts = np.asarray(counts)
    won = counts[counts > 0].astype(np.float64)
    failures = int((counts == 0).sum())
    if won.size == 0:
        return {"mean": None, "ci_low": None, "ci_high": None, "sd": None, "max": None, "total": 0,
                "failures": failures, "distribution": "{}"}
    mean = float(won.mean())
    basis = won if per_secret_means is None else np.asarray(per_secret_means, dtype=np.float64)
    sd = float(basis.std(ddof=1)) if basis.size > 1 else 0.0
    half = Z95 * sd / math.sqrt(basis.size)
    values, freq = np.unique(won.astype(np.int64), return_counts=True)
    distribution = json.dumps({str(int(v)): int(c) for v, c in zip(values, freq)})
    return {"mean": mean, "ci_low": mean - half, "ci_high": mean + half, "sd": sd, "max": int(won.max()),
            "total": int(won.sum()), "failures": failures, "distribution": distribution}
