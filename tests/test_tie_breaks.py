"""ApMinTotal's documented tie-breaks, pinned against a ranking computed here with the scalar answering function.

Ranking: (MostParts, InSet, ExpSizeSplit), ties by guess index; the strategy takes the first guess of that
ranking reaching the minimum.  On this game several openers tie at the optimum, so reversing either rule
changes the chosen opener.
"""

import pytest

from pipeline.games.answer import feedback
from pipeline.search.apmintotal.value import apmintotal, rank_openers
from pipeline.search.matrix import Matrix
from test_apmintotal import HAND_MADE, make_game
from tests.helpers.words import brute_min_total, random_word_game


def scalar_ranking(guesses, secrets):
    """Guess indices sorted by (most parts, in the set, smallest sum of squared part sizes, index)."""
    def key(i):
        parts = {}
        for s in secrets:
            parts[feedback(guesses[i], s)] = parts.get(feedback(guesses[i], s), 0) + 1
        return (-len(parts), -(guesses[i] in secrets), sum(t * t for t in parts.values()), i)

    return sorted(range(len(guesses)), key=key)


def brute_value(guesses, secrets, g):
    """V*(g, S) from the definition."""
    classes = {}
    for s in secrets:
        classes.setdefault(feedback(g, s), []).append(s)
    return len(secrets) + sum(brute_min_total(guesses, c) for c in classes.values() if c != [g])


def test_ranking_and_opener_follow_the_documented_tie_breaks():
    guesses, secrets, codes, sog, n_codes = make_game(*HAND_MADE[0])
    ranking = scalar_ranking(guesses, secrets)
    assert rank_openers(Matrix(codes, sog, n_codes), len(guesses)) == ranking
    values = {g: brute_value(guesses, secrets, guesses[g]) for g in ranking if len({feedback(guesses[g], s) for s in secrets}) > 1}
    best = min(values.values())
    tied = [g for g in ranking if values.get(g) == best]
    assert len(tied) > 1  # the rule matters on this game
    result = apmintotal(Matrix(codes, sog, n_codes), breadth=len(guesses))
    assert result.total == best == brute_min_total(guesses, secrets)
    assert guesses[result.opener] == guesses[tied[0]]


def test_max_size_split_ranking_follows_the_scalar_order():
    """ranking="MaxSizeSplit" (the authors' earlier code): (most parts, in the set, smallest largest part, index)."""
    differs = False
    for game in HAND_MADE + [random_word_game(seed) for seed in (158, 240, 258)]:  # seeds where the two keys differ
        guesses, secrets, codes, sog, n_codes = make_game(*game)

        def key(i):
            parts = {}
            for s in secrets:
                parts[feedback(guesses[i], s)] = parts.get(feedback(guesses[i], s), 0) + 1
            return (-len(parts), -(guesses[i] in secrets), max(parts.values()), i)

        useful = [i for i in range(len(guesses)) if len({feedback(guesses[i], s) for s in secrets}) > 1]
        matrix = Matrix(codes, sog, n_codes)
        ranking = rank_openers(matrix, len(guesses), ranking="MaxSizeSplit")
        assert ranking == sorted(useful, key=key)
        differs |= ranking != rank_openers(matrix, len(guesses))
        # at full breadth the ranking changes no value: both are MinTotal
        full = apmintotal(matrix, breadth=len(guesses), ranking="MaxSizeSplit")
        assert full.total == brute_min_total(guesses, secrets)
    assert differs  # the third key matters on these games
    with pytest.raises(ValueError, match="unknown ranking 'Entropy'; use one of ExpSizeSplit, MaxSizeSplit"):
        apmintotal(Matrix(codes, sog, n_codes), breadth=2, ranking="Entropy")


def test_upper_bound_stage_refuses_an_unknown_ranking():
    from pipeline import PipelineError
    from pipeline.stages.upper_bound import UpperBoundConfig, validate

    with pytest.raises(PipelineError, match="stage.ranking must be one of ExpSizeSplit, MaxSizeSplit, not 'Entropy'"):
        validate(UpperBoundConfig(ranking="Entropy"), None)
