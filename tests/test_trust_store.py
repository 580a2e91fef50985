"""Artifacts on disk and how far the runtime trusts them.

Shards are used on resume only as the driver wrote them (sha256 index); nothing below the outputs root is
written or read through a symbolic link; word lists load exactly as a reader sees them; a full disk, a
read-only folder and Ctrl-C / SIGTERM end a run with one line, keep finished work and leave no temp file.
Games are Mini Nerdle (with stage.ub given, so only the feedback and lower_bound kernels compile) and tiny
word lists written in tmp_path.
"""

import errno
import logging
import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pyarrow.parquet as pq
import pytest

from pipeline.config.settings import PROJECT_ROOT
from pipeline import PipelineError
from pipeline.runtime import codec
from pipeline.runtime.executors import InProcessExecutor
from pipeline.processes.signals import RESUME
from pipeline.runtime.store import ArtifactStore
from tests.helpers.processes import catches, start, wait_until
from tests.test_bad_input import WORDS, assert_one_error, fresh_console, nothing_written, run_main  # noqa: F401

MINI_LB = ["stage=lower_bound", "game=mini_nerdle", "stage.ub=544", "ray.executor=local", "progress=false"]


class Records(logging.Handler):
    """Every message of the `pipeline` logger while a test runs (whatever handlers the console set up)."""

    def __init__(self):
        super().__init__(logging.DEBUG)
        self.messages = []

    def emit(self, record):
        self.messages.append(record.getMessage())


@pytest.fixture
def records():
    handler = Records()
    logging.getLogger("pipeline").addHandler(handler)
    yield handler.messages
    logging.getLogger("pipeline").removeHandler(handler)


def square(item):
    """A task whose result has structure (a tuple of an array and a number), as the stages' batches do."""
    return np.arange(item, dtype=np.int64) * item, item * item


def same_results(got, expected) -> bool:
    return len(got) == len(expected) and all(np.array_equal(a[0], b[0]) and a[1] == b[1]
                                             for a, b in zip(got, expected))


def index_digest(shard_dir: Path, item: int, data: bytes) -> None:
    """Make the index vouch for `data` as item's shard (a forger who also edits the index)."""
    import hashlib

    with open(shard_dir / "index.txt", "a") as index:
        index.write(f"{item:06d} {hashlib.sha256(data).hexdigest()}\n")


# ---- 1. shards are trusted only as the driver wrote them --------------------------------------------------------


def test_resume_uses_only_shards_matching_the_index(tmp_path, records):
    items = list(range(2, 10))
    expected = [square(i) for i in items]
    shard_dir = ArtifactStore(tmp_path / "outputs").shard_dir("stage", "k") / "round"
    executor = InProcessExecutor(1)
    assert same_results(executor.map(square, items, label="round", shard_dir=shard_dir, progress=False), expected)
    path = lambda i: shard_dir / f"{i:06d}.shard.npz"  # noqa: E731
    forged = codec.dumps((np.zeros(3, dtype=np.int64), -1))
    path(0).write_bytes(forged)  # valid shard, forged value: the digest differs
    path(1).write_bytes(path(1).read_bytes()[:40])  # a damaged zip, vouched for by the index
    index_digest(shard_dir, 1, path(1).read_bytes())
    wrong = path(2).read_bytes().replace(b"doc", b"dox")  # a valid zip of arrays, but no `doc`: not a shard
    path(2).write_bytes(wrong)
    index_digest(shard_dir, 2, wrong)
    path(3).unlink()
    os.mkfifo(path(3))  # a FIFO: reading it would block forever
    outside = tmp_path / "outside.npz"
    outside.write_bytes(path(4).read_bytes())
    path(4).unlink()
    path(4).symlink_to(outside)  # a link: never followed
    records.clear()
    started = time.perf_counter()
    resumed = executor.map(square, items, label="round", shard_dir=shard_dir, progress=False)
    assert time.perf_counter() - started < 30  # no hang on the FIFO
    assert same_results(resumed, expected)
    warnings = [m for m in records if m.startswith("shard ")]
    assert len(warnings) == 5, warnings
    assert f"shard {path(0)} does not match the sha256 the index recorded" in warnings[0]
    assert f"shard {path(1)} does not decode (not a shard" in warnings[1]
    assert f"shard {path(2)} does not decode" in warnings[2]
    assert f"shard {path(3)} is not readable (not a regular file)" in warnings[3]
    assert f"shard {path(4)} is not readable" in warnings[4]
    assert all(m.endswith("its task runs again") for m in warnings)
    assert all(path(i).is_file() and not path(i).is_symlink() for i in range(5))  # rewritten as real files
    records.clear()
    assert same_results(executor.map(square, items, label="round", shard_dir=shard_dir, progress=False), expected)
    assert not [m for m in records if m.startswith("shard ")]  # the rewritten shards are trusted again


