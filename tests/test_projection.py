"""benchmarks/projection.py's pure helpers: the survival-rate bound, the class sample, a level's projection,
and the sampled climb against the full funnel on a tiny game."""

import os
from math import comb

import numpy as np
import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.search.bounds.lower import BoundSolver, k_of_game
from pipeline.search.bounds.hard import HardBoundSolver
from pipeline.search.matrix import Matrix
from benchmark_module import load_benchmark
from tests.helpers.words import HARD_BINDS, binding_game, repeated_letter_game


@pytest.fixture(scope="module")
def projection():
    return load_benchmark("projection")


def binomial_cdf(k, n, p):
    return sum(comb(n, i) * p**i * (1 - p) ** (n - i) for i in range(k + 1))


def test_rate_upper_is_the_one_sided_clopper_pearson_bound(projection):
    assert projection.rate_upper(0, 20) == pytest.approx(0.13911, abs=1e-5)  # 1 - 0.05 ** (1 / 20)
    assert projection.rate_upper(0, 1) == pytest.approx(0.95)
    assert projection.rate_upper(5, 5) == 1.0
    for kept, sampled in [(1, 20), (3, 17), (14, 30), (29, 30)]:
        p = projection.rate_upper(kept, sampled)
        assert binomial_cdf(kept, sampled, p) == pytest.approx(0.05, abs=1e-9)
        assert kept / sampled < p < 1
    assert projection.rate_upper(1, 20) > projection.rate_upper(0, 20)


def test_stratified_takes_the_largest_and_spreads_over_sizes(projection):
    sizes = [5, 1, 9, 3, 7]
    assert list(projection.stratified(sizes, 3)) == [2, 0, 1]  # sizes 9, 5, 1
    assert sorted(projection.stratified(sizes, 9)) == [0, 1, 2, 3, 4]
    assert list(projection.stratified(sizes, 1)) == [2]


def test_level_row_projects_counts_and_costs(projection):
    ub = 100
    # 101 openers in, the UB opener among them; 2 of 4 sampled survive
    row = projection.level_row(3, 101, 1, [1.0, 2.0, 3.0, 2.0], [99, 105, 101, 100], ub, (4.0, 100))
    assert row["survivors_exact"] == 1 + 100 * 0.5 and row["sample_survivors"] == 2
    assert row["cpu_s"] == 100 * 2.0 + 4.0 and row["longest_s"] == 4.0
    # none of 4 survive: the rate is the one-sided bound, not zero
    row = projection.level_row(3, 101, 1, [1.0] * 4, [101] * 4, ub, (4.0, 100))
    assert row["survival_rate"] == round(1 - 0.05 ** 0.25, 4)
    assert row["survivors_exact"] == round(1 + 100 * (1 - 0.05 ** 0.25), 2)
    # no sample left: all survive, each at the UB opener's cost
    row = projection.level_row(4, 11, 1, [], [], ub, (4.0, 100))
    assert row["survivors_exact"] == 11 and row["cpu_s"] == 10 * 4.0 + 4.0


def test_stage_stops_like_the_lower_bound_stage(projection):
    ub = 100
    row = projection.level_row(5, 19, 1, [1.0, 1.0], [100, 120], ub, (1.0, 100))
    assert projection.stage_stops(row, [100, 120], ub, (1.0, 100))  # every survivor's bound at UB
    row = projection.level_row(5, 19, 1, [1.0, 1.0], [99, 120], ub, (1.0, 100))
    assert not projection.stage_stops(row, [99, 120], ub, (1.0, 100))
    row = projection.level_row(5, 19, 1, [1.0, 1.0], [120, 120], ub, (1.0, 100))
    assert not projection.stage_stops(row, [120, 120], ub, (1.0, 100))  # projected survivors, values unknown


