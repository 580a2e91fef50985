"""Numba kernel for the peg answers (Mastermind, Bulls and Cows): the whole |G| x |S| code matrix.

For a guess g and secret s: b = positions where they agree, and the pegs in
common b + w = sum over symbols x of min(count of x in g, count of x in s);
the code is b * (L + 1) + w (convention and scalar references in
`pipeline.games.pegs`).  For strings of distinct digits min() is 1 exactly
for the digits they share, so the same kernel gives bulls and cows.
Per guess row, the symbols it uses are listed once, so the inner loop over
secrets touches only those columns of the secrets' symbol-count table.
"""

import numpy as np
from numba import njit, prange

from pipeline.games.answer import Answering

MAX_SYMBOLS = 64


@njit(cache=True)
def _symbol_counts(words, n_symbols):
    """(n, n_symbols) int32 count of each symbol in each word."""
    counts = np.zeros((words.shape[0], n_symbols), dtype=np.int32)
    for w in range(words.shape[0]):
        for i in range(words.shape[1]):
            counts[w, words[w, i]] += 1
    return counts


@njit(cache=True, parallel=True)
def _fill_pegs(guesses, secrets, secret_counts, out):
    n_guesses, length = guesses.shape
    n_symbols = secret_counts.shape[1]
    for g in prange(n_guesses):
        guess = guesses[g]
        mine = np.zeros(n_symbols, dtype=np.int32)
        for i in range(length):
            mine[guess[i]] += 1
        used = np.flatnonzero(mine)
        for s in range(secrets.shape[0]):
            black = 0
            for i in range(length):
                black += guess[i] == secrets[s, i]
            common = 0
            for x in used:
                common += min(mine[x], secret_counts[s, x])
            out[g, s] = black * (length + 1) + common - black


def code_matrix(guesses: np.ndarray, secrets: np.ndarray) -> np.ndarray:
    """Peg code matrix M[g, s] = b * (L + 1) + w for encoded guesses and secrets."""
    length = guesses.shape[1]
    out = np.empty((guesses.shape[0], secrets.shape[0]), dtype=Answering("mastermind", length).dtype_name)
    if out.size:
        secrets = np.ascontiguousarray(secrets)
        _fill_pegs(np.ascontiguousarray(guesses), secrets, _symbol_counts(secrets, MAX_SYMBOLS), out)
    return out