def test_a_shard_without_an_index_entry_runs_again(tmp_path, records):
    shard_dir = ArtifactStore(tmp_path / "outputs").shard_dir("stage", "k") / "round"
    executor = InProcessExecutor(1)
    executor.map(square, [3, 4], label="round", shard_dir=shard_dir, progress=False)
    (shard_dir / "index.txt").unlink()
    planted = shard_dir / "000001.shard.npz"
    planted.write_bytes(codec.dumps(square(99)))
    assert same_results(executor.map(square, [3, 4], label="round", shard_dir=shard_dir, progress=False),
                        [square(3), square(4)])
    assert sum("is not in the shard index" in m for m in records) == 2


def funnel(artifact_path: Path) -> list[dict]:
    return pq.read_table(artifact_path / "funnel.parquet").to_pylist()


@pytest.fixture(scope="module")
def clean_run(tmp_path_factory):
    """Mini Nerdle's lower_bound funnel (UB 544) from a run nobody interfered with."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.stages.runner import run_stage

    outputs = tmp_path_factory.mktemp("clean") / "outputs"
    cfg = compose_config([f"paths.outputs={outputs}", *MINI_LB])
    artifact = run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(outputs))
    return artifact, funnel(artifact.path)


def interrupt_after(monkeypatch, saves: int) -> None:
    """Ctrl-C right after the driver keeps its `saves`-th shard of the funnel's first level (the in-process
    executor keeps one result per shard)."""
    from pipeline.runtime import executors

    original, count = executors.save_shards, []

    def save_then_stop(shard_dir, results, items_digest=None):
        original(shard_dir, results, items_digest)
        count.extend([results] if shard_dir.name == "lower_bound-V1" else [])
        if len(count) == saves:
            raise KeyboardInterrupt

    monkeypatch.setattr(executors, "save_shards", save_then_stop)


def test_forged_and_damaged_shards_of_an_interrupted_run_are_recomputed(clean_run, tmp_path, capsys, monkeypatch):
    artifact, expected = clean_run
    outputs = tmp_path / "outputs"
    interrupt_after(monkeypatch, 3)
    code, _, err = run_main([f"paths.outputs={outputs}", *MINI_LB], capsys)
    assert code == 130 and err.strip().splitlines()[-1] == f"error: interrupted (SIGINT); {RESUME}", err
    monkeypatch.undo()
    shard_dir = outputs / "lower_bound" / f".shards-{artifact.key}" / "lower_bound-V1"
    shards = sorted(shard_dir.glob("*.shard.npz"))
    assert len(shards) == 3
    values, exact = codec.loads(shards[0].read_bytes())
    shards[0].write_bytes(codec.dumps((values + 10**6, exact)))  # every opener of the batch "above UB"
    shards[1].write_bytes(shards[1].read_bytes()[:-100])  # damaged
    shards[2].unlink()
    os.mkfifo(shards[2])
    code, out, err = run_main([f"paths.outputs={outputs}", *MINI_LB], capsys)
    assert code == 0, err
    warnings = [ln for ln in err.splitlines() if ln.startswith("shard ")]
    assert [w.split()[1] for w in warnings] == [str(s) for s in shards], err
    assert "sha256" in warnings[0] and "sha256" in warnings[1] and "not a regular file" in warnings[2]
    assert funnel(Path(out.strip().splitlines()[-1])) == expected
    assert "every opener has a lower bound above UB" not in err


# ---- 2. no symbolic link is followed inside the outputs ------------------------------------------------------------


def test_a_linked_matrix_cache_is_refused_and_nothing_is_written_through_it(clean_run, tmp_path, capsys):
    import shutil

    artifact, _ = clean_run
    outputs = tmp_path / "outputs"
    shutil.copytree(artifact.path.parent.parent, outputs, symlinks=True)
    cache = next((outputs / "feedback").glob("[!.]*")) / ".cache"
    shutil.rmtree(cache, ignore_errors=True)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    (elsewhere / "codes.npy").write_text("someone's file")
    cache.symlink_to(elsewhere)
    code, _, err = run_main([f"paths.outputs={outputs}", *MINI_LB, "stage.force=true"], capsys)
    assert_one_error(code, err, f"{cache} is a symbolic link; refusing to follow it", log_lines=True)
    assert sorted(p.name for p in elsewhere.iterdir()) == ["codes.npy"]
    assert (elsewhere / "codes.npy").read_text() == "someone's file"


def test_links_in_place_of_stage_folders_shards_and_files_are_refused(tmp_path):
    root = tmp_path / "outputs"
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    store = ArtifactStore(root)
    root.mkdir()
    (root / "feedback").symlink_to(elsewhere)
    with pytest.raises(PipelineError, match="feedback is a symbolic link"):
        with store.write("feedback", "k", {}) as out:
            out.file("x").write_text("x")
    with pytest.raises(PipelineError, match="feedback is a symbolic link"):
        store.is_done("feedback", "k")
    with pytest.raises(PipelineError, match=r"\.shards-k is a symbolic link"):
        (root / "upper_bound").mkdir()
        (root / "upper_bound" / ".shards-k").symlink_to(elsewhere)
        store.shard_dir("upper_bound", "k")
    with pytest.raises(PipelineError, match="x.txt is a symbolic link"):
        with store.write("heuristics", "k", {}) as out:
            out.file("x.txt").symlink_to(elsewhere / "x.txt")
    assert list(elsewhere.iterdir()) == [] and not list((root / "heuristics").iterdir())


def test_a_finished_artifact_with_a_linked_file_is_damaged(tmp_path):
    from pipeline.runtime.store import DamagedArtifactError

    store = ArtifactStore(tmp_path / "outputs")
    with store.write("report", "k", {}) as out:
        out.file("report.md").write_text("# real\n")
    artifact = store.artifact("report", "k")
    artifact.check()
    fake = tmp_path / "fake.md"
    fake.write_text("# fake\n")  # same size: only the link gives it away
    artifact.file("report.md").unlink()
    artifact.file("report.md").symlink_to(fake)
    with pytest.raises(DamagedArtifactError, match="report.md is a symbolic link, not a file"):
        artifact.check()


# ---- 3. word lists load as a person reads them -----------------------------------------------------------------------


def words_game(path: Path) -> list[str]:
    return [f"paths.outputs={path.parent / 'outputs'}", "game=words", "game.length=5", f"game.secrets.path={path}"]


def test_a_byte_order_mark_is_not_part_of_the_first_word(tmp_path):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game

    path = tmp_path / "bom.txt"
    path.write_bytes("\ufeff".encode() + ("\n".join(WORDS) + "\n").encode())
    game = load_game(compose_config(words_game(path)).game)
    assert len(game.secrets) == 8 and "crane" in game.secrets


@pytest.mark.parametrize("content,message", [
    ("crane\0slate\0trace\0crate\n", "line 1: 'crane\\x00slate\\x00trace\\x00crate' contains the invisible "
                                     "character U+0000 (a control character); write one word per line"),
    ("crane\nslate\n\u212arane\nplane\n", "line 3: '\u212arane' contains U+212A KELVIN SIGN, which lower-casing or "
                                          "Unicode normalisation turns into 'k'"),
    ("crane\nslate\n\uff43rane\n", "line 3: '\uff43rane' contains U+FF43 FULLWIDTH LATIN SMALL LETTER C"),
    ("crane\nsla\u200bte\n", "line 2: 'sla\\u200bte' contains the invisible character U+200B ZERO WIDTH SPACE"),
    ("\ufeff\ufeffcrane\nslate\n", "line 1: '\\ufeffcrane' contains the invisible character U+FEFF ZERO WIDTH NO-BREAK SPACE"),
])
def test_words_that_are_not_what_they_look_like_are_refused(content, message, tmp_path, capsys):
    path = tmp_path / "list.txt"
    path.write_text(content, encoding="utf-8")
    code, _, err = run_main(["stage=feedback", *words_game(path)], capsys)
    assert_one_error(code, err, f"words secrets list {path} {message}")
    assert nothing_written(tmp_path / "outputs")


def test_a_strict_list_refuses_any_case_change_beyond_ascii():
    from pipeline.games.lists import check_word

    dictionary = lambda word: len(word) != 5 or not set(word) <= set("abcdefghijklmnopqrstuvwxyz")  # noqa: E731
    check_word("\u00c5ngstr\u00f6m", "x", dictionary)  # a dictionary line no form of which the game keeps
    with pytest.raises(PipelineError, match="U\\+00C5 LATIN CAPITAL LETTER A WITH RING ABOVE, which lower-casing"):
        check_word("\u00c5ngstr\u00f6m", "x")
    with pytest.raises(PipelineError, match="not in Unicode normal form NFC"):
        check_word("cafe\u0301", "x")
    check_word("caf\u00e9", "x")  # a precomposed accent changes under nothing
    with pytest.raises(PipelineError, match="turns into 'k'"):
        check_word("\u212arane", "x", dictionary)


def test_plain_capitals_are_still_lower_cased(tmp_path):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game

    path = tmp_path / "caps.txt"
    path.write_text("CRANE\nSlate\ntrace\n")
    assert load_game(compose_config(words_game(path)).game).secrets == ("crane", "slate", "trace")


def test_the_duplicate_warning_reaches_the_console(tmp_path, capsys):
    path = tmp_path / "dup.txt"
    path.write_text("\n".join([*WORDS, "crane", "slate"]) + "\n")
    code, out, err = run_main(["stage=lower_bound", "stage.ub=1", *words_game(path)], capsys)
    assert_one_error(code, err, "stage.ub=1 is below |S|=8", log_lines=True)
    assert err.splitlines()[0] == "words secrets list: dropped 2 duplicate word(s)"
    assert "duplicate" not in out


# ---- 4. a full disk ----------------------------------------------------------------------------------------------------


def disk_full(monkeypatch, nth: int = 1, where: str = "") -> None:
    """The store's writes fail with ENOSPC from the `nth` file whose path contains `where` on: that file gets
    half of its bytes, then the error (as a filling disk does)."""
    from pipeline.runtime import store

    files = []

    def write_chunk(fd, chunk):
        path = os.readlink(f"/proc/self/fd/{fd}")
        if where not in path:
            return os.write(fd, chunk)
        if path not in files:
            files.append(path)
            if len(files) == nth:
                return os.write(fd, chunk[:len(chunk) // 2])
        if len(files) >= nth:
            raise OSError(errno.ENOSPC, os.strerror(errno.ENOSPC))
        return os.write(fd, chunk)

    monkeypatch.setattr(store, "_write_chunk", write_chunk)


def test_a_full_disk_while_writing_a_shard_is_one_line_and_the_rerun_works(clean_run, tmp_path, capsys, monkeypatch):
    _, expected = clean_run
    outputs = tmp_path / "outputs"
    disk_full(monkeypatch, 3, "lower_bound-V1")
    code, _, err = run_main([f"paths.outputs={outputs}", *MINI_LB], capsys)
    assert_one_error(code, err, "no space left on the device while writing shard ", log_lines=True)
    written, needed = map(int, re.search(r"000002\.shard\.npz \((\d+) of (\d+) bytes written\); the partial file "
                                         r"was removed", err).groups())
    assert written == needed // 2 > 0
    assert not [p for p in outputs.rglob("*") if p.name.endswith(".tmp") or p.name.startswith(".tmp-")]
    assert len(list(outputs.rglob("*.shard.npz"))) == 2  # the finished shards are kept
    monkeypatch.undo()
    code, out, err = run_main([f"paths.outputs={outputs}", *MINI_LB], capsys)
    assert code == 0, err
    assert funnel(Path(out.strip().splitlines()[-1])) == expected
    assert "2 resumed from an earlier run" in err


def test_a_full_disk_while_writing_the_manifest_leaves_no_temp_folder(tmp_path, monkeypatch):
    store = ArtifactStore(tmp_path / "outputs")
    disk_full(monkeypatch, 1, "manifest.json")
    with pytest.raises(PipelineError, match=r"writing the feedback artifact's manifest \(\d+ of \d+ bytes written\)"):
        with store.write("feedback", "k", {"big": "x" * 5000}) as out:
            out.file("matrix.parquet").write_bytes(b"x" * 100)
    assert os.listdir(tmp_path / "outputs" / "feedback") == []
    monkeypatch.undo()
    with store.write("feedback", "k", {}) as out:
        out.file("matrix.parquet").write_bytes(b"x" * 100)
    assert store.is_done("feedback", "k")


def test_a_full_disk_inside_a_stage_is_one_line(tmp_path):
    """An OSError(ENOSPC) from a stage's own writer (pyarrow, numpy) inside store.write becomes one line too."""
    store = ArtifactStore(tmp_path / "outputs")
    with pytest.raises(PipelineError, match=r"no space left on the device while writing the openers artifact into "
                                            r".*\(7 bytes written\)"):
        with store.write("openers", "k", {}) as out:
            out.file("part").write_bytes(b"1234567")
            raise OSError(errno.ENOSPC, "No space left on device")
    assert os.listdir(tmp_path / "outputs" / "openers") == []


