"""Run many independent jobs at once on Ray, each a driver of its own: the `-m` sweep's points.

Every job runs as a Ray task pinned to the node of this process (the head node, where the outputs volume lives),
declaring no CPU: a job is a driver whose own fan-outs take the cluster's CPUs, so a job must never hold a CPU
its tasks wait for.  How many jobs run at once is capped by `max_parallel`, or, when it is None, by the
cluster's CPUs, re-read each time a job ends, so a growing cluster gets more of them.  A job that raises, or
whose worker dies, is one failed result; the others go on.  A line is logged at least every
LOG_EVERY_SECONDS while jobs run, whether or not one ends.

Knows nothing about games or stages: a job is a module-level function and its arguments.
"""

import logging
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from pipeline.runtime.progress import LOG_EVERY_SECONDS

log = logging.getLogger(__name__)


@dataclass
class JobOutcome:
    """A job's return value, or the line saying why it has none."""
    value: object = None
    error: str = ""


def _slots(max_parallel: int | None) -> int:
    """Jobs at once: `max_parallel`, else the cluster's CPUs now (at least one)."""
    import ray

    if max_parallel is not None:
        return max_parallel
    return max(1, int(ray.cluster_resources().get("CPU", 0)))


def _pinned_remote(fn: Callable):
    """`fn` as a Ray task on this node that declares no CPU and is never retried (a job writes artifacts)."""
    import ray
    from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

    here = ray.get_runtime_context().get_node_id()
    return ray.remote(fn).options(num_cpus=0, max_retries=0, scheduling_strategy=NodeAffinitySchedulingStrategy(
        node_id=here, soft=False))


def _outcome(ref) -> JobOutcome:
    import ray

    try:
        return JobOutcome(value=ray.get(ref))
    except Exception as err:  # the job raised, or its worker died: one failed job, the sweep goes on
        return JobOutcome(error=" ".join(str(err).split())[:500] or type(err).__name__)


def run_jobs(fn: Callable, jobs: Sequence[tuple], *, max_parallel: int | None = None, label: str = "jobs",
             on_done: Callable[[int, JobOutcome], None] | None = None,
             heartbeat_s: float = LOG_EVERY_SECONDS) -> list[JobOutcome]:
    """`fn(*job)` for every job, as many at once as there is room for; outcomes in the order of `jobs`.
    `on_done(index, outcome)` is called in this process as each job ends."""
    import ray

    remote = _pinned_remote(fn)
    outcomes: list[JobOutcome | None] = [None] * len(jobs)
    running: dict = {}
    waiting = list(range(len(jobs)))
    start = last_line = time.monotonic()
    while waiting or running:
        while waiting and len(running) < _slots(max_parallel):
            index = waiting.pop(0)
            running[remote.remote(*jobs[index])] = index
        done, _ = ray.wait(list(running), num_returns=1, timeout=heartbeat_s)
        for ref in done:
            index = running.pop(ref)
            outcomes[index] = _outcome(ref)
            if on_done:
                on_done(index, outcomes[index])
        now = time.monotonic()
        if not done or now - last_line >= heartbeat_s:
            finished = len(jobs) - len(waiting) - len(running)
            log.info("%s: %d/%d done, %d running, %.0fs", label, finished, len(jobs), len(running), now - start)
            last_line = now
    return outcomes
