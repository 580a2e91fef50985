"""Artifact store: outputs/<stage>/<key>/, written atomically, manifest last.

A key is a hash of everything that changes a stage's result (its config
fields, its inputs' keys, its stage's algorithm version; not the source code,
which the manifest records).  An artifact is complete iff its
manifest.json exists; a killed writer leaves only a hidden temp folder, named
after its host and process id so that the next writer of the stage removes it
once that process is gone.  A finished artifact is checked against the file
sizes its manifest records before it is reused.

Nothing below the outputs root is followed if it is a symbolic link: a link in
place of a stage folder, an artifact, a shard folder or a file is refused with
one line (a link could make a write land outside the outputs, or a read come
from elsewhere).  A write that fails because the disk is full or the folder is
read-only becomes one PipelineError line naming what was being written; its
temp file or folder is removed.
"""

import errno
import hashlib
import json
import os
import re
import shutil
import socket
import stat
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pipeline import PipelineError
from pipeline.processes.signals import unwinding
from pipeline.runtime import files

MANIFEST = "manifest.json"
JSON_CHECK_BYTES = 64 * 2**20  # JSON files up to this size are parsed when a finished artifact is reused
TMP_NAME = re.compile(r"^\.tmp-(?P<key>[^-]+)-(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-[0-9a-f]{8}$")


DISK_FULL = {errno.ENOSPC, errno.EDQUOT}
NOT_WRITABLE = {errno.EROFS, errno.EACCES, errno.EPERM, errno.EBUSY}
WRITE_CHUNK = 1 << 20


def write_problem(err: OSError, what: str, written: int | None = None, needed: int | None = None):
    """The one-line PipelineError for a write that failed because the disk is full or the place is read-only
    (None for any other OSError, which is a bug to see in full); `written`/`needed` are byte counts if known."""
    full = err.errno in DISK_FULL or (err.errno is None and "No space left" in str(err))  # pyarrow's errors
    if full:
        amount = "" if written is None else f" ({written} of {needed} bytes written)" if needed is not None \
            else f" ({written} bytes written)"
        return PipelineError(f"no space left on the device while writing {what}{amount}; the partial file was "
                             "removed: free some space and rerun (finished work is kept)")
    if err.errno in NOT_WRITABLE:
        name = errno.errorcode.get(err.errno, str(err.errno))
        where = f" ({err.filename})" if err.filename else ""
        return PipelineError(f"cannot write {what}{where}: {err.strerror or name} [{name}]; the folder is "
                             "read-only or in use — make it writable or choose another paths.outputs")
    return None


def raise_write_problem(err: OSError, what: str, written: int | None = None, needed: int | None = None):
    """Raise write_problem's one-line error for `err`, or `err` itself when it is another kind of failure."""
    problem = write_problem(err, what, written, needed)
    if problem is None:
        raise err
    raise problem from None


def is_link(path: Path) -> bool:
    """Whether `path` itself is a symbolic link (never follows it)."""
    try:
        return stat.S_ISLNK(os.lstat(path).st_mode)
    except OSError:
        return False


def refuse_link(path: Path) -> None:
    """PipelineError if `path` is a symbolic link: artifact folders are never written or read through one."""
    if is_link(path):
        raise PipelineError(f"{path} is a symbolic link; refusing to follow it inside the outputs folder "
                            "(remove the link; the pipeline recreates a real folder)")


def real_dir(path: Path, below: Path) -> Path:
    """Create `path` (and the folders between `below` and it) as real folders, refusing any symbolic link or
    file on the way; `below` itself is trusted (the outputs root may be a link the user made)."""
    path, below = Path(path), Path(below)
    parts = path.relative_to(below).parts
    try:
        below.mkdir(parents=True, exist_ok=True)
    except OSError as err:
        raise_write_problem(err, f"the folder {below}")
    current = below
    for part in parts:
        current = current / part
        try:
            os.mkdir(current)
            continue
        except FileExistsError:
            pass
        except OSError as err:
            raise_write_problem(err, f"the folder {current}")
        refuse_link(current)
        if not current.is_dir():
            raise PipelineError(f"{current} is not a folder; remove it or choose another paths.outputs")
    return path


