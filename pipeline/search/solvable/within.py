"""Can a class be solved within j guesses, for any j: shallow.py's kernels decide j <= 3, and above that some legal
guess must leave only parts (its non-win classes) that are solved within j - 1.

Whether a class can be solved in time is a far cheaper question than its MinTotal: the first guess that works ends
the search, and a class that cannot be is refuted without totalling any strategy.  The prove stage asks it before
any exact solve in a guess-limited game, so an opener with a class no strategy solves in time is settled by that
one class.  Guesses are tried in order of how many classes they make on C (likeliest to succeed first), parts
largest first (likeliest to fail); counting (infeasible.py's reach) refutes a class too large for any strategy at once.
"""

import numpy as np

from pipeline.search.hard_mode import update_state
from pipeline.search.matrix import Matrix
from pipeline.search.solvable.infeasible import reach
from pipeline.search.partition import split
from pipeline.search.solvable.shallow import MAX_LEFT, Shallow
from pipeline.search.solvable.kernels import profile


class Within:
    """`solvable(members, left, state)` for any number of guesses left, on a Shallow's code matrix."""

    def __init__(self, shallow: Shallow, encoded_guesses: np.ndarray | None = None):
        self.shallow = shallow
        self.words = encoded_guesses if shallow.hard else None

    def solvable(self, members, left: int, state=None) -> bool:
        """Whether the class `members` (secret indices) is solved within `left` guesses; in hard mode `state` is
        the (greens, at_least) the class was reached in."""
        if left <= MAX_LEFT:
            return self.shallow.solvable(members, left, state)
        members = np.asarray(members, dtype=np.int64)
        if len(members) <= 1 or not self.shallow.guessable[members].all():
            return self.shallow.solvable(members, 1, state)
        legal = self.legal(state)
        codes, win = self.shallow.codes, self.shallow.win
        block = np.ascontiguousarray(codes[np.ix_(legal, members)])
        classes, _ = profile(block, self.shallow.n_codes, win)
        non_win = classes - (block == win).any(axis=1)
        if len(members) > reach(left, int(non_win.max())):
            return False
        for g in legal[np.argsort(-classes, kind="stable")]:
            if self.parts_solvable(int(g), members, left - 1, state):
                return True
        return False

    @classmethod
    def of_matrix(cls, matrix: Matrix, hard: bool = False):
        """The decision on a code matrix, in hard mode (which reads its encoded guesses) or not: a secret counts
        as guessable when some guess is it (secret_of_guess)."""
        sog, words = matrix.secret_of_guess, matrix.hard_words(hard)
        guessable = np.isin(np.arange(matrix.n_secrets), sog[sog >= 0])
        return cls(Shallow(matrix.codes, matrix.n_codes, guessable, words), words)

    def reset(self) -> None:
        """Nothing to empty: Within keeps no memo (ClassSolvers resets every solver it built)."""

    def legal(self, state) -> np.ndarray:
        """The guesses allowed in `state` (every guess in normal mode, where `state` is None)."""
        return self.shallow.legal_rows(*state) if self.shallow.hard else self.shallow.legal_rows(None, None)

    def parts_solvable(self, g: int, members: np.ndarray, left: int, state) -> bool:
        """Every part guess g leaves is solved within `left` guesses (a guess that leaves C whole does not help)."""
        row = self.shallow.codes[g]
        codes, parts = split(row, members)
        if len(parts) == 1 and codes[0] != self.shallow.win:
            return False
        for c in sorted(range(len(parts)), key=lambda i: -len(parts[i])):
            if codes[c] == self.shallow.win:
                continue
            after = update_state(state[0], state[1], self.words[g], int(codes[c])) if self.shallow.hard else None
            if not self.solvable(parts[c], left, after):
                return False
        return True
