"""A new user's first hour: every stage ends with its result in one line, compiling kernels is announced,
ETAs wait until they mean something, and the assistant opens with the best known opener."""

import io
import json

import pytest

from pipeline.stages.runner import result_line

LOCAL = "ray.executor=local"  # in this process: no Ray start-up for a tiny game


@pytest.fixture
def mini(run_pipeline):
    """run a stage on Mini Nerdle in this process; returns (artifact, its result line)."""

    def run(stage, *overrides):
        artifact = run_pipeline(f"stage={stage}", "game=mini_nerdle", LOCAL, *overrides)
        return artifact, result_line(artifact)

    return run


def test_prove_line_states_the_proven_value_funnel_and_check_command(mini):
    artifact, line = mini("prove")
    certificate = artifact.read_json("certificate.json")
    funnel = artifact.manifest["inputs"]["lower_bound"]["path"]
    levels = json.loads((artifact.path.parent.parent / "lower_bound" / funnel.split("/")[-1]
                         / "summary.json").read_text())["funnel"]
    counts = " → ".join(str(level["survivors"]) for level in levels)
    ub, n = certificate["ub"], certificate["n_secrets"]
    assert (ub, n, certificate["optimal_openers"]) == (544, 206, ["4*7=28"])
    assert line == (f"prove: proven {ub} ({ub / n:.3f} per secret) by 4*7=28; funnel {counts} → 1; "
                    f"check it with: python -m pipeline verify-certificate {artifact.path}")
    assert line.startswith("prove: proven 544 (2.641 per secret) by 4*7=28; funnel 206 → ")
    assert "verified" not in line


def test_upper_and_lower_bound_lines_state_their_results(mini):
    artifact, line = mini("upper_bound")
    summary = artifact.read_json("summary.json")
    assert line == (f"upper_bound: upper bound {summary['ub']} ({summary['expected']:.3f} per secret, at most "
                    f"{summary['max_guesses']} guesses) with opener {summary['opener']}; "
                    f"{summary['openers_tried']} openers tried ({summary['method']})")
    assert summary["ub"] == 544
    artifact, line = mini("lower_bound", "stage.ub=544")
    summary = artifact.read_json("summary.json")
    assert line == ("lower_bound: funnel " + " → ".join(str(f["survivors"]) for f in summary["funnel"])
                    + " against UB 544; survivors 4*7=28")


def test_exact_heuristics_openers_feedback_lines_state_their_headlines(mini):
    artifact, line = mini("exact", 'stage.openers=["4*7=28"]')
    row = artifact.manifest["summary"]["results"][0]
    assert row["total"] == 544
    assert line == f"exact: 4*7=28 544 ({row['expected']:.3f} per secret, at most {row['max_guesses']} guesses)"
    artifact, line = mini("heuristics", "stage.combinations=[MostParts]")
    s = artifact.manifest["summary"]
    assert line == (f"heuristics: best total {s['best_total']} by MostParts (opener {s['best_opener']}), "
                    f"1 of 1 combinations at best")
    artifact, line = mini("openers")
    s = artifact.manifest["summary"]
    assert line.startswith(f"openers: best by information {s['best_by_bits']} ({s['best_bits']} bits)")
    assert line.endswith(f"{s['openers']} openers over 206 secrets")
    artifact, line = mini("feedback")
    assert line == f"feedback: code matrix 206 guesses × 206 secrets ({artifact.manifest['summary']['dtype']})"


def test_blindfold_line_states_f_star_and_its_bound(mini):
    artifact, line = mini("blindfold")
    s = artifact.manifest["summary"]
    verdict = "proven optimal" if s["proven_optimal"] else "not proven optimal"
    assert line == (f"blindfold: f* = {s['f_star']}, lower bound {s['lower_bound']}: {verdict}; guesses "
                    f"{' '.join(s['guesses'])}")
    assert len(s["guesses"]) == s["f_star"]


def test_a_skipped_stage_prints_the_same_line(mini):
    first = mini("feedback")[1]
    assert mini("feedback")[1] == first


def test_the_cli_prints_the_line_then_the_folder_last(tmp_path):
    import os
    import subprocess
    import sys
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "pipeline", "stage=feedback", "game=mini_nerdle",
                           f"paths.outputs={tmp_path}", "progress=false", LOCAL, f"hydra.run.dir={tmp_path}/run"],
                          capture_output=True, text=True, env=env, cwd=root)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-2].startswith("feedback: code matrix 206 guesses × 206 secrets")
    assert Path(lines[-1]).is_dir() and lines[-1].startswith(str(tmp_path))


# ---- progress: no ETA before it means something ----------------------------------------------------------------


def progress_lines(tmp_path, durations, total, **intervals):
    """The log lines of a Progress over tasks taking `durations` seconds each (a hand-moved clock)."""
    from pipeline.runtime.log import log_to_file
    from pipeline.runtime.progress import Progress

    clock, path = [1000.0], tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("UB", total, stream=io.StringIO(), clock=lambda: clock[0], **intervals) as bar:
            for seconds in durations:
                clock[0] += seconds
                bar.advance()
    return [line.split(" INFO ", 1)[1] for line in path.read_text().splitlines()]


def test_a_first_task_that_compiles_gives_no_eta_and_does_not_skew_the_rate(tmp_path):
    # 10 openers: the first takes 300 s (compiling), the others 10 s each
    lines = progress_lines(tmp_path, [300.0] + [10.0] * 9, total=10, every_fraction=0.1, min_gap_seconds=0)
    assert lines[0] == "UB: 1/10 tasks (10%)"  # one task done: no rate, no ETA
    assert lines[1] == "UB: 2/10 tasks (20%), 0.1 tasks/s, ETA 1m20s"  # 8 left at 10 s each
    assert lines[-1] == "UB: 10/10 tasks in 390.0s"


def test_no_eta_before_a_tenth_of_the_tasks_is_done(tmp_path):
    lines = progress_lines(tmp_path, [1.0] * 30, total=100, every_seconds=5, min_gap_seconds=0,
                           every_fraction=0.5)
    assert lines[0] == "UB: 5/100 tasks (5%)" and lines[1] == "UB: 10/100 tasks (10%), 1 tasks/s, ETA 1m30s"
