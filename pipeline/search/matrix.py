"""A game's code matrix and the tables every search reads beside it, as one value.

The solvers (exact, ApMinTotal, bounds, closure) and the stage tasks that run them all read the same few
arrays of a game: the |G| x |S| code matrix, maybe its transpose, secret_of_guess, the number of codes and the
encoded words (hard mode's rule, the symmetries and the word ceilings of the bounds read them).  A `Matrix`
carries them through Python-level code as one argument; the numba kernels still take plain arrays, unpacked
where a solver calls them (a named tuple handed to a kernel costs a reference count per array, per call).
"""

from dataclasses import dataclass, replace

import numpy as np

from pipeline.search.arrays import kernel_input


@dataclass(frozen=True, eq=False)
class Matrix:
    """The code matrix of a game with what the searches read beside it; its arrays read-only (a task never
    writes shared data, and a kernel compiles once per dtype: search/arrays.py).

    codes:           codes[g, s], the response to guess g when the secret is s (the win is n_codes - 1)
    secret_of_guess: for every guess its index among the secrets, or -1
    n_codes:         how many responses there are
    encoded_guesses: the guesses as symbol indices (G x length uint8), or None when not given
    encoded_secrets: the secrets likewise, or None
    codes_t:         the (S, G) C-contiguous transpose of codes, when the caller has it (`transposed` makes it)
    """

    codes: np.ndarray
    secret_of_guess: np.ndarray
    n_codes: int
    encoded_guesses: np.ndarray | None = None
    encoded_secrets: np.ndarray | None = None
    codes_t: np.ndarray | None = None

    def __post_init__(self):
        for name in ("codes", "secret_of_guess", "encoded_guesses", "encoded_secrets", "codes_t"):
            value = getattr(self, name)
            if value is not None:
                object.__setattr__(self, name, kernel_input(value))
        object.__setattr__(self, "n_codes", int(self.n_codes))
        if self.secret_of_guess.shape != (self.codes.shape[0],):
            raise ValueError(f"secret_of_guess has shape {self.secret_of_guess.shape}, not one entry per guess "
                             f"of the {self.codes.shape[0]} x {self.codes.shape[1]} code matrix")
        if self.codes_t is not None and (self.codes_t.shape != self.codes.shape[::-1]
                                         or self.codes_t.dtype != self.codes.dtype):
            raise ValueError("codes_t must be the transpose of codes")

    def __reduce__(self):
        """Pickled (into a task) as its constructor's arguments, so the copy's arrays are read-only too."""
        return Matrix, (self.codes, self.secret_of_guess, self.n_codes, self.encoded_guesses, self.encoded_secrets,
                        self.codes_t)

    @classmethod
    def of_game(cls, codes, game, codes_t=None) -> "Matrix":
        """The matrix of `game` (a pipeline.games Game: secret_of_guess, n_codes, encoded_guesses() and
        encoded_secrets()) whose code matrix is `codes` (and its transpose `codes_t`, if the caller has it)."""
        return cls(codes=codes, secret_of_guess=game.secret_of_guess, n_codes=game.n_codes,
                   encoded_guesses=game.encoded_guesses(), encoded_secrets=game.encoded_secrets(), codes_t=codes_t)

    @property
    def n_guesses(self) -> int:
        return self.codes.shape[0]

    @property
    def n_secrets(self) -> int:
        return self.codes.shape[1]

    @property
    def win(self) -> int:
        """The response that says the guess is the secret."""
        return self.n_codes - 1

    @property
    def nbytes(self) -> int:
        """Bytes its arrays hold (what a fan-out copies into Ray's object store: runtime/executors.py)."""
        return sum(a.nbytes for a in self.arrays() if a is not None)

    def arrays(self) -> tuple:
        """Its arrays in field order, None where not given (what names it in runtime/worker_cache.py)."""
        return self.codes, self.secret_of_guess, self.encoded_guesses, self.encoded_secrets, self.codes_t

    def transposed(self) -> np.ndarray:
        """codes_t, or the transpose made now when the matrix does not hold it."""
        return self.codes_t if self.codes_t is not None else kernel_input(self.codes.T)

    def with_transpose(self) -> "Matrix":
        """This matrix holding its transpose (itself when it does already): for a caller that builds many
        searches, each of which would otherwise transpose the matrix again."""
        return self if self.codes_t is not None else replace(self, codes_t=self.transposed())

    def hard_words(self, hard: bool) -> np.ndarray | None:
        """The encoded guesses when `hard` (hard mode's rule reads them), else None."""
        return self.encoded_guesses if hard else None
