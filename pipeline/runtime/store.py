"""Artifact store: outputs/<stage>/<key>/, written atomically, manifest last.

A key is a hash of everything that changes a stage's result (its config
fields, its inputs' keys, a schema version).  An artifact is complete iff its
manifest.json exists; a killed writer leaves only a hidden temp folder, named
after its host and process id so that the next writer of the stage removes it
once that process is gone.  A finished artifact is checked against the file
sizes its manifest records before it is reused.
"""

import hashlib
import json
import os
import re
import shutil
import socket
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.errors import PipelineError
from pipeline.runtime import files

MANIFEST = "manifest.json"
JSON_CHECK_BYTES = 64 * 2**20  # JSON files up to this size are parsed when a finished artifact is reused
TMP_NAME = re.compile(r"^\.tmp-(?P<key>[^-]+)-(?P<host>[A-Za-z0-9_]+)-(?P<pid>\d+)-[0-9a-f]{8}$")


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
            if not path.is_file() and not path.exists():
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
        return (self.root / stage / key / MANIFEST).is_file()

    def finished(self, stage: str) -> list[Artifact]:
        """Every finished artifact of `stage` (its manifest written; temp folders are hidden), oldest first."""
        manifests = sorted((self.root / stage).glob(f"[!.]*/{MANIFEST}"), key=lambda p: (p.stat().st_mtime, p))
        return [Artifact(stage, path.parent.name, path.parent) for path in manifests]

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
        path = self.root / stage / f".shards-{key}"
        path.mkdir(parents=True, exist_ok=True)
        return path

    def clear_shards(self, stage: str, key: str) -> None:
        """Forget finished shards of an interrupted run (a forced rerun starts from scratch)."""
        shutil.rmtree(self.root / stage / f".shards-{key}", ignore_errors=True)

    @contextmanager
    def write(self, stage: str, key: str, manifest: dict, replace: bool = False):
        """Yield an ArtifactWriter; on success the folder appears complete in one rename.

        `replace` swaps out a finished artifact with the same key (a forced rerun)."""
        final = self.root / stage / key
        self.clean_stale(stage)
        tmp = self.root / stage / f".tmp-{key}-{host_tag()}-{os.getpid()}-{uuid.uuid4().hex[:8]}"
        tmp.mkdir(parents=True)
        writer = ArtifactWriter(tmp)
        started = time.time()
        try:
            yield writer
            files = {p.name: p.stat().st_size for p in sorted(tmp.iterdir())}
            body = {**manifest, **writer.extra, "files": files, "written_at": time.strftime("%Y-%m-%dT%H:%M:%S"),
                    "write_seconds": round(time.time() - started, 3)}
            (tmp / MANIFEST).write_text(json.dumps(body, indent=2, default=str) + "\n")
            self._publish(tmp, final, replace)
        finally:
            shutil.rmtree(tmp, ignore_errors=True)
        shutil.rmtree(self.root / stage / f".shards-{key}", ignore_errors=True)

    @staticmethod
    def _publish(tmp: Path, final: Path, replace: bool) -> None:
        if final.exists() and (replace or not (final / MANIFEST).is_file()):
            old = final.with_name(f".old-{final.name}-{uuid.uuid4().hex[:8]}")
            os.rename(final, old)
            shutil.rmtree(old, ignore_errors=True)
        try:
            os.rename(tmp, final)
        except OSError:
            if not (final / MANIFEST).is_file():  # lost a race only if the winner is complete
                raise
