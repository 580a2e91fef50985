"""Brute force from the definitions (docs/algorithms.md §1, §3), for tests of the prover and of the checker alike.

Written apart from both: nothing here imports pipeline.search (the prover) or pipeline.proofs (the checker), so a
slip shared by their code cannot hide here.  Everything is exhaustive and memoised, for games of a few words.

- `wordle_code`, `pegs_code`: the answering functions from their statements (Wordle colours read as a base-3
  number, position i of weight 3^i; Mastermind black/white pegs numbered with the win last);
- `BruteGame`: MinTotal and V*(g, C) over a code matrix, every strategy tried, with the NYT hard-mode rule (read
  from the guesses' symbols and the colours of the responses) and a guess limit;
- `group_elements`, `stabiliser_orbits`: the group a list of symbol / position permutations generates (listed
  element by element) and the orbits of the words under the elements that fix every word of a history.
"""

from functools import lru_cache

import numpy as np

NO_STRATEGY = float("inf")  # the MinTotal of a set no strategy finds within the guesses left


def wordle_colours(guess, secret) -> list[int]:
    """Colours 0 grey, 1 yellow, 2 green: greens first (using up the secret's letter), then yellows left to right
    while the secret has an unused copy of the letter."""
    colours = [2 if g == s else 0 for g, s in zip(guess, secret)]
    unused = [s for s, c in zip(secret, colours) if c != 2]
    for i, g in enumerate(guess):
        if colours[i] != 2 and g in unused:
            colours[i] = 1
            unused.remove(g)
    return colours


def wordle_code(guess, secret) -> int:
    """The colours as one number: position i has weight 3^i (the win is 3^L - 1)."""
    return sum(c * 3 ** i for i, c in enumerate(wordle_colours(guess, secret)))


def pegs_code(guess, secret) -> int:
    """Mastermind's (black, white) as one number, the win (L, 0) the largest: black = equal positions, white =
    common symbols counted with multiplicity, minus black.  Codes (b, w) with b + w <= L are numbered by
    b * (L + 1) + w; the win L * (L + 1) is then the largest."""
    length = len(guess)
    black = sum(g == s for g, s in zip(guess, secret))
    common = sum(min(list(guess).count(x), list(secret).count(x)) for x in set(guess))
    return black * (length + 1) + common - black


def pegs_n_codes(length: int) -> int:
    return length * (length + 1) + 1


def code_table(guesses, secrets, answer) -> np.ndarray:
    """(guesses x secrets) codes of the answering function `answer` (one of the above), as uint8."""
    return np.array([[answer(g, s) for s in secrets] for g in guesses], dtype=np.uint8)


