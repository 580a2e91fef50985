"""Executors: in-process and Ray give the same results and bookkeeping, resume from shards, and `auto`
keeps small work (one task, or work called small while Ray is closed) out of Ray."""

import dataclasses
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from pipeline.config.settings import RayConfig
from pipeline import PipelineError
from pipeline.runtime import codec, executors, policy
from pipeline.runtime.executors import InProcessExecutor, RayExecutor, choose_executor
from pipeline.runtime.shards import FanOutStats, load_done, save_shard

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


def sleeps(item, seconds):
    import time

    time.sleep(seconds)
    return item + 1


@pytest.mark.parametrize("executor", ["local", "ray"])
def test_a_heartbeat_line_comes_while_a_task_sleeps_in_either_executor(ray_tasks, tmp_path, monkeypatch, executor):
    from pipeline.runtime import progress
    from pipeline.runtime.log import log_to_file

    monkeypatch.setattr(progress, "HEARTBEAT_SECONDS", 0.05)
    monkeypatch.setattr(sys, "stderr", io.StringIO())  # piped
    run = InProcessExecutor() if executor == "local" else RayExecutor()
    with log_to_file(tmp_path / "stage.log"):
        got = run.map(sleeps, [1, 2], (0.6,), label="nap", progress=True)
    assert got == [2, 3]
    text = (tmp_path / "stage.log").read_text()
    assert "nap: still working after " in text and ", 0/2 done (0%), none finished for " in text


def test_results_finishing_together_share_a_shard_and_resume_alike(tmp_path):
    from pipeline.runtime.shards import save_shards

    save_shards(tmp_path, {4: ("four", None), 2: ("two", None), 9: np.arange(3)})
    save_shards(tmp_path, {5: "five"})
    assert sorted(p.name for p in tmp_path.iterdir()) == ["000002+3.shard.npz", "000005.shard.npz", "index.txt"]
    back = load_done(tmp_path, 10)
    assert sorted(back) == [2, 4, 5, 9] and back[4] == ("four", None) and back[5] == "five"
    assert back[9].tolist() == [0, 1, 2]
    assert sorted(load_done(tmp_path, 9)) == [5]  # a batch holding an item past the end is not trusted


def test_a_batch_shard_whose_name_lies_is_not_trusted(tmp_path, caplog):
    from pipeline.runtime.shards import save_shards

    save_shards(tmp_path, {0: "a", 1: "b"})
    (tmp_path / "000000+2.shard.npz").rename(tmp_path / "000000+3.shard.npz")  # its index line stays "000000+2"
    assert load_done(tmp_path, 5) == {}
    assert "is not in the shard index" in caplog.text


def test_shards_of_another_split_of_the_work_are_dropped_not_misread(tmp_path, caplog):
    first = [np.array([0, 2]), np.array([1, 3])]  # a level dealt into 2 batches ...
    InProcessExecutor().map(np.sum, first, label="toy", shard_dir=tmp_path, progress=False)
    again = [np.array([0, 2]), np.array([1, 3])]
    stats = FanOutStats()
    assert InProcessExecutor().map(np.sum, again, label="toy", shard_dir=tmp_path, progress=False,
                                   stats=stats) == [2, 4]
    assert stats.resumed == 2  # the same items: every shard used
    other = [np.array([0, 3]), np.array([1]), np.array([2])]  # ... and into 3 on a bigger cluster
    stats = FanOutStats()
    assert InProcessExecutor().map(np.sum, other, label="toy", shard_dir=tmp_path, progress=False,
                                   stats=stats) == [3, 1, 2]
    assert stats.resumed == 0 and "answer another split of the work" in caplog.text


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


def test_bad_executor_on_the_command_line_is_one_error_line(tmp_path, capsys):
    from pipeline.app.commands import main as command_line

    with pytest.raises(SystemExit) as exit_:
        command_line(["stage=feedback", "game=mini_nerdle", "ray.executor=sometimes", f"paths.outputs={tmp_path}"])
    assert exit_.value.code == 2
    assert capsys.readouterr().err.strip().splitlines() == [
        "error: ray.executor must be auto, local or ray, not 'sometimes'"]


RUN_WITHOUT_RAY = """
import sys
from pipeline.app.commands import main
main(sys.argv[1:])
ray = sys.modules.get("ray")
print("ray started:", ray is not None and ray.is_initialized())
"""


@pytest.mark.slow
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


# ---- shards: a typed codec, never pickle ----------------------------------------------------------------------


