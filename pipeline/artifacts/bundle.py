"""`python -m pipeline bundle <folder>`: one archive of a proof folder that checks anywhere.

A prove, leaderboard or blindfold folder already holds what its check needs (certificate or solution, trees,
game.json.gz with the lists and versions, manifest.json).  The bundle packs those files into one .tar.gz, by
default <folder>.tar.gz beside the folder (the catalogue links it there), under one top folder
`<stage>-<key>/`, with two more files first:
  README.txt  what the archive is, its result, and the command that checks it;
  INDEX.json  format 1: stage, key, game (name, rules, list counts and digests), versions, and `files`, every
              other member's {bytes, sha256}; `verify-certificate <archive>` refuses an archive whose members
              differ from it (pipeline/proofs/files/archive.py reads it, with its own code).
Only regular files are packed (a symlink in the folder is refused, hidden files and verification.json, a
record this machine's checker keeps, are left out); members carry no owner and no time, so the same folder
makes the same bytes.  Member names are made of safe parts only: the stage (one of STAGES), the manifest's key
(refused unless it has the shape of a key, 16 hex digits: `prove-../../../x` would climb out of the folder
`tar -x` unpacks into) and file names of letters, digits and `. _ ~ % -` (the stages' own names; any other
name is refused).  The archive is written to a temporary file and renamed into place.
"""

import gzip
import hashlib
import io
import json
import os
import re
import tarfile
import tempfile
from pathlib import Path

from pipeline.artifacts.outputs import BLINDFOLD, LEADERBOARD, PROVE, STORED_GAME
from pipeline import PipelineError, shown_value
from pipeline.runtime.files import UnreadableFile, read_bytes, read_json
from pipeline.runtime.store import KEY

STAGES = {"prove": PROVE, "leaderboard": LEADERBOARD, "blindfold": BLINDFOLD}
NOT_PACKED = {"verification.json"}  # this machine's record of a check: the other machine makes its own
MAX_FILE_BYTES = 256 * 2**20  # the checker unpacks no bigger member (pipeline/proofs/files/archive.py)
FORMAT = 1
MEMBER_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._~%-]*")  # every file name a stage writes (trees.tree_name too)


def default_archive(folder: Path) -> Path:
    """<folder>.tar.gz, a sibling of the artifact folder (outputs/prove/<key>.tar.gz)."""
    folder = Path(os.path.abspath(folder))  # `.` or `..` named, links not followed
    return folder.with_name(folder.name + ".tar.gz")


def packed_files(folder: Path) -> dict[str, bytes]:
    """The folder's files to pack, by name: regular, not hidden, not verification.json; a symlink, or a name of
    other characters than MEMBER_NAME's, is refused."""
    files = {}
    for path in sorted(folder.iterdir()):
        if path.name.startswith(".") or path.name in NOT_PACKED:
            continue
        if path.is_symlink():
            raise PipelineError(f"{path} is a symbolic link: a bundle holds regular files only")
        if not MEMBER_NAME.fullmatch(path.name):
            raise PipelineError(f"cannot bundle the file {shown_value(path.name)} of {folder}: a member's name is "
                                "letters, digits and . _ ~ % - only")
        if path.is_file():
            try:
                files[path.name] = read_bytes(path, MAX_FILE_BYTES)
            except UnreadableFile as err:
                raise PipelineError(f"cannot bundle {err}") from None
    return files


LISTS = ("secrets", "guesses", "excluded")


def stored_problem(stored) -> str | None:
    """What keeps game.json.gz's sections from making an index (None: game, lists and versions are objects,
    each list with a count and a digest)."""
    if not isinstance(stored, dict):
        return f"a JSON {type(stored).__name__}, not an object"
    empty = next((name for name in ("game", "lists", "versions") if not isinstance(stored.get(name), dict)
                  or not stored[name]), None)
    if empty is not None:
        return f"its {empty} section is missing or empty"
    lists = stored["lists"]
    broken = next((name for name in LISTS if not isinstance(lists.get(name), dict)
                   or not {"count", "sorted_sha256"} <= set(lists[name])), None)
    return None if broken is None else f"its {broken} list has no count and digest"
def artifact_key(folder: Path, manifest: dict) -> str:
    """The manifest's key, refused unless it has the shape of a key (it names the archive's top folder)."""
    key = manifest.get("key")
    if not isinstance(key, str) or not KEY.fullmatch(key):
        raise PipelineError(f"{folder / 'manifest.json'}: key {shown_value(key)} is not an artifact key (16 hex "
                            "digits); not bundled")
    return key


def bundle_index(manifest: dict, stored: dict, files: dict[str, bytes]) -> dict:
    """INDEX.json: what the archive holds and how it checks."""
    lists = {name: {"count": entry["count"], "sorted_sha256": entry["sorted_sha256"]}
             for name, entry in stored["lists"].items()}
    return {"format": FORMAT, "stage": manifest.get("stage"), "key": manifest.get("key"),
            "game": {**stored["game"], "lists": lists}, "versions": stored["versions"],
            "check": "python -m pipeline verify-certificate <this archive>",
            "files": {name: {"bytes": len(data), "sha256": hashlib.sha256(data).hexdigest()}
                      for name, data in files.items()}}


