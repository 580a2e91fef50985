"""Each stage's results on Mini Nerdle are pinned to its VERSION: artifact keys hold the VERSION, not the source
code (pipeline/stages/runner.py), so code that changes a stage's results must bump it, or finished artifacts of
the old results would be reused as if they were the new ones.

The pins read the store tests/conftest.py fills once per session (the stage contract reads it too).  A result is
what a stage's files say: Parquet tables by their rows and schema metadata (not their bytes, which name the
writer), JSON with timings and paths left out, text files as they are; drawings and logs are not results."""

import hashlib
import json
import re
from pathlib import Path

import pytest

from pipeline.stages import STAGES

# stage -> (its VERSION, the digest of its results on Mini Nerdle with tests/conftest.py's MINI_NERDLE_RUNS)
PINS = {
    "feedback": (1, "127a9c67d4b88bf4"),
    "heuristics": (2, "b9cd6ca245be9d2a"),
    "upper_bound": (4, "79a451c913eec835"),
    "lower_bound": (3, "44cecf15a435fefe"),
    "exact": (3, "60deb987b6b6a195"),
    "prove": (7, "b877dc7f0984daf2"),
    "openers": (1, "d1137a434cd8035e"),
    "simulate": (2, "5fdb14debc32b19f"),
    "blindfold": (2, "d43b5b124c35a939"),
    "leaderboard": (3, "f236f0b800c0faca"),
    "catalogue": (5, "b70ed57b7ce33c6b"),
}
RESULT_SUFFIXES = (".parquet", ".json", ".txt")  # pictures (.png, .svg), models and stage.log are not results
NOT_RESULTS = {"manifest.json", "stage.log"}
VOLATILE = re.compile(r"seconds|elapsed|timing|(_at|path|folder|^memo)$")  # JSON keys of when, where, how fast


def steady(value, root: str):
    """`value` (parsed JSON) without the entries that say when, where or how fast it was made: timings, paths
    and the search's memo counters dropped, the outputs folder in any string replaced by <outputs>."""
    if isinstance(value, dict):
        return {k: steady(v, root) for k, v in value.items() if not VOLATILE.search(k)}
    if isinstance(value, list):
        return [steady(v, root) for v in value]
    if isinstance(value, str):
        return value.replace(root, "<outputs>")
    return value


def file_content(path: Path, root: str):
    """The result a file holds, as JSON-able data (see the module's docstring)."""
    if path.suffix == ".parquet":
        import pyarrow.parquet as pq

        table = pq.ParquetFile(path).read()
        metadata = {k.decode(): v.decode() for k, v in (table.schema.metadata or {}).items()
                    if not k.startswith(b"ARROW:")}
        return {"schema": [f"{f.name}:{f.type}" for f in table.schema], "metadata": steady(metadata, root),
                "rows": table.to_pydict()}
    if path.suffix == ".json":
        return steady(json.loads(path.read_text()), root)
    return path.read_text().replace(root, "<outputs>")


def artifact_digest(artifact, root: str) -> str:
    """sha256 of one artifact's results: its result files by name and content."""
    names = sorted(n for n in artifact.manifest["files"] if n not in NOT_RESULTS and n.endswith(RESULT_SUFFIXES))
    body = {name: file_content(artifact.file(name), root) for name in names}
    return hashlib.sha256(json.dumps(body, sort_keys=True, default=_bytes).encode()).hexdigest()


def _bytes(value) -> str:
    """Binary cells (the code matrix's rows) as hex, anything else JSON does not know by its repr."""
    return value.hex() if isinstance(value, bytes) else repr(value)


def stage_digest(store, name: str) -> str:
    """sha256 of every finished artifact of stage `name` in `store`, in the order of their own digests (a key
    is no order: it changes with a VERSION)."""
    root = str(store.root)
    digests = sorted(artifact_digest(a, root) for a in store.finished(name))
    return hashlib.sha256("\n".join(digests).encode()).hexdigest()[:16]


