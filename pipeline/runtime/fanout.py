"""Fan a function out over Ray tasks: shared arrays put once, bounded in flight,
progress as results arrive, worker crashes retried, finished shards kept on
disk so a killed driver resumes where it stopped."""

import os
import pickle
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runtime.progress import Progress

# Fault-injection for tests: every task sleeps this long first, so a test can kill it mid-flight.
DELAY_ENV = "PIPELINE_TASK_DELAY_S"


@dataclass
class FanOutStats:
    tasks: int = 0
    resumed: int = 0
    nodes: set = field(default_factory=set)
    task_seconds: float = 0.0  # wall time inside tasks, summed (for scaling projections)
    rounds: list = field(default_factory=list)  # per fan-out: label, tasks, task seconds, longest task, wall

    def as_dict(self) -> dict:
        return {"tasks": self.tasks, "resumed": self.resumed, "nodes": sorted(self.nodes),
                "task_seconds": round(self.task_seconds, 3), "rounds": self.rounds}


def _run_task(fn, item, *shared):
    import numba
    import ray

    # a task gets the cores Ray assigned to it, no more: numba kernels inside must not oversubscribe the node
    cpus = int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1))
    numba.set_num_threads(max(1, min(numba.config.NUMBA_NUM_THREADS, cpus)))

    delay = float(os.environ.get(DELAY_ENV, "0") or 0)
    if delay:
        time.sleep(delay)
    started = time.perf_counter()
    result = fn(item, *shared)
    return result, ray.get_runtime_context().get_node_id(), time.perf_counter() - started


def _load_done(shard_dir: Path | None, n: int) -> dict[int, object]:
    done = {}
    if shard_dir is None or not shard_dir.is_dir():
        return done
    for marker in shard_dir.glob("*.done"):
        i = int(marker.stem)
        if i < n:
            done[i] = pickle.loads((shard_dir / f"{i:06d}.pkl").read_bytes())
    return done


def _save_shard(shard_dir: Path | None, index: int, result: object) -> None:
    if shard_dir is None:
        return
    shard_dir.mkdir(parents=True, exist_ok=True)
    tmp = shard_dir / f"{index:06d}.{uuid.uuid4().hex[:8]}.tmp"
    tmp.write_bytes(pickle.dumps(result))
    os.replace(tmp, shard_dir / f"{index:06d}.pkl")
    (shard_dir / f"{index:06d}.done").touch()


def check_fan_out(max_in_flight: int, max_retries: int, num_cpus: float) -> None:
    """Settings that would make the loop below wait forever (nothing in flight, a task no node can hold)."""
    from pipeline.errors import PipelineError

    if not isinstance(max_in_flight, int) or max_in_flight < 1:
        raise PipelineError(f"ray.max_in_flight must be at least 1, got {max_in_flight!r}")
    if not isinstance(max_retries, int) or max_retries < 0:
        raise PipelineError(f"ray.max_retries must be at least 0, got {max_retries!r}")
    if not num_cpus > 0:
        raise PipelineError(f"a task must ask for a positive number of CPUs, not {num_cpus!r}")


def check_fits(num_cpus: float) -> None:
    """A task asking for more CPUs than the largest node has would stay pending forever."""
    import ray

    from pipeline.errors import PipelineError

    largest = max((n.get("Resources", {}).get("CPU", 0) for n in ray.nodes() if n.get("Alive")), default=0)
    if largest and num_cpus > largest:
        raise PipelineError(f"a task needs {num_cpus:g} CPUs but the largest Ray node has {largest:g}; "
                            "give ray.num_cpus more cores or use a bigger node")


def fan_out(fn: Callable, items: Sequence, shared: Sequence = (), *, label: str, max_in_flight: int = 16,
            max_retries: int = 3, shard_dir: Path | None = None, progress: bool = True,
            num_cpus: float = 1, stats: FanOutStats | None = None) -> list:
    """[fn(item, *shared) for item in items], computed as Ray tasks, in item order."""
    import ray

    check_fan_out(max_in_flight, max_retries, num_cpus)
    check_fits(num_cpus)
    stats = stats if stats is not None else FanOutStats()
    results = _load_done(shard_dir, len(items))
    stats.tasks += len(items)
    stats.resumed += len(results)
    shared_refs = [ray.put(value) for value in shared]
    task = ray.remote(max_retries=max_retries, num_cpus=num_cpus)(_run_task).options(name=f"{label}")
    pending = [i for i in range(len(items)) if i not in results]
    in_flight: dict = {}
    round_stats = {"label": label, "tasks": len(pending), "task_seconds": 0.0, "longest_task": 0.0,
                   "started_at": time.time()}  # epoch seconds: lets a benchmark match memory samples to rounds
    started = time.perf_counter()
    with Progress(label, len(items), enabled=progress, resumed=len(results)) as bar:
        while pending or in_flight:
            while pending and len(in_flight) < max_in_flight:
                i = pending.pop(0)
                in_flight[task.remote(fn, items[i], *shared_refs)] = i
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                i = in_flight.pop(ref)
                results[i], node, seconds = ray.get(ref)
                stats.nodes.add(node)
                stats.task_seconds += seconds
                round_stats["task_seconds"] += seconds
                round_stats["longest_task"] = max(round_stats["longest_task"], seconds)
                _save_shard(shard_dir, i, results[i])
                bar.advance()
    round_stats["wall_seconds"] = time.perf_counter() - started
    stats.rounds.append({k: round(v, 4) if isinstance(v, float) else v for k, v in round_stats.items()})
    return [results[i] for i in range(len(items))]
