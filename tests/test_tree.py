"""Strategy trees: JSON and text round trips, statistics, verification and tamper detection."""

import copy
import json

import numpy as np
import pytest

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.greedy import greedy
from pipeline.formats.trees import from_lines
from pipeline.games.answer import feedback
from pipeline.search.tree import from_json, paths, statistics, to_json, to_text, verify

GUESSES = sorted(["salet", "crony", "lemon", "plead", "eerie", "geese", "there", "speed", "abide",
                  "lolly", "hello", "sheep", "abbey", "steel"])
SECRETS = sorted(["eerie", "there", "geese", "speed", "abide", "lolly", "hello", "sheep", "abbey", "steel"])


@pytest.fixture(scope="module")
def tree():
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    codes = code_matrix(encode_words(GUESSES, alphabet), encode_words(SECRETS, alphabet))
    sog = np.array([SECRETS.index(w) if w in SECRETS else -1 for w in GUESSES], dtype=np.int32)
    return greedy(Matrix(codes, sog, 243), "MostParts,InSet,ExpSizeSplit").tree(GUESSES, 5)


def test_json_round_trip(tree):
    data = json.loads(json.dumps(to_json(tree)))
    assert set(data) == {"guess", "candidates", "children"}
    assert data["candidates"] == len(SECRETS)
    assert from_json(data) == tree


def test_text_form(tree):
    text = to_text(tree)
    lines = text.splitlines()
    assert len(lines) == len(SECRETS)
    assert [ln.split(",")[-1] for ln in lines] == SECRETS
    assert all(ln.split(",")[0] == tree.guess for ln in lines)
    assert from_json(from_lines(text, feedback)) == tree
    assert paths(tree)[SECRETS[0]] == lines[0].split(",")


def test_statistics_and_verify(tree):
    stats = statistics(tree)
    assert stats["total"] == verify(tree, GUESSES, SECRETS)
    assert sum(stats["distribution"].values()) == len(SECRETS)
    assert stats["total"] == sum(k * v for k, v in stats["distribution"].items())
    assert stats["max_guesses"] == max(stats["distribution"])
    assert stats["expected"] == pytest.approx(stats["total"] / len(SECRETS))


def test_hand_written_tree():
    t = from_json(from_lines("abc,aab\nabc\nabc,bbb\n", feedback))
    assert t.guess == "abc" and t.candidates == 3
    assert statistics(t) == {"total": 5, "secrets": 3, "expected": 5 / 3, "max_guesses": 2,
                             "distribution": {1: 1, 2: 2}}
    assert verify(t, ["aab", "abc", "bbb"], ["aab", "abc", "bbb"]) == 5


def test_tampered_guess_names_the_secret(tree):
    bad = copy.deepcopy(tree)
    victim = next(iter(bad.children.values()))
    secret = victim.guess if not victim.children else None
    victim.guess = "crony" if victim.guess != "crony" else "lemon"
    with pytest.raises(ValueError, match=f"secret '{secret}'" if secret else "secret '"):
        verify(bad, GUESSES, SECRETS)


def test_tampered_branch_and_counts(tree):
    bad = copy.deepcopy(tree)
    key = next(iter(bad.children))
    bad.children["22222" if key != "22222" else "00000"] = bad.children.pop(key)
    with pytest.raises(ValueError, match="secret '.*' is lost"):
        verify(bad, GUESSES, SECRETS)
    bad = copy.deepcopy(tree)
    bad.candidates += 1
    with pytest.raises(ValueError, match="claims"):
        verify(bad, GUESSES, SECRETS)
    with pytest.raises(ValueError, match="not allowed"):
        verify(tree, [w for w in GUESSES if w != tree.guess], SECRETS)
