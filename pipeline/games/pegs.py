"""Peg answers (Mastermind, Bulls and Cows): scalar references, response codes and their text form.

Mastermind (black/white pegs): black = positions where guess and secret
agree; white = colours in common, counted with multiplicity (for each
colour the smaller of its counts in guess and secret), minus the blacks.
Bulls and Cows (strings of distinct digits): bulls = digits in the right
place, cows = digits of the guess the secret has elsewhere.

Both answers are a pair (b, w) with b + w <= L; the response code is
b * (L + 1) + w, so the win (L, 0) is the largest code, L * (L + 1), and
a game of length L has L * (L + 1) + 1 codes (a few of them, such as
(L - 1, 1), never occur).  Text form: "2B1W" (Mastermind), "1B2C"
(Bulls and Cows).
"""

import re
from collections import Counter

SECOND_LETTER = {"mastermind": "W", "bulls_and_cows": "C"}  # white pegs, cows
SECOND_WORD = {"mastermind": "white", "bulls_and_cows": "cow"}
FIRST_WORD = {"mastermind": "black", "bulls_and_cows": "bull"}


def mastermind(guess: str, secret: str) -> tuple[int, int]:
    """(black, white) pegs of `guess` against `secret`, e.g. mastermind("1122", "1213") == (1, 2)."""
    if len(guess) != len(secret):
        raise ValueError(f"guess {guess!r} and secret {secret!r} differ in length")
    black = sum(g == s for g, s in zip(guess, secret))
    in_guess, in_secret = Counter(guess), Counter(secret)
    common = sum(min(n, in_secret[c]) for c, n in in_guess.items())
    return black, common - black


def bulls_and_cows(guess: str, secret: str) -> tuple[int, int]:
    """(bulls, cows) of `guess` against `secret` (distinct digits each), e.g. ("1234", "1325") == (1, 2)."""
    if len(guess) != len(secret):
        raise ValueError(f"guess {guess!r} and secret {secret!r} differ in length")
    bulls = cows = 0
    for i, g in enumerate(guess):
        if secret[i] == g:
            bulls += 1
        elif g in secret:
            cows += 1
    return bulls, cows


def pair_code(b: int, w: int, length: int) -> int:
    """Response code of the pair (b, w): b * (L + 1) + w."""
    return b * (length + 1) + w


def code_pair(code: int, length: int) -> tuple[int, int]:
    """The pair (b, w) of a response code (inverse of pair_code)."""
    if not 0 <= code <= length * (length + 1):
        raise ValueError(f"code {code} out of range for length {length}")
    return divmod(code, length + 1)


def pair_text(code: int, length: int, kind: str) -> str:
    """Text form of a code: "2B1W" (mastermind) or "1B2C" (bulls_and_cows)."""
    b, w = code_pair(code, length)
    return f"{b}B{w}{SECOND_LETTER[kind]}"


_TAGGED = re.compile(r"(\d+)\s*([a-z]+)")


def _numbers(text: str, kind: str) -> tuple[int, int]:
    """(b, w) read from "2B1W", "2b 1w", "1w2b", "2B" (no W = 0), "2 1", "2,1" or "2/1"."""
    second = SECOND_LETTER[kind].lower()
    firsts, seconds = ("b", FIRST_WORD[kind], FIRST_WORD[kind] + "s"), \
        (second, SECOND_WORD[kind], SECOND_WORD[kind] + "s")
    plain = re.fullmatch(r"(\d+)\s*[,/ ]\s*(\d+)", text)
    if plain:
        return int(plain.group(1)), int(plain.group(2))
    if text.isdigit() and len(text) == 1:
        return int(text), 0  # "0": nothing at all; "3": three blacks, no whites
    b = w = None
    rest = _TAGGED.sub("", text).strip(" ,+")
    for number, tag in _TAGGED.findall(text):
        if tag in firsts and b is None:
            b = int(number)
        elif tag in seconds and w is None:
            w = int(number)
        else:
            rest = text
    if rest or (b is None and w is None):
        example = f"2B1{SECOND_LETTER[kind]}"
        raise ValueError(f"{text!r} is not an answer; write it like {example} (or `2 1`)")
    return b or 0, w or 0


class ImpossibleAnswer(ValueError):
    """An answer in a recognised form that no guess can get (e.g. 3B1W with 4 pegs)."""


def parse_pair(text: str, length: int, kind: str) -> int:
    """Code of an answer typed as text; ValueError (one clear line) when no guess can get that answer."""
    b, w = _numbers(text.strip().lower(), kind)
    shown = f"{b}B{w}{SECOND_LETTER[kind]}"
    if b + w > length:
        raise ImpossibleAnswer(f"{shown} is impossible: {b} {FIRST_WORD[kind]}s + {w} {SECOND_WORD[kind]}s are more "
                               f"than the {length} positions")
    if b == length - 1 and w == 1:
        raise ImpossibleAnswer(f"{shown} is impossible: with {b} in place, the last symbol cannot be elsewhere")
    return pair_code(b, w, length)
