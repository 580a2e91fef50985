"""Unpacking a bundle (`python -m pipeline bundle`) for `verify-certificate <archive>`, trusting none of it.

An archive may come from anyone.  It is read as one gzip stream of a tar, in order, never seeking, and
the unpacked bytes are counted as they come (a small archive cannot unpack into a full disk).  Refused,
each as one `error:` line, before anything is checked:
- a file that is not gzip-compressed tar, or is damaged or truncated;
- a member that is not a regular file (symbolic or hard links, devices, FIFOs), but for the one top folder;
- a member name that is absolute, climbs out (`..`), hides (a leading dot), or is not `<top>/<file>` under
  the same top folder as every other member; a name given twice;
- more than MAX_MEMBERS members, a member over MAX_MEMBER_BYTES, more than MAX_TOTAL_BYTES in all;
- members that differ from the archive's INDEX.json (each other member's size and sha256; none missing,
  none more), which `bundle` writes (pipeline/artifacts/bundle.py documents it).
Members are written, with their bytes only (no mode, owner or time), into a new temporary folder that is
removed after the check.  The archive's bytes are hashed as they are read, the same single pass that unpacks
them, and to the file's end: `Unpacked.sha256` is the digest of exactly the bytes unpacked (a record of the
check is kept under it: pipeline/proofs/certificates/record.py).
"""

import contextlib
import hashlib
import os
import stat
import tarfile
import tempfile
import zlib
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from pipeline import PipelineError
from pipeline.proofs.files.reader import FileRefused, json_of

MAX_ARCHIVE_BYTES = 2**30
MAX_MEMBER_BYTES = 256 * 2**20  # as files.MAX_BYTES: no file the checker reads is bigger
MAX_TOTAL_BYTES = 2**30
MAX_MEMBERS = 10_000
HEADROOM = 16 * 2**20  # tar headers and padding beside the members' bytes
INDEX = "INDEX.json"


class ArchiveRefused(PipelineError):
    def __init__(self, archive: Path, why: str):
        super().__init__(f"{archive}: {why}; not checked")
        self.why = why


class CountedReader:
    """A file object's reads, refused once more than `limit` bytes have come out of it."""

    def __init__(self, raw, limit: int, refuse):
        self.raw, self.limit, self.refuse, self.count = raw, limit, refuse, 0

    def read(self, size: int = -1) -> bytes:
        room = self.limit - self.count + 1  # never more than one byte past the limit in memory
        data = self.raw.read(room if size is None or size < 0 or size > room else size)
        self.count += len(data)
        if self.count > self.limit:
            raise self.refuse(f"it unpacks to more than {self.limit} bytes")
        return data


class HashedReader:
    """A file's reads, hashed in the order they come; `sha256` reads the rest of the file first (at most `limit`
    bytes in all), so the digest is of every byte read, the same bytes the reader was given."""

    def __init__(self, raw, limit: int, refuse):
        self.raw, self.limit, self.refuse, self.count, self.digest = raw, limit, refuse, 0, hashlib.sha256()

    def read(self, size: int = -1) -> bytes:
        data = self.raw.read(size)
        self.count += len(data)
        if self.count > self.limit:
            raise self.refuse(f"it grew past {self.limit} bytes while read")
        self.digest.update(data)
        return data

    def peek(self, size: int) -> bytes:
        return self.raw.peek(size)

    def sha256(self) -> str:
        while self.read(1 << 20):
            pass
        return self.digest.hexdigest()


@dataclass(frozen=True)
class Unpacked:
    """An archive unpacked: its top folder, and the sha256 of the archive's bytes, exactly those unpacked."""

    top: Path
    sha256: str


def open_archive(archive: Path):
    """The archive file, opened without following a FIFO or device (a regular file of at most MAX_ARCHIVE_BYTES)."""
    refuse = lambda why: ArchiveRefused(archive, why)  # noqa: E731
    try:
        fd = os.open(archive, os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY)
    except OSError as err:
        raise refuse(f"cannot be opened ({err.strerror})") from None
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode) or info.st_size > MAX_ARCHIVE_BYTES:
        os.close(fd)
        raise refuse("not a regular file" if not stat.S_ISREG(info.st_mode)
                     else f"{info.st_size} bytes, more than {MAX_ARCHIVE_BYTES}")
    return os.fdopen(fd, "rb")


