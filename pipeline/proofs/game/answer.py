"""The checker's own answering functions: scalar forms and numba kernels for the whole code matrix.

Wordle (the default) and, at the end, the peg answers of Mastermind and Bulls and Cows.  Wordle's rule: positions where guess and secret agree are green (2) and use up that
secret letter; then, left to right, a non-green guess letter is yellow (1)
while the secret still has an unused copy of it, else grey (0).  Codes read
the colours as base 3 with position i worth 3**i, so the win is 3**L - 1.
"""

import numpy as np
from numba import njit, prange


def colours(guess: str, secret: str) -> str:
    """Colour string of `guess` against `secret`, e.g. colours("salet", "later") == "02121"."""
    out = ["0"] * len(guess)
    spare: dict[str, int] = {}
    for i, (g, s) in enumerate(zip(guess, secret, strict=True)):
        if g == s:
            out[i] = "2"
        else:
            spare[s] = spare.get(s, 0) + 1
    for i, g in enumerate(guess):
        if out[i] == "0" and spare.get(g, 0):
            out[i] = "1"
            spare[g] -= 1
    return "".join(out)


def colours_of(code: int, length: int) -> str:
    """Colour string of an integer code."""
    return "".join(str((code // 3**i) % 3) for i in range(length))


def symbols(words, alphabet: str) -> np.ndarray:
    """(n, L) uint8 symbol indices of words over `alphabet`."""
    where = {ch: i for i, ch in enumerate(alphabet)}
    return np.array([[where[ch] for ch in w] for w in words], dtype=np.uint8).reshape(len(words), -1)


@njit(cache=True)
def _code(guess, secret, spare):
    """Code of one (guess, secret) pair of symbol rows; `spare` is a zeroed scratch array, left zeroed."""
    length = guess.shape[0]
    code = 0
    weight = 1
    for i in range(length):
        if guess[i] == secret[i]:
            code += 2 * weight
        else:
            spare[secret[i]] += 1
        weight *= 3
    weight = 1
    for i in range(length):
        if guess[i] != secret[i] and spare[guess[i]] > 0:
            code += weight
            spare[guess[i]] -= 1
        weight *= 3
    for i in range(length):
        spare[secret[i]] = 0
    return code


@njit(cache=True, parallel=True)
def _matrix(guesses, secrets, out):
    for g in prange(guesses.shape[0]):
        spare = np.zeros(256, dtype=np.int32)
        for s in range(secrets.shape[0]):
            out[g, s] = _code(guesses[g], secrets[s], spare)


def code_matrix(guesses, secrets, alphabet: str) -> np.ndarray:
    """|G| x |S| matrix of codes, computed from the words themselves (uint8 up to 5 symbols, uint16 up to 10)."""
    g, s = symbols(guesses, alphabet), symbols(secrets, alphabet)
    n_codes = 3 ** g.shape[1]
    dtype = np.uint8 if n_codes <= 256 else np.uint16 if n_codes <= 65536 else np.int32
    out = np.empty((len(guesses), len(secrets)), dtype=dtype)
    _matrix(g, s, out)
    return out


# ---- peg answers: Mastermind (black/white) and Bulls and Cows (bulls/cows) --------------------------------------
# A pair (b, w) is the code b * (L + 1) + w, written "2B1W" (Mastermind) or "1B2C" (Bulls and Cows); the win
# (L, 0) is the largest code, L * (L + 1).


def pegs(guess: str, secret: str) -> tuple[int, int]:
    """Mastermind's (black, white): blacks match in place; whites are the other pegs of a colour both share."""
    black = 0
    left_g: dict[str, int] = {}
    left_s: dict[str, int] = {}
    for g, s in zip(guess, secret, strict=True):
        if g == s:
            black += 1
        else:
            left_g[g] = left_g.get(g, 0) + 1
            left_s[s] = left_s.get(s, 0) + 1
    return black, sum(min(n, left_s.get(c, 0)) for c, n in left_g.items())


def bulls_cows(guess: str, secret: str) -> tuple[int, int]:
    """(bulls, cows) for strings of distinct digits: a bull is in place, a cow is in the secret elsewhere."""
    where = {d: i for i, d in enumerate(secret)}
    bulls = sum(1 for i, d in enumerate(guess) if where.get(d) == i)
    cows = sum(1 for i, d in enumerate(guess) if d in where and where[d] != i)
    return bulls, cows


PAIR_ANSWERS = {"mastermind": (pegs, "W"), "bulls_and_cows": (bulls_cows, "C")}


def n_codes_of(answer: str, length: int) -> int:
    """How many response codes a game of this answering function and length has (the win is the last)."""
    if answer == "wordle":
        return 3**length
    if answer not in PAIR_ANSWERS:
        raise ValueError(f"unknown answering function {answer!r}")
    return length * (length + 1) + 1


def response(answer: str, guess: str, secret: str) -> str:
    """The answer's text, as tree files key it: "02121", "2B1W" or "1B2C"."""
    if answer == "wordle":
        return colours(guess, secret)
    scalar, letter = PAIR_ANSWERS[answer]
    b, w = scalar(guess, secret)
    return f"{b}B{w}{letter}"


def text_of(answer: str, code: int, length: int) -> str:
    """Text of an integer code (inverse of the code convention)."""
    if answer == "wordle":
        return colours_of(code, length)
    b, w = divmod(int(code), length + 1)
    return f"{b}B{w}{PAIR_ANSWERS[answer][1]}"


@njit(cache=True, parallel=True)
def _pair_matrix(guesses, secrets, n_symbols, out):
    length = guesses.shape[1]
    for g in prange(guesses.shape[0]):
        spare_g = np.zeros(n_symbols, dtype=np.int32)
        spare_s = np.zeros(n_symbols, dtype=np.int32)
        for s in range(secrets.shape[0]):
            black = 0
            for i in range(length):
                if guesses[g, i] == secrets[s, i]:
                    black += 1
                else:
                    spare_g[guesses[g, i]] += 1
                    spare_s[secrets[s, i]] += 1
            white = 0
            for x in range(n_symbols):
                white += min(spare_g[x], spare_s[x])
                spare_g[x] = 0
                spare_s[x] = 0
            out[g, s] = black * (length + 1) + white


def game_code_matrix(guesses, secrets, alphabet: str, answer: str) -> np.ndarray:
    """|G| x |S| codes of the game's answering function, from the words themselves."""
    if answer == "wordle":
        return code_matrix(guesses, secrets, alphabet)
    n_codes_of(answer, 1)  # refuses an unknown answer
    g, s = symbols(guesses, alphabet), symbols(secrets, alphabet)
    out = np.empty((len(guesses), len(secrets)), dtype=np.uint8 if n_codes_of(answer, g.shape[1]) <= 256 else np.uint16)
    _pair_matrix(g, s, len(alphabet), out)
    return out
