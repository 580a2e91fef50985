"""Valuations, combinations and greedy trees against an exact pure-Python reference."""

import math
import random
from fractions import Fraction

import numpy as np
import pytest

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import feedback
from pipeline.search.greedy import greedy
from pipeline.search.tree import verify
from pipeline.search.valuations import (
    INFO_BITS, VALUATIONS, all_combinations, parse_combination, rank, tlogt_table, values,
)


def make_game(guesses, secrets, alphabet):
    guesses, secrets = sorted(set(guesses) | set(secrets)), sorted(set(secrets))
    codes = code_matrix(encode_words(guesses, alphabet), encode_words(secrets, alphabet))
    index = {w: i for i, w in enumerate(secrets)}
    sog = np.array([index.get(w, -1) for w in guesses], dtype=np.int32)
    return guesses, secrets, codes, sog, 3 ** len(secrets[0])


def reference_key(g, cand, combination):
    """Exact valuation tuple: Information via the integer prod t^t, ExpSizeSplit as a Fraction."""
    sizes = {}
    for s in cand:
        r = feedback(g, s)
        sizes[r] = sizes.get(r, 0) + 1
    t = list(sizes.values())
    exact = {
        "InSet": -int(g in cand),
        "MaxSizeSplit": max(t),
        "MostParts": -len(t),
        "Information": math.prod(x**x for x in t),  # monotone in sum (t/|C|) log(t/|C|)
        "ExpSizeSplit": Fraction(sum(x * x for x in t), len(cand)),
    }
    return tuple(exact[name] for name in combination)


def reference_greedy_total(guesses, secrets, combination):
    def total(cand, depth):
        if len(cand) <= 2:
            g = cand[0]
        else:
            g = min(guesses, key=lambda w: (reference_key(w, cand, combination), guesses.index(w)))
        classes = {}
        for s in cand:
            if s != g:
                classes.setdefault(feedback(g, s), []).append(s)
        assert len(classes) < len(cand) or g not in cand
        return len(cand) + sum(total(c, depth + 1) for c in classes.values())

    return total(list(secrets), 1)


def random_game(seed):
    rng = random.Random(seed)
    alphabet = "abcde"[: rng.randint(2, 5)]
    length = rng.randint(3, 5)
    universe = sorted({"".join(rng.choice(alphabet) for _ in range(length)) for _ in range(60)})
    secrets = rng.sample(universe, min(len(universe), rng.randint(5, 12)))
    return rng.sample(universe, min(len(universe), 8)), secrets, alphabet


def test_names_and_combinations():
    assert VALUATIONS == ("InSet", "MaxSizeSplit", "MostParts", "Information", "ExpSizeSplit")
    combos = all_combinations()
    assert len(combos) == 325 == len(set(combos))
    assert parse_combination("MostParts, InSet,ExpSizeSplit") == ("MostParts", "InSet", "ExpSizeSplit")
    assert parse_combination(["Information"]) == ("Information",)


@pytest.mark.parametrize("bad", ["MostPart", "MostParts,Entropy", "", "InSet,InSet", ["Foo"]])
def test_bad_names(bad):
    with pytest.raises(ValueError, match="valuation"):
        parse_combination(bad)


def test_information_ties_are_exact():
    table = tlogt_table(10)
    # {4,1,1,1,1} and {2,2,2,2}: equal products prod t^t, so equal Information
    assert table[4] + 4 * table[1] == 4 * table[2]
    assert abs(table[7] / 2**INFO_BITS - 7 * math.log(7)) < 1e-9


def test_values_match_definitions():
    guesses, secrets, codes, sog, n_codes = make_game(*random_game(3))
    cand = np.arange(len(secrets))
    vals = values(codes, sog, n_codes, cand)
    for g, word in enumerate(guesses):
        sizes = {}
        for s in secrets:
            sizes[feedback(word, s)] = sizes.get(feedback(word, s), 0) + 1
        t = list(sizes.values())
        assert vals[g, 0] == -int(word in secrets)
        assert vals[g, 1] == max(t)
        assert vals[g, 2] == -len(t)
        assert vals[g, 4] == sum(x * x for x in t)
        assert abs(vals[g, 3] / 2**INFO_BITS - sum(x * math.log(x) for x in t)) < 1e-6
    order = rank(codes, sog, n_codes, cand, ("MostParts", "InSet", "ExpSizeSplit"))
    keys = [reference_key(guesses[g], secrets, ("MostParts", "InSet", "ExpSizeSplit")) + (g,) for g in order]
    assert keys == sorted(keys)


@pytest.mark.parametrize("seed", range(3))
def test_greedy_matches_reference_for_every_combination(seed):
    guesses, secrets, codes, sog, n_codes = make_game(*random_game(seed))
    for combination in all_combinations():
        result = greedy(codes, sog, n_codes, combination)
        assert result.total == reference_greedy_total(guesses, secrets, combination), combination
        if combination[0] == "InSet" and len(combination) == 1:
            assert guesses[result.opener] == secrets[0]  # InSet alone: first candidate alphabetically
    tree = result.tree(guesses, len(secrets[0]))
    assert verify(tree, guesses, secrets) == result.total


def test_greedy_rejects_bad_combination():
    guesses, secrets, codes, sog, n_codes = make_game(*random_game(0))
    with pytest.raises(ValueError, match="unknown valuation"):
        greedy(codes, sog, n_codes, "Entropy")
