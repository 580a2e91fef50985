"""The answering function, as a small scalar reference everyone can read.

Code convention (used everywhere in the project): colours are
0 grey, 1 yellow, 2 green; a response is the base-3 number whose digit at
position i (weight 3**i) is the colour of letter i.  So the colour string
"02121" is the code 0*1 + 2*3 + 1*9 + 2*27 + 1*81 = 150, and the winning
response of a length-L game is 3**L - 1.
"""

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
