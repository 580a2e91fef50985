"""Progress on long work: a tqdm bar on a terminal, periodic log lines everywhere else.

Under `ray job submit`, in CI or with stderr sent to a file nothing is a terminal, so a bar would
print nothing useful; instead a line `label: done/total tasks (pct), rate, ETA` goes through the
`pipeline` logger, which reaches the console, the stage's log file and the job's log alike.

A heartbeat keeps both alive while no task finishes (one long task, an in-process run): a timer thread
writes `label: still working after 2m30s, 3/10 done (30%), none finished for 1m05s, ETA 4m45s` (the ETA once
there is a rate, `ETA passed 1m05s ago` once the tasks outrun it) whenever nothing was logged for
HEARTBEAT_SECONDS; on a terminal the line goes to the log files only and the bar shows it."""

import sys
import threading
import time

from pipeline.runtime.log import log

LOG_EVERY_SECONDS = 30.0  # a progress line at least this often while tasks keep finishing ...
LOG_EVERY_FRACTION = 0.10  # ... and one each time another tenth of the tasks is done,
LOG_MIN_GAP_SECONDS = 5.0  # but never two within this gap (short fan-outs print only their summary)
ETA_MIN_FRACTION = 0.10  # no rate or ETA before this fraction of the tasks is done ...
ETA_MIN_TASKS = 2  # ... nor before this many ran now
HEARTBEAT_SECONDS = 30.0  # a line at least this often, even when no task finishes


def _duration(seconds: float) -> str:
    """12s, 4m05s, 1h02m: short enough for a log line."""
    seconds = int(round(seconds))
    if seconds < 60:
        return f"{seconds}s"
    if seconds < 3600:
        return f"{seconds // 60}m{seconds % 60:02d}s"
    return f"{seconds // 3600}h{seconds % 3600 // 60:02d}m"


class Rate:
    """Tasks per second from the tasks' own seconds: as many tasks run at once as their seconds add up to over
    the time elapsed (at least one), each taking the mean seconds of the tasks after the first (which may have
    spent its time compiling numba kernels).  Eight equal batches on two cores that finish in waves give two tasks
    per batch's time, not one per the seconds between two tasks of one wave; one task at a time gives one per task."""

    def __init__(self):
        self.first, self.later, self.later_count = None, 0.0, 0

    def task(self, seconds: float) -> None:
        if self.first is None:
            self.first = seconds
        else:
            self.later, self.later_count = self.later + seconds, self.later_count + 1

    def per_second(self, elapsed: float) -> float | None:
        """None until a task after the first is done, or when the tasks took no time."""
        if not self.later_count or self.later <= 0 or elapsed <= 0:
            return None
        at_once = max(1.0, (self.first + self.later) / elapsed)
        return at_once * self.later_count / self.later


def _eta_text(eta: float) -> str:
    """`ETA 4m00s`, or `ETA passed 1m05s ago` once the tasks run longer than their rate said (never `ETA 0s`)."""
    return f"ETA {_duration(eta)}" if eta >= 0.5 else f"ETA passed {_duration(-eta)} ago"


