"""Executors: the same fan-out run in this process or as Ray tasks, with one bookkeeping.

`Executor.map(fn, items, shared)` returns [fn(item, *shared) for item in items] in item order. Whatever
runs the tasks, finished results are kept as shards on disk (a killed driver resumes where it stopped; the
results that finish together share one shard), progress is shown as results arrive (with a heartbeat while
none do) and `FanOutStats` records rounds, task seconds and nodes the same way, so a manifest reads alike
whichever executor ran.  The Ray executor follows the cluster while it runs: it reads the cluster's CPUs
again every few seconds (nodes that join raise the tasks in flight), collects every result ready at once,
and sends items far cheaper than a Ray task several to a task (`policy.chunk_size`). `choose_executor` picks one from the `ray`
config and the size of the work: a single task, or work the caller calls small while no Ray session is
open, runs in this process and never pays Ray's start-up; `fan_out` is the same map on a Ray session the caller
opened, and `cluster_cpus` the cores a run's fan-outs will use (what stages size their batches by).  The
shards and statistics they keep are in `shards.py`, which imports nothing from here.
"""

import socket
import sys
import time
from collections import deque
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path

import numpy as np

from pipeline.config.settings import RayConfig
from pipeline.runtime import policy
from pipeline.runtime.progress import Progress
from pipeline.runtime.shards import FanOutStats, items_sha256, load_done, save_shards

# (item index, result, node that ran it, (wall seconds, CPU seconds) inside fn)
Finished = tuple[int, object, str, tuple[float, float]]


class Executor:
    """Runs fn(item, *shared) for a list of items; subclasses say how in `_run`."""

    name = "executor"

    def map(self, fn: Callable, items: Sequence, shared: Sequence = (), *, label: str,
            shard_dir: Path | None = None, progress: bool = True, stats: FanOutStats | None = None) -> list:
        """[fn(item, *shared) for item in items], in item order; shards already on disk are not rerun."""
        stats = stats if stats is not None else FanOutStats()
        digest = items_sha256(items) if shard_dir is not None else None
        results = load_done(shard_dir, len(items), digest)
        stats.tasks += len(items)
        stats.resumed += len(results)
        stats.executors.add(self.name)
        pending = [i for i in range(len(items)) if i not in results]
        round_stats = {"label": label, "executor": self.name, "tasks": len(pending), "task_seconds": 0.0,
                       "longest_task": 0.0, "started_at": time.time()}  # epoch: matches memory samples to rounds
        durations = {}  # item index -> (wall, CPU) seconds inside fn (this run's tasks), for scheduling replays
        started = time.perf_counter()
        with Progress(label, len(items), enabled=progress, resumed=len(results)) as bar:
            for finished in self._run(fn, items, pending, shared, label):
                for i, result, node, (seconds, cpu) in finished:
                    results[i] = result
                    stats.nodes.add(node)
                    durations[i] = (seconds, cpu)
                    round_stats["longest_task"] = max(round_stats["longest_task"], seconds)
                    bar.advance(seconds=seconds)
                save_shards(shard_dir, {i: results[i] for i, *_ in finished}, digest)
        wall = sum(seconds for seconds, _ in durations.values())
        stats.task_seconds += wall
        round_stats["task_seconds"] = wall
        round_stats["wall_seconds"] = time.perf_counter() - started
        round_stats |= self._policy_stats()
        round_stats = {k: round(v, 4) if isinstance(v, float) else v for k, v in round_stats.items()}
        round_stats["durations"] = [round(durations[i][0], 4) for i in sorted(durations)]
        round_stats["cpu_seconds"] = [round(durations[i][1], 4) for i in sorted(durations)]  # load-independent
        round_stats["units"] = [_units(items[i]) for i in sorted(durations)]
        stats.rounds.append(round_stats)
        return [results[i] for i in range(len(items))]

    def _run(self, fn: Callable, items: Sequence, pending: list[int], shared: Sequence,
             label: str) -> Iterator[list[Finished]]:
        """The pending items' results, in lists of those that finished together (each kept as one shard)."""
        raise NotImplementedError

    def _policy_stats(self) -> dict:
        """How the last round was scheduled (cores, in-flight limit), for the manifest and replays."""
        return {}


def _units(item) -> int:
    """Units of work in one item: its length for a batch (an array or list of items), else 1."""
    return len(item) if isinstance(item, (np.ndarray, list)) else 1