def write_new(path: Path, data: bytes, what: str) -> None:
    """Write `data` to a new file at `path` (never through a link, never over an existing file); on failure the
    partial file is removed and a full disk or read-only folder becomes one PipelineError line."""
    written = 0
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    except OSError as err:
        raise_write_problem(err, what, 0, len(data))
    try:
        with memoryview(data) as view:
            while written < len(data):
                written += _write_chunk(fd, view[written : written + WRITE_CHUNK])
    except OSError as err:
        os.close(fd)
        os.unlink(path)
        raise_write_problem(err, what, written, len(data))
    os.close(fd)


def _write_chunk(fd: int, chunk) -> int:
    """os.write of one chunk (a seam tests use to simulate a full disk)."""
    return os.write(fd, chunk)


def read_regular(path: Path) -> bytes:
    """The bytes of `path` if it is a regular file, not a link: a FIFO or device planted there is refused at once
    (OSError) instead of blocking the reader."""
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise OSError(errno.EINVAL, "not a regular file", str(path))
        with os.fdopen(os.dup(fd), "rb") as handle:
            return handle.read()
    finally:
        os.close(fd)


class DamagedArtifactError(PipelineError):
    """A finished artifact whose file is missing or unreadable; `stage` says which stage rebuilds it."""

    def __init__(self, stage: str, path: Path, problem: str):
        super().__init__(f"{path} is {problem}")
        self.stage, self.path, self.problem = stage, path, problem


def read_json_file(stage: str, path: Path, kind: type | None = None):
    """A JSON file inside an artifact of `stage` (a `kind`, e.g. dict, when given); DamagedArtifactError if it
    is missing, not a regular file, too big, not strict JSON or not of that kind (pipeline.runtime.files)."""
    try:
        body = files.read_json(path)
    except files.MissingFile:
        raise DamagedArtifactError(stage, path, "missing") from None
    except files.UnreadableFile as err:
        raise DamagedArtifactError(stage, path, f"damaged ({err.short})") from None
    if kind is not None and not isinstance(body, kind):
        raise DamagedArtifactError(stage, path, f"damaged (a JSON {type(body).__name__}, not a {kind.__name__})")
    return body


def host_tag() -> str:
    """This machine's name as it appears in temp folder names (letters, digits and _ only)."""
    return re.sub(r"[^A-Za-z0-9]", "_", socket.gethostname()) or "host"


