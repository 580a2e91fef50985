"""Stage blindfold on a small word list: optimum against brute force, check mode, uniqueness, bad input."""

import itertools
import json

import pyarrow.parquet as pq
import pytest

from pipeline import PipelineError
from pipeline.games.answer import feedback

WORDS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]


@pytest.fixture
def word_game(word_list_game):
    return word_list_game(WORDS)


def separating_sets(words, size, secrets=None):
    """Every set of `size` words (sorted lists) whose responses tell all secrets (default: the words) apart."""
    secrets = words if secrets is None else secrets
    return [sorted(subset) for subset in itertools.combinations(words, size)
            if len({tuple(feedback(g, s) for g in subset) for s in secrets}) == len(secrets)]


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


@pytest.mark.parametrize("secrets,guesses", [(WORDS, None), (["batch", "catch", "hatch"], ["batch", "catch", "cobra",
                                                                                       "hatch"])])
def test_uniqueness_matches_brute_force(run_pipeline, word_list_game, secrets, guesses):
    """Twelve words: 26 optimal 6-sets (another is found); three words and COBRA: COBRA alone (proven unique)."""
    artifact = run_pipeline("stage=blindfold", *word_list_game(secrets, guesses), "stage.uniqueness=true")
    solution = json.loads(artifact.file("solution.json").read_text())
    found = solution["uniqueness"]
    optimal_sets = separating_sets(guesses or secrets, solution["f_star"], secrets)
    assert solution["f_star"] == brute_force_f_star(secrets) if guesses is None else solution["f_star"] == 1
    assert sorted(solution["guesses"]) in optimal_sets
    assert found["unique"] == (len(optimal_sets) == 1) and found["status"] in ("proven", "another set")
    if not found["unique"]:
        assert sorted(found["other"]) in optimal_sets and sorted(found["other"]) != sorted(solution["guesses"])


@pytest.mark.parametrize("initial,separates", [(["crane"], False), (WORDS, True)])
def test_initial_set_is_verified_before_use(run_pipeline, word_game, initial, separates):
    """A starting set is checked against every secret (stated in the artifact); the optimum is unchanged."""
    artifact = run_pipeline("stage=blindfold", *word_game, f"stage.initial=[{','.join(initial)}]")
    solution = json.loads(artifact.file("solution.json").read_text())
    assert solution["initial"] == {"guesses": initial, "separates_all": separates}
    assert solution["f_star"] == brute_force_f_star(WORDS) and solution["proven_optimal"] is True


@pytest.mark.parametrize("override,message", [
    ("stage.check=[zzzzz]", "not an allowed guess"),
    ("stage.time_limit_s=0", "must be positive"),
    ("stage.guesses_from=answers", "allowed or secrets"),
    ("game.hard_mode=true", "game.hard_mode=true is not supported"),
])
def test_bad_input(run_pipeline, word_game, override, message):
    with pytest.raises(PipelineError, match=message):
        run_pipeline("stage=blindfold", *word_game, override)
