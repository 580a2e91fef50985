"""Stages openers and simulate: values against scalar recomputation, reproducibility, every game won."""

import json
import math
from collections import Counter

import numpy as np
import pyarrow.parquet as pq
import pytest

from pipeline import PipelineError
from pipeline.games.answer import feedback


def scalar_opener(guess, secrets, universe):
    """Average remaining (among `universe`) and bits over `secrets`, by the scalar answering function."""
    size = Counter(feedback(guess, w) for w in universe)
    left = [size[feedback(guess, s)] for s in secrets]
    parts = len({feedback(guess, s) for s in secrets})
    return sum(left) / len(secrets), sum(math.log2(len(universe) / t) for t in left) / len(secrets), parts


def test_openers_mini_nerdle_match_scalar_computation(run_pipeline, ray_session):
    artifact = run_pipeline("stage=openers", "game=mini_nerdle", "stage.block_rows=50")
    rows = pq.read_table(artifact.file("openers.parquet")).to_pylist()
    assert len(rows) == 206 and artifact.file("openers.png").stat().st_size > 0
    assert [r["avg_bits"] for r in rows] == sorted((r["avg_bits"] for r in rows), reverse=True)
    secrets = [r["opener"] for r in rows]
    by_word = {r["opener"]: r for r in rows}
    for word in [rows[0]["opener"], rows[100]["opener"], rows[-1]["opener"], "4*7=28"]:
        remaining, bits, parts = scalar_opener(word, secrets, secrets)
        # with U = S: sum t^2/|S| and sum (t/|S|) log2(|S|/t)
        assert by_word[word]["avg_remaining"] == pytest.approx(remaining)
        assert by_word[word]["avg_bits"] == pytest.approx(bits)
        assert by_word[word]["parts"] == parts
    assert artifact.manifest["summary"]["best_by_bits"] == rows[0]["opener"]


def test_openers_over_all_guesses_match_scalar_on_a_small_wordle(run_pipeline, ray_session, small_wordle):
    artifact = run_pipeline("stage=openers", *small_wordle.overrides, "stage.candidates=guesses",
                            "stage.block_rows=300")
    rows = {r["opener"]: r for r in pq.read_table(artifact.file("openers.parquet")).to_pylist()}
    game = small_wordle.game
    assert len(rows) == len(game.guesses) == 967
    outside = next(w for w in game.guesses if w not in game.secrets)
    for word in ["raise", game.guesses[0], game.guesses[-1], outside]:
        remaining, bits, parts = scalar_opener(word, game.secrets, game.guesses)
        assert rows[word]["avg_remaining"] == pytest.approx(remaining)
        assert rows[word]["avg_bits"] == pytest.approx(bits)
        assert rows[word]["parts"] == parts


def _per_secret(artifact):
    return pq.read_table(artifact.file("per_secret.parquet")).to_pylist()


def reference_elimination(secret, guesses, universe, opener, uniforms):
    """The write-up's elimination game by the scalar answering function: most distinct undecided letters
    (in some remaining candidates, not all), ties by the turn's uniform among the tied words in list order."""
    cands, path = list(universe), []
    for turn, u in enumerate(uniforms):
        if turn == 0:
            guess = opener
        elif len(cands) <= 2:
            guess = cands[0]
        else:
            having = Counter(x for c in cands for x in set(c))
            undecided = {x for x, k in having.items() if k < len(cands)}
            score = {w: len(set(w) & undecided) for w in guesses}
            best = max(score.values())
            tied = [w for w in guesses if score[w] == best]
            guess = cands[0] if best == 0 else tied[min(int(u * len(tied)), len(tied) - 1)]
        path.append(guess)
        if guess == secret:
            break
        response = feedback(guess, secret)
        cands = [c for c in cands if feedback(guess, c) == response]
    return path


