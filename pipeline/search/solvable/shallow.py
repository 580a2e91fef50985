"""Can a class be solved within j <= 3 guesses: the infeasibility witnesses' fast path (kernels: shallow_kernels.py).

A strategy solves a class C within j guesses when every secret of C is guessed by its j-th guess:
- j = 1: C is one secret (guessed at once);
- j = 2: C is one secret, or some guess h gives every secret of C its own code ("separates" C: after h one
  candidate is left, guessed next; h itself, if in C, is found at once);
- j = 3: C is one secret, or some guess g leaves only parts (the non-win classes of Split(C, g)) that are solved
  within two, i.e. single secrets or separated by some guess.
In hard mode g must be legal in the class's state and h in the state g's response leaves; a state only grows, so
the kernels see only the rows of the guesses legal in the class's state (2026-12-06, the 3158-answer list in hard
mode: 1955 of 14855 at one class's root, fewer below; copying, profiling and sorting every row had cost 35 times the
kernel).  A secret that is no
allowed guess is never found, so a class holding one is never solved.

Pruning: no guess makes more than cap = max_h |Split(C, h)| classes on any part of C (each class of Split(P, h)
lies in its own class of Split(C, h)), so a g leaving a part larger than cap is skipped unsplit; g and h are
tried in order of how many classes they make on C (likeliest to succeed first), parts largest first (likeliest to
fail), stopping at the first failure.
"""

import numpy as np

from pipeline.search.hard_mode import allowed_into, symbol_counts
from pipeline.search.solvable.kernels import KILLERS, profile, separated, within_three

MAX_LEFT = 3  # the deepest limit these kernels decide; deeper ones go to the exact solver


class Shallow:
    """Decides `solvable(members, left, state)` for left <= 3 on one code matrix (hard mode: `words`, the
    encoded guesses, and a state (greens, at_least) per class)."""

    def __init__(self, codes: np.ndarray, n_codes: int, guessable: np.ndarray, words: np.ndarray | None = None):
        self.codes, self.n_codes, self.win = codes, int(n_codes), int(n_codes) - 1
        self.guessable = np.asarray(guessable, dtype=bool)
        self.hard = words is not None
        self.words = words if self.hard else np.zeros((1, 1), dtype=np.uint8)
        self.counts = symbol_counts(words) if self.hard else np.zeros((1, 1), dtype=np.int8)

    def solvable(self, members: np.ndarray, left: int, state=None) -> bool:
        """Whether the class `members` (secret indices) is solved within `left` (<= 3) guesses; in hard mode
        `state` is the (greens, at_least) the class was reached in."""
        if left > MAX_LEFT:
            raise ValueError(f"Shallow decides at most {MAX_LEFT} guesses left, not {left}")
        members = np.asarray(members, dtype=np.int64)
        if len(members) == 0:
            return True
        if left < 1 or not self.guessable[members].all():
            return False
        if len(members) == 1:
            return True  # guess it (in hard mode it is legal: it agrees with every response)
        if left == 1:
            return False
        greens, at_least = state if self.hard else (np.zeros(1, dtype=np.int8), np.zeros(1, dtype=np.int8))
        rows = self.legal_rows(greens, at_least)
        sub = np.ascontiguousarray(self.codes[np.ix_(rows, members)])
        words, counts = (self.words[rows], self.counts[rows]) if self.hard else (self.words, self.counts)
        classes, largest = profile(sub, self.n_codes, self.win)
        order = np.argsort(-classes, kind="stable").astype(np.int64)
        if left == 2:
            scratch = (np.zeros(self.n_codes, dtype=np.int64), np.zeros(self.n_codes, dtype=np.int64),
                       np.zeros(len(members), dtype=np.int64), np.zeros(1, dtype=np.int64))
            return bool(separated(sub, order, classes, np.arange(len(members), dtype=np.int64), len(members),
                                  np.empty((2, KILLERS), dtype=np.int64), np.zeros(1, dtype=np.int64), scratch,
                                  self.hard, words, counts, greens, at_least))
        legal = np.ones(len(order), dtype=np.bool_)
        return bool(within_three(sub, order, order, classes, largest, int(classes.max()), self.n_codes, self.win, legal,
                                 self.hard, words, counts, greens, at_least))

    def legal_rows(self, greens, at_least) -> np.ndarray:
        """The guesses a strategy may play from a class's state on: every guess in normal mode; in hard mode those
        legal in (greens, at_least), since each later state only adds to it (the kernels then scan these rows
        alone: most of a big list is illegal deep in hard mode)."""
        legal = np.ones(self.codes.shape[0], dtype=np.bool_)
        if self.hard:
            allowed_into(self.words, self.counts, greens, at_least, legal)
        return np.flatnonzero(legal)
