"""What a fan-out keeps, whichever executor runs it: finished results as shards on disk, so a killed driver
resumes where it stopped, and the statistics (`FanOutStats`) the manifest records.  The executors, which
write and read them, are in `executors.py`; this module imports none of them.

A shard holds one result (`000042.shard.npz`) or, when many finish together, a batch of them
(`000042+17.shard.npz`: 17 results, the first item 42, written with one file and one index line: a driver
spends microseconds per result, not a file's worth).  A shard is trusted only as the driver wrote it: its
sha256 is appended to the folder's index (`index.txt`, one `<shard> <sha256>` line per shard) before the
shard is renamed into place, and on resume a shard is used only if it is a regular file whose bytes have
the indexed digest and decode; any other shard (edited, damaged, planted, a FIFO or a link) is named in one
warning line and its tasks run again.  A folder records the sha256 of the items its shards answer
(`items.sha256`): a stage that splits its work by the cluster's size may split it otherwise after a restart,
and shards of another split are then dropped, never read as answers to the new items."""

import hashlib
import os
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

from pipeline.runtime import codec
from pipeline.runtime.log import log
from pipeline.runtime.store import raise_write_problem, read_regular, real_dir, refuse_link, write_new

SHARD_SUFFIX = ".shard.npz"
INDEX = "index.txt"
ITEMS = "items.sha256"


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


def load_done(shard_dir: Path | None, n: int, items_digest: str | None = None) -> dict[int, object]:
    """Results of the items an earlier run finished, by item index: only shards whose bytes match the
    digest the index recorded for them and decode with runtime/codec.py (pickle is never read).  Any other
    shard is left out with one warning naming it, and its tasks simply run again; temp files of a killed
    writer are removed.  With `items_digest`, a folder written for other items is emptied first."""
    done = {}
    if shard_dir is None:
        return done
    refuse_link(shard_dir)
    if not shard_dir.is_dir():
        return done
    for path in shard_dir.glob("*.tmp"):
        path.unlink(missing_ok=True)
    if items_digest is not None and not same_items(shard_dir, items_digest):
        return done
    digests = read_index(shard_dir)
    for path in sorted(shard_dir.glob(f"*{SHARD_SUFFIX}")):
        stem = path.name[:-len(SHARD_SUFFIX)]
        first, _, count = stem.partition("+")
        if not first.isdigit() or not (count.isdigit() or not count) or int(first) >= n:
            continue
        value, problem = trusted_value(path, digests.get(stem))
        if not problem and count:
            value, problem = batch_results(value, int(first), int(count), n)
        if problem:
            log.warning(f"shard {path} {problem}; its task{'s' if count else ''} run{'' if count else 's'} again")
        elif count:
            done |= value
        else:
            done[int(first)] = value
    return done


def items_sha256(items) -> str | None:
    """sha256 of a fan-out's items in the shard format, or None when the format cannot hold them."""
    try:
        return hashlib.sha256(codec.dumps(list(items))).hexdigest()
    except codec.CodecError:
        return None


def same_items(shard_dir: Path, items_digest: str) -> bool:
    """Whether the folder's shards answer these items; if they answer others, they are removed (one warning)."""
    try:
        recorded = read_regular(shard_dir / ITEMS).decode("ascii", errors="replace").strip()
    except OSError:
        return True  # written before folders recorded their items (or nothing finished yet)
    if recorded == items_digest:
        return True
    log.warning(f"shards in {shard_dir} answer another split of the work (the cluster's size changed?); "
                "their tasks run again")
    for path in [*shard_dir.glob(f"*{SHARD_SUFFIX}"), shard_dir / INDEX, shard_dir / ITEMS]:
        path.unlink(missing_ok=True)
    return False


def batch_results(value, first: int, count: int, n: int) -> tuple[dict | None, str | None]:
    """({item: result}, None) of a decoded batch shard, or (None, what is wrong with it)."""
    try:
        items, results = value
        items = [int(i) for i in items]
    except (TypeError, ValueError):
        return None, "is not a batch of results"
    if (len(items) != count or len(results) != count or min(items, default=-1) != first
            or len(set(items)) != count or max(items) >= n):
        return None, "does not hold the items its name says"
    return dict(zip(items, results)), None


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


def read_index(shard_dir: Path) -> dict[str, str]:
    """Shard name (without its suffix) -> sha256 from the index (the last line for a shard wins); unreadable
    lines are skipped, so a line cut short by a killed driver only makes that shard's tasks run again."""
    try:
        text = read_regular(shard_dir / INDEX).decode("ascii", errors="replace")
    except OSError:
        return {}
    digests = {}
    for line in text.splitlines():
        name, _, digest = line.partition(" ")
        if name and len(digest) == 64 and all(c in "0123456789abcdef" for c in digest):
            digests[name] = digest
    return digests


def save_shard(shard_dir: Path | None, index: int, result: object) -> None:
    """Keep one finished result (runtime/codec.py's format)."""
    save_shards(shard_dir, {index: result})


def save_shards(shard_dir: Path | None, results: dict[int, object], items_digest: str | None = None) -> None:
    """Keep finished results, one shard for them all (one result: a shard of its own): written to a
    temporary name, its digest appended to the index, then renamed into place, so a half-written or
    unindexed shard is never trusted.  `items_digest` is recorded with the folder's first shard."""
    if shard_dir is None or not results:
        return
    items = sorted(results)
    if len(items) == 1:
        name, value = f"{items[0]:06d}", results[items[0]]
    else:
        name, value = f"{items[0]:06d}+{len(items)}", (np.array(items, dtype=np.int64), [results[i] for i in items])
    data = codec.dumps(value)  # refuses what the format cannot store, before anything is written
    real_dir(shard_dir, shard_dir.parent)
    if items_digest is not None and not (shard_dir / ITEMS).exists():
        record_items(shard_dir, items_digest)
    final = shard_dir / f"{name}{SHARD_SUFFIX}"
    tmp = shard_dir / f"{name}.{uuid.uuid4().hex[:8]}.tmp"
    write_new(tmp, data, f"shard {final}")
    try:
        record_digest(shard_dir, name, hashlib.sha256(data).hexdigest())
        os.replace(tmp, final)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise_write_problem(err, f"shard {final}")


def record_items(shard_dir: Path, items_digest: str) -> None:
    """Write the folder's `items.sha256` (64 bytes to a temporary name, then renamed: never half a digest)."""
    tmp = shard_dir / f"{ITEMS}.{uuid.uuid4().hex[:8]}.tmp"
    try:
        fd = os.open(tmp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
        try:
            os.write(fd, items_digest.encode())
        finally:
            os.close(fd)
        os.replace(tmp, shard_dir / ITEMS)
    except OSError as err:
        tmp.unlink(missing_ok=True)
        raise_write_problem(err, f"the shard folder's {ITEMS}")


def record_digest(shard_dir: Path, name: str, digest: str) -> None:
    """Append one `<shard> <sha256>` line to the index (never through a link)."""
    fd = os.open(shard_dir / INDEX, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o644)
    try:
        os.write(fd, f"{name} {digest}\n".encode())
    finally:
        os.close(fd)
