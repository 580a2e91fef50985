"""What a fan-out keeps, whichever executor runs it: finished results as shards on disk, so a killed driver
resumes where it stopped, and the statistics (`FanOutStats`) the manifest records.  The executors, which
write and read them, are in `executors.py`; this module imports none of them.

A shard is trusted only as the driver wrote it: its sha256 is appended to the folder's index (`index.txt`,
one `<item> <sha256>` line per shard) before the shard is renamed into place, and on resume a shard is
used only if it is a regular file whose bytes have the indexed digest and decode; any other shard (edited,
damaged, planted, a FIFO or a link) is named in one warning line and its task runs again."""

import hashlib
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

from pipeline.runtime import codec
from pipeline.runtime.log import log
from pipeline.runtime.store import raise_write_problem, read_regular, real_dir, refuse_link, write_new

SHARD_SUFFIX = ".shard.npz"
INDEX = "index.txt"


@dataclass
class FanOutStats:
    """Tasks, resumed shards, nodes, executors and per-round timings of a stage's fan-outs, for its manifest."""

    tasks: int = 0
    resumed: int = 0
    nodes: set = field(default_factory=set)
    executors: set = field(default_factory=set)  # which executors ran the rounds (local, ray)
    task_seconds: float = 0.0  # wall time inside tasks, summed (for scaling projections)
    rounds: list = field(default_factory=list)  # per fan-out: label, executor, tasks, task seconds, longest, wall

    def as_dict(self) -> dict:
        """The manifest's `fan_out` entry: sets sorted, seconds rounded."""
        return {"tasks": self.tasks, "resumed": self.resumed, "nodes": sorted(self.nodes),
                "executors": sorted(self.executors), "task_seconds": round(self.task_seconds, 3),
                "rounds": self.rounds}


def load_done(shard_dir: Path | None, n: int) -> dict[int, object]:
    """Results of the items an earlier run finished, by item index: only shards whose bytes match the
    digest the index recorded for them and decode with runtime/codec.py (pickle is never read).  Any other
    shard is left out with one warning naming it, and its task simply runs again; temp files of a killed
    writer are removed."""
    done = {}
    if shard_dir is None:
        return done
    refuse_link(shard_dir)
    if not shard_dir.is_dir():
        return done
    for path in shard_dir.glob("*.tmp"):
        path.unlink(missing_ok=True)
    digests = read_index(shard_dir)
    for path in sorted(shard_dir.glob(f"*{SHARD_SUFFIX}")):
        stem = path.name[:-len(SHARD_SUFFIX)]
        if not stem.isdigit() or int(stem) >= n:
            continue
        value, problem = trusted_value(path, digests.get(int(stem)))
        if problem:
            log.warning(f"shard {path} {problem}; its task runs again")
        else:
            done[int(stem)] = value
    return done


def trusted_value(path: Path, digest: str | None) -> tuple[object, str | None]:
    """(the shard's value, None), or (None, what is wrong with it) when it cannot be trusted."""
    if digest is None:
        return None, "is not in the shard index (not written by this run's driver)"
    try:
        data = read_regular(path)
    except OSError as err:
        return None, f"is not readable ({err.strerror or err})"
    if hashlib.sha256(data).hexdigest() != digest:
        return None, "does not match the sha256 the index recorded for it (edited or damaged)"
    try:
        return codec.loads(data), None
    except codec.CodecError as err:
        return None, f"does not decode ({err})"


def read_index(shard_dir: Path) -> dict[int, str]:
    """Item -> sha256 from the index (the last line for an item wins); unreadable lines are skipped, so a
    line cut short by a killed driver only makes that shard run again."""
    try:
        text = read_regular(shard_dir / INDEX).decode("ascii", errors="replace")
    except OSError:
        return {}
    digests = {}
    for line in text.splitlines():
        item, _, digest = line.partition(" ")
        if item.isdigit() and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
            digests[int(item)] = digest
    return digests


def save_shard(shard_dir: Path | None, index: int, result: object) -> None:
    """Keep one finished result (runtime/codec.py's format): written to a temporary name, its digest appended
    to the index, then renamed into place, so a half-written or unindexed shard is never trusted."""
    if shard_dir is None:
        return
    data = codec.dumps(result)  # refuses what the format cannot store, before anything is written
    real_dir(shard_dir, shard_dir.parent)
    final = shard_dir / f"{index:06d}{SHARD_SUFFIX}"
    tmp = shard_dir / f"{index:06d}.{uuid.uuid4().hex[:8]}.tmp"
    write_new(tmp, data, f"shard {final}")
    try:
        record_digest(shard_dir, index, hashlib.sha256(data).hexdigest())
        os.replace(tmp, final)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise_write_problem(err, f"shard {final}")


def record_digest(shard_dir: Path, index: int, digest: str) -> None:
    """Append one `<item> <sha256>` line to the index (never through a link)."""
    fd = os.open(shard_dir / INDEX, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, f"{index:06d} {digest}\n".encode())
    finally:
        os.close(fd)
