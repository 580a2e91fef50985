"""Driver cost per task: 10,000 no-op tasks through the project's `fan_out` on the embedded Ray, with shards
kept as stages keep them (a shard folder, one shard and one index line per result), so what is measured is
what the driver itself spends on a task: submitting it, waiting for it, fetching its result, writing its shard.

Prints one JSON object: the wall and the driver process's CPU time per task (ms) for a fan-out with shards,
one without, and one with shards but every item in a Ray task of its own (no chunking: the cost per Ray
task, what a stage's fan-out pays), and the goal (0.5 ms per task).  The driver's CPU time is the figure to compare with the
goal on a shared machine (the wall includes the workers' share of the cores); the load is recorded beside it.
Run:  .venv/bin/python benchmarks/driver_cost.py [--tasks 10000] [--workers 2]
"""

import argparse
import json
import os
import tempfile
import time
from pathlib import Path

GOAL_MS = 0.5


def noop(item):
    return item


def timed_fan_out(items: list, shard_dir: Path | None) -> dict:
    """Wall and driver-CPU milliseconds per task of one fan-out of `noop` over `items`, the Ray tasks that
    carried them and the shard files written."""
    from pipeline.runtime.executors import fan_out
    from pipeline.runtime.shards import FanOutStats

    stats = FanOutStats()
    wall, cpu = time.perf_counter(), time.process_time()
    results = fan_out(noop, items, label="noop", progress=False, shard_dir=shard_dir, stats=stats)
    wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
    assert results == items
    shards = len(list(shard_dir.glob("*.shard.npz"))) if shard_dir else 0
    return {"wall_ms_per_task": round(1000 * wall / len(items), 4),
            "driver_cpu_ms_per_task": round(1000 * cpu / len(items), 4),
            "ray_tasks": stats.rounds[0]["ray_tasks"], "shards_written": shards}


def one_item_per_ray_task(items: list, shard_dir: Path) -> dict:
    """The same fan-out with every item in a Ray task of its own (as every stage's tasks, which cost more
    than policy.CHUNK_SECONDS): what the driver spends per Ray task."""
    from pipeline.runtime import policy

    saved, policy.MAX_CHUNK = policy.MAX_CHUNK, 1
    try:
        return timed_fan_out(items, shard_dir)
    finally:
        policy.MAX_CHUNK = saved


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tasks", type=int, default=10_000)
    parser.add_argument("--workers", type=int, default=2)
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    import ray

    ray.init(address="local", num_cpus=args.workers, include_dashboard=False, log_to_driver=False)
    try:
        timed_fan_out(list(range(200)), None)  # warm-up: worker processes started, the task function exported
        items = list(range(args.tasks))
        with tempfile.TemporaryDirectory() as folder:
            with_shards = timed_fan_out(items, Path(folder) / "noop")
            unchunked = one_item_per_ray_task(items, Path(folder) / "unchunked")
        without = timed_fan_out(items, None)
    finally:
        ray.shutdown()
    print(json.dumps({"tasks": args.tasks, "workers": args.workers, "load_average": os.getloadavg(),
                      "with_shards": with_shards, "without_shards": without,
                      "one_item_per_ray_task_with_shards": unchunked, "goal_ms_per_task": GOAL_MS,
                      "met": with_shards["driver_cpu_ms_per_task"] <= GOAL_MS}, indent=2))


if __name__ == "__main__":
    main()
