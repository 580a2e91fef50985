"""Logging for stages: plain lines on stderr, and a copy in a log file per run and per artifact."""

import logging
import sys
from contextlib import contextmanager
from pathlib import Path

log = logging.getLogger("pipeline")
log.setLevel(logging.INFO)  # stage logs record INFO even when no console is set up (library use, tests)


class _CurrentStderr(logging.StreamHandler):
    """Writes to whatever sys.stderr is now (a caller that swapped stderr must not leave a closed stream behind);
    a record logged with `extra={"console": False}` (a heartbeat under a progress bar) goes to log files only."""

    def filter(self, record):
        return getattr(record, "console", True) and super().filter(record)

    @property
    def stream(self):
        return sys.stderr

    @stream.setter
    def stream(self, _value):
        pass


def setup_console() -> None:
    """Plain `message` lines on stderr for the `pipeline` logger (idempotent)."""
    if not any(getattr(h, "_pipeline_console", False) for h in log.handlers):
        handler = _CurrentStderr()
        handler.setFormatter(logging.Formatter("%(message)s"))
        handler._pipeline_console = True
        log.addHandler(handler)
    log.setLevel(logging.INFO)
    log.propagate = False


class _LogFile(logging.FileHandler):
    """A log file copy that skips a record it cannot write (a full disk) instead of printing a traceback:
    the console still shows the line, and the failing write itself is reported as one error."""

    def handleError(self, record):
        pass


@contextmanager
def log_to_file(path: Path):
    """Copy every `pipeline` log record into `path` while the block runs."""
    path.parent.mkdir(parents=True, exist_ok=True)
    handler = _LogFile(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(message)s"))
    log.addHandler(handler)
    try:
        yield
    finally:
        log.removeHandler(handler)
        handler.close()
