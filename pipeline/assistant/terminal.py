"""Terminal presentation: coloured tiles on a TTY, plain digits otherwise, and a progress indicator.

Colour is used only when stdout is a terminal and NO_COLOR is unset, so
piped or scripted output is plain, deterministic text.  The progress
indicator writes to stderr, only on a terminal, and only once a task has
taken longer than a second.
"""

import os
import sys
import threading
import time

RESET = "\x1b[0m"
TILE = {"0": "\x1b[1;97;100m", "1": "\x1b[1;30;43m", "2": "\x1b[1;97;42m"}  # grey, yellow, green backgrounds
DIM, BOLD = "\x1b[2m", "\x1b[1m"


def use_colour(stream=None) -> bool:
    stream = stream or sys.stdout
    return stream.isatty() and not os.environ.get("NO_COLOR")


def render_row(guess: str, colours: str, colour: bool) -> str:
    """`S A L E T` as tiles (colour) or "salet 02100" (plain)."""
    if not colour or not set(colours) <= set(TILE):  # peg answers ("2B1W") are shown as text
        return f"{bold(guess, colour)} {colours}" if colour else f"{guess} {colours}"
    return " ".join(f"{TILE[c]} {g.upper()} {RESET}" for g, c in zip(guess, colours)) + f"  {DIM}{colours}{RESET}"


def bold(text: str, colour: bool) -> str:
    return f"{BOLD}{text}{RESET}" if colour else text


class Progress:
    """A spinner with an optional fraction, drawn on stderr after `delay` seconds; use as a context manager."""

    FRAMES = "|/-\\"

    def __init__(self, label: str, enabled: bool | None = None, delay: float = 1.0):
        self.label = label
        self.enabled = sys.stderr.isatty() if enabled is None else enabled
        self.delay = delay
        self.fraction: float | None = None
        self._done = threading.Event()
        self._thread = None
        self._drawn = False

    def update(self, fraction: float) -> None:
        self.fraction = fraction

    def _run(self) -> None:
        started = time.monotonic()
        if self._done.wait(self.delay):
            return
        frame = 0
        while not self._done.is_set():
            pct = f" {100 * self.fraction:3.0f}%" if self.fraction is not None else ""
            elapsed = time.monotonic() - started
            sys.stderr.write(f"\r{self.FRAMES[frame % 4]} {self.label}{pct} ({elapsed:.0f}s)\x1b[K")
            sys.stderr.flush()
            self._drawn = True
            frame += 1
            self._done.wait(0.1)

    def __enter__(self) -> "Progress":
        if self.enabled:
            self._thread = threading.Thread(target=self._run, daemon=True)
            self._thread.start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()
        if self._thread:
            self._thread.join()
            if self._drawn:
                sys.stderr.write("\r\x1b[K")
                sys.stderr.flush()