def pin_problems(store, names) -> list[str]:
    """One line per stage of `names` whose results or VERSION disagree with PINS (empty: all pinned)."""
    problems = []
    for name in names:
        pinned_version, pinned_digest = PINS[name]
        version, digest = STAGES[name].VERSION, stage_digest(store, name)
        if version != pinned_version:
            problems.append(f"{name}.VERSION is {version}, PINS say {pinned_version}: pin "
                            f"{name!r}: ({version}, {digest!r}) in tests/test_versions.py")
        elif digest != pinned_digest:
            problems.append(f"{name}'s results on Mini Nerdle changed (digest {digest}, pinned {pinned_digest}) "
                            f"without a VERSION bump: bump {name}.VERSION (pipeline/stages/{name}.py) so finished "
                            f"artifacts of the old results are not reused, then pin {name!r}: "
                            f"({version + 1}, {digest!r}) in tests/test_versions.py")
    return problems


def test_every_stage_with_results_is_pinned():
    """A new stage gets a pin; report and reproduce gather the others' results and are left out (the catalogue
    gathers too, but its rows, their order and the verification states it gives are its own results)."""
    assert set(PINS) == set(STAGES) - {"report", "reproduce"}


def test_each_stage_s_results_are_those_of_its_version(mini_nerdle_store):
    """Every pinned stage made an artifact, and its results are the ones pinned to its VERSION."""
    for name in PINS:
        assert mini_nerdle_store.finished(name), f"no {name} artifact was made"
    problems = pin_problems(mini_nerdle_store, PINS)
    assert not problems, "\n".join(problems)


def test_a_changed_result_without_a_version_bump_is_caught(mini_nerdle_store, run_pipeline, monkeypatch):
    """A planted change (one code of the feedback matrix) under the same VERSION fails, naming the bump; a bump
    without a new pin fails too."""
    from pipeline.feedback import parquet
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages import feedback

    def planted(path, codes, meta, *args):
        changed = codes.copy()
        changed[0, 0] += 1
        parquet.write_matrix(path, changed, meta, *args)

    monkeypatch.setattr(feedback, "write_matrix", planted)
    artifact = run_pipeline("stage=feedback", "game=mini_nerdle")
    store = ArtifactStore(artifact.path.parents[1])
    problems = pin_problems(store, ["feedback"])
    assert len(problems) == 1 and "bump feedback.VERSION" in problems[0]
    monkeypatch.setattr(feedback, "VERSION", feedback.VERSION + 1)
    assert "PINS say" in pin_problems(mini_nerdle_store, ["feedback"])[0]


@pytest.mark.parametrize("volatile", ["run_seconds", "checked_at", "path", "elapsed"])
def test_timings_and_paths_are_not_results(volatile):
    """What says when or where a run happened is left out of a digest; the outputs folder is named alike."""
    assert steady({volatile: 1, "total": 2, "where": "/x/outputs/a"}, "/x/outputs") == \
        {"total": 2, "where": "<outputs>/a"}


@pytest.mark.slow
def test_a_record_of_other_checker_code_is_checked_again(mini_nerdle_store, tmp_path, monkeypatch):
    """A proof reused under its key may come from older code: its verification record counts only while the
    checker's code is the one that made it; otherwise stage=reproduce runs the checker on it again."""
    import shutil

    from pipeline.games.catalog import builtin_game
    from pipeline.proofs.certificates import record
    from pipeline.stages.reproduce import checked_proof

    proof = tmp_path / "proof"
    shutil.copytree(mini_nerdle_store.finished("prove")[-1].path, proof)
    cert = json.loads((proof / "certificate.json").read_text())
    assert cert["proven"] is True
    record.write_record(proof, cert, complete=True, summary={})  # a record of this checker's code
    assert record.status(proof).verified
    real_check, checks = record.verify_and_record, []

    def counted(folder, game, *args, **kwargs):
        checks.append(folder)
        return real_check(folder, game, *args, **kwargs)

    monkeypatch.setattr(record, "verify_and_record", counted)
    game = builtin_game("mini_nerdle")
    checked_proof(proof, game)
    assert checks == []  # trusted: the same certificate bytes, the same checker
    monkeypatch.setattr(record, "checker_code", lambda: "0" * 64)  # the checker's code has changed since
    assert record.status(proof).state == record.UNVERIFIED
    checked_proof(proof, game)
    assert checks == [proof] and record.status(proof).verified  # checked again, and recorded by this code
    assert json.loads((proof / record.RECORD).read_text())["checker_code"] == "0" * 64
