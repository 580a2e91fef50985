"""Numba kernel building the whole |G| x |S| code matrix of Wordle's answering function (colours).

Words arrive as symbol-index arrays (shape (n, L), values < 64); codes
follow the convention in `pipeline.games.answer` (digit i has weight 3**i).

Speed comes from working a whole row (one guess, every secret) letter by
letter over columns of secrets: a letter that occurs once in the guess is
yellow exactly when it is not green and the secret contains it anywhere (a
branch-free sum); a letter repeated in the guess is handled once, with a
per-secret count of its unused copies, greens first, then yellows left to
right as in the scalar reference.
"""

import numpy as np
from numba import njit, prange

from pipeline.games.answer import code_dtype_name
from pipeline.games.encoding import encode_words  # noqa: F401  (re-exported: callers encode words beside the kernel)

MAX_SYMBOLS = 64
ROW_CHUNKS = 64  # guesses are split into this many chunks across threads


@njit(cache=True)
def _secret_tables(secrets):
    """Secrets by position (L, S), symbol presence (MAX_SYMBOLS, S) and symbol counts (S, MAX_SYMBOLS)."""
    n, length = secrets.shape
    by_position = np.empty((length, n), dtype=np.uint8)
    present = np.zeros((MAX_SYMBOLS, n), dtype=np.int32)
    counts = np.zeros((n, MAX_SYMBOLS), dtype=np.int32)
    for s in range(n):
        for i in range(length):
            c = secrets[s, i]
            by_position[i, s] = c
            present[c, s] = 1
            counts[s, c] += 1
    return by_position, present, counts


@njit(cache=True)
def _occurrence(guess, i):
    """(is this the first occurrence of guess[i], does the letter occur more than once)."""
    first, repeated = True, False
    for j in range(guess.shape[0]):
        if j != i and guess[j] == guess[i]:
            repeated = True
            first = first and j > i
    return first, repeated


@njit(cache=True)
def _add_single_letter(acc, column, has, c, green, yellow):
    """A letter occurring once in the guess: green where the secret has it here, else yellow if anywhere."""
    for s in range(acc.shape[0]):
        is_green = np.int32(column[s] == c)
        acc[s] += is_green * green + (1 - is_green) * has[s] * yellow


@njit(cache=True)
def _add_repeated_letter(acc, unused, guess, c, by_position, counts, pow3):
    """A letter repeated in the guess: greens use up secret copies first, then yellows left to right."""
    for s in range(acc.shape[0]):
        unused[s] = counts[s, c]
    for j in range(guess.shape[0]):
        if guess[j] == c:
            column = by_position[j]
            for s in range(acc.shape[0]):
                is_green = np.int32(column[s] == c)
                acc[s] += is_green * 2 * pow3[j]
                unused[s] -= is_green
    for j in range(guess.shape[0]):
        if guess[j] == c:
            column = by_position[j]
            for s in range(acc.shape[0]):
                if column[s] != c and unused[s] > 0:
                    acc[s] += pow3[j]
                    unused[s] -= 1


@njit(cache=True, parallel=True)
def _fill_codes(guesses, by_position, present, counts, out):
    n_guesses, length = guesses.shape
    n_secrets = by_position.shape[1]
    pow3 = np.empty(length, dtype=np.int32)
    p = 1
    for i in range(length):
        pow3[i] = p
        p *= 3
    chunk = (n_guesses + ROW_CHUNKS - 1) // ROW_CHUNKS
    for k in prange(ROW_CHUNKS):
        acc = np.empty(n_secrets, dtype=np.int32)
        unused = np.empty(n_secrets, dtype=np.int32)
        for g in range(k * chunk, min(n_guesses, (k + 1) * chunk)):
            guess = guesses[g]
            acc[:] = 0
            for i in range(length):
                c = guess[i]
                first, repeated = _occurrence(guess, i)
                if not repeated:
                    _add_single_letter(acc, by_position[i], present[c], c, 2 * pow3[i], pow3[i])
                elif first:
                    _add_repeated_letter(acc, unused, guess, c, by_position, counts, pow3)
            for s in range(n_secrets):
                out[g, s] = acc[s]


def code_matrix(guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Code matrix M[g, s] = a(g, s) for encoded guesses and secrets."""
    length = guesses.shape[1]
    out = np.empty((guesses.shape[0], secrets.shape[0]), dtype=code_dtype_name(length))
    if out.size:
        _fill_codes(np.ascontiguousarray(guesses), *_secret_tables(np.ascontiguousarray(secrets)), out)
    return out