class Progress:
    """`with Progress("V5", total, resumed=k) as p: p.advance(seconds=…)`; `resumed` tasks count as done but
    not towards the rate (`Rate`: from each task's own seconds when the caller knows them, so tasks finishing in
    waves are read right). The ETA is the tasks left at that rate, less the time since the last one finished. No
    rate or ETA is shown before ETA_MIN_TASKS tasks and ETA_MIN_FRACTION of all are done; the heartbeat shows the
    ETA too. A tqdm bar if `stream` (stderr) is a terminal, else periodic log lines;
    `enabled=False` keeps only the closing summary line. The intervals default to the module's
    LOG_* constants (read when the bar is made); `clock` is injectable for tests.  The heartbeat (see the
    module) runs on real time, every `heartbeat_seconds` (default HEARTBEAT_SECONDS) without a line."""

    def __init__(self, label: str, total: int, enabled: bool = True, stream=None, resumed: int = 0,
                 clock=time.monotonic, every_seconds: float | None = None, every_fraction: float | None = None,
                 min_gap_seconds: float | None = None, heartbeat_seconds: float | None = None):
        self.label, self.total, self.done, self.resumed = label, total, resumed, resumed
        self.stream = stream or sys.stderr
        self.enabled, self.clock = enabled, clock
        self.every_seconds = LOG_EVERY_SECONDS if every_seconds is None else every_seconds
        self.heartbeat_seconds = HEARTBEAT_SECONDS if heartbeat_seconds is None else heartbeat_seconds
        self.lock, self.stopped = threading.Lock(), threading.Event()
        self.beat_at = self.finished_at = time.monotonic()  # real time of the last line, of the last task done
        self.last_done_at = None  # `clock` time of the last task done in this run
        self.rates = Rate()
        self.min_gap = LOG_MIN_GAP_SECONDS if min_gap_seconds is None else min_gap_seconds
        fraction = LOG_EVERY_FRACTION if every_fraction is None else every_fraction
        self.step = max(1, int(total * fraction))
        self.bar = None
        self.started = self.last_line = clock()
        self.next_mark = (resumed // self.step + 1) * self.step  # the next multiple of a tenth

    def __enter__(self):
        if self.enabled and self.stream.isatty():
            from tqdm import tqdm

            self.bar = tqdm(total=self.total, initial=self.resumed, desc=self.label, unit="task",
                            file=self.stream, leave=False, dynamic_ncols=True)
        if self.enabled and self.heartbeat_seconds > 0:
            threading.Thread(target=self._heartbeat, name=f"progress-{self.label}", daemon=True).start()
        return self

    def advance(self, n: int = 1, seconds: float | None = None) -> None:
        """`n` more tasks done, each of which took `seconds` (default: the time since the last task done, or since
        the start, shared among them: tasks that ran one after another)."""
        with self.lock:
            now = self.clock()
            gap = now - (self.started if self.last_done_at is None else self.last_done_at)
            for _ in range(n):
                self.rates.task(gap / n if seconds is None else seconds)
            self.done += n
            self.finished_at, self.last_done_at = time.monotonic(), now
            if self.bar is not None:
                self.bar.update(n)
            elif self.enabled and self.done < self.total:
                now = self.clock()
                if self._line_due(now):
                    self._log_line(now)

    def _heartbeat(self) -> None:
        """The timer thread: a heartbeat line whenever HEARTBEAT_SECONDS passed without a line, until the end."""
        while not self.stopped.wait(max(0.01, self.beat_at + self.heartbeat_seconds - time.monotonic())):
            with self.lock:
                if not self.stopped.is_set() and time.monotonic() - self.beat_at >= self.heartbeat_seconds:
                    self._beat()

    def _beat(self) -> None:
        now = time.monotonic()
        self.beat_at = now
        eta = self.eta(self.clock())
        waited = f"none finished for {_duration(now - self.finished_at)}" + (
            f", {_eta_text(eta)}" if eta is not None else "")
        text = (f"{self.label}: still working after {_duration(self.clock() - self.started)}, "
                f"{self.done}/{self.total} done ({100 * self.done // max(self.total, 1)}%), {waited}")
        if self.bar is not None:
            self.bar.set_postfix_str(waited, refresh=True)
        log.info(text, extra={"console": self.bar is None})  # a terminal has the bar: the line goes to log files

    def _line_due(self, now: float) -> bool:
        """Time for a line: the interval has passed, or another tenth is done (not too soon after the last)."""
        since = now - self.last_line
        return since >= self.every_seconds or (self.done >= self.next_mark and since >= self.min_gap)

    def _log_line(self, now: float) -> None:
        self.last_line, self.beat_at = now, time.monotonic()
        self.next_mark = (self.done // self.step + 1) * self.step
        log.info(self.line(now))

    def line(self, now: float) -> str:
        """`V5: 40/160 tasks (25%), 0.5 tasks/s, ETA 4m00s` — rate and ETA of this run's tasks (withheld until
        they mean something: see the class)."""
        text = f"{self.label}: {self.done}/{self.total} tasks ({100 * self.done // max(self.total, 1)}%)"
        rate, eta = self.rate(), self.eta(now)
        if rate and eta is not None:
            text += f", {rate:.3g} tasks/s, {_eta_text(eta)}"
        return text

    def rate(self) -> float | None:
        """This run's tasks per second (`Rate`; None while too few are done to tell)."""
        fresh = self.done - self.resumed
        enough = fresh >= ETA_MIN_TASKS and self.done >= ETA_MIN_FRACTION * self.total
        if not enough or self.last_done_at is None:
            return None
        return self.rates.per_second(elapsed=self.last_done_at - self.started)

    def eta(self, now: float) -> float | None:
        """Seconds left at `rate`, counted from the last task done (below 0 once that estimate has passed; None
        without a rate)."""
        rate = self.rate()
        if not rate:
            return None
        return (self.total - self.done) / rate - (now - self.last_done_at)

    def __exit__(self, *exc):
        self.stopped.set()
        elapsed = self.clock() - self.started
        with self.lock:  # a heartbeat being written finishes before the bar closes
            if self.bar is not None:
                self.bar.close()
        resumed = f" ({self.resumed} resumed from an earlier run)" if self.resumed else ""
        log.info(f"{self.label}: {self.done}/{self.total} tasks in {elapsed:.1f}s{resumed}")


# ---- compiling numba kernels -----------------------------------------------------------------------------------

_announced = False  # one line per process


def kernel_name(dispatcher) -> str:
    """search.exact.kernels.solve for a kernel of pipeline/search/exact/kernels.py: where to look it up."""
    module = dispatcher.py_func.__module__.removeprefix("pipeline.")
    return f"{module}.{dispatcher.py_func.__qualname__}"


def announce_compilation(emit=None) -> None:
    """From now on in this process, the first numba compile says so in one line (through `emit`, default the
    pipeline logger's info) as it starts, naming the kernel.  numba signals a compile only when no cached machine
    code fits the call (a cold cache, or an argument type not seen before), so a run that compiles nothing says
    nothing: the line names only what really compiles.  Compiles in Ray's worker processes are not announced."""
    global _announced
    if _announced:
        return
    _announced = True
    from numba.core import event

    class FirstCompile(event.Listener):
        said = False

        def on_start(self, ev):
            if not self.said:
                self.said = True
                (emit or log.info)(f"compiling numba kernels on first use, starting with "
                                   f"{kernel_name(ev.data['dispatcher'])} (seconds to minutes, once: cached for "
                                   "later runs)")

        def on_end(self, ev):
            pass

    event.register("numba:compile", FirstCompile())
