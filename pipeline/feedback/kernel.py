"""Numba kernel building the whole |G| x |S| code matrix.

Words arrive as symbol-index arrays (shape (n, L), values < 64); codes
follow the convention in `pipeline.games.answer` (digit i has weight 3**i).
"""

import numpy as np
from numba import njit, prange

from pipeline.games.answer import code_dtype_name

MAX_SYMBOLS = 64


def encode_words(words: list[str], alphabet: str) -> np.ndarray:
    """(n, L) uint8 array of symbol indices into `alphabet`."""
    index = {ch: i for i, ch in enumerate(alphabet)}
    length = len(words[0]) if words else 0
    out = np.empty((len(words), length), dtype=np.uint8)
    for row, word in enumerate(words):
        out[row] = [index[ch] for ch in word]
    return out


@njit(cache=True, parallel=True)
def _fill_codes(guesses, secrets, out):
    n_guesses, length = guesses.shape
    n_secrets = secrets.shape[0]
    pow3 = np.empty(length, dtype=np.int64)
    p = 1
    for i in range(length):
        pow3[i] = p
        p *= 3
    for gi in prange(n_guesses):
        unused = np.zeros(MAX_SYMBOLS, dtype=np.int32)
        green = np.zeros(length, dtype=np.bool_)
        g = guesses[gi]
        for si in range(n_secrets):
            s = secrets[si]
            code = 0
            for i in range(length):
                if g[i] == s[i]:
                    green[i] = True
                    code += 2 * pow3[i]
                else:
                    green[i] = False
                    unused[s[i]] += 1
            for i in range(length):
                if not green[i] and unused[g[i]] > 0:
                    code += pow3[i]
                    unused[g[i]] -= 1
            for i in range(length):
                unused[s[i]] = 0
            out[gi, si] = code


def code_matrix(guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Code matrix M[g, s] = a(g, s) for encoded guesses and secrets."""
    length = guesses.shape[1]
    out = np.empty((guesses.shape[0], secrets.shape[0]), dtype=code_dtype_name(length))
    if out.size:
        _fill_codes(guesses, secrets, out)
    return out
