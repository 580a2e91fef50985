"""Debian's headless Chromium (`make browser` installs it) for the pages the catalogue writes: run once to dump a
page's DOM or take a screenshot, or driven over the DevTools protocol through a pipe (--remote-debugging-pipe:
no port is opened) to click and type as a user does."""

import fcntl
import json
import os
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
FLAGS = ("--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions")  # no sandbox:
# CI runs as root; the profile goes in a test's own folder
needs_chromium = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `make browser` installs Debian's "
                                                             "chromium package (as root), which this test drives")
TIMEOUT = 180  # seconds for a whole headless run, or for one answer of the driven browser


def headless(profile: Path, *arguments: str) -> str:
    """Run headless Chromium once (its profile in `profile`) and return its stdout."""
    done = subprocess.run([CHROMIUM, *FLAGS, f"--user-data-dir={profile}", *arguments], capture_output=True,
                          text=True, timeout=TIMEOUT)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


def above_4(fd: int) -> int:
    """`fd` moved to a number above 4, so that moving it onto 3 or 4 in the child overwrites no other end."""
    moved = fcntl.fcntl(fd, fcntl.F_DUPFD_CLOEXEC, 10)
    os.close(fd)
    return moved


class DevTools:
    """A headless Chromium answering DevTools protocol messages on a pipe (its fd 3 reads, fd 4 writes, each
    message JSON ending in a NUL byte); use as a context manager, then `open` a page and drive it."""

    def __init__(self, profile: Path):
        to_browser, self._send = os.pipe()
        self._receive, from_browser = os.pipe()
        to_browser, from_browser = (above_4(fd) for fd in (to_browser, from_browser))
        # bash (dash reads no fd above 9) moves the two ends to the fds the protocol names, then becomes chromium
        self.process = subprocess.Popen(
            ["bash", "-c", f'exec "$0" "$@" 3<&{to_browser} 4>&{from_browser} {to_browser}<&- {from_browser}>&-',
             CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "--remote-debugging-pipe", "--window-size=1200,900"],
            pass_fds=(to_browser, from_browser), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        os.close(to_browser)
        os.close(from_browser)
        self._buffer, self._next_id, self.events = b"", 0, []

    def __enter__(self) -> "DevTools":
        return self

    def __exit__(self, *exc) -> None:
        try:
            self.call("Browser.close")
        except (AssertionError, OSError):
            pass
        try:
            self.process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            self.process.kill()  # the browser this helper started, by its own handle
            self.process.wait()
        os.close(self._send)
        os.close(self._receive)

    def _message(self, deadline: float) -> dict:
        while b"\0" not in self._buffer:
            ready, _, _ = select.select([self._receive], [], [], max(0.0, deadline - time.monotonic()))
            assert ready, "chromium did not answer in time"
            chunk = os.read(self._receive, 1 << 16)
            assert chunk, "chromium closed its DevTools pipe"
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return json.loads(message)

    def call(self, method: str, session: str | None = None, **params) -> dict:
        """Send one command (to the page of `session`, or the browser) and return its result."""
        self._next_id += 1
        message = {"id": self._next_id, "method": method, "params": params}
        if session:
            message["sessionId"] = session
        os.write(self._send, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = self._message(deadline)
            if answer.get("id") == self._next_id:
                assert "error" not in answer, f"{method}: {answer['error']}"
                return answer.get("result", {})
            self.events.append(answer)

    def wait_for(self, method: str, session: str) -> dict:
        """The first event `method` of the page of `session` (kept or still to come)."""
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, event in enumerate(self.events):
                if event.get("method") == method and event.get("sessionId") == session:
                    return self.events.pop(i)
            self.events.append(self._message(deadline))

    def open(self, url: str) -> str:
        """A new tab showing `url`, loaded; its session id."""
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        session = self.call("Target.attachToTarget", targetId=target, flatten=True)["sessionId"]
        self.call("Page.enable", session)
        self.call("Page.navigate", session, url=url)
        self.wait_for("Page.loadEventFired", session)
        return session

    def evaluate(self, session: str, expression: str):
        """The value of a JavaScript expression in the page (JSON-able)."""
        result = self.call("Runtime.evaluate", session, expression=expression, returnByValue=True)
        assert "exceptionDetails" not in result, result["exceptionDetails"]
        return result["result"].get("value")

    def click(self, session: str, selector: str) -> None:
        """A left click with the mouse at the middle of the first element matching `selector` (of its first line
        box: a link that wraps spans two lines)."""
        box = self.evaluate(session, f"""(() => {{ const e = document.querySelector({json.dumps(selector)});
            e.scrollIntoView({{block: "center"}}); const r = e.getClientRects()[0];
            return [r.left + r.width / 2, r.top + r.height / 2]; }})()""")
        for kind in ("mousePressed", "mouseReleased"):
            self.call("Input.dispatchMouseEvent", session, type=kind, x=box[0], y=box[1], button="left",
                      clickCount=1)

    def type(self, session: str, selector: str, text: str) -> None:
        """Click the field `selector`, type `text` into it and press Enter."""
        self.click(session, selector)
        self.call("Input.insertText", session, text=text)
        for kind in ("keyDown", "keyUp"):
            self.call("Input.dispatchKeyEvent", session, type=kind, key="Enter", code="Enter",
                      windowsVirtualKeyCode=13, **({"text": "\r"} if kind == "keyDown" else {}))
