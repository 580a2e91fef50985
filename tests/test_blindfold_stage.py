"""Stage blindfold on a small word list: optimum against brute force, check mode, uniqueness, bad input."""

import itertools
import json

import pyarrow.parquet as pq
import pytest

from pipeline.errors import PipelineError
from pipeline.games.answer import feedback

WORDS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]


@pytest.fixture
def word_game(word_list_game):
    return word_list_game(WORDS)


def separating_sets(words, size):
    """Every set of `size` words (sorted lists) whose responses tell all words apart."""
    return [sorted(subset) for subset in itertools.combinations(words, size)
            if len({tuple(feedback(g, s) for g in subset) for s in words}) == len(words)]


def brute_force_f_star(words):
    for size in range(len(words) + 1):
        for subset in itertools.combinations(words, size):
            if len({tuple(feedback(g, s) for g in subset) for s in words}) == len(words):
                return size


def test_optimum_matches_brute_force_with_outputs(run_pipeline, word_game):
    artifact = run_pipeline("stage=blindfold", *word_game)
    solution = json.loads(artifact.file("solution.json").read_text())
    assert solution["f_star"] == brute_force_f_star(WORDS) and solution["proven_optimal"] is True
    assert solution["lower_bound"] == solution["f_star"] == len(solution["guesses"])
    codes = {tuple(feedback(g, s) for g in solution["guesses"]) for s in WORDS}
    assert len(codes) == len(WORDS)
    pairs = pq.read_table(artifact.file("pairs.parquet"))
    assert pairs.num_rows == solution["pairs"] and artifact.file("model.lp").stat().st_size > 0


def test_check_mode_reports_unseparated_classes(run_pipeline, word_game):
    artifact = run_pipeline("stage=blindfold", *word_game, "stage.check=[crane]")
    result = json.loads(artifact.file("solution.json").read_text())
    assert result["separates_all"] is False
    assert ["batch", "hatch", "latch", "match", "patch", "watch"] in result["unseparated_classes"]


def test_uniqueness_resolves_without_each_word_on_ray(run_pipeline, word_game, ray_session):
    artifact = run_pipeline("stage=blindfold", *word_game, "stage.uniqueness=true", "stage.guesses_from=secrets")
    solution = json.loads(artifact.file("solution.json").read_text())
    without = solution["uniqueness"]["without"]
    assert set(without) == set(solution["guesses"])
    optimal_sets = separating_sets(WORDS, solution["f_star"])
    assert solution["f_star"] == brute_force_f_star(WORDS) and sorted(solution["guesses"]) in optimal_sets
    assert solution["uniqueness"]["unique"] == (len(optimal_sets) == 1)
    for word, result in without.items():  # the best set avoiding `word`, by brute force
        assert (result["lower_bound"] > solution["f_star"]) == all(word in s for s in optimal_sets)


@pytest.mark.parametrize("override,message", [
    ("stage.check=[zzzzz]", "not an allowed guess"),
    ("stage.time_limit_s=0", "must be positive"),
    ("stage.guesses_from=answers", "allowed or secrets"),
    ("game.hard_mode=true", "game.hard_mode=true is not supported"),
])
def test_bad_input(run_pipeline, word_game, override, message):
    with pytest.raises(PipelineError, match=message):
        run_pipeline("stage=blindfold", *word_game, override)
