"""Words as symbol-index arrays: the form every numba kernel reads.

Kept in games/ (not feedback/) so that a Game can encode its own lists
without depending on any answering kernel.
"""

import numpy as np


def encode_words(words: list[str], alphabet: str) -> np.ndarray:
    """(n, L) uint8 array of symbol indices into `alphabet`."""
    index = {ch: i for i, ch in enumerate(alphabet)}
    length = len(words[0]) if words else 0
    out = np.empty((len(words), length), dtype=np.uint8)
    for row, word in enumerate(words):
        out[row] = [index[ch] for ch in word]
    return out
