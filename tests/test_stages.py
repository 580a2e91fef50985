"""Stages end to end on small real games, in-process on the shared embedded Ray."""

import json

import pyarrow.parquet as pq
import pytest

from pipeline import PipelineError


def test_heuristics_subset_on_mini_nerdle(run_pipeline, ray_session):
    artifact = run_pipeline("stage=heuristics", "game=mini_nerdle",
                            "stage.combinations=[MostParts,'MostParts,InSet,ExpSizeSplit']", "stage.batch_size=1")
    rows = pq.read_table(artifact.file("valuations.parquet")).to_pylist()
    assert [r["valuation"] for r in rows] == ["MostParts,InSet,ExpSizeSplit", "MostParts"]
    assert rows[0]["total"] == 544 and rows[0]["opener"] == "4*7=28"
    assert rows[0]["expected"] == pytest.approx(544 / 206)
    assert artifact.manifest["summary"]["best_total"] == 544


def test_unknown_valuation_is_one_clear_error(run_pipeline):
    with pytest.raises(PipelineError, match="MostPart"):
        run_pipeline("stage=heuristics", "game=mini_nerdle", "stage.combinations=[MostPart]")


def test_lower_bound_funnel_proves_mini_nerdle_by_v3(run_pipeline, ray_session):
    artifact = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=544")
    summary = json.loads(artifact.file("summary.json").read_text())
    assert summary["survivors"] == ["4*7=28"] and summary["survivor_values"] == [544]
    assert [f["survivors"] for f in summary["funnel"]][0] == 206 and summary["levels"] == 3
    funnel = pq.read_table(artifact.file("funnel.parquet")).to_pylist()
    final = [r for r in funnel if r["opener"] == "4*7=28"]
    assert [r["level"] for r in final] == [1, 2, 3] and not any(r["eliminated"] for r in final)
    assert all(r["value"] > 544 for r in funnel if r["eliminated"])
    assert all(r["exact"] for r in funnel if not r["eliminated"])


def funnel_rows(artifact) -> dict:
    """(opener, level) -> (value, exact, eliminated) of a lower_bound artifact's funnel.parquet."""
    return {(r["opener"], r["level"]): (r["value"], r["exact"], r["eliminated"])
            for r in pq.read_table(artifact.file("funnel.parquet")).to_pylist()}


def final_survivors(artifact) -> set:
    return set(json.loads(artifact.file("summary.json").read_text())["survivors"])


@pytest.mark.parametrize("skipped", [[2, 4], [3], [1, 2, 5]])
def test_a_funnel_that_leaves_levels_out_computes_the_same_values_at_the_others(run_pipeline, ray_session, skipped):
    """At UB = 560 (40 Mini Nerdle openers reach V_8), the funnel without `skipped` computes only the other levels,
    each opener's V_i as the funnel of every level does (V_i does not depend on the levels before it), keeps every
    opener that funnel keeps and never loses the optimal opener at the optimum (544)."""
    every = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=560")
    some = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=560", f"stage.skip_levels={skipped}")
    full, partial = funnel_rows(every), funnel_rows(some)
    assert {level for _, level in partial} == {level for level in range(1, 9) if level not in skipped}
    assert {level for _, level in full} == set(range(1, 9))
    shared = partial.keys() & full.keys()
    assert len(shared) >= 40 and all(partial[key] == full[key] for key in shared)
    assert final_survivors(every) <= final_survivors(some) and len(final_survivors(every)) == 40
    optimum = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=544", f"stage.skip_levels={skipped}")
    assert final_survivors(optimum) == {"4*7=28"}


def test_each_mode_leaves_out_its_own_levels(run_pipeline, ray_session):
    """By default normal mode computes every level and hard mode leaves out V_3; each mode's setting applies to it
    alone."""
    normal = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=560", "stage.hard_skip_levels=[2]")
    hard = run_pipeline("stage=lower_bound", "game=mini_nerdle", "game.hard_mode=true", "stage.ub=560")
    assert {level for _, level in funnel_rows(normal)} == set(range(1, 9))
    assert {level for _, level in funnel_rows(hard)} == {1, 2, 4, 5, 6, 7, 8}
    swapped = run_pipeline("stage=lower_bound", "game=mini_nerdle", "game.hard_mode=true", "stage.ub=560",
                           "stage.skip_levels=[2]", "stage.hard_skip_levels=[5]")
    assert {level for _, level in funnel_rows(swapped)} == {1, 2, 3, 4, 6, 7, 8}
    summary = json.loads(hard.file("summary.json").read_text())
    assert [(f["level"], f.get("rule")) for f in summary["funnel"]][1:4] == [(1, "normal"), (2, "hard"), (4, "hard")]


def test_ub_below_the_optimum_eliminates_everything_and_says_so(run_pipeline, ray_session):
    artifact = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=500")
    summary = json.loads(artifact.file("summary.json").read_text())
    assert summary["survivors"] == [] and "optimum is larger" in summary["note"]


def test_max_level_below_one_is_rejected(run_pipeline):
    with pytest.raises(PipelineError, match="max_level"):
        run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=544", "stage.max_level=0")
