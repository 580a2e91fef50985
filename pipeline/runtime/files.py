"""Reading a file somebody else made (a user's argument, an artifact on a shared disk) without trusting it.

Every reader of the pipeline side goes through here, so that a path that is a folder, a FIFO, a device
or a symlink loop, a file too big to hold, bytes that are not UTF-8, JSON that is not strict (NaN,
Infinity, numbers beyond a float) or nests deeper than any file this project writes, all end as one
UnreadableFile (a PipelineError: one `error:` line) naming the path and the reason, within
milliseconds: the file is opened with O_NONBLOCK, so a FIFO with no writer cannot block the read, and
its size is checked before a byte is read.  The certificate checker (pipeline/proofs) has its own
reader: it shares no code with the side that writes what it checks.
"""

import errno
import json
import math
import os
import stat
from pathlib import Path

from pipeline import PipelineError

MAX_JSON_BYTES = 256 * 2**20  # far above any tree, summary or manifest written here (Wordle's tree: < 1 MB)
MAX_TEXT_BYTES = 64 * 2**20  # word lists and share grids
MAX_DEPTH = 200  # a tree node is two levels per guess; no game here needs 100 guesses


class UnreadableFile(PipelineError):
    """A file that cannot be read as asked; `problem` completes "<path> is ...", `short` says it in a word."""

    def __init__(self, path: Path, problem: str, short: str | None = None):
        super().__init__(f"{path} is {problem}")
        self.path, self.problem, self.short = Path(path), problem, short or problem


class MissingFile(UnreadableFile):
    """Nothing at the path (callers word this one themselves: "tree file not found: ...")."""


def kind_of(mode: int) -> str:
    """What a non-regular file is, in words."""
    for test, name in ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO"), (stat.S_ISSOCK, "a socket"),
                       (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device")):
        if test(mode):
            return name
    return "not a plain file"


def _status(path: Path) -> os.stat_result:
    """The file's status (symlinks followed: a link to a plain file is fine), refusing what is not a plain file."""
    try:
        status = os.stat(path)
    except FileNotFoundError:
        raise MissingFile(path, "missing", "missing") from None
    except OSError as err:
        if err.errno == errno.ELOOP:
            raise UnreadableFile(path, "a symlink loop (too many levels of symbolic links)", "a symlink loop") \
                from None
        raise UnreadableFile(path, f"unreadable ({err.strerror})", err.strerror) from None
    if not stat.S_ISREG(status.st_mode):
        what = kind_of(status.st_mode)
        raise UnreadableFile(path, f"{what}, not a regular file", what)
    return status


def check_regular(path: Path) -> None:
    """Raise UnreadableFile unless `path` is a regular file (before handing it to a library that opens it)."""
    _status(Path(path))


def read_bytes(path: Path, limit: int) -> bytes:
    """The bytes of a regular file of at most `limit` bytes; never blocks (O_NONBLOCK) and checks the size
    before reading, again on the open descriptor (the path may have been swapped in between)."""
    path = Path(path)
    _status(path)
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0))
    except OSError as err:
        raise UnreadableFile(path, f"unreadable ({err.strerror})", err.strerror) from None
    with os.fdopen(fd, "rb") as handle:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            what = kind_of(status.st_mode)
            raise UnreadableFile(path, f"{what}, not a regular file", what)
        _check_size(path, status.st_size, limit)
        data = handle.read(limit + 1)
    _check_size(path, len(data), limit)  # it grew while being read
    return data


def _check_size(path: Path, size: int, limit: int) -> None:
    if size > limit:
        raise UnreadableFile(path, f"too big ({size} bytes; the limit is {limit})", "too big")


def read_text(path: Path, limit: int = MAX_TEXT_BYTES) -> str:
    """A regular file's text, strict UTF-8."""
    data = read_bytes(path, limit)
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as err:
        raise UnreadableFile(path, f"not UTF-8 text (byte {err.start})", "not UTF-8") from None


def read_json(path: Path, limit: int = MAX_JSON_BYTES):
    """A regular file's strict JSON: UTF-8, no NaN or Infinity (nor numbers too big for a float), at most
    MAX_DEPTH levels of nesting."""
    return parse_json(read_text(path, limit), path)


class NotFinite(ValueError):
    """NaN, Infinity or a number too big for a float: Python's json accepts them, JSON does not."""


def _refuse_constant(name: str):
    raise NotFinite(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise NotFinite(f"{text} is beyond a float")
    return value


def parse_json(text: str, path: Path):
    """Strict JSON of `text` read from `path` (named in the error)."""
    try:
        body = json.loads(text, parse_constant=_refuse_constant, parse_float=_finite_float)
    except RecursionError:
        raise UnreadableFile(path, f"not JSON this pipeline reads (nested more than {MAX_DEPTH} levels)",
                             "too deeply nested") from None
    except NotFinite as err:
        raise UnreadableFile(path, f"not valid JSON ({err})", "not finite") from None
    except ValueError as err:  # JSONDecodeError
        raise UnreadableFile(path, f"not valid JSON ({' '.join(str(err).split())})", type(err).__name__) from None
    if depth(body) > MAX_DEPTH:
        raise UnreadableFile(path, f"not JSON this pipeline reads (nested more than {MAX_DEPTH} levels)",
                             "too deeply nested")
    return body


def depth(body) -> int:
    """How deeply lists and objects nest in a parsed JSON value (0 for a scalar), without recursion."""
    deepest, stack = 0, [(body, 1)]
    while stack:
        value, level = stack.pop()
        if isinstance(value, (dict, list)):
            deepest = max(deepest, level)
            if level > MAX_DEPTH:
                return level
            stack.extend((item, level + 1) for item in (value.values() if isinstance(value, dict) else value))
    return deepest
