"""Valuations, combinations and greedy trees against pure-Python references.

Both arithmetics: "exact" against an exact reference (integers and
fractions), "paper" against a float64 reference summing the classes in the
order they first appear, and the paper's Table 1 on original Wordle.
"""

import math
from fractions import Fraction

import numpy as np
import pytest

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import feedback
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.greedy import greedy
from pipeline.search.tree import verify
from pipeline import PipelineError
from tests.helpers.words import random_word_game
from pipeline.search.strategies.valuations import (INFO_BITS, VALUATIONS, all_combinations, paper_terms,
                                                   parse_combination, rank, tlogt_table, values)


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


def paper_key(g, cand, combination):
    """The paper's float64 valuation tuple: classes summed left to right in first-appearance order."""
    sizes = {}  # insertion order = first appearance
    for s in cand:
        r = feedback(g, s)
        sizes[r] = sizes.get(r, 0) + 1
    t, n = list(sizes.values()), len(cand)
    info = exp = 0.0
    for x in t:
        info += x * math.log(x)  # the paper's code: t ln t, not normalised by |C|
        exp += x / n * x  # divided first, multiplied after
    paper = {"InSet": -int(g in cand), "MaxSizeSplit": max(t), "MostParts": -len(t),
             "Information": info, "ExpSizeSplit": exp}
    return tuple(paper[name] for name in combination)


def reference_greedy_total(guesses, secrets, combination, key=reference_key):
    def total(cand, depth):
        if len(cand) <= 2:
            g = cand[0]
        else:
            g = min(guesses, key=lambda w: (key(w, cand, combination), guesses.index(w)))
        classes = {}
        for s in cand:
            if s != g:
                classes.setdefault(feedback(g, s), []).append(s)
        assert len(classes) < len(cand) or g not in cand
        return len(cand) + sum(total(c, depth + 1) for c in classes.values())

    return total(list(secrets), 1)


LARGER_GAMES = dict(letters="abcde", lengths=(3, 5), draws=60, n_secrets=(5, 12), n_extra=8)  # random_word_game's


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
    guesses, secrets, codes, sog, n_codes = make_game(*random_word_game(3, **LARGER_GAMES))
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


def test_paper_values_match_the_float_reference():
    guesses, secrets, codes, sog, n_codes = make_game(*random_word_game(4, **LARGER_GAMES))
    cand = np.arange(len(secrets))
    vals = values(codes, sog, n_codes, cand, arithmetic="paper")
    assert vals.dtype == np.float64
    for g, word in enumerate(guesses):
        assert tuple(vals[g]) == paper_key(word, secrets, VALUATIONS)  # bit for bit
    combination = ("Information", "InSet")
    order = rank(codes, sog, n_codes, cand, combination, arithmetic="paper")
    keys = [paper_key(guesses[g], secrets, combination) + (g,) for g in order]
    assert keys == sorted(keys)


def test_paper_terms_are_the_python_floats():
    for m in (3, 7, 100, 2315):
        info, exp = np.zeros(m + 1), np.zeros(m + 1)
        paper_terms(m, info, exp)
        for t in range(1, m + 1):
            assert info[t] == t * math.log(t) and exp[t] == t / m * t, (m, t)


@pytest.mark.parametrize("arithmetic", ["exact", "paper"])
@pytest.mark.parametrize("seed", range(3))
def test_greedy_matches_reference_for_every_combination(seed, arithmetic):
    guesses, secrets, codes, sog, n_codes = make_game(*random_word_game(seed, **LARGER_GAMES))
    key = reference_key if arithmetic == "exact" else paper_key
    for combination in all_combinations():
        result = greedy(Matrix(codes, sog, n_codes), combination, arithmetic=arithmetic)
        assert result.total == reference_greedy_total(guesses, secrets, combination, key), combination
        if combination[0] == "InSet" and len(combination) == 1:
            assert guesses[result.opener] == secrets[0]  # InSet alone: first candidate alphabetically
    tree = result.tree(guesses, len(secrets[0]))
    assert verify(tree, guesses, secrets) == result.total


def test_greedy_rejects_bad_combination_and_arithmetic():
    guesses, secrets, codes, sog, n_codes = make_game(*random_word_game(0, **LARGER_GAMES))
    with pytest.raises(ValueError, match="unknown valuation"):
        greedy(Matrix(codes, sog, n_codes), "Entropy")
    with pytest.raises(ValueError, match="unknown arithmetic 'float'; use one of paper, exact"):
        greedy(Matrix(codes, sog, n_codes), "MostParts", arithmetic="float")


def test_heuristics_stage_validates_the_arithmetic():
    from pipeline.stages.heuristics import HeuristicsConfig, validate

    assert HeuristicsConfig().arithmetic == "paper"
    validate(HeuristicsConfig(arithmetic="exact"), None)
    with pytest.raises(PipelineError, match="stage.arithmetic must be one of paper, exact, not 'float'"):
        validate(HeuristicsConfig(arithmetic="float"), None)


@pytest.fixture(scope="module")
def wordle():
    from pipeline.feedback.matrix import game_matrix
    from pipeline.games.catalog import builtin_game
    from pipeline.search.strategies.valuations import transposed

    game = builtin_game("wordle_original")
    codes = game_matrix(game)
    return game, codes, transposed(codes)


# The paper's Table 1 as published (paper arithmetic, the default), and where exact ties differ from it.
TABLE_1 = [
    ("paper", "MostParts,InSet,ExpSizeSplit", 7944, "trace"),
    ("paper", "MostParts,InSet,Information", 7945, "trace"),
    ("paper", "MostParts,InSet", 7949, "trace"),
    ("paper", "Information,InSet,ExpSizeSplit", 8019, "soare"),  # sum t ln t and sum (t/|C|)*t, as the paper's code
    ("paper", "MostParts", 8077, "trace"),
    ("paper", "Information", 8167, "soare"),
    ("paper", "ExpSizeSplit", 8207, "roate"),
    ("paper", "MaxSizeSplit", 8510, "aesir"),
    ("paper", "InSet", 10069, "aback"),
    ("exact", "ExpSizeSplit", 8204, "roate"),
    ("exact", "Information,InSet,ExpSizeSplit", 8020, "soare"),
]


@pytest.mark.slow
@pytest.mark.parametrize("arithmetic, combination, total, opener", TABLE_1)
def test_table_1_on_original_wordle(wordle, arithmetic, combination, total, opener):
    game, codes, codes_t = wordle
    kwargs = {} if arithmetic == "paper" else {"arithmetic": arithmetic}  # paper is the default
    result = greedy(Matrix(codes, game.secret_of_guess, game.n_codes, codes_t=codes_t), combination, **kwargs)
    assert (result.total, game.guesses[result.opener]) == (total, opener)