def same_value(a, b) -> bool:
    """Deep equality that also checks types and dtypes (a tuple is not a list, int64 is not int32)."""
    if type(a) is not type(b):
        return False
    if isinstance(a, np.ndarray):
        return a.dtype == b.dtype and a.shape == b.shape and np.array_equal(a, b)
    if isinstance(a, np.generic):
        return a.dtype == b.dtype and a == b
    if isinstance(a, (list, tuple)):
        return len(a) == len(b) and all(same_value(x, y) for x, y in zip(a, b))
    if isinstance(a, dict):
        return list(a) == list(b) and all(same_value(a[k], b[k]) for k in a)
    if dataclasses.is_dataclass(a):
        return all(same_value(getattr(a, f.name), getattr(b, f.name)) for f in dataclasses.fields(a))
    return a == b or (a != a and b != b)  # NaN equals NaN here


def rich_result():
    from pipeline.search.apmintotal.value import ApResult

    tree = (12, {3: (7, {}), 80: (1, {5: (2, {})})})  # an exact solver's tree: int keys
    ap = ApResult(breadth=10, total=7920, opener=5, node_guess=np.arange(4, dtype=np.int32),
                  node_parent=np.array([-1, 0, 0, 1]), node_code=np.zeros(4, np.uint8),
                  node_size=np.array([9, 4, 4, 1], np.int64), stats={"memo": 5126, "seconds": 8.5})
    return [None, True, 7, -2**70, 2.5, float("inf"), float("nan"), "salet", (np.int64(7920), "exact"), tree,
            {(1, 2): "tuple key", 3: None}, np.array(3.5, dtype=np.float32), np.array(["ab", "c"]),
            np.zeros((0, 3), dtype=np.uint16), np.arange(6, dtype=np.int8).reshape(2, 3)[:, ::2], ap,
            {"valuation": "Information", "total": None, "feasible": False}, np.bool_(True)]


def test_shards_keep_every_result_type_exactly(tmp_path):
    value = rich_result()
    save_shard(tmp_path, 3, value)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["000003.shard.npz", "index.txt"]  # no temp file, no pickle
    back = load_done(tmp_path, 10)
    assert list(back) == [3]
    assert same_value(back[3], value)
    assert not same_value(back[3][8], [np.int64(7920), "exact"])  # the reference does see a list for a tuple


@pytest.mark.parametrize("value, message", [
    ({1, 2}, "result: a shard cannot store a builtins.set"),
    ([1, np.array([object()], dtype=object)], r"result\[1\]: a shard stores no object arrays"),
    ({"f": len}, r"result\['f'\]: a shard cannot store"),
    (np.zeros(2, dtype=[("a", "i4")]), "a shard stores no"),
])
def test_shards_refuse_what_the_codec_does_not_store(tmp_path, value, message):
    with pytest.raises(codec.CodecError, match=message):
        save_shard(tmp_path, 0, value)
    assert not tmp_path.exists() or not list(tmp_path.iterdir())  # nothing half-written


@dataclasses.dataclass
class Outsider:
    x: int


def test_a_dataclass_outside_the_package_is_refused(tmp_path):
    with pytest.raises(codec.CodecError, match="only this package's dataclasses"):
        save_shard(tmp_path, 0, Outsider(1))


class Planted:
    """What an attacker would plant: unpickling it runs code (touches a file)."""

    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (Path.touch, (Path(self.marker),))


def test_planted_shards_never_run_code_and_their_tasks_rerun(tmp_path, caplog):
    import io
    import pickle

    marker = tmp_path / "ran"
    shards = tmp_path / "shards"
    shards.mkdir()
    payload = pickle.dumps(Planted(marker))
    (shards / "000000.pkl").write_bytes(payload)  # the old format, with its done-marker: ignored
    (shards / "000000.done").touch()
    (shards / "000001.shard.npz").write_bytes(payload)  # a pickle under the new name
    buffer = io.BytesIO()
    np.savez(buffer, doc=np.frombuffer(b'{"format": 1, "value": {"array": 0}}', np.uint8),
             a0=np.array([Planted(marker)], dtype=object))  # an npz holding a pickled object array
    (shards / "000002.shard.npz").write_bytes(buffer.getvalue())
    doc = b'{"format": 1, "value": {"dataclass": ["subprocess:Popen", {"args": "true"}]}}'
    buffer = io.BytesIO()
    np.savez(buffer, doc=np.frombuffer(doc, np.uint8))
    (shards / "000003.shard.npz").write_bytes(buffer.getvalue())
    save_shard(shards, 4, ("kept", 4))
    assert load_done(shards, 8) == {4: ("kept", 4)}
    assert not marker.exists()
    assert sum("is not in the shard index" in r.getMessage() for r in caplog.records) == 3
    got = InProcessExecutor().map(weighted, ITEMS, (WEIGHTS, 100), label="toy", shard_dir=shards, progress=False)
    assert got[4] == ("kept", 4) and not marker.exists()
    assert_same_results(got[:4] + got[5:], ITEMS[:4] + ITEMS[5:])


