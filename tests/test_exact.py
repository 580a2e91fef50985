"""Exact search and the hard-mode rule against brute force written from the definitions."""

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import colours_to_code, feedback
from pipeline.search.exact import ExactSolver, tree_total
from pipeline.search.hard_mode import allowed_mask

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
# tiny games full of repeated letters; every secret is also a guess
GAMES = {
    "eels": (["eerie", "there", "geese", "eases", "sheer", "seers", "tease", "reset"],
             ["eerie", "there", "geese", "eases", "sheer", "seers", "tease", "reset", "shirt", "trees", "aster"]),
    "lolly": (["lolly", "hello", "holly", "jolly", "belly", "hills", "jelly"],
              ["lolly", "hello", "holly", "jolly", "belly", "hills", "jelly", "loyal", "bojhe"]),
    "aabb": (["aab", "aba", "baa", "abb", "bab", "bba", "abc", "cab", "bca"],
             ["aab", "aba", "baa", "abb", "bab", "bba", "abc", "cab", "bca", "ccc", "acb"]),
}


def build(name):
    secrets, guesses = GAMES[name]
    secrets, guesses = sorted(secrets), sorted(set(guesses))
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    secret_of_guess = np.array([secrets.index(g) if g in secrets else -1 for g in guesses], dtype=np.int32)
    return secrets, guesses, codes, secret_of_guess, 3 ** len(secrets[0])


def hard_allowed(word, history):
    """The NYT rule read off the definition, on strings."""
    for guess, colours in history:
        if any(c == "2" and word[i] != guess[i] for i, c in enumerate(colours)):
            return False
        for letter in set(guess):
            revealed = sum(1 for i, c in enumerate(colours) if guess[i] == letter and c != "0")
            if word.count(letter) < revealed:
                return False
    return True


def brute_min_total(secrets, guesses, hard=False):
    """MinTotal(C) (and V*(g, C)) straight from the definition, memoised on (C, history constraints)."""
    @lru_cache(maxsize=None)
    def min_total(cands, history):
        if len(cands) == 1:
            return 1
        return min(value(g, cands, history) for g in useful(cands, history))

    def useful(cands, history):
        for g in guesses:
            if hard and not hard_allowed(g, history):
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


@pytest.mark.parametrize("name", sorted(GAMES))
@pytest.mark.parametrize("hard", [False, True])
def test_exact_matches_brute_force(name, hard):
    secrets, guesses, codes, sog, n_codes = build(name)
    min_total, value = brute_min_total(tuple(secrets), guesses, hard)
    solver = ExactSolver(codes, sog, n_codes, hard_mode=hard, encoded_guesses=encode_words(guesses, ALPHABET),
                         memo_bits=8)
    everyone = np.arange(len(secrets), dtype=np.int32)
    assert solver.min_total(everyone) == (min_total(tuple(secrets), ()), True)
    rng = np.random.default_rng(len(name))
    for _ in range(12):
        subset = np.sort(rng.choice(len(secrets), size=rng.integers(1, len(secrets) + 1), replace=False))
        subset = subset.astype(np.int32)
        expected = min_total(tuple(secrets[i] for i in subset), ())
        assert solver.min_total(subset)[0] == expected
    for g, word in enumerate(guesses):
        expected = value(word, tuple(secrets), ())
        assert solver.guess_value(g) == (expected, True)
        tree = solver.tree(g)
        assert tree_total(tree, codes, everyone, n_codes - 1) == expected


@pytest.mark.parametrize("name", sorted(GAMES))
def test_budget_cutoff_never_overstates(name):
    """Below the budget a value is exact; at or above it only a lower bound, never above the truth."""
    secrets, guesses, codes, sog, n_codes = build(name)
    min_total, _ = brute_min_total(tuple(secrets), guesses)
    truth = min_total(tuple(secrets), ())
    for beta in range(1, truth + 3):
        solver = ExactSolver(codes, sog, n_codes, memo_bits=6)
        value, exact = solver.min_total(None, beta)
        assert exact == (truth < beta)
        assert value == truth if exact else beta <= value <= truth


def encode(word):
    return encode_words([word], ALPHABET)[0]


def code(colours):
    return colours_to_code(colours)


WORDS = sorted(Path(__file__).resolve().parents[1].joinpath("data/wordle/original_answers.txt").read_text().split())


def test_hard_mode_after_all_grey_anything_goes():
    encoded = encode_words(WORDS, ALPHABET)
    assert allowed_mask(encoded, [(encode("salet"), code("00000"))]).all()


def test_hard_mode_green_t_in_last_place():
    encoded = encode_words(WORDS, ALPHABET)
    mask = allowed_mask(encoded, [(encode("salet"), code("00002"))])
    assert mask.sum() > 0
    assert all(mask[i] == w.endswith("t") for i, w in enumerate(WORDS))


def test_hard_mode_repeated_letters():
    words = ["there", "genre", "horse", "sheer", "eerie", "emcee", "three"]
    encoded = encode_words(words, ALPHABET)
    # eerie vs there: one yellow and one green E (two revealed), a yellow R, the green E stays last
    history = [(encode("eerie"), code(feedback("eerie", "there")))]
    assert feedback("eerie", "there") == "10102"
    assert list(allowed_mask(encoded, history)) == [True, True, False, False, True, False, True]
    # the count is the most revealed in any one response, not a sum over responses
    history = [("geese", "01000"), ("emcee", "00002")]
    mask = allowed_mask(encoded, [(encode(g), code(c)) for g, c in history])
    assert list(mask) == [True, True, True, False, True, True, True]
    assert list(mask) == [hard_allowed(w, history) for w in words]


def test_hard_mode_mask_matches_definition():
    rng = np.random.default_rng(7)
    encoded = encode_words(WORDS, ALPHABET)
    for _ in range(40):
        history = [(g, feedback(g, s)) for g, s in zip(rng.choice(WORDS, 2), rng.choice(WORDS, 2))]
        mask = allowed_mask(encoded, [(encode(g), code(c)) for g, c in history])
        assert list(mask) == [hard_allowed(w, history) for w in WORDS]


@pytest.mark.slow
def test_salet_is_7920_on_original_wordle():
    root = Path(__file__).resolve().parents[1] / "data/wordle"
    guesses = sorted((root / "original_guesses.txt").read_text().split())
    secrets = sorted((root / "original_answers.txt").read_text().split())
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    index = {w: i for i, w in enumerate(secrets)}
    sog = np.array([index.get(w, -1) for w in guesses], dtype=np.int32)
    solver = ExactSolver(codes, sog, 243)
    salet = guesses.index("salet")
    assert solver.guess_value(salet) == (7920, True)
    tree = solver.tree(salet)
    assert tree_total(tree, codes, np.arange(len(secrets)), 242) == 7920
