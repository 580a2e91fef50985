"""Executors: in-process and Ray give the same results and bookkeeping, resume from shards, and `auto`
keeps small work (one task, or work called small while Ray is closed) out of Ray."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.config import RayConfig
from pipeline.errors import PipelineError
from pipeline.runtime import executors
from pipeline.runtime.executors import InProcessExecutor, RayExecutor, choose_executor
from pipeline.runtime.fanout import FanOutStats, load_done, save_shard

ITEMS = [3, 1, 4, 1, 5, 9, 2, 6]
WEIGHTS = np.array([2, 7, 1], dtype=np.int64)


def weighted(item, weights, offset):
    """A toy task using shared values: item * sum(weights) + offset, plus the item's own array."""
    return int(item * weights.sum() + offset), np.full(item, item, dtype=np.int32)


def reference(item):
    return item * 10 + 100, np.full(item, item, dtype=np.int32)


def fails_on_five(item, weights, offset):
    if item == 5:
        raise RuntimeError("task failed")
    return weighted(item, weights, offset)


def writes_shared(item, weights, offset):
    weights[0] = item
    return item


def assert_same_results(got, items):
    assert len(got) == len(items)
    for (value, array), item in zip(got, items):
        want_value, want_array = reference(item)
        assert value == want_value
        assert np.array_equal(array, want_array)


@pytest.fixture
def ray_tasks(ray_session):
    """Ray with this module's toy tasks sent by value (workers cannot import a test module)."""
    from ray import cloudpickle

    module = sys.modules[__name__]
    cloudpickle.register_pickle_by_value(module)
    yield
    cloudpickle.unregister_pickle_by_value(module)


def both_executors():
    return [InProcessExecutor(), RayExecutor(max_in_flight=3)]


def test_both_executors_give_the_same_results_and_stats_shape(ray_tasks):
    shapes = []
    for executor in both_executors():
        stats = FanOutStats()
        got = executor.map(weighted, ITEMS, (WEIGHTS, 100), label="toy", progress=False, stats=stats)
        assert_same_results(got, ITEMS)
        record = stats.as_dict()
        assert (record["tasks"], record["resumed"], record["executors"]) == (len(ITEMS), 0, [executor.name])
        assert len(record["nodes"]) == 1 and record["task_seconds"] >= 0
        (round_,) = record["rounds"]
        assert (round_["label"], round_["executor"], round_["tasks"]) == ("toy", executor.name, len(ITEMS))
        assert round_["longest_task"] <= round_["task_seconds"] <= record["task_seconds"] + 1e-3
        shapes.append((sorted(record), sorted(round_)))
    assert shapes[0] == shapes[1]
    assert [e.name for e in both_executors()] == ["local", "ray"]


def test_both_executors_resume_from_shards_without_rerunning_them(ray_tasks, tmp_path):
    for executor in both_executors():
        shards = tmp_path / executor.name
        kept = {1: ("kept-1", None), 6: ("kept-6", None)}  # not what the task computes: proves no rerun
        for i, result in kept.items():
            save_shard(shards, i, result)
        stats = FanOutStats()
        got = executor.map(weighted, ITEMS, (WEIGHTS, 100), label="toy", shard_dir=shards, progress=False,
                           stats=stats)
        assert [got[i] for i in kept] == list(kept.values())
        fresh = [i for i in range(len(ITEMS)) if i not in kept]
        assert_same_results([got[i] for i in fresh], [ITEMS[i] for i in fresh])
        assert (stats.tasks, stats.resumed, stats.rounds[0]["tasks"]) == (len(ITEMS), 2, len(ITEMS) - 2)
        assert sorted(load_done(shards, len(ITEMS))) == list(range(len(ITEMS)))  # every result now on disk


