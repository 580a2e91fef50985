"""Ctrl-C, SIGTERM and SIGHUP end a command-line run with one line on stderr and a conventional exit status.

    error: interrupted (SIGTERM); finished shards are kept, rerun the same command to resume

The words after the signal's name say what the stop leaves behind, and a command chooses them (`on_stop`): a
stage run keeps its finished shards (RESUME), verify-certificate has verified nothing; during start-up, before
a command has said, the line ends at the name.  Exit status 128 + the signal: 130 (SIGINT), 143 (SIGTERM),
129 (SIGHUP).

While a block that cleans up after itself runs (`unwinding`: the store's write, a verify-certificate check, a
sweep), a signal raises `Interrupted`, so the run unwinds as after Ctrl-C: temp folders are removed by their
`finally`, worker processes are ended by the pool that started them, the shards a fan-out finished stay on
disk for the rerun.  Anywhere else (start-up: imports, composing the config, loading the game) nothing needs
cleaning up, and an exception raised inside a library there can turn into another error with a traceback, so
the process prints the line and ends at once.  While a block that must not be cut short runs (`held`: worker
processes being started, Ray starting), a signal waits and is acted on when the block ends; a second one
acts at once (Ctrl-C twice when Ray will not start).  An Interrupted that Python discards (raised inside a
ctypes callback while numba compiles) is raised again a moment later (`_swallowed`).  A forked child named by
`child` is killed when the process ends at once.

`ray.init` installs its own SIGTERM handlers (Python's: `sys.exit(15)`, no line; then its node's), which
`ray_keeps_ours` turns away while Ray starts, and a C++ one that prints a stack dump ("SIGTERM received ...
PC: ..."); `after_ray_start` installs the handlers again over it.  After the line, stderr goes to /dev/null
while the process exits.  Library use is untouched: only `install` (the command line's entry point) turns them
on.
"""

import os
import signal
import sys
import threading
from contextlib import contextmanager

RESUME = "finished shards are kept, rerun the same command to resume"  # what a stopped stage run leaves
EXIT_STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
_installed = False
_ignored: set[int] = set()  # signals ignored when the process started: never handled
_received: int | None = None  # the last signal the handler saw (Ray's waits re-raise a plain KeyboardInterrupt)
_consequence: str | None = None  # what the line says a stop leaves (on_stop)


class Interrupted(KeyboardInterrupt):
    """A run stopped by a signal; `signum` says which (SIGINT for a plain KeyboardInterrupt)."""

    def __init__(self, signum: int):
        super().__init__(signal.Signals(signum).name)
        self.signum = signum


_unwinding = 0  # how many blocks that must clean up after themselves are running
_holding = 0  # how many blocks that must not be cut short are running
_waiting: list[int] = []  # signals received while held, acted on when the outermost held block ends
_children: set[int] = set()  # child processes to kill when a signal ends this process at once (`child`)


def _handle(signum, frame):
    """Wait inside a held block (a second signal does not); raise Interrupted inside a block that cleans up
    after itself; elsewhere print the line and exit."""
    global _received
    _received = signum
    if _holding and not _waiting:
        _waiting.append(signum)
        return
    _waiting.clear()
    if _unwinding:
        raise Interrupted(signum)
    _say(line(signum))  # not print: the interrupted code may be inside a write to stderr
    for pid in _children:
        _kill(pid)
    os._exit(EXIT_STATUS[signum])


def _kill(pid: int) -> None:
    try:
        os.kill(pid, signal.SIGKILL)
    except OSError:  # it has ended already
        pass


def _say(text: str) -> None:
    """One line on stderr, if stderr is still there (after SIGHUP the terminal may be gone)."""
    try:
        os.write(2, f"{text}\n".encode())
    except OSError:
        pass


@contextmanager
def unwinding():
    """While the block runs, a signal raises Interrupted (so its finally clauses run) instead of exiting."""
    global _unwinding
    _unwinding += 1
    try:
        yield
    finally:
        _unwinding -= 1


@contextmanager
def held():
    """While the block runs, a signal waits; when the block ends (however it ends) it is acted on, as it would
    have been at that point (Interrupted inside `unwinding`, else the line and exit).  A second signal while one
    waits is acted on at once."""
    global _holding
    _holding += 1
    try:
        yield
    finally:
        _holding -= 1
        if not _holding and _waiting:
            signum = _waiting[0]
            _waiting.clear()
            _handle(signum, None)