# ---- 5. read-only folders ----------------------------------------------------------------------------------------------


def failing(monkeypatch, name: str, error: int, when) -> None:
    """Make os.<name>(path, ...) raise OSError(error) when when(path) holds."""
    original = getattr(os, name)

    def fake(path, *args, **kwargs):
        if when(Path(path)):
            raise OSError(error, os.strerror(error), str(path))
        return original(path, *args, **kwargs)

    monkeypatch.setattr(os, name, fake)


@pytest.mark.parametrize("error,name", [(errno.EROFS, "EROFS"), (errno.EACCES, "EACCES")])
def test_a_read_only_stage_folder_is_one_line(error, name, tmp_path, capsys, monkeypatch):
    path = tmp_path / "w.txt"
    path.write_text("\n".join(WORDS) + "\n")
    failing(monkeypatch, "mkdir", error, lambda p: p.name.startswith(".tmp-"))
    code, _, err = run_main(["stage=feedback", "progress=false", *words_game(path)], capsys)
    assert_one_error(code, err, f"cannot write the feedback artifact's temp folder", log_lines=True)
    assert f"[{name}]; the folder is read-only or in use" in err


def test_forcing_a_read_only_artifact_is_one_line_and_keeps_it(tmp_path, capsys, monkeypatch):
    path = tmp_path / "w.txt"
    path.write_text("\n".join(WORDS) + "\n")
    args = ["stage=feedback", "progress=false", *words_game(path)]
    code, out, err = run_main(args, capsys)
    assert code == 0, err
    folder = Path(out.strip().splitlines()[-1])
    manifest = (folder / "manifest.json").read_text()
    failing(monkeypatch, "rename", errno.EBUSY, lambda p: p == folder)  # a mount point cannot be moved away
    code, _, err = run_main([*args, "stage.force=true"], capsys)
    assert_one_error(code, err, "cannot write the feedback artifact into ", log_lines=True)
    assert "[EBUSY]" in err
    assert (folder / "manifest.json").read_text() == manifest
    assert not [p for p in folder.parent.iterdir() if p.name.startswith((".tmp-", ".old-"))]


