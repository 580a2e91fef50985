"""Processes a test starts and signals: started with the signals it sends at their defaults, their descendants read
from /proc, and polls with a deadline instead of fixed sleeps.

A test suite started from a shell's background job (`pytest ... &`) runs with SIGINT ignored, and a child inherits
that: `send_signal(SIGINT)` would then do nothing.  `start` resets SIGINT, SIGTERM and SIGHUP to their defaults
(and unblocks them) in the child before it runs, so the child's own handling is what a test sees.
"""

import os
import pty
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

SENT = (signal.SIGINT, signal.SIGTERM, signal.SIGHUP)  # the signals a test may send
POLL_SECONDS = 0.05


def default_signals() -> None:
    """preexec_fn: the child starts with SENT at their defaults, none blocked (whatever the test runner had)."""
    for signum in SENT:
        signal.signal(signum, signal.SIG_DFL)
    signal.pthread_sigmask(signal.SIG_UNBLOCK, SENT)


def start(args: list[str], *, cwd: Path, env: dict, text: bool = True, stderr=subprocess.PIPE) -> subprocess.Popen:
    """`args` in a session of its own (a signal to its group reaches no test runner), SENT at their defaults,
    stdout and stderr piped (or stderr to the file descriptor `stderr`)."""
    return subprocess.Popen(args, cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=stderr, text=text,
                            start_new_session=True, preexec_fn=default_signals)  # noqa: PLW1509 (signal calls only)


def stat_fields(pid: int) -> list[str] | None:
    """The fields of /proc/<pid>/stat after the command name (state, ppid, ...), or None when it is gone."""
    try:
        text = Path(f"/proc/{pid}/stat").read_text()
    except (FileNotFoundError, ProcessLookupError):
        return None
    return text[text.rindex(")") + 2:].split()


def started_at(pid: int) -> int | None:
    """The process's start time in clock ticks since boot (with the pid, it names one process: pids are reused)."""
    fields = stat_fields(pid)
    return int(fields[19]) if fields else None


def parents() -> dict[int, int]:
    """pid -> parent pid of every process now."""
    found = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            fields = stat_fields(int(entry.name))
            if fields:
                found[int(entry.name)] = int(fields[1])
    return found


def descendants(pid: int) -> dict[int, int]:
    """Every process below `pid` (children, their children, ...): pid -> start time."""
    by_parent: dict[int, list[int]] = {}
    for child, parent in parents().items():
        by_parent.setdefault(parent, []).append(child)
    found, todo = {}, [pid]
    while todo:
        for child in by_parent.get(todo.pop(), []):
            when = started_at(child)
            if when is not None:
                found[child] = when
                todo.append(child)
    return found


def running(pid: int, since: int) -> bool:
    """Whether the process `pid` that started at `since` still runs (a zombie has ended)."""
    fields = stat_fields(pid)
    return fields is not None and int(fields[19]) == since and fields[0] != "Z"


def survivors(processes: dict[int, int], within: float = 10.0) -> list[int]:
    """The processes (pid -> start time) still running after `within` seconds (polled: they may take a moment)."""
    deadline = time.monotonic() + within
    while True:
        left = [pid for pid, since in processes.items() if running(pid, since)]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(POLL_SECONDS)


def wait_until(proc: subprocess.Popen, ready: Callable[[], object], what: str, within: float = 240.0):
    """Poll `ready()` until it returns something true (returned); the test fails if the process ends first or
    `within` seconds pass."""
    deadline = time.monotonic() + within
    while True:
        found = ready()
        if found:
            return found
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"the process ended (status {proc.returncode}) before {what}:\n{out}\n{err}")
        if time.monotonic() > deadline:
            proc.kill()
            raise AssertionError(f"no {what} within {within:g}s")
        time.sleep(POLL_SECONDS)


def catches(pid: int, signum: int) -> bool:
    """Whether process `pid` has a handler of its own for `signum` (the SigCgt mask of /proc/<pid>/status)."""
    status = Path(f"/proc/{pid}/status").read_text()
    caught = int(next(line.split()[1] for line in status.splitlines() if line.startswith("SigCgt:")), 16)
    return bool(caught >> (signum - 1) & 1)


