"""stage.mode=hybrid: k fixed guesses, then adaptive trees of at most d guesses per class, against brute force
(every k-set of a tiny game, every adaptive tree of each class, with the scalar answering function)."""

import itertools
import json
from functools import lru_cache

import numpy as np
import pytest

from pipeline.blindfold.hybrid import most_secrets
from pipeline import PipelineError
from pipeline.games.answer import feedback

SECRETS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]
EXTRA = ["chimp", "blowy", "whelk"]  # allowed guesses that are never the secret
GUESSES = sorted(SECRETS + EXTRA)


@pytest.fixture
def word_game(word_list_game):
    return [*word_list_game(SECRETS, GUESSES), "stage=blindfold", "stage.mode=hybrid"]


@lru_cache(maxsize=None)
def best_tree(candidates: tuple[str, ...], depth: int, guesses: tuple[str, ...]):
    """(total, depth) of the best adaptive tree finding every candidate within `depth` guesses, trying every
    guess at every node; None if there is none."""
    if len(candidates) == 1:
        return 1, 1
    if depth <= 1:
        return None
    best = None
    for g in guesses:
        parts = {}
        for s in candidates:
            if s != g:
                parts.setdefault(feedback(g, s), []).append(s)
        subs = [best_tree(tuple(p), depth - 1, guesses) for p in parts.values()]
        if None not in subs:
            tree = (len(candidates) + sum(t for t, _ in subs), 1 + max((d for _, d in subs), default=0))
            best = tree if best is None or tree < best else best
    return best


def play(fixed, depth, guesses):
    """(total, worst case) of the fixed guesses followed by the best class trees; None if a class cannot be
    solved within `depth` further guesses.  A fixed guess that is the secret wins when played (those first)."""
    k, won = len(fixed), [g for g in fixed if g in SECRETS]
    total, worst = sum(range(1, len(won) + 1)), len(won)
    classes = {}
    for s in SECRETS:
        if s not in won:
            classes.setdefault(tuple(feedback(g, s) for g in fixed), []).append(s)
    for members in classes.values():
        tree = best_tree(tuple(members), depth, tuple(guesses))
        if tree is None:
            return None
        total, worst = total + k * len(members) + tree[0], max(worst, k + tree[1])
    return total, worst


def brute_force(k, depth, guesses=GUESSES):
    """{(total, worst): sets} over every k-set: the best rank and the sets reaching it; None if none works."""
    ranked = {}
    for fixed in itertools.combinations(guesses, k):
        result = play(fixed, depth, guesses)
        if result is not None:
            ranked.setdefault(result, []).append(sorted(fixed))
    return (min(ranked), ranked[min(ranked)]) if ranked else None


@pytest.mark.parametrize("k,depth", [(1, 2), (1, 3), (2, 1), (2, 2), (2, 3), (3, 1)])
def test_hybrid_matches_brute_force(run_pipeline, word_game, k, depth):
    expected = brute_force(k, depth)
    if expected is None:
        with pytest.raises(PipelineError, match="every set was tried"):
            run_pipeline(*word_game, f"stage.fixed={k}", f"stage.depth={depth}")
        return
    (total, worst), best_sets = expected
    s = json.loads(run_pipeline(*word_game, f"stage.fixed={k}", f"stage.depth={depth}")
                   .file("solution.json").read_text())
    assert (s["total"], s["worst_case"], s["search"], s["optimal"]) == (total, worst, "exhaustive", True)
    assert s["mean"] == round(total / len(SECRETS), 4) and sorted(s["fixed"]) in best_sets
    assert sum(s["distribution"].values()) == len(SECRETS) and max(map(int, s["distribution"])) == worst
    assert sum(int(g) * n for g, n in s["distribution"].items()) == total


def test_brute_force_has_both_outcomes():
    """The parameters above cover a feasible and an infeasible setting (the test is not vacuous)."""
    assert brute_force(1, 2) is not None and brute_force(3, 1) is not None and brute_force(2, 1) is None


