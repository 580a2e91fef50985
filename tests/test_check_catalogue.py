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


def test_a_resumed_run_keeps_the_archives_checked_ok_and_saves_after_each_other(tmp_path):
    """The earlier run's ok archive is not checked again (its record kept as written), its failed one is; the
    result so far is saved after every archive, `complete` only with the last."""
    names = ["kept.tar.gz", "failed_before.tar.gz", "new.tar.gz"]
    paths = [tmp_path / name for name in names]
    for path in paths:
        path.write_bytes(b"not a gzip archive")
    kept = {"wall_s": 1.5, "cpu_s": 2.5, "ok": True, "verdict": "ok: certificate verified (an earlier sitting)"}
    earlier = {"bundles": {"kept.tar.gz": kept, "failed_before.tar.gz": {"wall_s": 0.1, "cpu_s": 0.1, "ok": False}},
               "load": {"before": [9.0, 9.0, 9.0]}}
    saved = []
    result = load_benchmark("check_catalogue").measure(paths, workers=1, earlier=earlier, save=saved.append)
    assert list(result["bundles"]) == names and result["bundles"]["kept.tar.gz"] == kept
    assert all(result["bundles"][n]["returncode"] == 2 for n in names[1:])  # both checked now, both fail
    assert [s["complete"] for s in saved] == [False, True] and [len(s["bundles"]) for s in saved] == [2, 3]
    assert result["complete"] is True and result["load"]["before"] == [9.0, 9.0, 9.0]
    assert result["total"]["wall_s"] == round(1.5 + sum(result["bundles"][n]["wall_s"] for n in names[1:]), 1)


def test_a_resume_of_another_commit_or_worker_count_is_refused(tmp_path):
    bench = load_benchmark("check_catalogue")
    out = tmp_path / "check.json"
    assert bench.earlier_run(out, workers=2) is None  # nothing to resume: a fresh run
    here = bench.commit()
    out.write_text(json.dumps({"bundles": {}, "workers": 2, **here}))
    assert bench.earlier_run(out, workers=2)["bundles"] == {}
    with pytest.raises(ValueError, match="resume only the same run"):
        bench.earlier_run(out, workers=1)
    out.write_text(json.dumps({"bundles": {}, "workers": 2, "commit": "0000000", "clean": True}))
    with pytest.raises(ValueError, match="made by commit 0000000"):
        bench.earlier_run(out, workers=2)
    out.write_text("[]")
    with pytest.raises(ValueError, match="not a run of this script"):
        bench.earlier_run(out, workers=2)
    done = run_script("--resume", timeout=60)
    assert done.returncode == 2 and "error: --resume goes on from the file of --out" in done.stderr


@pytest.mark.slow
def test_the_archive_being_checked_is_saved_as_in_progress_with_its_time_so_far(monkeypatch):
    """While a check runs, the run so far is saved with `in_progress`: the archive, the wall and the CPU of the
    check's processes (read from /proc) so far, rising; the last save, once it is checked, has none."""
    bench = load_benchmark("check_catalogue")
    monkeypatch.setattr(bench, "HEARTBEAT_SECONDS", 0.2)
    path = PROJECT_ROOT / "catalogue" / "mastermind-normal-g4.tar.gz"
    saved = []
    result = bench.measure([path], workers=1, save=saved.append)
    beats = [s["in_progress"] for s in saved if "in_progress" in s]
    assert len(beats) >= 3 and {b["archive"] for b in beats} == {path.name} and {b["sittings"] for b in beats} == {1}
    assert [b["wall_s"] for b in beats] == sorted(b["wall_s"] for b in beats)
    assert 0 < beats[-1]["cpu_s"] <= result["bundles"][path.name]["cpu_s"] + 0.5
    assert beats[-1]["wall_s"] <= result["bundles"][path.name]["wall_s"]
    assert "in_progress" not in saved[-1] and saved[-1]["complete"] is True


def test_a_check_stopped_with_its_run_adds_its_earlier_sittings(tmp_path):
    """A resumed run checks the archive an earlier sitting was checking (its journal spares the work done) and adds
    that sitting's wall and CPU to its own; an in_progress record of another archive adds nothing."""
    paths = [tmp_path / name for name in ("stopped.tar.gz", "other.tar.gz")]
    for path in paths:
        path.write_bytes(b"not a gzip archive")
    earlier = {"bundles": {}, "in_progress": {"archive": "stopped.tar.gz", "wall_s": 100.0, "cpu_s": 150.0,
                                              "sittings": 2}}
    result = load_benchmark("check_catalogue").measure(paths, workers=1, earlier=earlier)
    stopped, other = (result["bundles"][path.name] for path in paths)
    assert stopped["sittings"] == 3 and "sittings" not in other
    assert 100.0 < stopped["wall_s"] < 100.0 + 60 and 150.0 < stopped["cpu_s"] < 150.0 + 60
    assert other["wall_s"] < 60 and other["cpu_s"] < 60