def test_simulate_every_strategy_wins_every_secret(run_pipeline, ray_session, small_wordle):
    from pipeline.search.strategies.simulate import seeded_uniforms
    from pipeline.stages.simulate import UNLIMITED_CAP

    game = small_wordle.game
    n = len(game.secrets)
    assert n == 167
    artifact = run_pipeline("stage=simulate", *small_wordle.overrides, "game.max_guesses=null",  # no failures
                            "stage.opener=raise", "stage.seeds=[3]",
                            "stage.strategies=[random_candidate,random_candidate_answers,elimination,"
                            "elimination_answers,elimination_weighted,elimination_weighted_answers,tree]",
                            "stage.block_secrets=64")
    rows = pq.read_table(artifact.file("simulate.parquet")).to_pylist()
    assert {r["strategy"] for r in rows} == {"random_candidate", "random_candidate_answers", "elimination",
                                              "elimination_answers", "elimination_weighted",
                                              "elimination_weighted_answers"}
    assert {r["strategy"]: r["seed"] for r in rows}["elimination"] == 3  # the write-up's rule is seeded
    assert all(r["failures"] == 0 and r["secrets"] == n for r in rows)
    assert all(r["ci_low"] < r["mean"] < r["ci_high"] for r in rows)
    for r in rows:
        dist = {int(k): v for k, v in json.loads(r["distribution"]).items()}
        assert sum(dist.values()) == n and max(dist) == r["max"]
        assert sum(k * v for k, v in dist.items()) == r["total"] == pytest.approx(r["mean"] * n)
    summary = artifact.manifest["summary"]
    assert "tree skipped" in summary["notes"][0] and "tree" not in summary["strategies"]
    allowed, secrets = set(game.guesses), set(game.secrets)
    played = _per_secret(artifact)
    assert len(played) == 6 * n
    # the write-up's rule, game by game, against the scalar reference (every 5th secret)
    universes = {"elimination": game.guesses, "elimination_answers": game.secrets}
    for p in played:
        k = game.secrets.index(p["secret"])
        if p["strategy"] in universes and k % 5 == 0:
            uniforms = seeded_uniforms(3, [k], UNLIMITED_CAP)[0]
            expected = reference_elimination(p["secret"], game.guesses, universes[p["strategy"]], "raise", uniforms)
            assert p["path"].split(",") == expected, (p["strategy"], p["secret"])
    for p in played:
        path = p["path"].split(",")
        assert p["guesses"] == len(path) >= 1 and path[-1] == p["secret"]
        assert set(path) <= allowed  # elimination never guesses outside G
        if p["strategy"].startswith("elimination"):
            assert path[0] == "raise"
        if p["strategy"] == "random_candidate_answers":
            assert set(path) <= secrets
        if p["strategy"].startswith("random"):  # every guess consistent with the feedback before it
            for k, guess in enumerate(path):
                assert all(feedback(prev, guess) == feedback(prev, p["secret"]) for prev in path[:k])
    # the elimination strategy over G does use words that cannot be the answer
    assert any(set(p["path"].split(",")) - secrets for p in played if p["strategy"] == "elimination")


def test_simulate_seeded_runs_are_reproducible(run_pipeline, ray_session):
    first = run_pipeline("stage=simulate", "game=mini_nerdle", "stage.strategies=[random_candidate]",
                         "stage.seeds=[0,1]", "stage.block_secrets=100")
    again = run_pipeline("stage=simulate", "game=mini_nerdle", "stage.strategies=[random_candidate]",
                         "stage.seeds=[0]", "stage.block_secrets=33")  # other blocking, one seed
    by_seed = {}
    for p in _per_secret(first):
        by_seed.setdefault(p["seed"], []).append((p["secret"], p["path"]))
    assert by_seed[0] == [(p["secret"], p["path"]) for p in _per_secret(again)]
    assert by_seed[0] != by_seed[1]
    rows = {r["seed"]: r for r in pq.read_table(first.file("simulate.parquet")).to_pylist()}
    assert set(rows) == {0, 1, None} and rows[None]["runs"] == 2
    assert rows[None]["total"] == rows[0]["total"] + rows[1]["total"]
    seed0 = pq.read_table(again.file("simulate.parquet")).to_pylist()[0]
    assert {k: seed0[k] for k in ("mean", "ci_low", "ci_high", "distribution")} == \
        {k: rows[0][k] for k in ("mean", "ci_low", "ci_high", "distribution")}


