"""Numba kernel building the whole |G| x |S| code matrix.

Words arrive as symbol-index arrays (shape (n, L), values < 64); codes
follow the convention in `pipeline.games.answer` (digit i has weight 3**i).

Speed comes from one observation: a guess letter that occurs once in the
guess is yellow exactly when it is not green and the secret contains that
letter anywhere.  So for most positions the code is a branch-free sum over a
column of secrets (vectorised by the compiler); only letters repeated in
the guess need the counting rule of the scalar reference.
"""

import numpy as np
from numba import njit, prange

from pipeline.games.answer import code_dtype_name

MAX_SYMBOLS = 64
ROW_CHUNKS = 64  # guesses are split into this many chunks across threads


def encode_words(words: list[str], alphabet: str) -> np.ndarray:
    """(n, L) uint8 array of symbol indices into `alphabet`."""
    index = {ch: i for i, ch in enumerate(alphabet)}
    length = len(words[0]) if words else 0
    out = np.empty((len(words), length), dtype=np.uint8)
    for row, word in enumerate(words):
        out[row] = [index[ch] for ch in word]
    return out


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
def _repeated(guess, i):
    for j in range(guess.shape[0]):
        if j != i and guess[j] == guess[i]:
            return True
    return False


@njit(cache=True)
def _repeated_letter_yellows(guess, s, by_position, counts, pow3):
    """Code contribution of the yellows of letters repeated in the guess, against secret s."""
    length = guess.shape[0]
    extra = 0
    for i in range(length):
        c = guess[i]
        if by_position[i, s] == c or not _repeated(guess, i):
            continue
        unused = counts[s, c]
        earlier = 0
        for j in range(length):
            if guess[j] == c:
                if by_position[j, s] == c:
                    unused -= 1
                elif j < i:
                    earlier += 1
        if unused > earlier:
            extra += pow3[i]
    return extra


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
        for g in range(k * chunk, min(n_guesses, (k + 1) * chunk)):
            guess = guesses[g]
            acc[:] = 0
            any_repeated = False
            for i in range(length):
                c = guess[i]
                repeated = _repeated(guess, i)
                any_repeated |= repeated
                column, has = by_position[i], present[c]
                green, yellow = 2 * pow3[i], 0 if repeated else pow3[i]
                for s in range(n_secrets):
                    is_green = np.int32(column[s] == c)
                    acc[s] += is_green * green + (1 - is_green) * has[s] * yellow
            if any_repeated:
                for s in range(n_secrets):
                    acc[s] += _repeated_letter_yellows(guess, s, by_position, counts, pow3)
            for s in range(n_secrets):
                out[g, s] = acc[s]


def code_matrix(guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Code matrix M[g, s] = a(g, s) for encoded guesses and secrets."""
    length = guesses.shape[1]
    out = np.empty((guesses.shape[0], secrets.shape[0]), dtype=code_dtype_name(length))
    if out.size:
        _fill_codes(np.ascontiguousarray(guesses), *_secret_tables(np.ascontiguousarray(secrets)), out)
    return out
