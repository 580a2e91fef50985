"""Process pools whose workers never outlive the process that started them.

`process_pool` starts up to `workers` fresh (spawn) processes, each running `initializer(*initargs)` first.  The
checker's pools (pipeline/proofs/certificates: elimination and class bounds, infeasibility witnesses) are such
pools.  When the block ends, every worker has ended: normally the pool is shut down as usual; after an exception
— a signal too, which raises Interrupted inside `signals.unwinding` — the workers are terminated (SIGTERM, then
SIGKILL after STOP_GRACE_SECONDS) instead of being waited for, so the caller's own cleanup (temp folders) and
its one line follow at once.  Belt and braces:
- while `map` hands out work (it starts the workers), a signal waits (`signals.held`): one arriving between a
  worker's start and its registration in the pool would leave a worker the pool does not know about.  A start
  lasts until the worker has read what it is sent; the initializer and its arguments go pickled, so that
  reading them needs no import, and the wait stays short.  SIGINT and SIGHUP are blocked in this thread
  meanwhile, so each worker starts with them blocked and then ignores them: Ctrl-C or a hang-up sent to the
  whole process group reaches the parent alone, which ends its workers (a worker interrupted while it imports
  would print a traceback of its own);
- each worker asks Linux to SIGKILL it when its parent dies (PR_SET_PDEATHSIG) and exits if the parent is
  already gone, so not even `kill -9` of the parent leaves a worker behind.
A worker that dies while the pool still needs it (the kernel's out-of-memory killer, a `kill` from outside)
breaks the pool: `map` then raises WorkerLost, saying how the worker ended, and the block ends the others.
"""

import ctypes
import multiprocessing.connection
import os
import pickle
import signal
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from concurrent.futures import ProcessPoolExecutor, wait
from concurrent.futures.process import BrokenProcessPool
from contextlib import contextmanager
from multiprocessing import get_context

from pipeline.processes.signals import held

STOP_GRACE_SECONDS = 5.0  # a terminated worker gets this long to end before it is killed
SPARED = (signal.SIGINT, signal.SIGHUP)  # sent by a terminal to the whole group: the parent answers for its workers
PR_SET_PDEATHSIG = 1  # <linux/prctl.h>
STILL_RUNNING = object()  # yielded by WorkerPool.map, with a heartbeat, while the next result is not ready
LIVENESS_SECONDS = 1.0  # how often a waiting map looks whether a worker has died


class WorkerLost(Exception):
    """A worker process ended before it answered: the pool can do no more work."""


class WorkerPool:
    """The pool of a `process_pool` block."""

    def __init__(self, executor: ProcessPoolExecutor):
        self.executor = executor
        self.started: list = []  # every worker process the pool has started (`lost` reads how they ended)

    def map(self, fn: Callable, items: Iterable, heartbeat: float | None = None) -> Iterator:
        """fn(item) of every item on the workers; the results in the order of `items`, each as it is ready.  With
        `heartbeat` (seconds), STILL_RUNNING is yielded each time that long passes without the next result, so
        that a caller can say the work goes on."""
        with held():
            spared = signal.pthread_sigmask(signal.SIG_BLOCK, SPARED)
            try:
                futures = [self.executor.submit(fn, item) for item in items]
            finally:
                signal.pthread_sigmask(signal.SIG_SETMASK, spared)
            self.started += [p for p in (self.executor._processes or {}).values() if p not in self.started]
        return self._results(futures, heartbeat)

    def _results(self, futures: list, heartbeat: float | None) -> Iterator:
        """The futures' results in order, STILL_RUNNING every `heartbeat` seconds without one.  While it waits it
        looks at the workers itself: the pool's own thread may not notice a worker that dies (it watches the
        workers it knew of when it last woke: Python 3.11 starts workers as tasks are submitted)."""
        step = LIVENESS_SECONDS if heartbeat is None else min(heartbeat, LIVENESS_SECONDS)
        for future in futures:
            waited = 0.0
            while not wait([future], timeout=step).done:
                if any(process.exitcode is not None for process in self.started):
                    raise WorkerLost(self.lost())
                waited += step
                if heartbeat is not None and waited >= heartbeat:
                    waited = 0.0
                    yield STILL_RUNNING
            try:
                yield future.result()
            except BrokenProcessPool:
                raise WorkerLost(self.lost()) from None

    def lost(self) -> str:
        """How the worker that broke the pool ended (its signal or exit status).  The pool terminates the others
        (SIGTERM) once one has died, so an end by another cause names the one that died first."""
        ended = multiprocessing.connection.wait([process.sentinel for process in self.started], LIVENESS_SECONDS)
        for process in self.started:
            if process.sentinel in ended:
                process.join(LIVENESS_SECONDS)  # its exit status, once the kernel has it
        codes = [(process.exitcode == -signal.SIGTERM, process.pid, process.exitcode) for process in self.started
                 if process.exitcode]
        if not codes:
            return "a worker process ended abruptly"
        _, pid, code = min(codes)
        if code > 0:
            return f"a worker process (pid {pid}) exited with status {code}"
        name = signal.Signals(-code).name if -code in signal.valid_signals() else f"signal {-code}"
        hint = " (the system may have run out of memory: see `dmesg`)" if -code == signal.SIGKILL else ""
        return f"a worker process (pid {pid}) was killed by {name}{hint}"