def test_simulate_plays_the_stores_upper_bound_tree(run_pipeline, ray_session):
    ub = run_pipeline("stage=upper_bound", "game=mini_nerdle", "stage.breadth=1")
    total = json.loads(ub.file("summary.json").read_text())["ub"]
    artifact = run_pipeline("stage=simulate", "game=mini_nerdle", "stage.strategies=[tree,elimination_answers]",
                            "stage.opener=null")
    rows = {r["strategy"]: r for r in pq.read_table(artifact.file("simulate.parquet")).to_pylist()}
    assert rows["tree"]["total"] == total and rows["tree"]["failures"] == 0
    assert rows["elimination_answers"]["failures"] == 0 and rows["elimination_answers"]["opener"] is None
    assert ub.key in artifact.manifest["summary"]["notes"][0]


@pytest.mark.parametrize("override, message", [
    ("stage.opener=zzzzzz", "not an allowed guess"),
    ("stage.seeds=[]", "seeds is empty"),
    ("stage.seeds=[1,1]", "distinct"),
    ("stage.strategies=[random]", "unknown strategy"),
    ("stage.strategies=[]", "strategies is empty"),
    ("stage.max_guesses=0", "max_guesses"),
])
def test_simulate_bad_settings(run_pipeline, override, message):
    with pytest.raises(PipelineError, match=message):
        run_pipeline("stage=simulate", "game=mini_nerdle", override)


def test_openers_bad_candidates(run_pipeline):
    with pytest.raises(PipelineError, match="answers or guesses"):
        run_pipeline("stage=openers", "game=mini_nerdle", "stage.candidates=all")


def test_summarize_ci_and_failures():
    from pipeline.search.strategies.simulate import summarize

    stats = summarize(np.array([2, 3, 4, 0, 3]))
    assert stats["failures"] == 1 and stats["mean"] == 3.0 and stats["max"] == 4 and stats["total"] == 12
    half = 1.959963984540054 * np.std([2, 3, 4, 3], ddof=1) / 2
    assert stats["ci_low"] == pytest.approx(3 - half) and stats["ci_high"] == pytest.approx(3 + half)
    assert json.loads(stats["distribution"]) == {"2": 1, "3": 2, "4": 1}


@pytest.mark.parametrize("rule", ["ELIMINATION", "WEIGHTED"])
def test_elimination_guess_splits_by_undecided_letters(rule):
    """Candidates batch/catch/hatch/latch/match/patch/watch: both rules play a non-candidate covering b,l,m,p."""
    from pipeline.feedback.kernel import code_matrix, encode_words
    from pipeline.search.strategies import simulate
    from pipeline.search.strategies.simulate import first_occurrences, play

    secrets = ["batch", "catch", "hatch", "latch", "match", "patch", "watch"]
    guesses = sorted(secrets + ["blimp", "whelp", "zzzzz"])
    alphabet = "abcdefghijklmnopqrstuvwxyz"
    enc = encode_words(guesses, alphabet)
    codes = code_matrix(enc, encode_words(secrets, alphabet))
    u_to_g = np.array([guesses.index(s) for s in secrets], dtype=np.int64)
    uniforms = np.random.default_rng(0).random((7, 10))  # read by the write-up's rule only (here: no ties)
    counts, paths = play(codes, u_to_g, np.arange(7, dtype=np.int64), getattr(simulate, rule), -1, uniforms, enc,
                         first_occurrences(enc), 26, 10)
    assert (counts > 0).all()
    assert {guesses[p[0]] for p in paths} == {"blimp"}  # undecided: b, l, m, p, w (1 of 7 each); a, c, h, t in all
    assert counts.max() <= 4
