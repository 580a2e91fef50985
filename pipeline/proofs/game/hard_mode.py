"""The NYT hard-mode rule, checked against the history of a path.

After responses (g1, r1) ... (gk, rk), a guess is legal when, for every
earlier response: each green position of it holds the same letter, and each
letter appears at least as often as that response revealed it (its green
plus yellow copies).  Grey letters may be played again; a yellow letter may
be played again in the same place.

`Rule` keeps the same information as two arrays (the letter required at each
position, the least count of each letter) so that the exact search can
filter many guesses at once.
"""

from collections import Counter

import numpy as np
from numba import njit


def violation(guess: str, history) -> str | None:
    """Why `guess` breaks the rule after `history` [(guess, colours)], or None when it is legal."""
    for earlier, response in history:
        for i, (letter, colour) in enumerate(zip(earlier, response)):
            if colour == "2" and guess[i] != letter:
                return f"position {i + 1} must stay {letter!r} (green after {earlier!r})"
        shown = Counter(letter for letter, colour in zip(earlier, response) if colour != "0")
        have = Counter(guess)
        for letter, count in shown.items():
            if have[letter] < count:
                return f"it must contain {letter!r} at least {count} time(s) (revealed by {earlier!r})"
    return None


class Rule:
    """Hard-mode requirements as arrays over symbol indices: `fixed[i]` (-1 = free) and `least[x]`."""

    def __init__(self, length: int, n_symbols: int, fixed=None, least=None):
        self.fixed = np.full(length, -1, dtype=np.int16) if fixed is None else fixed
        self.least = np.zeros(n_symbols, dtype=np.int16) if least is None else least
        self._key = None

    def after(self, word: np.ndarray, code: int) -> "Rule":
        """The rule once `word` (symbol row) has been answered with `code`."""
        fixed, least = np.empty_like(self.fixed), np.empty_like(self.least)
        rule_after(self.fixed, self.least, word, code, fixed, least)
        return Rule(len(fixed), len(least), fixed, least)

    def key(self) -> bytes:
        """The rule as bytes (a dictionary key); rules are never changed once made."""
        if self._key is None:
            self._key = self.fixed.tobytes() + self.least.tobytes()
        return self._key

    def allowed(self, words: np.ndarray, counts: np.ndarray) -> np.ndarray:
        """Boolean mask of the legal rows of `words` (n, L), given their symbol counts (n, n_symbols)."""
        mask = np.ones(len(words), dtype=bool)
        for i, symbol in enumerate(self.fixed):
            if symbol >= 0:
                mask &= words[:, i] == symbol
        for symbol in np.flatnonzero(self.least):
            mask &= counts[:, symbol] >= self.least[symbol]
        return mask


def letter_counts(words: np.ndarray, n_symbols: int) -> np.ndarray:
    """(n, n_symbols) counts of each symbol in each row of `words`."""
    counts = np.zeros((len(words), n_symbols), dtype=np.int16)
    for i in range(words.shape[1]):
        np.add.at(counts, (np.arange(len(words)), words[:, i]), 1)
    return counts


@njit(cache=True)
def legal_word(word, count_row, fixed, least):
    """Whether a guess (symbol row, its symbol counts) keeps every required green and letter count."""
    for i in range(fixed.shape[0]):
        if fixed[i] >= 0 and word[i] != fixed[i]:
            return False
    for x in range(least.shape[0]):
        if count_row[x] < least[x]:
            return False
    return True


@njit(cache=True)
def rule_after(fixed, least, word, code, out_fixed, out_least):
    """The hard-mode rule once `word` got Wordle `code` (digit i, weight 3**i: 2 green, 1 yellow, 0 grey)."""
    out_fixed[:] = fixed
    out_least[:] = least
    shown = np.zeros(least.shape[0], dtype=np.int64)
    rest = code
    for i in range(word.shape[0]):
        colour = rest % 3
        rest //= 3
        if colour == 2:
            out_fixed[i] = word[i]
        if colour > 0:
            shown[word[i]] += 1
    for x in range(least.shape[0]):
        if shown[x] > out_least[x]:
            out_least[x] = shown[x]