def _read_only(value):
    """A read-only view of an array (as a Ray task sees shared arrays); anything else unchanged."""
    if isinstance(value, np.ndarray) and value.flags.writeable:
        value = value.view()
        value.flags.writeable = False
    return value


class InProcessExecutor(Executor):
    """Runs the tasks one after another in this process; numba kernels inside use up to `num_threads`."""

    name = "local"

    def __init__(self, num_threads: int | None = None):
        self.num_threads = num_threads

    def _run(self, fn, items, pending, shared, label):
        import numba

        shared = [_read_only(value) for value in shared]  # same contract as Ray: tasks never write shared data
        node = socket.gethostname()
        threads = numba.get_num_threads()
        if self.num_threads:
            numba.set_num_threads(max(1, min(numba.config.NUMBA_NUM_THREADS, self.num_threads)))
        try:
            for i in pending:
                result, seconds = _timed(fn, items[i], shared)
                yield [(i, result, node, seconds)]
        finally:
            numba.set_num_threads(threads)

    def _policy_stats(self) -> dict:
        """One task at a time, each with the process's numba threads."""
        import numba

        threads = self.num_threads or numba.config.NUMBA_NUM_THREADS
        return {"cluster_cpus": float(threads), "task_cpus": float(threads), "max_in_flight": 1,
                "in_flight_limits": [1], "ray_tasks": 0}


def _timed(fn, item, shared) -> tuple[object, tuple[float, float]]:
    """fn(item, *shared) and the (wall, CPU) seconds it took: CPU time is what the task would take on a
    core of its own, however loaded the machine was (scheduling replays use it)."""
    started, cpu = time.perf_counter(), time.process_time()
    result = fn(item, *shared)
    return result, (time.perf_counter() - started, time.process_time() - cpu)


def _run_chunk(fn, chunk, *shared):
    """Body of a Ray task: fn on each item of `chunk` with the cores Ray assigned to the task, each timed;
    (node, [(result, seconds) per item])."""
    import numba
    import ray

    # a task gets the cores Ray assigned to it, no more: numba kernels inside must not oversubscribe the node
    cpus = int(ray.get_runtime_context().get_assigned_resources().get("CPU", 1))
    numba.set_num_threads(max(1, min(numba.config.NUMBA_NUM_THREADS, cpus)))
    return ray.get_runtime_context().get_node_id(), [_timed(fn, item, shared) for item in chunk]


class RayExecutor(Executor):
    """Ray tasks: shared values put once, a bounded number in flight, crashed workers retried.

    `max_in_flight=None` sizes the in-flight limit to the cluster (`policy.in_flight_limit`: twice the
    task slots of `ray.cluster_resources()`), read again every `policy.CLUSTER_POLL_SECONDS` while the
    fan-out runs, so a cluster that grows (an autoscaler adding workers to a head with no CPUs of its
    own) gets used at once; `memory` (bytes, or None) is declared to Ray per task, so a node never starts
    more tasks than it has memory for.  With a `RayConfig`, the session is started or joined first
    (`ensure_ray`); without one, the caller has opened it."""

    name = "ray"

    def __init__(self, cfg: RayConfig | None = None, *, max_in_flight: int | None = None, max_retries: int = 3,
                 num_cpus: float = 1, memory: int | None = None):
        self.cfg, self.max_in_flight, self.max_retries = cfg, max_in_flight, max_retries
        self.num_cpus, self.memory = num_cpus, memory
        self.cluster_cpus, self.in_flight, self.limits, self.ray_tasks = 0.0, 0, [], 0

    def _run(self, fn, items, pending, shared, label):
        from pipeline.runtime.ray_session import ensure_ray

        check_fan_out(self.max_in_flight, self.max_retries, self.num_cpus)  # before Ray: no hang, no C++ dump
        if self.cfg is not None:
            ensure_ray(self.cfg)
        check_fits(self.num_cpus, self.memory)
        self.cluster_cpus, self.limits, self.ray_tasks = 0.0, [], 0
        limit, polled = self._resize(), time.monotonic()
        shared_refs = [_put_once(value) for value in shared]
        task = _remote_task().options(max_retries=self.max_retries, num_cpus=self.num_cpus,
                                      memory=self.memory or None, name=label)
        queue, in_flight = deque(pending), {}  # object ref -> the item indices its task runs
        item_seconds, items_done = 0.0, 0
        while queue or in_flight:
            if time.monotonic() - polled >= policy.CLUSTER_POLL_SECONDS:
                limit, polled = self._resize(), time.monotonic()
            mean = item_seconds / items_done if items_done else None
            while queue and len(in_flight) < limit:
                chunk = self._next_chunk(queue, mean)
                in_flight[task.remote(fn, [items[i] for i in chunk], *shared_refs)] = chunk
            fetched, error = _fetch(_ready(list(in_flight), policy.CLUSTER_POLL_SECONDS))
            finished = []
            for ref, (node, timed) in fetched:
                for i, (result, seconds) in zip(in_flight.pop(ref), timed):
                    finished.append((i, result, node, seconds))
                    item_seconds, items_done = item_seconds + seconds[0], items_done + 1
            if finished:
                yield finished  # kept as a shard before a failed task's error is raised
            if error is not None:
                raise error

    def _next_chunk(self, queue: deque, mean_item_seconds: float | None) -> list[int]:
        """The items of the next Ray task, taken from the queue (`policy.chunk_size` of them)."""
        size = policy.chunk_size(mean_item_seconds, len(queue), policy.task_slots(self.cluster_cpus, self.num_cpus))
        self.ray_tasks += 1
        return [queue.popleft() for _ in range(min(size, len(queue)))]

    def _resize(self) -> int:
        """Read the cluster's CPUs now; the in-flight limit they allow (the largest seen is recorded)."""
        import ray

        cpus = float(ray.cluster_resources().get("CPU", 0))
        self.in_flight = policy.in_flight_limit(cpus, self.num_cpus, self.max_in_flight)
        self.cluster_cpus = max(self.cluster_cpus, cpus)
        if not self.limits or self.limits[-1] != self.in_flight:
            self.limits.append(self.in_flight)
        return self.in_flight

    def _policy_stats(self) -> dict:
        """The largest cluster and in-flight limit of the round, every limit it took, its Ray tasks."""
        return {"cluster_cpus": self.cluster_cpus, "task_cpus": self.num_cpus, "max_in_flight": max(self.limits),
                "in_flight_limits": self.limits, "ray_tasks": self.ray_tasks}


