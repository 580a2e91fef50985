"""The checker's own file reader: a certificate folder may come from anyone, so its files are opened warily.

Only regular files are read (a FIFO, folder, device or symlink loop is refused, and the open is
non-blocking so a FIFO cannot hang the checker), at most MAX_BYTES of them, as strict UTF-8, and as
strict JSON (no NaN or Infinity, nesting at most MAX_DEPTH deep).  Written apart from the prover's
reader (pipeline/runtime/files.py) so that the checker trusts none of the code it checks.
"""

import json
import math
import os
import stat
from pathlib import Path

from pipeline import PipelineError

MAX_BYTES = 256 * 2**20  # a certificate of a large game is a few MB; no honest file comes near this
MAX_DEPTH = 200


class FileRefused(PipelineError):
    """A file the checker will not read; `missing` when there is nothing at the path."""

    def __init__(self, path: Path, why: str, missing: bool = False):
        super().__init__(f"{path}: {why}")
        self.missing = missing


def file_bytes(path: Path, limit: int = MAX_BYTES) -> bytes:
    """The bytes of the regular file at `path` (FileRefused for anything else, or for more than `limit` bytes).

    Its kind is looked at before it is opened (opening a device can have effects) and again on the open
    descriptor (the path may have been swapped in between)."""
    try:
        if not stat.S_ISREG(os.stat(path).st_mode):
            raise FileRefused(path, f"not a regular file ({_what(os.stat(path).st_mode)})")
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except FileNotFoundError:
        raise FileRefused(path, "no such file", missing=True) from None
    except OSError as err:  # ELOOP for a symlink loop, EACCES, ...
        raise FileRefused(path, f"cannot be opened ({err.strerror})") from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise FileRefused(path, f"not a regular file ({_what(info.st_mode)})")
        if info.st_size > limit:
            raise FileRefused(path, f"{info.st_size} bytes, more than the checker reads ({limit})")
        chunks, size = [], 0
        while size <= limit:
            chunk = os.read(fd, 1 << 20)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    finally:
        os.close(fd)
    if size > limit:
        raise FileRefused(path, f"grew past {limit} bytes while read")
    return b"".join(chunks)


def _what(mode: int) -> str:
    """The kind of a file that is not regular, for the message."""
    names = {stat.S_IFDIR: "a folder", stat.S_IFIFO: "a FIFO", stat.S_IFSOCK: "a socket", stat.S_IFCHR: "a device",
             stat.S_IFBLK: "a device"}
    return names.get(stat.S_IFMT(mode), "a special file")


def _no_constant(name: str):
    raise ValueError(f"{name} is not a JSON number")


def _float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise ValueError(f"{text} overflows a float")
    return value


def _unique_keys(pairs: list) -> dict:
    """The object of `pairs`; its first key given twice is refused (one pass with a set: linear in the keys)."""
    body = dict(pairs)
    if len(body) != len(pairs):
        seen = set()
        for key, _ in pairs:
            if key in seen:
                raise ValueError(f"key {key!r} is given twice in one object")
            seen.add(key)
    return body


def json_of(data: bytes, path: Path):
    """Strict JSON of the bytes `data` read from `path`: no NaN or Infinity, no key given twice in an object."""
    try:
        body = json.loads(data.decode("utf-8"), parse_constant=_no_constant, parse_float=_float,
                          object_pairs_hook=_unique_keys)
    except UnicodeDecodeError as err:
        raise FileRefused(path, f"not UTF-8 (byte {err.start})") from None
    except RecursionError:
        raise FileRefused(path, f"JSON nested more than {MAX_DEPTH} levels") from None
    except ValueError as err:
        raise FileRefused(path, f"not valid JSON ({err})") from None
    if _too_deep(body):
        raise FileRefused(path, f"JSON nested more than {MAX_DEPTH} levels")
    return body


def _too_deep(body) -> bool:
    """Whether lists/objects in `body` nest more than MAX_DEPTH levels (checked with a stack, not recursion)."""
    todo = [(body, 0)]
    while todo:
        value, level = todo.pop()
        if isinstance(value, dict):
            value = list(value.values())
        if isinstance(value, list):
            if level >= MAX_DEPTH:
                return True
            todo += [(item, level + 1) for item in value]
    return False
