"""upper_bound deals its openers into a few tasks per cluster CPU (runtime/policy.py's batch_count and deal)
instead of one task per opener; every opener keeps a search of its own, so the artifact is the same bytes
whatever the split: 1 CPU or many, batched or one opener per task.  Runs in-process (ray.executor=local)."""

import pytest

from pipeline.stages import upper_bound
from pipeline.config.stages import UpperBoundConfig

RESULT_FILES = ("openers.parquet", "summary.json", "tree.json", "tree.txt")
TOP_K = 12  # openers tried: enough for batches of several openers on one CPU


def test_opener_batches_cover_every_opener_once_a_few_per_cpu_and_never_above_batch_size():
    cfg = UpperBoundConfig()
    one_cpu = upper_bound.opener_batches(12, cfg, cluster_cpus=1)
    assert one_cpu == [[0, 4, 8], [1, 5, 9], [2, 6, 10], [3, 7, 11]]  # 4 per CPU, dealt round-robin
    assert upper_bound.opener_batches(12, cfg, cluster_cpus=64) == [[i] for i in range(12)]  # never an empty task
    assert upper_bound.opener_batches(10, cfg, cluster_cpus=2) == [[0, 8], [1, 9]] + [[i] for i in range(2, 8)]
    capped = upper_bound.opener_batches(1000, UpperBoundConfig(batch_size=30), cluster_cpus=2)
    assert len(capped) == 34 and max(map(len, capped)) == 30  # 8 wanted, but at most 30 openers per task
    assert sorted(i for b in capped for i in b) == list(range(1000))
    assert upper_bound.opener_batches(0, cfg, cluster_cpus=4) == []


def _artifact_bytes(tmp_path, monkeypatch, name, cpus, *overrides):
    """The result files' bytes of upper_bound on Mini Nerdle with the fan-out sized for `cpus` CPUs, and the
    number of tasks it ran."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.base import StageContext
    from pipeline.stages.runner import run_stage

    monkeypatch.setattr(StageContext, "cluster_cpus", lambda self: cpus)  # whatever Ray this process has open
    outputs = tmp_path / name
    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "ray.executor=local", "game=mini_nerdle",
                          "stage=upper_bound", f"stage.top_k={TOP_K}", *overrides])
    artifact = run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(outputs))
    rounds = [r for r in artifact.manifest["fan_out"]["rounds"] if r["label"] == upper_bound.NAME]
    return {f: artifact.file(f).read_bytes() for f in RESULT_FILES} | {"key": artifact.key}, rounds[0]["tasks"]


@pytest.mark.parametrize("objective", ["total", "max_then_total"])
def test_the_artifact_is_the_same_bytes_for_one_cpu_many_cpus_and_one_opener_per_task(tmp_path, monkeypatch,
                                                                                     objective):
    runs = {"one_cpu": (1, ()), "many_cpus": (64, ()), "unbatched": (1, ("stage.batch_size=1",))}
    made = {name: _artifact_bytes(tmp_path, monkeypatch, name, cpus, f"stage.objective={objective}", *extra)
            for name, (cpus, extra) in runs.items()}
    assert {name: tasks for name, (_, tasks) in made.items()} == {"one_cpu": 4, "many_cpus": TOP_K,
                                                                 "unbatched": TOP_K}
    files = {name: content for name, (content, _) in made.items()}
    assert files["one_cpu"] == files["many_cpus"] == files["unbatched"]  # the key too: stage.batch_size is sizing
    assert b'"memo"' in files["one_cpu"]["summary.json"]  # the memo counters too: no memo shared by a batch
