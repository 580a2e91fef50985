"""A game: allowed guesses G, secrets S (S ⊆ G), symbol length, and its answering function."""

from dataclasses import dataclass, field
from functools import cached_property

import numpy as np

from pipeline.games.digest import sorted_sha256
from pipeline.games.encoding import encode_words


ANSWERS = ("wordle", "mastermind", "bulls_and_cows")  # the answering functions a game may declare


@dataclass(frozen=True)
class Game:
    """Word lists are sorted, so index order is the alphabetical tie-break order."""

    name: str
    guesses: tuple[str, ...]
    secrets: tuple[str, ...]
    alphabet: str
    hard_mode: bool = False
    max_guesses: int | None = None  # every secret must be found within this many guesses; None = unlimited
    answer: str = "wordle"  # the answering function: wordle | mastermind | bulls_and_cows
    extra: dict = field(default_factory=dict, compare=False)
    excluded: tuple[str, ...] = ()  # answers removed from the secrets (game.exclude), sorted

    @property
    def length(self) -> int:
        return len(self.secrets[0])

    @cached_property
    def answering(self):
        """The `pipeline.games.answer.Answering` of this game (imported here: the independent checker holds
        Games without ever loading the prover's answering code)."""
        from pipeline.games.answer import Answering

        return Answering(self.answer, self.length)

    @property
    def n_codes(self) -> int:
        return self.answering.n_codes

    def code_text(self, code: int) -> str:
        """Text form of a response code (tree keys): "02121", "2B1W", "1B2C"."""
        return self.answering.text(code)

    @cached_property
    def guesses_digest(self) -> str:
        return sorted_sha256(self.guesses)

    @cached_property
    def secrets_digest(self) -> str:
        return sorted_sha256(self.secrets)

    @cached_property
    def guess_index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.guesses)}

    @cached_property
    def secret_index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.secrets)}

    @cached_property
    def secret_of_guess(self) -> np.ndarray:
        """For every guess, its index among the secrets, or -1."""
        return np.array([self.secret_index.get(w, -1) for w in self.guesses], dtype=np.int32)

    @cached_property
    def guess_of_secret(self) -> np.ndarray:
        """For every secret, its index among the guesses."""
        return np.array([self.guess_index[w] for w in self.secrets], dtype=np.int32)

    def encoded_guesses(self) -> np.ndarray:
        return encode_words(list(self.guesses), self.alphabet)

    def encoded_secrets(self) -> np.ndarray:
        return encode_words(list(self.secrets), self.alphabet)

    def identity(self) -> dict:
        """What makes two games the same for every artifact derived from them."""
        return {
            "guesses_sha256": self.guesses_digest,
            "secrets_sha256": self.secrets_digest,
            "alphabet": self.alphabet,
            "hard_mode": self.hard_mode,
            "max_guesses": self.max_guesses,
            **({"exclude_sha256": sorted_sha256(self.excluded)} if self.excluded else {}),
            **({} if self.answer == "wordle" else {"answer": self.answer}),  # Wordle keys stay as they were
        }