def _fetch(refs: list) -> tuple[list, Exception | None]:
    """([(ref, value)] of the refs whose tasks succeeded, the first task's error or None): one `ray.get` for
    them all, one each only when a task failed, so the results beside a failure are kept."""
    import ray

    try:
        return list(zip(refs, ray.get(refs))), None
    except Exception:
        fetched, error = [], None
        for ref in refs:
            try:
                fetched.append((ref, ray.get(ref)))
            except Exception as err:
                error = error or err
        return fetched, error


def _ready(refs: list, timeout: float) -> list:
    """Every ref of `refs` whose task is done: waits up to `timeout` s for the first, then takes all the others
    already done with it (one wait per result would cost the driver more than a small task does)."""
    import ray

    ready, rest = ray.wait(refs, num_returns=1, timeout=timeout)
    if ready and rest:
        ready += ray.wait(rest, num_returns=len(rest), timeout=0)[0]
    return ready


def check_fan_out(max_in_flight: int | None, max_retries: int, num_cpus: float) -> None:
    """Settings that would make a Ray fan-out wait forever (nothing in flight) or fail inside Ray;
    max_in_flight None means sized to the cluster."""
    from pipeline import PipelineError

    if max_in_flight is not None and (not isinstance(max_in_flight, int) or max_in_flight < 1):
        raise PipelineError(f"ray.max_in_flight must be at least 1, got {max_in_flight!r}")
    if not isinstance(max_retries, int) or max_retries < 0:
        raise PipelineError(f"ray.max_retries must be at least 0, got {max_retries!r}")
    if not num_cpus > 0:
        raise PipelineError(f"a task must ask for a positive number of CPUs, not {num_cpus!r}")


def check_fits(num_cpus: float, memory: int | None = None) -> None:
    """A task asking for more CPUs (or memory) than the largest node has would stay pending forever."""
    import ray

    from pipeline import PipelineError

    alive = [n.get("Resources", {}) for n in ray.nodes() if n.get("Alive")]
    largest = max((r.get("CPU", 0) for r in alive), default=0)
    if largest and num_cpus > largest:
        raise PipelineError(f"a task needs {num_cpus:g} CPUs but the largest Ray node has {largest:g}; "
                            "give ray.num_cpus more cores or use a bigger node")
    most_memory = max((r.get("memory", 0) for r in alive), default=0)
    if memory and most_memory and memory > most_memory:
        raise PipelineError(f"a task declares {memory / 2**20:.0f} MB but the largest Ray node offers "
                            f"{most_memory / 2**20:.0f} MB to tasks; lower ray.task_memory_mb or use bigger nodes")