@pytest.mark.parametrize("name", ["eels", "aabb"])
def test_a_sample_of_every_opener_climbs_like_the_full_funnel(projection, name):
    secrets, guesses, codes, sog, n_codes = repeated_letter_game(name)
    k_s = k_of_game(codes, n_codes)
    everyone = np.arange(len(guesses), dtype=np.int32)
    v3 = BoundSolver(codes, sog, n_codes, k_s).opener_values(everyone, 3)[0]
    ub = int(np.median(v3))
    ub_opener = int(np.argmin(v3))
    bounds = projection.FunnelBounds(Matrix(codes, sog, n_codes), k_s)
    rows, _ = projection.sampled_levels(bounds, everyone[everyone != ub_opener], ub_opener, len(everyone), ub,
                                        [1, 2, 3, 4, 5])
    alive = everyone
    for row in rows:  # the reference: the funnel's own batch path over every survivor
        values = BoundSolver(codes, sog, n_codes, k_s).opener_values(alive, row["level"], ub)[0]
        alive = alive[values <= ub]
        assert row["survivors_exact"] == len(alive) and row["rule"] == "normal", row
    assert rows and len(alive) < len(everyone)


def test_in_hard_mode_the_climb_takes_the_hard_bounds_from_hard_from_on(projection):
    """On a game where hard mode binds, each level's survivors are those of the hard-mode bounds (normal-mode
    ones before hard_from); the normal-mode bounds alone climb differently, so the rule is not ignored."""
    game = binding_game(HARD_BINDS, True, None)
    codes = game_matrix(game)
    k_s = k_of_game(codes, game.n_codes)
    everyone = np.arange(len(game.guesses), dtype=np.int32)
    hard = HardBoundSolver(codes, game.n_codes, k_s, game.encoded_guesses(), secret_of_guess=game.secret_of_guess)
    v3 = hard.opener_values(everyone, 3)[0]
    ub = int(np.median(v3))
    ub_opener = int(np.argmin(v3))

    def climb(hard_from):
        matrix = Matrix(codes, game.secret_of_guess, game.n_codes, encoded_guesses=game.encoded_guesses())
        bounds = projection.FunnelBounds(matrix, k_s, hard_from=hard_from)
        rows, _ = projection.sampled_levels(bounds, everyone[everyone != ub_opener], ub_opener, len(everyone),
                                            ub, [1, 2, 3, 4, 5])
        return rows

    rows = climb(2)
    alive = everyone
    for row in rows:
        level = row["level"]
        if level >= 2:
            values = HardBoundSolver(codes, game.n_codes, k_s, game.encoded_guesses(),
                                     secret_of_guess=game.secret_of_guess).opener_values(alive, level, ub)[0]
        else:
            values = BoundSolver(codes, game.secret_of_guess, game.n_codes, k_s).opener_values(alive, level, ub)[0]
        alive = alive[values <= ub]
        assert row["rule"] == ("hard" if level >= 2 else "normal")
        assert row["survivors_exact"] == len(alive), row
    normal_only = climb(99)
    assert [r["survivors_exact"] for r in normal_only] != [r["survivors_exact"] for r in rows]


def test_rate_median_is_the_sample_rate_or_the_median_unbiased_one(projection):
    assert projection.rate_median(3, 12) == 0.25
    p = projection.rate_median(0, 30)
    assert binomial_cdf(0, 30, p) == pytest.approx(0.5) and p < projection.rate_upper(0, 30)


@pytest.mark.parametrize("stored", ["wordle_nyt_jul2023-hard", "wordle_original-hard"])
def test_central_estimate_redoes_the_stored_projection(projection, monkeypatch, stored):
    """A projection stored before the eligibility (no `eligible` in its rows): with the one-sided bound where a sample
    kept none, the central estimate gives back its own (upper) figures; with the median-unbiased rate it keeps fewer
    openers where a sample kept none, and costs less."""
    import json
    from pathlib import Path

    out = json.loads((Path(__file__).parents[1] / "benchmarks" / "results" / f"projection-{stored}.json").read_text())
    central = projection.central_estimate(out)
    last = str(out["funnel"][-1]["level"])
    assert central["survivors"][last] < out["funnel"][-1]["survivors_exact"]
    assert central["projected_wall_s"]["2"] < out["projected_wall_s"]["2"] and central["core_hours"] <= out["core_hours"]
    monkeypatch.setattr(projection, "rate_median", lambda kept, n: kept / n if kept else projection.rate_upper(0, n))
    redone = projection.central_estimate(out)
    assert redone["survivors"][last] == pytest.approx(out["funnel"][-1]["survivors_exact"], abs=0.01)
    assert redone["core_hours"] == out["core_hours"]
    assert redone["projected_wall_s"] == pytest.approx(out["projected_wall_s"], rel=1e-4, abs=0.2)  # stored rounded