def member_file(archive: Path, info: tarfile.TarInfo, top: str | None) -> tuple[str, str | None]:
    """(top folder, file name or None for the top folder itself) of an acceptable member; refused otherwise."""
    refuse = lambda why: ArchiveRefused(archive, f"member {info.name!r} {why}")  # noqa: E731
    name = info.name
    parts = PurePosixPath(name).parts
    if name.startswith("/") or "\\" in name or "\0" in name or any(p in ("..", ".") for p in name.split("/")):
        raise refuse("points outside the archive's folder")
    if not 1 <= len(parts) <= 2 or any(p.startswith(".") for p in parts) or (top is not None and parts[0] != top):
        raise refuse("is not a file of the archive's one top folder")
    if len(parts) == 1:
        if not info.isdir():
            raise refuse("is not a folder")
        return parts[0], None
    if info.issym() or info.islnk():
        raise refuse(f"is a {'symbolic' if info.issym() else 'hard'} link (to {info.linkname!r})")
    if not info.isreg():
        raise refuse("is not a regular file")
    if info.size > MAX_MEMBER_BYTES:
        raise refuse(f"holds {info.size} bytes, more than {MAX_MEMBER_BYTES}")
    return parts[0], parts[1]


def unpack(archive: Path, into: Path) -> Path:
    """Write the archive's files into `into`/<top>; the top folder."""
    return unpack_hashed(archive, into).top


def unpack_hashed(archive: Path, into: Path) -> Unpacked:
    """Write the archive's files into `into`/<top>; the top folder and the sha256 of the bytes unpacked."""
    refuse = lambda why: ArchiveRefused(archive, why)  # noqa: E731
    top, written, total = None, set(), 0
    with open_archive(archive) as opened:
        raw = HashedReader(opened, MAX_ARCHIVE_BYTES, refuse)
        try:
            with tarfile.open(fileobj=CountedReader(_gunzip(raw, refuse), MAX_TOTAL_BYTES + HEADROOM, refuse),
                              mode="r|") as tar:
                for info in tar:
                    top, name = member_file(archive, info, top)
                    if name is None:
                        continue
                    total += info.size
                    if name in written or len(written) >= MAX_MEMBERS or total > MAX_TOTAL_BYTES:
                        raise refuse(f"member {info.name!r} is given twice" if name in written
                                     else f"more than {MAX_MEMBERS} members or {MAX_TOTAL_BYTES} bytes")
                    write_member(into / top, name, tar.extractfile(info), info.size, refuse)
                    written.add(name)
            sha256 = raw.sha256()
        except (tarfile.TarError, EOFError, zlib.error, OSError) as err:
            raise refuse(f"not a readable .tar.gz archive ({type(err).__name__}: {err})") from None
    if top is None or not written:
        raise refuse("holds no files")
    check_index(archive, into / top, written)
    return Unpacked(into / top, sha256)


def _gunzip(raw, refuse):
    """The gzip stream of `raw` (refused when the file does not start as gzip)."""
    import gzip

    if raw.peek(2)[:2] != b"\x1f\x8b":
        raise refuse("not a .tar.gz archive (no gzip header)")
    return gzip.GzipFile(fileobj=raw, mode="rb")


def write_member(folder: Path, name: str, source, size: int, refuse) -> None:
    """A member's bytes into a new file `folder`/`name` (never through an existing path)."""
    folder.mkdir(exist_ok=True)
    fd = os.open(folder / name, os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0), 0o600)
    with os.fdopen(fd, "wb") as out:
        left = size
        while left:
            chunk = source.read(min(left, 1 << 20))
            if not chunk:
                raise refuse(f"member {name!r} is truncated")
            out.write(chunk)
            left -= len(chunk)


def check_index(archive: Path, folder: Path, names: set[str]) -> None:
    """Every member other than INDEX.json and README.txt has the size and sha256 INDEX.json lists; none is
    missing, none more."""
    refuse = lambda why: ArchiveRefused(archive, why)  # noqa: E731
    if INDEX not in names:
        raise refuse(f"no {INDEX}: not an archive `python -m pipeline bundle` wrote")
    try:
        listed = json_of((folder / INDEX).read_bytes(), folder / INDEX)["files"]
        expected = {name: (int(e["bytes"]), str(e["sha256"])) for name, e in listed.items()}
    except (FileRefused, KeyError, TypeError, ValueError, AttributeError) as err:
        raise refuse(f"{INDEX} is damaged ({err})") from None
    found = names - {INDEX, "README.txt"}
    if set(expected) != found:
        odd = sorted(set(expected) ^ found)[0]
        raise refuse(f"{odd} is {'missing' if odd in expected else 'not listed in ' + INDEX}")
    for name in sorted(found):
        data = (folder / name).read_bytes()
        if (len(data), hashlib.sha256(data).hexdigest()) != expected[name]:
            raise refuse(f"{name} differs from its size and sha256 in {INDEX} (edited after it was bundled)")


@contextlib.contextmanager
def unpacked(archive: Path):
    """The archive's top folder, unpacked into a temporary folder removed afterwards."""
    with unpacked_hashed(archive) as found:
        yield found.top


@contextlib.contextmanager
def unpacked_hashed(archive: Path, within: Path | None = None):
    """The archive unpacked (its top folder, the sha256 of its bytes) into a temporary folder inside `within`
    (default: the system's), removed afterwards."""
    with tempfile.TemporaryDirectory(prefix="verify-bundle-", dir=within) as scratch:
        yield unpack_hashed(Path(archive), Path(scratch))
