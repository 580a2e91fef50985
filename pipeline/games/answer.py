"""The answering function, as a small scalar reference everyone can read.

Code convention (used everywhere in the project): colours are
0 grey, 1 yellow, 2 green; a response is the base-3 number whose digit at
position i (weight 3**i) is the colour of letter i.  So the colour string
"02121" is the code 0*1 + 2*3 + 1*9 + 2*27 + 1*81 = 150, and the winning
response of a length-L game is 3**L - 1.

`Answering` below is the answering function a game declares (game.answer):
Wordle's colours here, or the peg answers of `pipeline.games.pegs`.
"""

from dataclasses import dataclass

from pipeline.games import pegs

GREY, YELLOW, GREEN = 0, 1, 2


def feedback(guess: str, secret: str) -> str:
    """Colour string of `guess` against `secret`, e.g. feedback("salet", "later") == "02121".

    Greens first (they use up their secret letter), then yellows from left to
    right while the secret still has an unused copy of the letter.
    """
    if len(guess) != len(secret):
        raise ValueError(f"guess {guess!r} and secret {secret!r} differ in length")
    colours = [GREY] * len(guess)
    unused: dict[str, int] = {}
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            colours[i] = GREEN
        else:
            unused[s] = unused.get(s, 0) + 1
    for i, g in enumerate(guess):
        if colours[i] != GREEN and unused.get(g, 0) > 0:
            colours[i] = YELLOW
            unused[g] -= 1
    return "".join(str(c) for c in colours)


def colours_to_code(colours: str) -> int:
    """Integer code of a colour string: digit i has weight 3**i."""
    if not colours or any(c not in "012" for c in colours):
        raise ValueError(f"colour string {colours!r} must use only 0, 1, 2")
    return sum(int(c) * 3**i for i, c in enumerate(colours))


def code_to_colours(code: int, length: int) -> str:
    """Colour string of an integer code (inverse of colours_to_code)."""
    if not 0 <= code < 3**length:
        raise ValueError(f"code {code} out of range for length {length}")
    digits = []
    for _ in range(length):
        digits.append(str(code % 3))
        code //= 3
    return "".join(digits)


def win_code(length: int) -> int:
    """The winning response r* = 3**L - 1 (all green)."""
    return 3**length - 1


def code_dtype_name(length: int) -> str:
    """Smallest unsigned numpy dtype holding every code of a length-L game."""
    n_codes = 3**length
    if n_codes <= 2**8:
        return "uint8"
    if n_codes <= 2**16:
        return "uint16"
    return "uint32"


# ---- one answering function per game --------------------------------------------------------------------------

@dataclass(frozen=True)
class Answering:
    """A game's answering function for words of `length` symbols: scalar reference, codes and their text.

    `kind` is wordle (colours, codes base 3), mastermind (black/white pegs) or
    bulls_and_cows (bulls/cows); see `pipeline.games.pegs` for the last two.
    The winning code is always the largest, n_codes - 1, which is what every
    search assumes.
    """

    kind: str
    length: int

    def __post_init__(self):
        if self.kind != "wordle" and self.kind not in pegs.SECOND_LETTER:
            raise ValueError(f"unknown answering function {self.kind!r}")

    @property
    def n_codes(self) -> int:
        return 3**self.length if self.kind == "wordle" else self.length * (self.length + 1) + 1

    @property
    def win(self) -> int:
        return self.n_codes - 1

    @property
    def dtype_name(self) -> str:
        return code_dtype_name(self.length) if self.kind == "wordle" else "uint8" if self.n_codes <= 256 else "uint16"

    def code(self, guess: str, secret: str) -> int:
        """Response code of `guess` against `secret`, from the scalar reference."""
        if self.kind == "wordle":
            return colours_to_code(feedback(guess, secret))
        scalar = pegs.mastermind if self.kind == "mastermind" else pegs.bulls_and_cows
        return pegs.pair_code(*scalar(guess, secret), self.length)

    def text(self, code: int) -> str:
        """Text form of a code: "02121" (Wordle), "2B1W" (Mastermind), "1B2C" (Bulls and Cows)."""
        if self.kind == "wordle":
            return code_to_colours(int(code), self.length)
        return pegs.pair_text(int(code), self.length, self.kind)

    def response(self, guess: str, secret: str) -> str:
        """Text form of the answer to `guess` when the secret is `secret` (tree keys use it)."""
        return self.text(self.code(guess, secret))

    def parse(self, text: str) -> int:
        """Code of a canonical or typed answer text; ValueError naming the problem."""
        if self.kind == "wordle":
            if len(text) != self.length:
                raise ValueError(f"colours {text!r} have {len(text)} symbols, not {self.length}")
            return colours_to_code(text)
        return pegs.parse_pair(text, self.length, self.kind)
