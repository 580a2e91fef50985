"""Fan-out bookkeeping shared by every executor: statistics for the manifest and finished shards kept
on disk so a killed driver resumes where it stopped. The executors themselves are in `executors.py`."""

import os
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runtime import codec
from pipeline.runtime.log import log

SHARD_SUFFIX = ".shard.npz"


@dataclass
class FanOutStats:
    tasks: int = 0
    resumed: int = 0
    nodes: set = field(default_factory=set)
    executors: set = field(default_factory=set)  # which executors ran the rounds (local, ray)
    task_seconds: float = 0.0  # wall time inside tasks, summed (for scaling projections)
    rounds: list = field(default_factory=list)  # per fan-out: label, executor, tasks, task seconds, longest, wall

    def as_dict(self) -> dict:
        return {"tasks": self.tasks, "resumed": self.resumed, "nodes": sorted(self.nodes),
                "executors": sorted(self.executors), "task_seconds": round(self.task_seconds, 3),
                "rounds": self.rounds}


def load_done(shard_dir: Path | None, n: int) -> dict[int, object]:
    """Results of the items an earlier run finished, by item index.  A shard that does not decode
    (damaged, or not written by this codec) is left out with a warning: its task simply runs again.
    Pickled shards of older versions are never read."""
    done = {}
    if shard_dir is None or not shard_dir.is_dir():
        return done
    for path in sorted(shard_dir.glob(f"*{SHARD_SUFFIX}")):
        stem = path.name[:-len(SHARD_SUFFIX)]
        if not stem.isdigit() or int(stem) >= n:
            continue
        try:
            done[int(stem)] = codec.loads(path.read_bytes())
        except (codec.CodecError, OSError) as err:
            log.warning(f"shard {path} is not readable ({err}); its task runs again")
    return done


def save_shard(shard_dir: Path | None, index: int, result: object) -> None:
    """Keep one finished result (runtime/codec.py's format); written to a temporary name and renamed,
    so a half-written shard is never read."""
    if shard_dir is None:
        return
    data = codec.dumps(result)  # refuses what the format cannot store, before anything is written
    shard_dir.mkdir(parents=True, exist_ok=True)
    tmp = shard_dir / f"{index:06d}.{uuid.uuid4().hex[:8]}.tmp"
    tmp.write_bytes(data)
    os.replace(tmp, shard_dir / f"{index:06d}{SHARD_SUFFIX}")


def check_fan_out(max_in_flight: int | None, max_retries: int, num_cpus: float) -> None:
    """Settings that would make a Ray fan-out wait forever (nothing in flight) or fail inside Ray;
    max_in_flight None means sized to the cluster."""
    from pipeline.errors import PipelineError

    if max_in_flight is not None and (not isinstance(max_in_flight, int) or max_in_flight < 1):
        raise PipelineError(f"ray.max_in_flight must be at least 1, got {max_in_flight!r}")
    if not isinstance(max_retries, int) or max_retries < 0:
        raise PipelineError(f"ray.max_retries must be at least 0, got {max_retries!r}")
    if not num_cpus > 0:
        raise PipelineError(f"a task must ask for a positive number of CPUs, not {num_cpus!r}")


def check_fits(num_cpus: float, memory: int | None = None) -> None:
    """A task asking for more CPUs (or memory) than the largest node has would stay pending forever."""
    import ray

    from pipeline.errors import PipelineError

    alive = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    largest = max((r.get("CPU", 0) for r in alive), default=0)
    if largest and num_cpus > largest:
        raise PipelineError(f"a task needs {num_cpus:g} CPUs but the largest Ray node has {largest:g}; "
                            "give ray.num_cpus more cores or use a bigger node")
    most_memory = max((r.get("memory", 0) for r in alive), default=0)
    if memory and most_memory and memory > most_memory:
        raise PipelineError(f"a task declares {memory / 2**20:.0f} MB but the largest Ray node offers "
                            f"{most_memory / 2**20:.0f} MB to tasks; lower ray.task_memory_mb or use bigger nodes")


def fan_out(fn: Callable, items: Sequence, shared: Sequence = (), *, label: str, max_in_flight: int | None = None,
            max_retries: int = 3, shard_dir: Path | None = None, progress: bool = True,
            num_cpus: float = 1, stats: FanOutStats | None = None) -> list:
    """[fn(item, *shared) for item in items] as tasks on the Ray session the caller opened, in item order."""
    from pipeline.runtime.executors import RayExecutor

    check_fan_out(max_in_flight, max_retries, num_cpus)
    executor = RayExecutor(max_in_flight=max_in_flight, max_retries=max_retries, num_cpus=num_cpus)
    return executor.map(fn, items, shared, label=label, shard_dir=shard_dir, progress=progress, stats=stats)
