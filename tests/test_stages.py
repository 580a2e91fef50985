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


def test_ub_below_the_optimum_eliminates_everything_and_says_so(run_pipeline, ray_session):
    artifact = run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=500")
    summary = json.loads(artifact.file("summary.json").read_text())
    assert summary["survivors"] == [] and "optimum is larger" in summary["note"]


def test_max_level_below_one_is_rejected(run_pipeline):
    with pytest.raises(PipelineError, match="max_level"):
        run_pipeline("stage=lower_bound", "game=mini_nerdle", "stage.ub=544", "stage.max_level=0")