@contextmanager
def process_pool(workers: int, initializer: Callable | None = None, initargs: tuple = (),
                 env: dict[str, str] | None = None):
    """A WorkerPool of at most `workers` spawned processes; `env`: variables set while the block runs (the
    workers start with them)."""
    saved = {name: os.environ.get(name) for name in env or {}}
    os.environ.update(env or {})
    executor = ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_begin,
                                   initargs=(os.getpid(), pickle.dumps((initializer, initargs))))
    try:
        yield WorkerPool(executor)
    except BaseException:
        with held():
            end_workers(executor)
        raise
    finally:
        executor.shutdown(wait=True, cancel_futures=True)
        for name, value in saved.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value


def end_workers(executor: ProcessPoolExecutor, grace: float = STOP_GRACE_SECONDS) -> None:
    """Terminate every worker of `executor`, kill those still there after `grace` seconds, and wait for all to end.
    (Python 3.11 has no public way: the pool's own `terminate_broken` reads the same `_processes`.)"""
    processes = list((executor._processes or {}).values())
    for process in processes:
        process.terminate()
    left = _still_running(processes, grace)
    for process in left:
        process.kill()
    _still_running(left, grace)


def _still_running(processes: list, within: float) -> list:
    """The processes that have not ended after waiting up to `within` seconds for them (their sentinels)."""
    deadline = time.monotonic() + within
    running = list(processes)
    while running and time.monotonic() < deadline:
        ended = multiprocessing.connection.wait([p.sentinel for p in running], deadline - time.monotonic())
        running = [p for p in running if p.sentinel not in ended]
    return running


def _begin(parent: int, call: bytes) -> None:
    """A worker's first step: `answer_to(parent)`, then the caller's initializer.  It comes pickled (`call`), so
    the parent's start of this process, which waits until the process has read what it is sent, does not wait
    for the imports the initializer and its arguments need."""
    answer_to(parent)
    initializer, initargs = pickle.loads(call)
    if initializer is not None:
        initializer(*initargs)


def answer_to(parent: int) -> None:
    """In a child process: die with its parent `parent` (`die_with`), leave SIGINT and SIGHUP to it (ignored
    here, then unblocked), SIGTERM at its default (the parent ends its children with it)."""
    die_with(parent)
    signal.signal(signal.SIGTERM, signal.SIG_DFL)
    for signum in SPARED:
        signal.signal(signum, signal.SIG_IGN)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SPARED)


def die_with(parent: int) -> None:
    """SIGKILL this process when its parent dies (Linux); exit now if the parent `parent` is already gone."""
    if sys.platform.startswith("linux"):
        try:
            ctypes.CDLL(None, use_errno=True).prctl(PR_SET_PDEATHSIG, int(signal.SIGKILL), 0, 0, 0)
        except (OSError, AttributeError):
            pass
    if os.getppid() != parent:
        os._exit(1)