def test_in_process_run_interrupted_by_a_failure_resumes_after_it(tmp_path):
    executor = InProcessExecutor()
    with pytest.raises(RuntimeError, match="task failed"):
        executor.map(fails_on_five, ITEMS, (WEIGHTS, 100), label="toy", shard_dir=tmp_path, progress=False)
    assert sorted(load_done(tmp_path, len(ITEMS))) == [0, 1, 2, 3]  # items before the failing one
    stats = FanOutStats()
    got = executor.map(weighted, ITEMS, (WEIGHTS, 100), label="toy", shard_dir=tmp_path, progress=False,
                       stats=stats)
    assert_same_results(got, ITEMS)
    assert stats.resumed == 4


def test_in_process_tasks_see_shared_arrays_read_only_like_ray_tasks():
    weights = WEIGHTS.copy()
    with pytest.raises(ValueError, match="read-only"):
        InProcessExecutor().map(writes_shared, [1], (weights, 0), label="toy", progress=False)
    assert weights.flags.writeable and list(weights) == [2, 7, 1]  # the caller's array is untouched


@pytest.mark.parametrize("settings, n_items, small, ray_open, expected", [
    ({}, 1, False, False, "local"),  # one task never starts Ray
    ({}, 1, False, True, "local"),
    ({}, 8, True, False, "local"),  # small work while Ray is closed
    ({}, 8, True, True, "ray"),  # small work, but Ray is already open: use it
    ({}, 8, False, False, "ray"),
    ({"executor": "ray"}, 1, True, False, "ray"),
    ({"executor": "local"}, 8, False, True, "local"),
    ({"address": "auto"}, 1, True, False, "ray"),  # a cluster address always means Ray
    ({"address": "10.0.0.1:6379"}, 1, True, False, "ray"),
])
def test_auto_chooses_by_config_and_size(monkeypatch, settings, n_items, small, ray_open, expected):
    monkeypatch.setattr(executors, "ray_running", lambda: ray_open)
    cfg = RayConfig(**settings)
    executor = choose_executor(cfg, n_items, small=small, num_cpus=2)
    assert executor.name == expected
    if expected == "ray":
        assert (executor.cfg, executor.num_cpus, executor.max_in_flight) == (cfg, 2, cfg.max_in_flight)


@pytest.mark.parametrize("settings, message", [
    ({"executor": "sometimes"}, "ray.executor must be auto, local or ray"),
    ({"executor": "local", "address": "auto"}, "cannot use ray.address=auto"),
])
def test_contradictory_executor_settings_are_refused(settings, message):
    with pytest.raises(PipelineError, match=message):
        RayConfig(**settings)


def test_bad_executor_on_the_command_line_is_one_error_line(compose_config, capsys):
    with pytest.raises(SystemExit) as exit_:
        compose_config("ray.executor=sometimes")
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: ray.executor must be auto, local or ray, not 'sometimes'"]


RUN_WITHOUT_RAY = """
import sys
from pipeline.commands import main
main(sys.argv[1:])
ray = sys.modules.get("ray")
print("ray started:", ray is not None and ray.is_initialized())
"""


def test_a_one_opener_exact_run_never_starts_ray(tmp_path):
    args = ["stage=exact", "game=mini_nerdle", "stage.openers=['10-2=8']", f"paths.outputs={tmp_path}",
            "progress=false"]
    proc = subprocess.run([sys.executable, "-c", RUN_WITHOUT_RAY, *args], capture_output=True, text=True,
                          timeout=600)
    assert proc.returncode == 0, proc.stderr
    *_, folder, verdict = proc.stdout.strip().splitlines()
    assert verdict == "ray started: False"
    for stage in ("feedback", "exact"):  # the feedback input was built in-process too
        (manifest,) = (tmp_path / stage).glob("*/manifest.json")
        fan_out = json.loads(manifest.read_text())["fan_out"]
        assert fan_out["executors"] == ["local"] and [r["executor"] for r in fan_out["rounds"]] == ["local"]
    assert Path(folder) == manifest.parent