def writer_alive(pid: int, since: float) -> bool:
    """Whether process `pid` on this host exists and is not younger than `since` (a reused pid)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # someone else's process: it exists
    try:
        import psutil

        return psutil.Process(pid).create_time() <= since + 1.0
    except Exception:  # psutil missing or the process ended meanwhile: trust os.kill's answer
        return True


KEY = re.compile(r"[0-9a-f]{16}")  # the shape of every key config_key makes (an artifact's folder name)


def config_key(material: dict) -> str:
    """A short stable hash of a JSON-able description of a result."""
    text = json.dumps(material, sort_keys=True, default=str)
    return hashlib.sha256(text.encode()).hexdigest()[:16]


@dataclass
class Artifact:
    stage: str
    key: str
    path: Path

    @property
    def manifest(self) -> dict:
        """The manifest (a JSON object); DamagedArtifactError if it is anything else."""
        return read_json_file(self.stage, self.path / MANIFEST, dict)

    def file(self, name: str) -> Path:
        return self.path / name

    def check(self) -> None:
        """Raise DamagedArtifactError unless the manifest reads and every file it lists has its recorded size."""
        listed = self.manifest.get("files")
        if not isinstance(listed, dict) or not all(isinstance(n, str) and Path(n).name == n and
                                                   type(s) is int for n, s in listed.items()):
            raise DamagedArtifactError(self.stage, self.path / MANIFEST, "damaged (no list of file sizes)")
        for name, size in listed.items():
            path = self.path / name
            if is_link(path):
                raise DamagedArtifactError(self.stage, path, "a symbolic link, not a file of the artifact")
            if not path.exists():
                raise DamagedArtifactError(self.stage, path, "missing")
            if not path.is_file() or path.is_symlink():
                raise DamagedArtifactError(self.stage, path, "damaged (not a regular file)")
            if path.stat().st_size != size:
                raise DamagedArtifactError(self.stage, path, f"damaged ({path.stat().st_size} bytes, "
                                                             f"the manifest says {size})")
            self._check_readable(path)

    def _check_readable(self, path: Path) -> None:
        """JSON files parse and Parquet files have a readable footer (cheap: no column data is read)."""
        if path.suffix == ".json" and path.stat().st_size <= JSON_CHECK_BYTES:
            read_json_file(self.stage, path)
        elif path.suffix == ".parquet":
            import pyarrow.parquet as pq

            try:
                pq.read_metadata(path)
            except Exception as err:  # pyarrow raises several types for a damaged footer
                raise DamagedArtifactError(self.stage, path, f"damaged ({type(err).__name__})") from None

    def read_json(self, name: str, kind: type | None = dict):
        """A JSON file of this artifact (a JSON object unless `kind` says otherwise; None: any);
        DamagedArtifactError if it is missing or not that."""
        return read_json_file(self.stage, self.path / name, kind)

    def damaged(self, name: str, why: str) -> "DamagedArtifactError":
        """The error for a file of this artifact whose content is implausible (`why`), to raise."""
        return DamagedArtifactError(self.stage, self.path / name, f"damaged ({why})")

    def read_table(self, name: str):
        """A Parquet file of this artifact as a pyarrow Table; DamagedArtifactError if missing or unreadable."""
        import pyarrow.parquet as pq

        path = self.path / name
        if not path.is_file():
            raise DamagedArtifactError(self.stage, path, "missing")
        try:
            return pq.ParquetFile(path).read()  # not read_table: it imports pyarrow.dataset (0.3 s)
        except Exception as err:  # pyarrow raises several types for a damaged file
            raise DamagedArtifactError(self.stage, path, f"damaged ({type(err).__name__})") from None


@dataclass
class ArtifactWriter:
    """A temp folder to write into; `record` adds entries to the manifest."""

    tmp: Path
    extra: dict = field(default_factory=dict)

    def file(self, name: str) -> Path:
        return self.tmp / name

    def record(self, **entries) -> None:
        self.extra.update(entries)


class ArtifactStore:
    def __init__(self, root: str | Path):
        self.root = Path(root).resolve()

    def artifact(self, stage: str, key: str) -> Artifact:
        return Artifact(stage, key, self.root / stage / key)

    def is_done(self, stage: str, key: str) -> bool:
        """Whether the artifact's manifest exists; PipelineError if its stage folder, its folder or the manifest
        is a symbolic link (a finished artifact is never read from elsewhere)."""
        for path in (self.root / stage, self.root / stage / key, self.root / stage / key / MANIFEST):
            refuse_link(path)
        return (self.root / stage / key / MANIFEST).is_file()

    def finished(self, stage: str) -> list[Artifact]:
        """Every finished artifact of `stage` (its manifest written; temp folders are hidden), oldest first.  A
        stage folder, artifact folder or manifest that is a symbolic link is not followed (as in is_done: a
        finished artifact is never read from elsewhere, e.g. outputs/prove/<link> to a folder outside)."""
        folder = self.root / stage
        if is_link(folder):
            return []
        manifests = [path for path in folder.glob(f"[!.]*/{MANIFEST}")
                     if not is_link(path.parent) and not is_link(path)]
        return [Artifact(stage, path.parent.name, path.parent)
                for path in sorted(manifests, key=lambda p: (p.lstat().st_mtime, p))]

    def clean_stale(self, stage: str) -> list[Path]:
        """Remove temp folders of `stage` left by writers on this host that are no longer running.

        Folders of live writers, of other hosts (a shared disk) and of unknown form are kept."""
        removed = []
        folder = self.root / stage
        if not folder.is_dir():
            return removed
        for path in folder.glob(".tmp-*"):
            match = TMP_NAME.match(path.name)
            if not match or match["host"] != host_tag():
                continue
            try:
                since = path.stat().st_mtime
            except FileNotFoundError:
                continue
            if not writer_alive(int(match["pid"]), since):
                shutil.rmtree(path, ignore_errors=True)
                removed.append(path)
        for path in folder.glob(".old-*"):  # a replaced artifact whose removal was interrupted
            shutil.rmtree(path, ignore_errors=True)
            removed.append(path)
        return removed

    def shard_dir(self, stage: str, key: str) -> Path:
        """Where a fan-out keeps per-shard results and done-markers so a killed run resumes."""
        return real_dir(self.root / stage / f".shards-{key}", self.root)

    def clear_shards(self, stage: str, key: str) -> None:
        """Forget finished shards of an interrupted run (a forced rerun starts from scratch)."""
        shutil.rmtree(self.root / stage / f".shards-{key}", ignore_errors=True)

    @contextmanager
    def claim(self, stage: str, key: str, on_wait=None):
        """Hold the right to compute `stage`/`key` while the block runs: a second run of this store wanting the
        same artifact (another point of a sweep, an identical run at once) waits here, calling `on_wait()` once,
        then finds it done instead of computing it again.  An advisory lock (flock) on a file under the stage
        folder, released when the block ends or its process dies."""
        import fcntl

        folder = real_dir(self.root / stage / ".claims", self.root)
        fd = os.open(folder / f"{key}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW, 0o644)
        try:
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                if on_wait:
                    on_wait()
                fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            os.close(fd)

    @contextmanager
    def write(self, stage: str, key: str, manifest: dict, replace: bool = False):
        """Yield an ArtifactWriter; on success the folder appears complete in one rename.

        `replace` swaps out a finished artifact with the same key (a forced rerun)."""
        final = self.root / stage / key
        real_dir(self.root / stage, self.root)
        refuse_link(final)
        self.clean_stale(stage)
        tmp = self.root / stage / f".tmp-{key}-{host_tag()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        try:
            tmp.mkdir()
        except OSError as err:
            raise_write_problem(err, f"the {stage} artifact's temp folder {tmp}")
        writer = ArtifactWriter(tmp)
        started = time.time()
        with unwinding():  # Ctrl-C / SIGTERM on the command line unwind through the finally below
            try:
                try:
                    yield writer
                    sizes = self._files(tmp)
                    body = {**manifest, **writer.extra, "files": sizes,
                            "written_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
                            "write_seconds": round(time.time() - started, 3)}
                    write_new(tmp / MANIFEST, (json.dumps(body, indent=2, default=str) + "\n").encode(),
                              f"the {stage} artifact's manifest")
                    self._publish(tmp, final, replace)
                except OSError as err:
                    raise_write_problem(err, f"the {stage} artifact into {tmp}", written=_folder_bytes(tmp))
            finally:
                shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(self.root / stage / f".shards-{key}", ignore_errors=True)

    @staticmethod
    def _files(tmp: Path) -> dict[str, int]:
        """Name -> size of every file the stage wrote; a symbolic link among them is refused."""
        sizes = {}
        for path in sorted(tmp.iterdir()):
            refuse_link(path)
            sizes[path.name] = path.stat().st_size
        return sizes

    @staticmethod
    def _publish(tmp: Path, final: Path, replace: bool) -> None:
        refuse_link(final)
        if final.exists() and (replace or not (final / MANIFEST).is_file()):
            old = final.with_name(f".old-{final.name}-{uuid.uuid4().hex[:8]}")
            os.rename(final, old)
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError as err:
            if err.errno in DISK_FULL | NOT_WRITABLE or not (final / MANIFEST).is_file():
                raise  # lost a race only if the winner is complete


def _folder_bytes(folder: Path) -> int:
    """Bytes of the files in `folder` (what a failed write had written), 0 if it cannot be listed."""
    try:
        return sum(p.lstat().st_size for p in folder.rglob("*") if p.is_file())
    except OSError:
        return 0