def hard_legal(word, history, words) -> bool:
    """NYT hard mode from its statement, over symbol rows: after each earlier (guess index, Wordle code) a guess
    keeps every green symbol in place and holds every revealed symbol (green or yellow) at least as many times
    as that response revealed it."""
    for earlier, code in history:
        colours = [(code // 3 ** i) % 3 for i in range(len(word))]
        revealed = {}
        for i, colour in enumerate(colours):
            symbol = words[earlier][i]
            if colour == 2 and word[i] != symbol:
                return False
            if colour:
                revealed[symbol] = revealed.get(symbol, 0) + 1
        if any(list(word).count(symbol) < count for symbol, count in revealed.items()):
            return False
    return True


class BruteGame:
    """Every strategy of a game given by its code matrix (guesses x secrets), tried in turn.

    `secret_guess[s]`: the guess that is secret s (every secret is a guess).  `words` (symbol rows, Wordle
    codes) only for hard mode.  A candidate set is a tuple of secret indices; `left` the guesses still
    allowed, this one included (None: no limit); `history` the (guess, code) pairs played so far (read in hard
    mode only)."""

    def __init__(self, codes, secret_guess, n_codes: int, hard: bool = False, words=None):
        self.codes = [list(map(int, row)) for row in np.asarray(codes)]
        self.secret_guess = [int(g) for g in secret_guess]
        self.win = int(n_codes) - 1
        self.hard = hard
        self.words = None if words is None else [tuple(int(x) for x in w) for w in words]
        self.min_total = lru_cache(maxsize=None)(self._min_total)

    def legal(self, g: int, history) -> bool:
        return not self.hard or hard_legal(self.words[g], history, self.words)

    def classes(self, g: int, cands) -> dict[int, tuple]:
        """Split(C, g): the candidates by the code g gets on them."""
        out = {}
        for s in cands:
            out.setdefault(self.codes[g][s], []).append(s)
        return {code: tuple(members) for code, members in out.items()}

    def _min_total(self, cands: tuple, left=None, history: tuple = ()) -> float:
        """MinTotal(C): 1 for one candidate (its own guess, legal or not under hard mode: see below), else the
        least V*(g, C) over the legal guesses that split C; NO_STRATEGY when none finishes in time."""
        cands = tuple(sorted(cands))
        if left is not None and left < 1:
            return NO_STRATEGY
        if len(cands) == 1:
            return 1 if self.legal(self.secret_guess[cands[0]], history) else NO_STRATEGY
        best = NO_STRATEGY
        for g in range(len(self.codes)):
            if self.legal(g, history) and len(self.classes(g, cands)) > 1:
                best = min(best, self.value(g, cands, left, history))
        return best

    def value(self, g: int, cands, left=None, history: tuple = ()) -> float:
        """V*(g, C) = |C| + the MinTotal, one guess deeper, of every class of Split(C, g) but the win."""
        deeper = None if left is None else left - 1
        total = len(cands)
        for code, members in self.classes(g, tuple(sorted(cands))).items():
            if code != self.win:
                after = tuple(sorted(set(history) | {(g, code)})) if self.hard else ()
                total += self.min_total(members, deeper, after)
        return total

    def solvable(self, cands, left, history: tuple = ()) -> bool:
        return self.min_total(tuple(sorted(cands)), left, tuple(history)) < NO_STRATEGY


def random_matrix(rng, n_guesses: int, n_secrets: int, n_codes: int) -> tuple[np.ndarray, np.ndarray]:
    """(codes, secret_guess): a random guesses x secrets matrix whose secrets are distinct random guesses, each
    answered by the win (n_codes - 1) from its own guess only, every other code uniform below the win."""
    secret_guess = np.sort(rng.choice(n_guesses, n_secrets, replace=False))
    codes = rng.integers(0, n_codes - 1, size=(n_guesses, n_secrets)).astype(np.uint8)
    codes[secret_guess, np.arange(n_secrets)] = n_codes - 1
    return codes, secret_guess


def sparse_matrix(rng, n_guesses: int, n_secrets: int, told: float) -> tuple[np.ndarray, np.ndarray]:
    """(codes, secret_guess) as random_matrix with three codes, where a guess answers a secret other than its own
    with code 1 with probability `told`, else 0: guesses that rarely tell secrets apart make deep trees."""
    secret_guess = np.sort(rng.choice(n_guesses, n_secrets, replace=False))
    codes = (rng.random((n_guesses, n_secrets)) < told).astype(np.uint8)
    codes[secret_guess, np.arange(n_secrets)] = 2
    return codes, secret_guess


def random_words(rng, count: int, length: int, n_symbols: int) -> list[tuple[int, ...]]:
    """`count` distinct random symbol rows, sorted."""
    words = set()
    while len(words) < count:
        words.add(tuple(int(x) for x in rng.integers(0, n_symbols, size=length)))
    return sorted(words)


# ---- groups and orbits ----------------------------------------------------------------------------------------

def act(element, word) -> tuple:
    """(sym, pos) on a word: new[i] = sym[old[pos[i]]]."""
    sym, pos = element
    return tuple(sym[word[p]] for p in pos)


def compose(first, then) -> tuple:
    """The element acting as `first`, then `then`."""
    sym1, pos1 = first
    sym2, pos2 = then
    return tuple(sym2[x] for x in sym1), tuple(pos1[p] for p in pos2)


def group_elements(generators, n_symbols: int, length: int) -> set[tuple]:
    """Every element of the group the (sym, pos) generators generate, listed by closing under products."""
    identity = (tuple(range(n_symbols)), tuple(range(length)))
    found, frontier = {identity}, [identity]
    gens = [(tuple(s), tuple(p)) for s, p in generators]
    while frontier:
        fresh = []
        for element in frontier:
            for gen in gens:
                product = compose(element, gen)
                if product not in found:
                    found.add(product)
                    fresh.append(product)
        frontier = fresh
    return found


def stabiliser_orbits(elements, words, history, symbols_only: bool = False) -> list[int]:
    """For each word (index), the least index of its orbit under the elements that fix every history word
    (`symbols_only`: those that also move no position).  Words must be closed under the elements."""
    index = {tuple(w): i for i, w in enumerate(words)}
    played = [tuple(words[h]) for h in history]
    identity_pos = tuple(range(len(words[0])))
    kept = [e for e in elements if all(act(e, w) == w for w in played)
            and (not symbols_only or e[1] == identity_pos)]
    return [min(index[act(e, tuple(w))] for e in kept) for w in words]


def closure_of(words, elements) -> list[tuple]:
    """The words and all their images (sorted)."""
    return sorted({act(e, tuple(w)) for w in words for e in elements})
