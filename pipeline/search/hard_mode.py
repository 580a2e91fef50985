"""Hard mode (NYT rules): which guesses are still allowed after a history of responses.

Every later guess must keep each green letter in its place and contain each
revealed letter at least as many times as it was revealed (green + yellow)
in any single earlier response.  Grey letters may be reused, and a yellow
letter may be played again in the same place.

The state after a history is two small arrays: `greens[i]` (symbol required
at position i, or -1) and `at_least[x]` (minimum count of symbol x).  The
numba helpers serve the greedy, ApMinTotal and exact searches; `allowed_into`
marks every allowed guess at once.
"""

import numpy as np
from numba import njit

MAX_SYMBOLS = 64


def initial_state(length: int) -> tuple[np.ndarray, np.ndarray]:
    """(greens, at_least) before any guess: nothing required."""
    return np.full(length, -1, dtype=np.int8), np.zeros(MAX_SYMBOLS, dtype=np.int8)


@njit(cache=True)
def update_state(greens, at_least, word, code):
    """State after playing `word` (symbol indices) and seeing response `code` (digit i weight 3**i)."""
    new_greens = np.empty_like(greens)
    new_at_least = np.empty_like(at_least)
    update_state_into(greens, at_least, word, code, new_greens, new_at_least, np.zeros(MAX_SYMBOLS, dtype=np.int8))
    return new_greens, new_at_least


@njit(cache=True)
def update_state_into(greens, at_least, word, code, out_greens, out_at_least, revealed):
    """`update_state` written into out_greens / out_at_least, for search loops that must not allocate;
    `revealed` (MAX_SYMBOLS zeros) is scratch and is left zeroed."""
    out_greens[:] = greens
    out_at_least[:] = at_least
    for i in range(word.shape[0]):
        colour = code % 3
        code //= 3
        if colour == 2:
            out_greens[i] = word[i]
        if colour > 0:
            revealed[word[i]] += 1
    for i in range(word.shape[0]):
        x = word[i]
        if revealed[x] > out_at_least[x]:
            out_at_least[x] = revealed[x]
        revealed[x] = 0


@njit(cache=True)
def is_allowed(word, counts, greens, at_least):
    """Does a word (symbol indices, with its symbol counts) satisfy the state?"""
    for i in range(word.shape[0]):
        if greens[i] >= 0 and word[i] != greens[i]:
            return False
    for x in range(at_least.shape[0]):
        if at_least[x] > 0 and counts[x] < at_least[x]:
            return False
    return True


def symbol_counts(encoded: np.ndarray) -> np.ndarray:
    """(n, MAX_SYMBOLS) int8: how many times each symbol occurs in each word."""
    counts = np.zeros((encoded.shape[0], MAX_SYMBOLS), dtype=np.int8)
    for i in range(encoded.shape[1]):
        np.add.at(counts, (np.arange(encoded.shape[0]), encoded[:, i]), 1)
    return counts


def state_after(history, length: int) -> tuple[np.ndarray, np.ndarray]:
    """State after a history of (encoded guess row, response code) pairs."""
    greens, at_least = initial_state(length)
    for word, code in history:
        greens, at_least = update_state(greens, at_least, np.asarray(word, dtype=np.uint8), int(code))
    return greens, at_least


@njit(cache=True)
def allowed_into(words, counts, greens, at_least, out):
    """out[g] = may guess g be played in the state (greens, at_least)?  The vectorised `is_allowed`.

    The state's requirements are gathered first (a few greens and letter
    counts), so each guess costs a handful of comparisons instead of a pass
    over every symbol.
    """
    pos = np.empty(greens.shape[0], dtype=np.int64)
    n_pos = 0
    for i in range(greens.shape[0]):
        if greens[i] >= 0:
            pos[n_pos] = i
            n_pos += 1
    sym = np.empty(at_least.shape[0], dtype=np.int64)
    n_sym = 0
    for x in range(at_least.shape[0]):
        if at_least[x] > 0:
            sym[n_sym] = x
            n_sym += 1
    for g in range(words.shape[0]):
        ok = True
        for j in range(n_pos):
            if words[g, pos[j]] != greens[pos[j]]:
                ok = False
                break
        if ok:
            for j in range(n_sym):
                if counts[g, sym[j]] < at_least[sym[j]]:
                    ok = False
                    break
        out[g] = ok