# ---- 6. Ctrl-C and SIGTERM -----------------------------------------------------------------------------------------------


SLOW_MAIN = ("import sys, fault_injection; fault_injection.slow_tasks(float(sys.argv[1])); "
             "from pipeline.__main__ import main; sys.exit(main(sys.argv[2:]))")


def pipeline_process(args: list[str], delay: float | None = None) -> subprocess.Popen:
    """`python -m pipeline args` (tasks sleeping `delay` s first when given: tests/fault_injection.py), with the
    signals a test sends at their defaults (tests/helpers/processes.py: a background job's runner ignores SIGINT)."""
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(PROJECT_ROOT), str(PROJECT_ROOT / "tests")]),
           "RAY_worker_register_timeout_seconds": "180"}  # a loaded test machine starts workers slowly
    command = ["-m", "pipeline", *args] if delay is None else ["-c", SLOW_MAIN, str(delay), *args]
    return start([sys.executable, *command], cwd=PROJECT_ROOT, env=env)


def assert_interrupted(proc: subprocess.Popen, signum: int, during_start_up: bool = False) -> str:
    """Exit 128 + signum and one line: a stage run's (finished shards kept), or during start-up (before the
    command is known) the signal's name alone."""
    out, err = proc.communicate(timeout=120)
    named = f"error: interrupted ({signal.Signals(signum).name})"
    lines = {f"{named}; {RESUME}", *([named] if during_start_up else [])}
    assert proc.returncode == {signal.SIGINT: 130, signal.SIGTERM: 143}[signum], err
    assert "Traceback" not in err and "PC:" not in err and "SIGTERM received" not in err, err
    assert err.strip().splitlines()[-1] in lines and err.count("error:") == 1, err
    return err