_REMOTE = None  # the one Ray remote function all fan-outs use (options vary per fan-out)
_PUT: dict[int, tuple] = {}  # id(value) -> (weak reference, object ref, Ray job): big shared values put once
PUT_ONCE_BYTES = 1 << 20  # values at least this big are put once per Ray session and reused by later rounds


def _remote_task():
    """`_run_chunk` as a Ray remote function, defined once per process."""
    global _REMOTE
    if _REMOTE is None:
        import ray

        _REMOTE = ray.remote(_run_chunk)
    return _REMOTE


def _put_once(value):
    """An object ref for a shared value; a big one already put in this Ray session (a stage's matrix, shared by
    every funnel level) is not copied into the object store again.  Big: an array, or any value that says
    how many bytes it holds (`nbytes`, as search/matrix.py's Matrix does), of at least PUT_ONCE_BYTES."""
    import weakref

    import ray

    if getattr(value, "nbytes", 0) < PUT_ONCE_BYTES:
        return ray.put(value)
    job = ray.get_runtime_context().get_job_id()
    known = _PUT.get(id(value))
    if known is not None and known[0]() is value and known[2] == job:
        return known[1]
    key = id(value)
    ref = ray.put(value)
    try:
        _PUT[key] = (weakref.ref(value, lambda _: _PUT.pop(key, None)), ref, job)
    except TypeError:  # a value no weak reference can follow is put every round
        pass
    return ref


def ray_running() -> bool:
    """Whether this process already has a Ray session open (without importing Ray to find out)."""
    ray = sys.modules.get("ray")
    return ray is not None and ray.is_initialized()


def cluster_cpus(cfg: RayConfig) -> int:
    """CPUs the fan-outs of this run will use: the open Ray session's, else the embedded Ray's
    (ray.num_cpus, or every core), else those of the cluster at ray.address (joined to find out)."""
    import os

    if cfg.address == "local" and not ray_running():
        return cfg.num_cpus or os.cpu_count() or 1
    from pipeline.runtime.ray_session import ensure_ray

    ensure_ray(cfg)
    import ray

    return max(1, int(ray.cluster_resources().get("CPU", 0)))


def choose_executor(cfg: RayConfig, n_items: int, small: bool = False, num_cpus: float = 1) -> Executor:
    """The executor for a fan-out of `n_items` tasks under `cfg` (`ray.executor`: auto | local | ray).

    A cluster address always means Ray. `auto` runs in this process when there is a single task, or when
    the caller says the work is small (cheaper than starting Ray) and no Ray session is open yet."""
    memory = cfg.task_memory_mb * 2**20 if cfg.task_memory_mb else None
    ray_executor = RayExecutor(cfg, max_in_flight=cfg.max_in_flight, max_retries=cfg.max_retries,
                               num_cpus=num_cpus, memory=memory)
    if cfg.executor == "ray" or cfg.address != "local":
        return ray_executor
    if cfg.executor == "local" or n_items <= 1 or (small and not ray_running()):
        return InProcessExecutor(cfg.num_cpus)
    return ray_executor


def fan_out(fn: Callable, items: Sequence, shared: Sequence = (), *, label: str, max_in_flight: int | None = None,
            max_retries: int = 3, shard_dir: Path | None = None, progress: bool = True,
            num_cpus: float = 1, stats: FanOutStats | None = None) -> list:
    """[fn(item, *shared) for item in items] as tasks on the Ray session the caller opened, in item order."""
    check_fan_out(max_in_flight, max_retries, num_cpus)
    executor = RayExecutor(max_in_flight=max_in_flight, max_retries=max_retries, num_cpus=num_cpus)
    return executor.map(fn, items, shared, label=label, shard_dir=shard_dir, progress=progress, stats=stats)


def shared_args(fn: Callable, **values) -> tuple:
    """The `shared` tuple of a fan-out of `fn`, written by name: `values` in the order of fn's parameters
    after the item.  The executor gets a plain tuple (each big array in it put into Ray's object store once),
    and a name missing or unknown is a TypeError here, not a task failing on a worker."""
    import inspect

    names = list(inspect.signature(fn).parameters)[1:]
    if set(names) != set(values):
        missing, unknown = sorted(set(names) - set(values)), sorted(set(values) - set(names))
        raise TypeError(f"shared values of {fn.__name__}: missing {missing}, unknown {unknown}")
    return tuple(values[name] for name in names)
