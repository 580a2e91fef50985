"""benchmarks/check_catalogue.py: the full check of committed archives, its JSON's shape and verdicts (never its
timings)."""

import json
import subprocess
import sys

import pytest

from pipeline.config.settings import PROJECT_ROOT
from tests.benchmark_module import load_benchmark

SCRIPT = PROJECT_ROOT / "benchmarks" / "check_catalogue.py"


def run_script(*args, timeout=900):
    return subprocess.run([sys.executable, str(SCRIPT), *args], capture_output=True, text=True, cwd=PROJECT_ROOT,
                          timeout=timeout)


@pytest.mark.slow
def test_one_archive_is_checked_in_full_and_reported_as_json(tmp_path):
    """An infeasible limit (five witnesses, a few seconds): the script runs verify-certificate alike for every
    archive, and the full check of an optimal proof's archive (mini_nerdle's) is tests/test_committed_catalogue.py's."""
    name = "mastermind-normal-g4.tar.gz"
    out = tmp_path / "check.json"
    done = run_script("--only", name.removesuffix(".tar.gz"), "--workers", "1", "--out", str(out))
    assert done.returncode == 0, done.stderr
    result = json.loads(done.stdout)
    assert json.loads(out.read_text()) == result
    assert list(result["bundles"]) == [name]
    bundle = result["bundles"][name]
    assert bundle["ok"] is True and bundle["verdict"].startswith("ok: certificate verified")
    assert "sample" not in bundle["verdict"]  # the full check
    assert all(isinstance(bundle[k], float) and bundle[k] >= 0 for k in ("wall_s", "cpu_s"))
    assert result["total"] == {"wall_s": bundle["wall_s"], "cpu_s": bundle["cpu_s"], "ok": True}
    assert result["workers"] == 1
    assert all(len(result["load"][k]) == 3 for k in ("before", "after"))
    head = subprocess.run(["git", "-C", str(PROJECT_ROOT), "rev-parse", "--short", "HEAD"], capture_output=True,
                          text=True).stdout.strip()
    assert result["commit"] == (head or None)


def test_a_damaged_archive_is_reported_not_ok(tmp_path):
    damaged = tmp_path / "damaged.tar.gz"
    damaged.write_bytes(b"not a gzip archive")
    bench = load_benchmark("check_catalogue")
    result = bench.measure([damaged], workers=1)
    bundle = result["bundles"]["damaged.tar.gz"]
    assert bundle["ok"] is False and result["total"]["ok"] is False
    assert bundle["returncode"] == 2 and bundle["stderr_tail"][-1].startswith("error:")


def test_an_unknown_archive_name_is_refused():
    done = run_script("--only", "no_such_game-normal-g6", timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert "error: no archive no_such_game-normal-g6.tar.gz under" in done.stderr
    assert "mini_nerdle-normal-g6.tar.gz" in done.stderr  # the archives there are named