def cmdline(pid: int) -> bytes:
    """The process's command line (NUL-separated), or b"" when it is gone."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes()
    except (FileNotFoundError, ProcessLookupError):
        return b""


def tagged(variable: str) -> list[int]:
    """Every process (of this user) whose environment holds `variable` (NAME=value): a command's processes,
    wherever they were re-parented, when it was started with a value of its own."""
    wanted, found = variable.encode() + b"\0", []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            try:
                environ = (entry / "environ").read_bytes()
            except (OSError, ProcessLookupError):
                continue
            if (b"\0" + environ).find(b"\0" + wanted) >= 0 and running(int(entry.name), started_at(int(entry.name))):
                found.append(int(entry.name))
    return found


class Command:
    """`python -m pipeline args`, started as `start` starts it, with a TMPDIR of its own (`tmpdir`, which also
    tags its processes: `tagged`); its stderr lines collected as they come (`lines`).  `terminal`: stderr is a
    terminal (a pseudo-terminal), where commands say more of what they do."""

    def __init__(self, args: list[str], folder: Path, project: Path, env: dict | None = None, terminal=False):
        self.tmpdir = folder / "tmp"
        self.tmpdir.mkdir(parents=True)
        self.variable = f"TMPDIR={self.tmpdir}"
        environment = {**os.environ, "PYTHONPATH": str(project), "TMPDIR": str(self.tmpdir), **(env or {})}
        command = [sys.executable, "-m", "pipeline", *args]
        self.lines: list[str] = []
        if terminal:
            reading, writing = pty.openpty()
            self.proc = start(command, cwd=project, env=environment, stderr=writing)
            os.close(writing)
            self._reader = threading.Thread(target=self._read_terminal, args=(reading,), daemon=True)
        else:
            self.proc = start(command, cwd=project, env=environment)
            self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        for line in self.proc.stderr:
            self.lines.append(line.rstrip("\n"))

    def _read_terminal(self, fd: int) -> None:
        """The terminal's lines (it ends them with CR LF) until every writer has closed it."""
        pending = b""
        while True:
            try:
                chunk = os.read(fd, 1 << 16)
            except OSError:  # EIO: the last writer has gone
                chunk = b""
            if not chunk:
                break
            pending += chunk
            *complete, pending = pending.split(b"\n")
            self.lines.extend(line.decode(errors="replace").rstrip("\r") for line in complete)
        if pending:
            self.lines.append(pending.decode(errors="replace").rstrip("\r"))
        os.close(fd)

    def wait_for_line(self, text: str, within: float = 600.0) -> str:
        """The first stderr line holding `text`, once it has come."""
        return wait_until(self.proc, lambda: next((line for line in self.lines if text in line), None),
                          f"a line with {text!r}", within)

    def marked_children(self, marker: bytes) -> list[int]:
        """The descendants whose command line holds `marker`."""
        return [pid for pid in descendants(self.proc.pid) if marker in cmdline(pid)]

    def wait_for_children(self, marker: bytes, count: int = 1, within: float = 600.0) -> list[int]:
        """The descendants whose command line holds `marker`, once there are `count` of them."""
        def found():
            mine = self.marked_children(marker)
            return mine if len(mine) >= count else None
        return wait_until(self.proc, found, f"{count} process(es) with {marker!r}", within)

    def children_unless_finished(self, marker: bytes, count: int, within: float = 600.0) -> list[int] | None:
        """As wait_for_children, or None when the command finished successfully before they were seen: work of a
        second or two may fall between two looks on a loaded machine."""
        finished = ["finished"]

        def found():
            mine = self.marked_children(marker)
            return mine if len(mine) >= count else finished if self.proc.poll() == 0 else None
        seen = wait_until(self.proc, found, f"{count} process(es) with {marker!r}", within)
        return None if seen is finished else seen

    def stop(self, signum: int, group: bool = False, within: float = 180.0) -> "Stopped":
        """Send `signum` (to the whole process group when `group`, as a terminal's Ctrl-C does), wait for the end;
        what was running below the command just before the signal is in `Stopped.tree`."""
        tree = descendants(self.proc.pid)
        if group:
            os.killpg(self.proc.pid, signum)
        else:
            self.proc.send_signal(signum)
        self.proc.wait(timeout=within)
        self._reader.join(timeout=5.0)  # a survivor holding stderr open would keep it reading
        return Stopped(self.proc.returncode, list(self.lines), tree)

    def end(self) -> None:
        """Kill whatever of the command still runs (after the test: a failed one leaves nothing behind)."""
        for pid in [*tagged(self.variable), self.proc.pid]:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass
        self.proc.wait()

    def survivors(self, tree: dict[int, int], within: float = 30.0) -> list[int]:
        """The processes of `tree`, and any process tagged as this command's, still running after `within` s."""
        deadline = time.monotonic() + within
        left = survivors(tree, within)
        while time.monotonic() < deadline and tagged(self.variable):
            time.sleep(POLL_SECONDS)
        return sorted(set(left) | set(tagged(self.variable)))


class Stopped:
    """How a signalled command ended: its exit status, its stderr lines, the processes below it before the signal."""

    def __init__(self, status: int, lines: list[str], tree: dict[int, int]):
        self.status, self.lines, self.tree = status, lines, tree

    def errors(self) -> list[str]:
        return [line for line in self.lines if line.startswith("error:")]


def exit_with(status: int) -> None:
    """A pool task that ends its worker process at once with exit status `status`."""
    os._exit(status)


def mark_and_sleep(job: tuple[str, float]) -> None:
    """A pool task that writes its process id into the file job[0], then sleeps job[1] seconds."""
    path, seconds = job
    Path(path).write_text(str(os.getpid()))
    time.sleep(seconds)


def wait_for_marks(marks, within: float = 300.0) -> list[int]:
    """The process ids mark_and_sleep tasks wrote into `marks`, once every one has."""
    deadline = time.monotonic() + within
    while not all(mark.exists() and mark.read_text() for mark in marks):
        assert time.monotonic() < deadline, "the tasks did not start"
        time.sleep(0.05)
    return [int(mark.read_text()) for mark in marks]