def feedback_args(tmp_path: Path, outputs: Path, *extra) -> list[str]:
    path = tmp_path / "w.txt"
    path.write_text("\n".join(WORDS) + "\n")
    return [f"paths.outputs={outputs}", "stage=feedback", "game=words", "game.length=5", f"game.secrets.path={path}",
            "progress=false", *extra]


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_signal_during_start_up_is_one_line(signum, tmp_path):
    """The signal is sent as soon as the package has taken over SIGTERM (read from /proc, so neither a fast nor a
    loaded machine moves it out of start-up); slowed tasks keep the run from finishing first."""
    proc = pipeline_process(feedback_args(tmp_path, tmp_path / "outputs"), delay=5.0)
    wait_until(proc, lambda: catches(proc.pid, signal.SIGTERM), "the handler for SIGTERM", within=60)
    proc.send_signal(signum)
    assert_interrupted(proc, signum, during_start_up=True)


@pytest.fixture(scope="module")
def clean_words_matrix(tmp_path_factory):
    """The feedback codes of WORDS from an uninterrupted in-process run, once for the module."""
    from pipeline.config.compose import compose_config
    from pipeline.feedback.parquet import read_matrix
    from pipeline.games.catalog import load_game
    from pipeline.stages.runner import run_stage

    base = tmp_path_factory.mktemp("clean")
    cfg = compose_config(feedback_args(base, base / "outputs", "ray.executor=local"))
    artifact = run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))
    return read_matrix(artifact.file("matrix.parquet"))[0]


