"""A Hydra multirun sweep through the real CLI, then the report gathering it."""

import json
import subprocess
import sys

import pytest

from pipeline.config.settings import PROJECT_ROOT
from pipeline.games.catalog import builtin_game
from pipeline.search.tree import from_json, verify


@pytest.mark.slow
def test_breadth_sweep_and_report(outputs):
    sweep = subprocess.run([sys.executable, "-m", "pipeline", "-m", "stage=upper_bound", "stage.breadth=1,2",
                            "game=mini_nerdle", f"paths.outputs={outputs}", "ray.num_cpus=2"],
                           capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=900)
    assert sweep.returncode == 0, sweep.stderr
    assert len([p for p in (outputs / "upper_bound").iterdir() if not p.name.startswith(".")]) == 2
    report = subprocess.run([sys.executable, "-m", "pipeline", "stage=report", "game=mini_nerdle",
                             f"paths.outputs={outputs}"], capture_output=True, text=True, cwd=PROJECT_ROOT)
    assert report.returncode == 0, report.stderr
    folder = outputs / "report" / report.stdout.strip().splitlines()[-1].rsplit("/", 1)[1]
    text = (folder / "report.md").read_text()
    game = builtin_game("mini_nerdle")
    rows = [line.strip("| ").split(" | ") for line in text.splitlines()
            if line.startswith("| 1 |") or line.startswith("| 2 |")]
    # paper's n = 1 beside ours; Markdown writes the * of 4*7=28 as \* (pipeline/artifacts/markdown.py)
    assert [r[:4] for r in rows] == [["1", "1", "544", "4\\*7=28"], ["2", "2", "", ""]]
    # our columns: Mini Nerdle's optimum is 544 (proven), and ApMinTotal(S, 2) <= ApMinTotal(S, 1) = 544
    assert [(r[4], r[5]) for r in rows] == [("544", "4\\*7=28"), ("544", "4\\*7=28")]
    for folder_ub in (p for p in (outputs / "upper_bound").iterdir() if not p.name.startswith(".")):
        tree = from_json(json.loads((folder_ub / "tree.json").read_text())["tree"])
        assert verify(tree, game.guesses, game.secrets) == 544  # the report's total is the tree's replayed total
    assert "- lower_bound: `python -m pipeline stage=lower_bound game=mini_nerdle`" in text  # missing, not faked
    assert (folder / "tree_distribution.png").stat().st_size > 1000 and (folder / "opener_totals.png").is_file()
    assert not (folder / "funnel.png").exists()


def test_the_upper_bound_table_is_by_n_whatever_order_the_runs_finished_in(tmp_path):
    """A sweep's points finish in any order (they run side by side): the table lists them by n."""
    from pipeline.stages.report import SUMMARY_FILES, upper_bound_section

    found = []
    for breadth in (3, 1, 2):
        folder = tmp_path / f"n{breadth}"
        folder.mkdir()
        (folder / SUMMARY_FILES["upper_bound"].name).write_text(json.dumps(
            {"breadth": breadth, "openers_tried": 4, "ub": 550 - breadth, "opener": "4*7=28", "max_guesses": 6}))
        found.append({"path": folder, "run_seconds": 1.0, "fan_out": {"task_seconds": 2.0}})
    text = upper_bound_section(found, builtin_game("mini_nerdle"))
    assert [line.split(" | ")[0] for line in text.splitlines() if line.startswith("| ") and "n |" not in line
            and "---" not in line] == ["| 1", "| 2", "| 3"]