def test_central_of_refuses_what_is_not_a_stored_projection(projection, tmp_path, capsys):
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    (tmp_path / "other.json").write_text('{"game": "x"}')
    for path in (tmp_path, fifo, tmp_path / "other.json", tmp_path / "missing.json"):
        with pytest.raises(SystemExit) as stop:
            projection.with_central(path)
        assert stop.value.code == 2
        assert capsys.readouterr().err.startswith(f"error: {path} is not a stored projection")


def test_eligibility_counts_the_openers_within_the_ub_openers_slack(projection):
    offsets = {10: 0, 11: -3, 12: 4, 13: 9, 14: 25}  # opener 10 is the UB opener
    # UB 100, the UB opener at 92 here: slack 8, so openers 10, 11, 12 are eligible; sampled 12, 13, 14 entered
    row = projection.eligibility(offsets, [12, 13, 14], [100, 99, 130], 100, 92)
    assert row == {"ub_opener_slack": 8, "eligible": 3, "sampled_eligible": 1, "eligible_survivors": 1}
    row = projection.eligibility(offsets, [12, 13, 14], [101, 99, 130], 100, 92)
    assert row["eligible_survivors"] == 0 and row["sampled_eligible"] == 1


def test_central_survivors_take_the_eligible_openers_at_the_sampled_eligible_rate(projection):
    row = {"eligible": 21, "sampled_eligible": 4, "eligible_survivors": 1}
    assert projection.central_survivors(500.0, 1, row) == 1 + 20 * 0.25
    row = {"eligible": 21, "sampled_eligible": 4, "eligible_survivors": 0}  # none of 4: median-unbiased
    assert projection.central_survivors(500.0, 1, row) == pytest.approx(1 + 20 * (1 - 0.5 ** 0.25))
    row = {"eligible": 21, "sampled_eligible": 0, "eligible_survivors": 0}  # no sampled one eligible
    assert projection.central_survivors(500.0, 1, row) == 1 + 20 * 0.5
    assert projection.central_survivors(7.5, 1, row) == 7.5  # never more than entered the level
    assert projection.central_survivors(500.0, 0, row) == 21 * 0.5  # no UB opener (--ub)


def test_setups_follow_the_stages_task_counts(projection):
    # lower_bound: 4 tasks per CPU, none above 2000 openers; one build per task
    assert projection.level_setups(17713, 2000) == {"2": 9, "8": 32, "64": 256, "512": 2048}
    assert projection.level_setups(2.4, 2000) == {"2": 2, "8": 2, "64": 2, "512": 2}
    # prove: one build per worker process, at most one per core
    assert projection.worker_setups(1684, per_cpu=16) == {"2": 2, "8": 8, "64": 64, "512": 512}
    assert projection.worker_setups(2.5) == {"2": 2, "8": 3, "64": 3, "512": 3}
    steps = [projection.step(100.0, 3.0, 10.0, {"2": 4, "8": 9, "64": 9, "512": 9}), projection.step(6.0, 6.0)]
    assert projection.core_seconds(steps) == 100 + 40 + 6
    wall = {"2": 140 / 2 + 6, "8": 190 / 8 + 6, "64": 3 + 10 + 6, "512": 3 + 10 + 6}  # one set-up on the longest
    assert projection.projected_wall(steps) == pytest.approx(wall, abs=0.051)  # rounded to 0.1 s