def test_beam_choice_is_scored_exactly(run_pipeline, word_game):
    """With enumeration off, the beam's set is scored as brute force scores that set, never below the optimum."""
    s = json.loads(run_pipeline(*word_game, "stage.fixed=2", "stage.depth=2", "stage.exhaustive_sets=0",
                                "stage.beam=3").file("solution.json").read_text())
    assert s["search"] == "beam" and s["optimal"] is False
    assert play(s["fixed"], 2, GUESSES) == (s["total"], s["worst_case"])
    assert (s["total"], s["worst_case"]) >= brute_force(2, 2)[0]


def test_answer_words_only(run_pipeline, word_game):
    (total, worst), best_sets = brute_force(3, 3, guesses=SECRETS)
    s = json.loads(run_pipeline(*word_game, "stage.fixed=3", "stage.depth=3", "stage.guesses_from=secrets")
                   .file("solution.json").read_text())
    assert (s["total"], s["worst_case"]) == (total, worst) and sorted(s["fixed"]) in best_sets


def test_most_secrets_counts_trees():
    # depth 2: a guess finds one secret and tells the others apart by its 242 other responses
    assert most_secrets(243, 1, 1) == 243 and most_secrets(243, 1, 2) == 243 * 243
    assert most_secrets(3, 2, 3) == 9 * (1 + 2 * (1 + 2 * 1))


@pytest.mark.parametrize("override,message", [
    ("stage.fixed=0", "stage.fixed must be at least 1"),
    ("stage.depth=0", "stage.depth must be at least 1"),
    ("stage.fixed=16", "more fixed guesses than the 15 allowed"),
    ("stage.check=[crane]", "belong to stage.mode=cover"),
    ("stage.mode=offline", "stage.mode must be cover or hybrid"),
])
def test_bad_hybrid_settings(run_pipeline, word_game, override, message):
    with pytest.raises(PipelineError, match=message):
        run_pipeline(*word_game, override)


def test_impossible_counts_refused_before_any_input(run_pipeline, outputs):
    with pytest.raises(PipelineError, match="can solve at most 243 secrets; game wordle_original has 2315"):
        run_pipeline("game=wordle_original", "stage=blindfold", "stage.mode=hybrid", "stage.fixed=1", "stage.depth=1")
    assert not (outputs / "feedback").exists()


def test_more_guesses_than_the_game_allows_refused(run_pipeline, outputs):
    with pytest.raises(PipelineError, match="stage.fixed=4 plus stage.depth=3 guesses exceed game.max_guesses=6"):
        run_pipeline("game=wordle_original", "stage=blindfold", "stage.mode=hybrid", "stage.fixed=4", "stage.depth=3")
    assert not (outputs / "feedback").exists()


@pytest.mark.parametrize("members", [5, 64, 65, 90])
def test_splits_are_the_distinct_useful_splits(members):
    """Both ways of listing splits (by canonical labels up to 64 members, by a set beyond) give the splits a
    plain loop finds: the winner, and the other members grouped by response."""
    from pipeline.blindfold.hybrid import _splits

    rng = np.random.default_rng(members)
    win = 9
    sub = rng.integers(0, 4, size=(40, members))
    sub[rng.integers(0, 40, size=10), rng.integers(0, members, size=10)] = win
    sub[sub == win] = 0
    for r in range(0, 40, 4):  # a guess is at most one member: one win per row
        sub[r, r % members] = win
    expected = set()
    for row in sub.tolist():
        winner = row.index(win) if win in row else -1
        parts = {}
        for j, code in enumerate(row):
            if j != winner:
                parts.setdefault(code, []).append(j)
        if winner >= 0 or len(parts) > 1:
            expected.add((winner, tuple(sorted(tuple(p) for p in parts.values()))))
    found = _splits(sub, win)
    assert len(found) == len(set(found)) and set(found) == expected
