"""Artifact store: outputs/<stage>/<key>/, written atomically, manifest last.

A key is a hash of everything that changes a stage's result (its config
fields, its inputs' keys, a schema version).  An artifact is complete iff its
manifest.json exists; a killed writer leaves only a hidden temp folder.
"""

import hashlib
import json
import os
import shutil
import time
import uuid
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path

MANIFEST = "manifest.json"


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
        return json.loads((self.path / MANIFEST).read_text())

    def file(self, name: str) -> Path:
        return self.path / name


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
        tmp = self.root / stage / f".tmp-{key}-{uuid.uuid4().hex[:8]}"
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
