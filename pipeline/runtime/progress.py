"""Progress on long work: a live line on a terminal, a final summary otherwise."""

import sys
import time

from pipeline.runtime.log import log


class Progress:
    """`with Progress("upper_bound", total) as p: p.advance()` shows done/total and an ETA."""

    def __init__(self, label: str, total: int, enabled: bool = True, stream=None, resumed: int = 0):
        self.label, self.total, self.done, self.resumed = label, total, resumed, resumed
        self.stream = stream or sys.stderr
        self.live = enabled and self.stream.isatty()
        self.started = self.last_draw = time.monotonic()

    def __enter__(self):
        self._draw(force=True)
        return self

    def advance(self, n: int = 1) -> None:
        self.done += n
        self._draw()

    def _draw(self, force: bool = False) -> None:
        now = time.monotonic()
        if not self.live or (not force and now - self.last_draw < 0.2 and self.done < self.total):
            return
        self.last_draw = now
        elapsed = now - self.started
        fresh = self.done - self.resumed
        eta = f", ETA {elapsed / fresh * (self.total - self.done):.0f}s" if fresh else ""
        self.stream.write(f"\r{self.label}: {self.done}/{self.total} tasks{eta}   ")
        self.stream.flush()

    def __exit__(self, *exc):
        elapsed = time.monotonic() - self.started
        if self.live:
            self.stream.write("\r\033[K")
            self.stream.flush()
        resumed = f" ({self.resumed} resumed from an earlier run)" if self.resumed else ""
        log.info(f"{self.label}: {self.done}/{self.total} tasks in {elapsed:.1f}s{resumed}")