def synthetic_projection() -> dict:
    """A stored projection's shape with round numbers: V_1 in full, V_2..V_4 sampled (the sample dies at V_3)."""
    setups = {"2": 2, "8": 2, "64": 2, "512": 2}

    def sampled(level, sampled_n, kept, eligible, n_e, kept_e, mean_s):
        return {"level": level, "sampled": sampled_n, "sample_survivors": kept, "mean_s": mean_s, "longest_s": 5.0,
                "ub_opener_s": 5.0, "setup_s": 1.0, "eligible": eligible, "sampled_eligible": n_e,
                "eligible_survivors": kept_e}

    return {"settings": {"max_batch": 2000}, "matrix": {"cpu_s": 10.0}, "upper_bound": {"cpu_s": 20.0, "longest_task_s": 4.0},
            "funnel": [{"level": 1, "survivors": 1001, "cpu_s": 30.0, "mean_s": 0.03, "setup_s": 1.0, "setups": setups},
                       sampled(2, 20, 2, 201, 5, 2, 0.1), sampled(3, 2, 0, 11, 1, 0, 1.0),
                       sampled(4, 0, 0, 3, 0, 0, 5.0)],
            "closure": {"ub_opener": {"cpu_s": 50.0, "longest_s": 2.0, "setup_s": 3.0, "setups": setups},
                        "others": {"mean_s": 4.0, "longest_s": 4.0, "setup_s": 2.0}}}


def test_central_estimate_prices_the_central_survivors(projection):
    central = projection.central_estimate(synthetic_projection())
    v2 = 1 + 200 * 0.4  # 81 of 1001: 2 of the 5 sampled eligible survive
    v3 = 1 + 10 * 0.5  # 6: none of the 1 sampled eligible survives, 1 - 0.5 ** 1
    v4 = 1 + 2 * 0.5  # 2: no sampled opener left, NO_INFORMATION_RATE
    assert central["survivors"] == {"1": 1001.0, "2": v2, "3": v3, "4": v4}
    work = 10 + 20 + 30 + (1000 * 0.1 + 5) + (80 * 1.0 + 5) + (5 * 5.0 + 5) + 50 + (v4 - 1) * 4.0
    # on 2 CPUs: V_1 as stored (2 builds), V_2 and V_3 8 tasks each (4 per CPU), V_4 6 tasks (one per opener
    # entering), the UB opener's closure 2 workers, the one other survivor's task 1
    setups = 2 * 1.0 + 8 * 1.0 + 8 * 1.0 + 6 * 1.0 + 2 * 3.0 + 1 * 2.0
    assert central["core_seconds"] == pytest.approx(work + setups, abs=0.05)
    assert central["core_hours"] == round((work + setups) / 3600, 2)


def test_central_estimate_stops_where_one_opener_is_left(projection):
    out = synthetic_projection()
    out["funnel"][2].update(eligible=1)  # at V_3 only the UB opener is eligible: the stage stops there
    central = projection.central_estimate(out)
    assert list(central["survivors"]) == ["1", "2", "3"] and central["survivors"]["3"] == 1


@pytest.mark.parametrize("name", ["eels", "aabb"])
def test_a_full_sample_gives_central_survivors_equal_to_the_funnels(projection, name):
    """With every opener of V_1's survivors sampled, the central count of each later level is the real one: on
    these games no opener's gap to the UB opener shrinks, so every survivor is eligible."""
    secrets, guesses, codes, sog, n_codes = repeated_letter_game(name)
    k_s = k_of_game(codes, n_codes)
    everyone = np.arange(len(guesses), dtype=np.int32)
    v3 = BoundSolver(codes, sog, n_codes, k_s).opener_values(everyone, 3)[0]
    ub, ub_opener = int(np.median(v3)), int(np.argmin(v3))
    bounds = projection.FunnelBounds(Matrix(codes, sog, n_codes), k_s)
    alive, values, _ = projection.full_level(bounds, everyone, 1, ub)
    offsets = dict(zip(alive.tolist(), (values - values[alive == ub_opener][0]).tolist()))
    rows, _ = projection.sampled_levels(bounds, alive[alive != ub_opener], ub_opener, len(alive), ub, [2, 3, 4, 5],
                                        offsets=offsets)
    count = float(len(alive))
    for row in rows:
        real = BoundSolver(codes, sog, n_codes, k_s).opener_values(alive, row["level"], ub)[0]
        alive = alive[real <= ub]
        count = projection.central_survivors(count, 1, row)
        assert count == len(alive) == row["survivors_exact"], row
        assert row["eligible"] >= len(alive)
    assert rows and rows[0]["eligible"] < len(everyone)
