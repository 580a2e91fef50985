"""Tiny word-list games and a brute force over them with the game's scalar answering function (pipeline.games.answer,
the rules as the game states them): nothing here imports a search, so the searches are checked against the rules.

- `HARD_BINDS`, `LIMIT_BINDS`, `binding_game`: tiny games where hard mode or the guess limit changes MinTotal;
- `REPEATED_LETTER_GAMES`, `repeated_letter_game`: tiny games full of repeated letters, every secret a guess;
- `random_word_game`: a random game (extra guesses, secrets, alphabet) drawn from a seed;
- `brute_min_total`: MinTotal over every strategy, with NYT hard mode (`hard_ok`) after given rows and a guess
  limit (INF when no strategy finds every secret in time); `brute_min_total_and_value`: MinTotal(C) and V*(g, C)
  as functions of the candidates and the hard-mode history.
"""

import random
from functools import lru_cache

import numpy as np

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import feedback
from pipeline.games.game import Game

INF = float("inf")
NO_LIMIT = 99  # deeper than any tiny game's strategy goes

# secrets, extra guesses, {(hard, limit): MinTotal} (inf: no strategy within the limit)
HARD_BINDS = (["eight", "hatch", "might", "night", "right", "watch", "wight"],
              ["swith", "bunts", "noily", "dumas", "ikans", "bored"],
              {(False, None): 18, (True, None): 19, (True, 4): 19, (False, 3): INF, (True, 3): INF})
LIMIT_BINDS = (["batch", "fight", "latch", "light", "match", "patch", "sight", "watch"], ["pleon"],
               {(False, None): 22, (True, None): 22, (False, 5): 22, (False, 4): 23, (True, 4): 23,
                (False, 3): INF, (True, 3): INF})


ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# tiny games full of repeated letters; every secret is also a guess
REPEATED_LETTER_GAMES = {
    "eels": (["eerie", "there", "geese", "eases", "sheer", "seers", "tease", "reset"],
             ["eerie", "there", "geese", "eases", "sheer", "seers", "tease", "reset", "shirt", "trees", "aster"]),
    "lolly": (["lolly", "hello", "holly", "jolly", "belly", "hills", "jelly"],
              ["lolly", "hello", "holly", "jolly", "belly", "hills", "jelly", "loyal", "bojhe"]),
    "aabb": (["aab", "aba", "baa", "abb", "bab", "bba", "abc", "cab", "bca"],
             ["aab", "aba", "baa", "abb", "bab", "bba", "abc", "cab", "bca", "ccc", "acb"]),
}


def repeated_letter_game(name):
    """(secrets, guesses, codes, secret_of_guess, n_codes) of a game above, its lists sorted."""
    secrets, guesses = REPEATED_LETTER_GAMES[name]
    secrets, guesses = sorted(secrets), sorted(set(guesses))
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    secret_of_guess = np.array([secrets.index(g) if g in secrets else -1 for g in guesses], dtype=np.int32)
    return secrets, guesses, codes, secret_of_guess, 3 ** len(secrets[0])


def binding_game(case, hard, limit):
    """The Game of a case above (secrets, extra guesses, values) with its hard mode and guess limit."""
    secrets, extra, _ = case
    return Game("tiny", tuple(sorted(set(secrets + extra))), tuple(sorted(secrets)), "abcdefghijklmnopqrstuvwxyz",
                hard, limit)


def random_word_game(seed, *, letters="abcd", lengths=(2, 4), draws=40, n_secrets=(4, 9), n_extra=(0, 5)):
    """(extra guesses, secrets, alphabet): an alphabet of the first 2..len(letters) letters, words of a random length
    in `lengths` drawn `draws` times, then `n_secrets` secrets and `n_extra` extra guesses (a count or a range)
    sampled from the distinct words."""
    rng = random.Random(seed)
    alphabet = letters[: rng.randint(2, len(letters))]
    length = rng.randint(*lengths)
    universe = sorted({"".join(rng.choice(alphabet) for _ in range(length)) for _ in range(draws)})
    secrets = rng.sample(universe, min(len(universe), rng.randint(*n_secrets)))
    extra_count = n_extra if isinstance(n_extra, int) else rng.randint(*n_extra)
    extra = rng.sample(universe, min(len(universe), extra_count))
    return extra, secrets, alphabet


def hard_ok(guess: str, rows) -> bool:
    """NYT hard mode from its statement: greens stay in place, every revealed letter is reused as often."""
    for word, colours in rows:
        need = {}
        for i, (ch, col) in enumerate(zip(word, colours)):
            if col == "2" and guess[i] != ch:
                return False
            if col != "0":
                need[ch] = need.get(ch, 0) + 1
        if any(guess.count(ch) < n for ch, n in need.items()):
            return False
    return True


def brute_min_total(guesses, secrets, hard=False, limit=None, rows=()):
    """Exhaustive MinTotal over every strategy (hard mode after `rows`, guess limit); inf if none finds all in time."""
    win = "2" * len(secrets[0])

    @lru_cache(maxsize=None)
    def best(cand, rows, left):
        if len(cand) == 1:
            return 1
        if left <= 1:
            return INF
        value = INF
        for g in guesses:
            if hard and not hard_ok(g, rows):
                continue
            parts = {}
            for s in cand:
                parts.setdefault(feedback(g, s), []).append(s)
            if len(parts) == 1 and g not in cand:
                continue
            total = len(cand) + sum(best(tuple(p), tuple(sorted(rows + ((g, c),))) if hard else (), left - 1)
                                    for c, p in parts.items() if c != win)
            value = min(value, total)
        return value

    return best(tuple(secrets), tuple(sorted(rows)), NO_LIMIT if limit is None else limit)


def brute_min_total_and_value(secrets, guesses, hard=False):
    """MinTotal(C) (and V*(g, C)) straight from the definition, memoised on (C, history constraints)."""
    @lru_cache(maxsize=None)
    def min_total(cands, history):
        if len(cands) == 1:
            return 1
        return min(value(g, cands, history) for g in useful(cands, history))

    def useful(cands, history):
        for g in guesses:
            if hard and not hard_ok(g, history):
                continue
            if len({feedback(g, s) for s in cands}) >= 2:
                yield g

    def value(g, cands, history):
        total = len(cands)
        for colours in sorted({feedback(g, s) for s in cands}):
            rest = tuple(s for s in cands if feedback(g, s) == colours)
            if rest != (g,):
                total += min_total(rest, history + ((g, colours),) if hard else ())
        return total

    return min_total, value