# ---- the scheduling policy: sized to the cluster, replayable -----------------------------------------------------


@pytest.mark.parametrize("durations, cores, in_flight, order, want", [
    ([3, 3, 2, 2, 2], 2, 4, None, 7),  # A: 3,2,2  B: 3,2
    ([3, 3, 2, 2, 2], 2, 1, None, 12),  # one in flight: one after another
    ([3, 3, 2, 2, 2], 8, 16, None, 3),  # more cores than tasks: the longest task
    ([1, 1, 1, 1, 4], 2, 4, None, 6),  # the long task submitted last ends late ...
    ([1, 1, 1, 1, 4], 2, 4, [4, 0, 1, 2, 3], 4),  # ... first, it overlaps the rest
    ([], 4, 8, None, 0),
])
def test_makespan_of_the_policy_matches_hand_schedules(durations, cores, in_flight, order, want):
    assert policy.makespan(durations, cores, in_flight, order) == want


def test_the_policy_sizes_work_to_the_cluster():
    assert [policy.in_flight_limit(c) for c in (1, 2, 64, 512)] == [2, 4, 128, 1024]
    assert policy.in_flight_limit(64, task_cpus=4) == 32 and policy.in_flight_limit(64, override=16) == 16
    assert policy.in_flight_limit(0) == 2  # a head with --num-cpus=0 and no workers yet still submits
    assert [policy.batch_count(12972, c) for c in (2, 64, 512)] == [8, 256, 2048]
    assert policy.batch_count(138, 512) == 138  # never more batches than openers
    assert policy.batch_count(12972, 2, max_batch=1000) == 13 and policy.batch_count(50, 2, override=3) == 3
    assert policy.split_sizes(10, 4) == [3, 3, 2, 2] == [len(b) for b in policy.deal(list(range(10)), 4)]


@pytest.mark.parametrize("n, cpus, override, max_batch", [(10, 1, None, 2000), (12972, 2, None, 2000),
                                                           (138, 64, None, 2000), (100, 2, 7, 2000), (9000, 1, 2, 1000)])
