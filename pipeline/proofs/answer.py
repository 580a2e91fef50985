"""The checker's own answering function: a scalar form and a numba kernel for the whole code matrix.

Rule: positions where guess and secret agree are green (2) and use up that
secret letter; then, left to right, a non-green guess letter is yellow (1)
while the secret still has an unused copy of it, else grey (0).  Codes read
the colours as base 3 with position i worth 3**i, so the win is 3**L - 1.
"""

import numpy as np
from numba import njit, prange


def colours(guess: str, secret: str) -> str:
    """Colour string of `guess` against `secret`, e.g. colours("salet", "later") == "02121"."""
    out = ["0"] * len(guess)
    spare: dict[str, int] = {}
    for i, (g, s) in enumerate(zip(guess, secret, strict=True)):
        if g == s:
            out[i] = "2"
        else:
            spare[s] = spare.get(s, 0) + 1
    for i, g in enumerate(guess):
        if out[i] == "0" and spare.get(g, 0):
            out[i] = "1"
            spare[g] -= 1
    return "".join(out)


def code_of(colour_string: str) -> int:
    """Integer code of a colour string (digit i has weight 3**i)."""
    return sum(int(c) * 3**i for i, c in enumerate(colour_string))


def colours_of(code: int, length: int) -> str:
    """Colour string of an integer code."""
    return "".join(str((code // 3**i) % 3) for i in range(length))


def symbols(words, alphabet: str) -> np.ndarray:
    """(n, L) uint8 symbol indices of words over `alphabet`."""
    where = {ch: i for i, ch in enumerate(alphabet)}
    return np.array([[where[ch] for ch in w] for w in words], dtype=np.uint8).reshape(len(words), -1)


@njit(cache=True)
def _code(guess, secret, spare):
    """Code of one (guess, secret) pair of symbol rows; `spare` is a zeroed scratch array, left zeroed."""
    length = guess.shape[0]
    code = 0
    weight = 1
    for i in range(length):
        if guess[i] == secret[i]:
            code += 2 * weight
        else:
            spare[secret[i]] += 1
        weight *= 3
    weight = 1
    for i in range(length):
        if guess[i] != secret[i] and spare[guess[i]] > 0:
            code += weight
            spare[guess[i]] -= 1
        weight *= 3
    for i in range(length):
        spare[secret[i]] = 0
    return code


@njit(cache=True, parallel=True)
def _matrix(guesses, secrets, out):
    for g in prange(guesses.shape[0]):
        spare = np.zeros(256, dtype=np.int32)
        for s in range(secrets.shape[0]):
            out[g, s] = _code(guesses[g], secrets[s], spare)


def code_matrix(guesses, secrets, alphabet: str) -> np.ndarray:
    """|G| x |S| matrix of codes, computed from the words themselves (uint8 up to 5 symbols, uint16 up to 10)."""
    g, s = symbols(guesses, alphabet), symbols(secrets, alphabet)
    n_codes = 3 ** g.shape[1]
    dtype = np.uint8 if n_codes <= 256 else np.uint16 if n_codes <= 65536 else np.int32
    out = np.empty((len(guesses), len(secrets)), dtype=dtype)
    _matrix(g, s, out)
    return out
