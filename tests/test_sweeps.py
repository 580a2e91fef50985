"""`-m` sweeps through the real command line: points run at once on the embedded Ray and on a loopback `ray start`
cluster (tests/test_cluster.py), a bad point among them reported while the rest go on, and the summary (table, summary.json, summary.md)
naming what each point computed."""

import json
import re
import subprocess
import sys
from pathlib import Path

import pytest

from pipeline.games.catalog import builtin_game
from pipeline.config.settings import PROJECT_ROOT
from pipeline.search.tree import from_json, verify
from pipeline.app.sweep_summary import markdown, table, varying

pytestmark = pytest.mark.slow
OPENERS = ['stage.openers=["4*7=28"],["28/7=4"]']
BREADTHS = "stage.breadth=1,2,3,0"  # breadth 0 is refused: one bad point among 8
EIGHT = ["stage=upper_bound", "game=mini_nerdle", *OPENERS, BREADTHS, "progress=false"]


def sweep(outputs, *extra, env=None, timeout=1200):
    """The eight points' sweep through the command line, as a user runs it."""
    return subprocess.run([sys.executable, "-m", "pipeline", "-m", *EIGHT, f"paths.outputs={outputs}", *extra],
                          capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=timeout, env=env)


def overlapped(rows) -> bool:
    """Whether some two points ran at the same time (by the start and end each recorded)."""
    spans = sorted((row["started"], row["started"] + row["wall_s"]) for row in rows if row["status"] == "ok")
    return any(later[0] < earlier[1] for earlier, later in zip(spans, spans[1:]))


def check_summary(proc, outputs):
    """The sweep's exit, its summary in three forms, and every good point's artifact replayed."""
    assert proc.returncode == 1, proc.stderr
    last = proc.stderr.strip().splitlines()[-1]
    assert last.startswith("error: 2 of 8 sweep points failed: 3, 7 ("), last
    folder = Path(proc.stdout.strip().splitlines()[-1])
    assert folder.parent == outputs.resolve() / "sweeps"
    summary = json.loads((folder / "summary.json").read_text())
    rows = summary["rows"]
    assert summary["failed"] == [3, 7] and [row["point"] for row in rows] == list(range(8))
    assert [row["status"] for row in rows] == ["ok", "ok", "ok", "bad input"] * 2
    assert "stage.breadth must be at least 1, got 0" in rows[3]["error"]
    game = builtin_game("mini_nerdle")
    for row in rows:
        if row["status"] == "ok":
            tree = json.loads((Path(row["artifact"]) / "tree.json").read_text())["tree"]
            claimed = re.match(r"upper_bound: upper bound (\d+) ", row["result"])
            assert claimed and verify(from_json(tree), game.guesses, game.secrets) == int(claimed.group(1))
            assert (folder / str(row["point"]) / "pipeline.log").is_file()
    assert proc.stdout.splitlines()[:len(rows) + 1] == table(rows).splitlines()
    assert (folder / "summary.md").read_text() == markdown(rows)
    return rows


def test_eight_points_run_at_once_on_the_embedded_ray_and_a_bad_one_does_not_stop_them(tmp_path):
    outputs = tmp_path / "out"
    rows = check_summary(sweep(outputs, "ray.num_cpus=2"), outputs)
    assert overlapped(rows)
    keys = {Path(row["artifact"]).name for row in rows if row["status"] == "ok"}
    assert len(keys) == 6  # six settings, six artifacts; the shared feedback matrix computed once
    assert len([p for p in (outputs / "feedback").iterdir() if not p.name.startswith(".")]) == 1


def test_the_table_shows_what_tells_the_points_apart():
    rows = [{"point": i, "overrides": ["stage=x", f"stage.breadth={i}"], "status": "ok", "artifact": f"/o/x/k{i}",
             "wall_s": 1.25, "result": f"x: total {i}", "error": ""} for i in (1, 2)]
    rows[1].update(status="failed", error="it | broke", result="", artifact="")
    assert varying(rows) == [["stage.breadth=1"], ["stage.breadth=2"]]
    assert table(rows).splitlines() == ["point  overrides        status  artifact  wall  result",
                                        "1      stage.breadth=1  ok      k1        1.2s  x: total 1",
                                        "2      stage.breadth=2  failed  -         1.2s  it | broke"]
    assert markdown(rows).splitlines()[-1] == "| 2 | stage.breadth=2 | failed | - | 1.2s | it \\| broke |"