@pytest.mark.parametrize("signum,group", [(signal.SIGINT, False), (signal.SIGTERM, False), (signal.SIGINT, True)],
                         ids=["SIGINT", "SIGTERM", "Ctrl-C to the process group (Ray's processes too)"])
@pytest.mark.slow
def test_a_signal_during_a_fan_out_keeps_shards_and_the_rerun_resumes(signum, group, tmp_path, clean_words_matrix):
    from pipeline.feedback.parquet import read_matrix

    outputs = tmp_path / "outputs"
    args = feedback_args(tmp_path, outputs, "stage.block_rows=2", "ray.executor=ray", "ray.num_cpus=1")
    proc = pipeline_process(args, delay=2.0)
    deadline = time.time() + 240
    while not list(outputs.glob("feedback/.shards-*/feedback/*.shard.npz")) and time.time() < deadline:
        assert proc.poll() is None, proc.communicate()
        time.sleep(0.2)
    os.killpg(proc.pid, signum) if group else proc.send_signal(signum)
    assert_interrupted(proc, signum)
    kept = list(outputs.glob("feedback/.shards-*/feedback/*.shard.npz"))
    assert 1 <= len(kept) < 4 and not list(outputs.glob("feedback/.tmp-*"))
    rerun = subprocess.run([sys.executable, "-m", "pipeline", *args[:-2], "ray.executor=local", "ray.num_cpus=1"],
                           cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=240,
                           env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)})  # no Ray: no second Ray start (in
    # this process the session's Ray, of another size, would plan other shards)
    assert rerun.returncode == 0, rerun.stderr
    assert f"({len(kept)} resumed from an earlier run)" in rerun.stderr
    resumed_codes, _ = read_matrix(Path(rerun.stdout.strip().splitlines()[-1]) / "matrix.parquet")
    assert np.array_equal(resumed_codes, clean_words_matrix)