@contextmanager
def child(pid: int):
    """While the block runs, the child process `pid` is killed when a signal ends this process at once (inside
    `unwinding` the block's own finally ends it)."""
    _children.add(pid)
    try:
        yield
    finally:
        _children.discard(pid)


def received() -> int | None:
    """The signal that interrupted this run, if one did."""
    return _received


def on_stop(consequence: str | None) -> None:
    """What the line says after the signal's name from now on: what a stop leaves (RESUME for a stage run)."""
    global _consequence
    _consequence = consequence


def line(signum: int) -> str:
    """The one line a stop prints."""
    named = f"error: interrupted ({signal.Signals(signum).name})"
    return f"{named}; {_consequence}" if _consequence else named


def install() -> None:
    """Handle SIGINT, SIGTERM and SIGHUP (main thread only: Python delivers signals there); a signal the process
    was started ignoring (`nohup`, a shell's background job) stays ignored."""
    global _installed
    if threading.current_thread() is threading.main_thread():
        for signum in EXIT_STATUS:
            if signal.getsignal(signum) is not signal.SIG_IGN and signum not in _ignored:
                signal.signal(signum, _handle)
            else:
                _ignored.add(signum)
        if sys.unraisablehook is not _swallowed:
            _hooks.append(sys.unraisablehook)
            sys.unraisablehook = _swallowed
        _installed = True


RESEND_SECONDS = 0.05  # a lost Interrupted is raised again this much later
_hooks: list = []  # the unraisable hook that was there before ours


def _swallowed(unraisable) -> None:
    """Python discards an exception raised inside some callbacks (a ctypes callback while numba compiles, a
    __del__) and goes on, so an Interrupted raised there would be lost and the run would not stop: the signal
    is sent again a moment later, when the interrupted code is likely back in plain Python.  Other exceptions
    go to the hook that was there before."""
    if isinstance(unraisable.exc_value, Interrupted):
        threading.Timer(RESEND_SECONDS, os.kill, (os.getpid(), unraisable.exc_value.signum)).start()
        return
    _hooks[-1](unraisable)


def after_ray_start() -> None:
    """Put the handlers back over the ones `ray.init` installed, if the command line had installed them."""
    if _installed:
        install()


@contextmanager
def ray_keeps_ours(utils_module):
    """While the block starts Ray, its Python-level SIGTERM handlers (set through `utils_module`'s
    `set_sigterm_handler`: a `sys.exit(15)` that prints nothing, then a node teardown that exits 1) are not
    installed when the command line's are: a SIGTERM then unwinds the run, and Ray's processes are ended by
    its shutdown at exit."""
    original = getattr(utils_module, "set_sigterm_handler", None)
    if not _installed or original is None:
        yield
        return
    utils_module.set_sigterm_handler = lambda handler: None
    try:
        yield
    finally:
        utils_module.set_sigterm_handler = original


def signal_of(err: BaseException) -> int:
    """The signal `err` carries, else the last one received, else Ctrl-C."""
    return getattr(err, "signum", None) or _received or signal.SIGINT


def exit_status(err: BaseException) -> int:
    """130 for Ctrl-C, 143 for SIGTERM, 129 for SIGHUP: the signal `err` carries, else the last one received."""
    return EXIT_STATUS.get(signal_of(err), 130)


def report(err: BaseException) -> int:
    """Print the one line and return the exit status; a second signal while the process exits (Ray shutting
    down) ends it at once with the same status instead of a traceback."""
    status = exit_status(err)
    if _installed and threading.current_thread() is threading.main_thread():
        for signum in set(EXIT_STATUS) - _ignored:
            signal.signal(signum, lambda *_: os._exit(status))
    try:
        print(line(signal_of(err)), file=sys.stderr, flush=True)
    except OSError:  # the terminal is gone (SIGHUP)
        pass
    if _installed:
        _silence_stderr()
    return status


def _silence_stderr() -> None:
    """Send what is still written to stderr to /dev/null, so the line stays the last one: Ray's C++ threads
    log while they shut down after an interrupt ("Failed to push error to driver ...")."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, 2)
    os.close(devnull)
