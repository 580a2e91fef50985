"""Fan a function out over Ray tasks: shared arrays put once, bounded in flight,
progress as results arrive, worker crashes retried, finished shards kept on
disk so a killed driver resumes where it stopped."""

import pickle
from collections.abc import Callable, Sequence
from pathlib import Path

from pipeline.runtime.progress import Progress


def _shard_path(shard_dir: Path, index: int) -> Path:
    return shard_dir / f"{index:06d}.pkl"


def _load_done(shard_dir: Path | None, n: int) -> dict[int, object]:
    done = {}
    if shard_dir is None:
        return done
    for i in range(n):
        path = _shard_path(shard_dir, i)
        if (shard_dir / f"{i:06d}.done").exists():
            done[i] = pickle.loads(path.read_bytes())
    return done


def _save_shard(shard_dir: Path | None, index: int, result: object) -> None:
    if shard_dir is None:
        return
    tmp = shard_dir / f"{index:06d}.tmp"
    tmp.write_bytes(pickle.dumps(result))
    tmp.rename(_shard_path(shard_dir, index))
    (shard_dir / f"{index:06d}.done").touch()


def fan_out(fn: Callable, items: Sequence, shared: Sequence = (), *, label: str, max_in_flight: int = 16,
            max_retries: int = 3, shard_dir: Path | None = None, progress: bool = True,
            num_cpus: float = 1) -> list:
    """[fn(item, *shared) for item in items], computed as Ray tasks, in item order."""
    import ray

    results = _load_done(shard_dir, len(items))
    shared_refs = [ray.put(value) for value in shared]
    task = ray.remote(max_retries=max_retries, num_cpus=num_cpus)(fn)
    pending = [i for i in range(len(items)) if i not in results]
    in_flight: dict = {}
    with Progress(label, len(items), enabled=progress) as bar:
        bar.advance(len(results))
        while pending or in_flight:
            while pending and len(in_flight) < max_in_flight:
                i = pending.pop(0)
                in_flight[task.remote(items[i], *shared_refs)] = i
            ready, _ = ray.wait(list(in_flight), num_returns=1)
            for ref in ready:
                i = in_flight.pop(ref)
                results[i] = ray.get(ref)
                _save_shard(shard_dir, i, results[i])
                bar.advance()
    return [results[i] for i in range(len(items))]