def test_lower_bound_batches_cover_every_opener_once(n, cpus, override, max_batch):
    from pipeline.stages.lower_bound import batches
    from pipeline.config.stages import LowerBoundConfig

    openers = np.arange(100, 100 + n, dtype=np.int32)
    parts = batches(openers, LowerBoundConfig(batches_per_level=override, max_batch=max_batch), cpus)
    assert np.array_equal(np.sort(np.concatenate(parts)), openers)
    sizes = [len(p) for p in parts]
    want = override if override else 4 * cpus
    assert len(parts) == min(n, max(want, -(-n // max_batch)))
    assert max(sizes) <= max_batch and max(sizes) - min(sizes) <= 1 and sizes == sorted(sizes, reverse=True)


def test_ray_rounds_record_the_policy_and_every_task_duration(ray_tasks):
    stats = FanOutStats()
    RayExecutor().map(weighted, ITEMS, (WEIGHTS, 100), label="toy", progress=False, stats=stats)
    (round_,) = stats.rounds
    assert (round_["cluster_cpus"], round_["task_cpus"], round_["max_in_flight"]) == (2, 1, 4)  # 2 x 2 CPUs
    assert round_["in_flight_limits"] == [4] and round_["ray_tasks"] >= 1
    assert len(round_["durations"]) == len(ITEMS) and round_["units"] == [1] * len(ITEMS)
    assert max(round_["durations"]) == pytest.approx(round_["longest_task"], abs=1e-4)


def test_chunk_size_packs_only_items_far_cheaper_than_a_ray_task():
    assert policy.chunk_size(None, 10_000, 2) == 1  # no cost known yet
    assert policy.chunk_size(policy.CHUNK_SECONDS, 10_000, 2) == 1  # every stage's tasks: one item each
    assert policy.chunk_size(policy.CHUNK_SECONDS / 10, 10_000, 2) == 10  # about CHUNK_SECONDS per Ray task
    assert policy.chunk_size(1e-6, 10_000, 2) == policy.MAX_CHUNK
    assert policy.chunk_size(1e-6, 400, 2) == 50  # 4 Ray tasks per slot left for the rest: the end stays even
    assert policy.chunk_size(1e-6, 5, 2) == 1


def test_cheap_items_share_ray_tasks_and_keep_their_order_and_timings(ray_tasks, tmp_path):
    items = list(range(3000))
    stats = FanOutStats()
    got = RayExecutor().map(abs, items, label="cheap", shard_dir=tmp_path, progress=False, stats=stats)
    assert got == items
    (round_,) = stats.rounds
    assert round_["ray_tasks"] < len(items) / 10 and len(round_["durations"]) == len(items)
    assert len(list(tmp_path.glob("*.shard.npz"))) < len(items) / 10  # results that finished together: one shard
    assert load_done(tmp_path, len(items)) == dict(enumerate(items))


def big_sum(item, big):
    return int(big[item])


def matrix_entry(item, matrix):
    return int(matrix.codes[item, item]), matrix.codes.flags.writeable


def test_a_big_shared_array_is_put_once_for_every_round(ray_tasks, monkeypatch):
    import ray

    big = np.arange(1 << 18, dtype=np.int64)  # 2 MB: above PUT_ONCE_BYTES
    puts = []
    real_put = ray.put
    monkeypatch.setattr(ray, "put", lambda value: puts.append(type(value).__name__) or real_put(value))
    for level in range(3):  # three funnel levels sharing one matrix
        assert RayExecutor().map(big_sum, [1, 2], (big,), label=f"V{level}", progress=False) == [1, 2]
    assert puts == ["ndarray"]


def test_a_big_search_matrix_is_put_once_and_reaches_the_tasks_read_only(ray_tasks, monkeypatch):
    """A Matrix (search/matrix.py) says how big it is: one put for every round, like a big array."""
    import ray

    from pipeline.search.matrix import Matrix

    codes = np.arange(1 << 21, dtype=np.uint8).reshape(1 << 11, 1 << 10)  # 2 MB
    matrix = Matrix(codes, np.full(codes.shape[0], -1, dtype=np.int32), 243)
    puts = []
    real_put = ray.put
    monkeypatch.setattr(ray, "put", lambda value: puts.append(type(value).__name__) or real_put(value))
    for level in range(3):
        assert RayExecutor().map(matrix_entry, [1, 2], (matrix,), label=f"V{level}", progress=False) == [
            (1, False), (2, False)]  # codes[g, g] = (1024 g + g) mod 256
    assert puts == ["Matrix"]


def test_a_task_declaring_more_memory_than_any_node_is_refused_at_once(ray_tasks):
    with pytest.raises(PipelineError, match="lower ray.task_memory_mb"):
        RayExecutor(memory=1 << 50).map(weighted, ITEMS, (WEIGHTS, 100), label="toy", progress=False)


def load_scaling():
    from benchmark_module import load_benchmark

    return load_benchmark("scaling")


def test_scaling_replays_a_recorded_round_as_run_and_rebatched():
    scaling = load_scaling()
    # a funnel level recorded as 2 batches of 3 openers on 2 CPUs; set-up 1 s per task
    round_ = {"label": "lower_bound-V5", "executor": "ray", "cluster_cpus": 2.0, "task_cpus": 1.0, "max_in_flight": 4,
              "durations": [8.0, 5.0], "cpu_seconds": [7.0, 4.0], "units": [3, 3]}
    assert scaling.round_wall(round_, None, 0.0, 2000, 1.0) == 8.0  # as run: wall seconds, two cores
    # on 64 cores: 6 batches of one opener, each 1 s set-up + 2 s (first three) or 1 s (last three)
    assert scaling.rebatched(round_, 64, 2000, 1.0) == [3.0, 3.0, 3.0, 2.0, 2.0, 2.0]
    assert scaling.round_wall(round_, 64, 0.0, 2000, 1.0) == 3.0
    # on 1 core: 4 batches (sizes 2, 2, 1, 1) one after another: 4 set-ups + 9 s of openers
    assert scaling.round_wall(round_, 1, 0.0, 2000, 1.0) == 13.0


def test_the_runtime_stands_apart_from_the_games_the_maths_and_the_stages():
    """runtime/ imports nothing from games/, search/ or stages/ and its shards import no executor; search/
    imports nothing from runtime/; no stage reaches for the Ray session (the context sizes its batches)."""
    import ast

    from pipeline.config.settings import PROJECT_ROOT

    package = PROJECT_ROOT / "pipeline"

    def imported(path):
        names = set()
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, ast.ImportFrom) and node.module:
                names |= {node.module} | {f"{node.module}.{a.name}" for a in node.names}
            elif isinstance(node, ast.Import):
                names |= {a.name for a in node.names}
        return names

    def uses(folder, prefixes):
        return {(p.name, n) for p in (package / folder).glob("*.py") for n in imported(p)
                if any(n == x or n.startswith(x + ".") for x in prefixes)}

    assert uses("runtime", ["pipeline.games", "pipeline.search", "pipeline.stages"]) == set()
    assert not {n for n in imported(package / "runtime" / "shards.py") if "executors" in n}
    assert uses("search", ["pipeline.runtime"]) == set()
    # the plan check (stages/preflight.py) asks ray_session about Ray's settings; no stage does
    assert {u for u in uses("stages", ["pipeline.runtime.ray_session"]) if u[0] != "preflight.py"} == set()
