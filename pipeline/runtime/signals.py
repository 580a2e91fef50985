"""Ctrl-C and SIGTERM end a command-line run with one line on stderr and a conventional exit status.

    error: interrupted; finished shards are kept, rerun the same command to resume

Exit status 130 (128 + SIGINT) after Ctrl-C and 143 (128 + SIGTERM) after SIGTERM.  While an artifact is
being written (`unwinding`: the store's write), a signal raises `Interrupted`, so the run unwinds as after
Ctrl-C: the stage's temp folder is removed by its `finally`, while the shards its fan-out finished stay on
disk for the rerun.  Anywhere else (start-up: imports, composing the config, loading the game) nothing
needs cleaning up, and an exception raised inside a library there can turn into another error with a
traceback, so the process prints the line and ends at once.  `ray.init` installs a C++ SIGTERM handler
that prints a stack dump ("SIGTERM received ... PC: ..."); `after_ray_start` installs the handlers again
over it.  After the line, stderr goes to /dev/null while the process exits.  Library use is untouched:
only `install` (the command line's entry point) turns them on.
"""

import os
import signal
import sys
import threading
from contextlib import contextmanager

MESSAGE = "error: interrupted; finished shards are kept, rerun the same command to resume"
EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143}
_installed = False
_ignored: set[int] = set()  # signals ignored when the process started: never handled
_received: int | None = None  # the last signal the handler saw (Ray's waits re-raise a plain KeyboardInterrupt)


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal; `signum` says which (SIGINT for a plain KeyboardInterrupt)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_unwinding = 0  # how many blocks that must clean up after themselves are running


def _handle(signum, frame):
    """Raise Interrupted inside a block that cleans up after itself; elsewhere print the line and exit."""
    global _received
    _received = signum
    if _unwinding:
        raise Interrupted(signum)
    os.write(2, f"{MESSAGE}\n".encode())  # not print: the interrupted code may be inside a write to stderr
    os._exit(EXIT_STATUS[signum])


@contextmanager
def unwinding():
    """While the block runs, a signal raises Interrupted (so its finally clauses run) instead of exiting."""
    global _unwinding
    _unwinding += 1
    try:
        yield
    finally:
        _unwinding -= 1


def received() -> int | None:
    """The signal that interrupted this run, if one did."""
    return _received


def install() -> None:
    """Handle SIGINT and SIGTERM (main thread only: Python delivers signals there); a signal the process was
    started ignoring (`nohup`, a shell's background job) stays ignored."""
    global _installed
    if threading.current_thread() is threading.main_thread():
        for signum in EXIT_STATUS:
            if signal.getsignal(signum) is not signal.SIG_IGN and signum not in _ignored:
                signal.signal(signum, _handle)
            else:
                _ignored.add(signum)
        _installed = True


def after_ray_start() -> None:
    """Put the handlers back over the ones `ray.init` installed, if the command line had installed them."""
    if _installed:
        install()


def exit_status(err: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM: the signal `err` carries, else the last one received, else Ctrl-C."""
    return EXIT_STATUS.get(getattr(err, "signum", None) or _received or signal.SIGINT, 130)


def report(err: BaseException) -> int:
    """Print the one line and return the exit status; a second signal while the process exits (Ray shutting
    down) ends it at once with the same status instead of a traceback."""
    status = exit_status(err)
    if _installed and threading.current_thread() is threading.main_thread():
        for signum in set(EXIT_STATUS) - _ignored:
            signal.signal(signum, lambda *_: os._exit(status))
    print(MESSAGE, file=sys.stderr, flush=True)
    if _installed:
        _silence_stderr()
    return status


def _silence_stderr() -> None:
    """Send what is still written to stderr to /dev/null, so the line stays the last one: Ray's C++ threads
    log while they shut down after an interrupt ("Failed to push error to driver ...")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
