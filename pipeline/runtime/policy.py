"""The scheduling policy of a fan-out, as pure functions: the runtime uses them to size and order its
work, and `benchmarks/scaling.py` replays recorded task durations through the very same functions.

Policy: a fan-out keeps `in_flight_limit` tasks submitted (twice what the cluster can run at once, so
a freed core never waits for the driver), submits them in the given order, and Ray starts the next
submitted task on whichever core frees first.  The cluster's CPUs are read again every
CLUSTER_POLL_SECONDS while a fan-out runs, so nodes that join raise the limit.  Items far cheaper than a
Ray task's own cost travel `chunk_size` to a Ray task.  Work split into batches uses `batch_count` batches
(a few per core, so the last batches to finish are small and no core idles long at a level's end)."""

import heapq
from collections.abc import Sequence

IN_FLIGHT_PER_SLOT = 2  # tasks submitted per task slot (cluster CPUs / CPUs per task)
BATCHES_PER_CPU = 4  # default batches per cluster CPU for work the stage splits itself
CLUSTER_POLL_SECONDS = 2.0  # a running fan-out reads the cluster's CPUs again at most this often
CHUNK_SECONDS = 0.02  # items cheaper than this share a Ray task, until it takes about this long ...
MAX_CHUNK = 512  # ... never more items than this in one
CHUNKS_PER_SLOT = 4  # ... and never so many that fewer than this many Ray tasks per slot remain


def task_slots(cluster_cpus: float, task_cpus: float = 1) -> int:
    """How many tasks asking `task_cpus` each the cluster runs at once (at least 1)."""
    return max(1, int(cluster_cpus // task_cpus)) if task_cpus > 0 else 1


def in_flight_limit(cluster_cpus: float, task_cpus: float = 1, override: int | None = None) -> int:
    """Tasks kept submitted at a time: `override` when given, else IN_FLIGHT_PER_SLOT per task slot."""
    if override is not None:
        return override
    return IN_FLIGHT_PER_SLOT * task_slots(cluster_cpus, task_cpus)


def chunk_size(mean_item_seconds: float | None, pending: int, slots: int) -> int:
    """Items per Ray task: 1 until an item's cost is known, and for any item costing CHUNK_SECONDS or more
    (every stage's tasks); items far cheaper share a task until it costs about CHUNK_SECONDS, at most
    MAX_CHUNK of them, leaving CHUNKS_PER_SLOT tasks per slot for the rest so the end stays balanced."""
    if mean_item_seconds is None or mean_item_seconds >= CHUNK_SECONDS:
        return 1
    by_cost = int(CHUNK_SECONDS / max(mean_item_seconds, 1e-7))
    by_balance = pending // (CHUNKS_PER_SLOT * max(1, slots))
    return max(1, min(by_cost, by_balance, MAX_CHUNK))


def batch_count(n_items: int, cluster_cpus: float, override: int | None = None, per_cpu: int = BATCHES_PER_CPU,
                max_batch: int | None = None) -> int:
    """Batches to split `n_items` into: `override`, else `per_cpu` per cluster CPU; never more batches than
    items, never a batch above `max_batch` items."""
    if n_items <= 0:
        return 0
    wanted = override if override is not None else per_cpu * max(1, int(cluster_cpus))
    if max_batch:
        wanted = max(wanted, -(-n_items // max_batch))
    return max(1, min(n_items, wanted))


def deal(items: Sequence, n_batches: int) -> list:
    """`items` dealt round-robin into `n_batches` batches (sizes as equal as possible, larger first):
    neighbouring items, often of similar cost, go to different batches."""
    return [items[i::n_batches] for i in range(max(n_batches, 0))]


def split_sizes(n_items: int, n_batches: int) -> list[int]:
    """Sizes of the `n_batches` batches `deal` makes of `n_items` items."""
    if n_batches <= 0:
        return []
    small, extra = divmod(n_items, n_batches)
    return [small + 1] * extra + [small] * (n_batches - extra)


def makespan(durations: Sequence[float], cores: int, in_flight: int, order: Sequence[int] | None = None,
             overhead: float = 0.0) -> float:
    """Wall time of running tasks of the given durations on `cores` cores under the policy: tasks are
    submitted in `order`, at most `in_flight` at a time; each started task takes the core freed first.
    `overhead` seconds are added to every task (scheduling and transfer)."""
    order = list(range(len(durations))) if order is None else list(order)
    slots = max(1, min(cores, in_flight))  # more submitted than cores only queues them
    free = [0.0] * slots  # the time each core frees (a heap)
    end = 0.0
    for i in order:
        start = heapq.heappop(free)
        finish = start + durations[i] + overhead
        heapq.heappush(free, finish)
        end = max(end, finish)
    return end
