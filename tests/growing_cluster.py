"""Test-only: a driver whose fan-out starts on a one-node cluster and goes on while a second node joins
(tests/test_cluster.py adds it).  Each task waits for the second node, then works half a second, so the
fan-out outlives the node's arrival by several of the executor's cluster polls.

    PYTHONPATH=<repo>/tests python -m growing_cluster <address> <folder>

prints the fan-out's results and its round of FanOutStats as one JSON line; the first task to start
touches <folder>/started (the test adds the node only then)."""

import json
import sys
import time
from pathlib import Path

NODES, WORK_SECONDS, ITEMS = 2, 0.5, 16


def task(item):
    """item * 3, once the cluster has NODES live nodes and after WORK_SECONDS of work."""
    import ray

    i, folder = item
    Path(folder, "started").touch()
    while sum(node["Alive"] for node in ray.nodes()) < NODES:
        time.sleep(0.2)
    time.sleep(WORK_SECONDS)
    return i * 3


if __name__ == "__main__":
    import ray

    import growing_cluster  # the task must pickle as growing_cluster.task, not __main__.task
    from pipeline.runtime.executors import fan_out
    from pipeline.runtime.shards import FanOutStats

    address, folder = sys.argv[1:]
    ray.init(address=address, logging_level="ERROR")
    stats = FanOutStats()
    results = fan_out(growing_cluster.task, [(i, folder) for i in range(ITEMS)], label="growing", progress=False,
                      stats=stats)
    print(json.dumps({"results": results, "round": stats.rounds[0], "nodes": sorted(stats.nodes)}))
