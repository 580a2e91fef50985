"""The constraint view of responses (docs/algorithms.md §1) agrees with the answering function; hard-mode rule."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.feedback.kernel import encode_words
from pipeline.games.answer import feedback
from pipeline.games.constraints import (hard_mode_allowed, hard_mode_rule, hard_mode_violation, history_constraints,
                                        response_constraints, response_problem)


@pytest.mark.parametrize("guess,secret,phrases", [
    ("salet", "later", ["A in position 2", "at least one L, not in position 3", "E in position 4",
                        "at least one T, not in position 5", "no S"]),
    ("tarts", "start", ["at least two T, not in positions 1 or 4"]),  # both T coloured
    ("tutti", "attic", ["exactly two T, in position 3, not in positions 1 or 4", "no U"]),  # third T grey
    ("speed", "abide", ["exactly one E, not in positions 3 or 4", "no S or P"]),
    ("eerie", "there", ["exactly two E, in position 5, not in positions 1 or 2"]),
    ("lolly", "hello", ["exactly two L, in positions 3 and 4, not in position 1", "no Y"]),
    ("geese", "eerie", ["at least three E, in positions 2 and 5, not in position 3", "no G or S"]),
    ("4*7=28", "28/7=4", ["at least one '4', not in position 1", "no '*'"]),
])
def test_explanations_in_words(guess, secret, phrases):
    colours = feedback(guess, secret)
    said = response_constraints(guess, colours).phrases()
    for phrase in phrases:
        assert phrase in said, said
    assert response_constraints(guess, colours).matches(secret)


def test_history_combines_rows():
    c = history_constraints([("salet", "00002"), ("crony", "00000")], 5)
    assert c.describe() == "T in position 5; no S, A, L, E, C, R, O, N or Y"
    assert c.matches("butut") and c.matches("digit") and not c.matches("cubit") and not c.matches("timid")
    contradiction = history_constraints([("abcd", "0000"), ("abcd", "1120")], 4)
    assert contradiction.conflicts and not contradiction.matches("bcda")


def test_impossible_responses_are_named():
    assert "left to right" in response_problem("speed", "00010")  # yellow E after a grey E
    assert response_problem("speed", "00100") is None


words = st.text(alphabet="abc", min_size=5, max_size=5)


@settings(max_examples=300, deadline=None)
@given(guess=words, secret=words, others=st.lists(words, min_size=1, max_size=40))
def test_constraint_filter_equals_feedback_filter(guess, secret, others):
    colours = feedback(guess, secret)
    c = response_constraints(guess, colours)
    for word in [secret, *others]:
        assert c.matches(word) == (feedback(guess, word) == colours), (guess, colours, word, c)


@settings(max_examples=200, deadline=None)
@given(length=st.integers(4, 6), data=st.data())
def test_history_filter_equals_feedback_filter(length, data):
    word = st.text(alphabet="abcd", min_size=length, max_size=length)
    secret = data.draw(word)
    guesses = data.draw(st.lists(word, min_size=1, max_size=4))
    candidates = data.draw(st.lists(word, min_size=1, max_size=30)) + [secret]
    history = [(g, feedback(g, secret)) for g in guesses]
    c = history_constraints(history, length)
    expected = [all(feedback(g, w) == r for g, r in history) for w in candidates]
    assert [c.matches(w) for w in candidates] == expected
    assert c.mask(encode_words(candidates, "abcd"), "abcd").tolist() == expected
    assert not c.conflicts


def test_hard_mode_after_all_grey_allows_anything():
    from pipeline.games.catalog import builtin_game

    game = builtin_game("wordle_original")
    history = [("salet", "00000")]
    assert hard_mode_rule(history, 5).mask(game.encoded_guesses(), game.alphabet).all()
    assert hard_mode_allowed("salet", history) and hard_mode_allowed("tales", history)

    history = [("salet", "00002")]  # green T in position 5
    allowed = hard_mode_rule(history, 5).mask(game.encoded_guesses(), game.alphabet)
    assert [w for w, ok in zip(game.guesses, allowed) if ok] == [w for w in game.guesses if w.endswith("t")]
    assert hard_mode_violation("crane", history) == "position 5 must be T"


def test_hard_mode_counts_and_reuse():
    history = [("tarts", "11000")]  # T and A revealed (yellow); second T grey
    assert hard_mode_allowed("taste", history)  # yellows may stay where they were; greys may be reused
    assert hard_mode_violation("tonic", history) == "it must contain at least one A"
    history = [("tarts", "11010")]  # both T coloured: two T needed
    assert hard_mode_violation("tacky", history) == "it must contain at least two T"
    assert hard_mode_allowed("taunt", history)
    assert hard_mode_violation("anything", []) is None
    assert np.array_equal(hard_mode_rule([], 5).mask(encode_words(["aaaaa"], "a"), "a"), [True])