def readme(manifest: dict, index: dict) -> str:
    """README.txt: the archive in words, each file with what it holds (the stage's declared outputs)."""
    from pipeline.artifacts.outputs import Output

    declared = [*STAGES[index["stage"]], Output("manifest.json", "what made the artifact: stage, key, VERSION, "
                                                                  "config, package and dependency versions"),
                Output("stage.log", "the stage's log")]
    game, lists = index["game"], index["game"]["lists"]
    limit = "no guess limit" if game["max_guesses"] is None else f"at most {game['max_guesses']} guesses"
    rules = f"{game['answer']} answers, {'hard' if game['hard_mode'] else 'normal'} mode, {limit}"
    lines = [f"A {index['stage']} result of the pipeline, packed to be checked anywhere.",
             "", f"game: {game['name']} ({rules}); {lists['secrets']['count']} secrets, "
                 f"{lists['guesses']['count']} allowed guesses, {lists['excluded']['count']} excluded",
             f"result: {result_of(manifest)}",
             f"made by: package {index['versions']['package']}, stage {index['stage']} VERSION "
             f"{index['versions']['stage_version']}, key {index['key']}",
             "", "Check it (a plain install of the project is enough; no list file, no game settings):",
             "  pip install <the project>", "  python -m pipeline verify-certificate <this archive>",
             "", "Files:"]
    for name in index["files"]:
        holds = next((o.holds for o in declared if o.matches(name)), "")
        lines.append(f"  {name}: {holds}" if holds else f"  {name}")
    return "\n".join(lines) + "\n"


def result_of(manifest: dict) -> str:
    """The stage's summary in one line (its scalar entries)."""
    summary = manifest.get("summary") or {}
    return ", ".join(f"{k} {v}" for k, v in summary.items()
                     if isinstance(v, (str, int, float, bool)) or (isinstance(v, list) and len(v) <= 12)) or "-"


def member(name: str, data: bytes) -> tuple[tarfile.TarInfo, io.BytesIO]:
    info = tarfile.TarInfo(name)
    info.size, info.mode, info.mtime = len(data), 0o644, 0
    return info, io.BytesIO(data)


def write_bundle(folder: Path, out: Path | None = None) -> tuple[Path, dict]:
    """Pack the proof folder into `out` (default <folder>.tar.gz); (the archive's path, its index)."""
    folder = Path(folder)
    if not folder.is_dir():
        raise PipelineError(f"{folder} is not a folder (give a prove, leaderboard or blindfold artifact folder)")
    try:
        manifest = read_json(folder / "manifest.json")
    except UnreadableFile as err:
        raise PipelineError(f"{folder} is no finished artifact folder: {err}") from None
    stage = manifest.get("stage") if isinstance(manifest, dict) else None
    if stage not in STAGES:
        raise PipelineError(f"{folder} is a {stage} artifact; bundle packs a prove, leaderboard or blindfold folder")
    top = f"{stage}-{artifact_key(folder, manifest)}"
    files = packed_files(folder)
    if STORED_GAME.name not in files:
        raise PipelineError(f"{folder} holds no {STORED_GAME.name} (it was made before proof folders stored their "
                            f"lists): rerun its stage with stage.force=true to write it")
    if not isinstance(manifest.get("summary", {}), dict):
        raise PipelineError(f"{folder / 'manifest.json'} is damaged (its summary is a "
                            f"{type(manifest['summary']).__name__}, not an object); rerun its stage with "
                            "stage.force=true")
    try:
        stored = json.loads(gzip.decompress(files[STORED_GAME.name]))
        problem = stored_problem(stored)
        if problem is None:
            index = bundle_index(manifest, stored, files)
            text = readme(manifest, index)
    except (OSError, EOFError, ValueError, KeyError, TypeError, AttributeError) as err:
        problem = f"{type(err).__name__}: {err}"
    if problem is not None:
        raise PipelineError(f"{folder / STORED_GAME.name} is damaged ({problem}); rerun its stage with "
                            "stage.force=true")
    out = Path(out) if out is not None else default_archive(folder)
    members = {"README.txt": text.encode(), "INDEX.json": (json.dumps(index, indent=1) + "\n").encode(), **files}
    write_archive(out, top, members)
    return out, index


def write_archive(out: Path, top: str, members: dict[str, bytes]) -> None:
    """The .tar.gz of `members` under `top/`, written to a temporary file beside `out`, then renamed over it."""
    if out.is_dir() or not out.parent.is_dir():
        raise PipelineError(f"cannot write {out}: " + ("it is a folder" if out.is_dir() else "no such folder"))
    try:
        handle, temporary = tempfile.mkstemp(prefix=f".{out.name}-", dir=out.parent)
    except OSError as err:
        raise PipelineError(f"cannot write {out}: {err.strerror or err}") from None
    try:
        os.chmod(temporary, 0o644)
        with os.fdopen(handle, "wb") as raw, gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as zipped, \
                tarfile.open(fileobj=zipped, mode="w", format=tarfile.PAX_FORMAT) as tar:
            folder = tarfile.TarInfo(top)
            folder.type, folder.mode, folder.mtime = tarfile.DIRTYPE, 0o755, 0
            tar.addfile(folder)
            for name, data in members.items():
                tar.addfile(*member(f"{top}/{name}", data))
        os.replace(temporary, out)
    except OSError as err:
        Path(temporary).unlink(missing_ok=True)
        raise PipelineError(f"cannot write {out}: {err.strerror or err}") from None
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
