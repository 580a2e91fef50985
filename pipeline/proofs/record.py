"""The verification record: what `verify-certificate` found, kept beside the certificate it checked.

A certificate is only a claim until this checker has re-derived all of it.  After a check,
<folder>/verification.json records the sha256 of every file the check read (certificate.json, the tree files
it pins and game.json.gz, the game a folder stores: proofs/stored_game.py), the checker's version and a hash
of the checker's own source, whether the check was complete or a sample, and when it ran; it is written
atomically (a temporary file renamed over it), and removed when a check rejects the certificate. Readers (the
assistant, the report, stage=reproduce) present a certificate's result as proven only when `status` finds a
complete record of this checker version and this checker code whose digests are those of the files as they are
now: a certificate edited after its check, checked only in part, never checked, or checked by other checker
code, is an unverified certificate (stage=reproduce then checks a proven one again). Artifact keys do not hold
the code that made them (pipeline/stages/runner.py), so a certificate found under its key may come from older
code: the record binds the check to the certificate's bytes and to the checker, never to the code that wrote
the certificate.
"""

import functools
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pipeline.proofs.files import FileRefused, file_bytes, json_of
from pipeline.proofs.stored_game import GAME_FILE

CHECKER_VERSION = 1  # raised whenever the checker accepts less than before: older records then count for nothing
RECORD = "verification.json"
CHECKER_SOURCES = ("proofs/*.py", "artifacts/tree_formats.py")  # the checker's code, below the package folder
VERIFIED, PARTIAL, UNVERIFIED = "verified", "partially checked", "unverified"


@dataclass(frozen=True)
class Status:
    """What a reader may say of a certificate folder: `state` is VERIFIED, PARTIAL or UNVERIFIED."""

    state: str
    folder: Path
    checked_at: str | None = None

    @property
    def verified(self) -> bool:
        return self.state == VERIFIED

    def label(self) -> str:
        """How a reader names the result: verified (and when), or how to check it."""
        if self.verified:
            return f"verified certificate (checked {self.checked_at})"
        what = "partially checked certificate (a sample only)" if self.state == PARTIAL else "unverified certificate"
        return f"{what} (check it: python -m pipeline verify-certificate {self.folder})"


def sha256_of(path: Path) -> str:
    """The sha256 of a regular file (files.file_bytes: a FIFO or folder in its place is refused, never opened
    blocking)."""
    return hashlib.sha256(file_bytes(path)).hexdigest()


@functools.lru_cache(maxsize=None)
def checker_code() -> str:
    """sha256 over the checker's source files (their paths below the package and their bytes): a record made by
    different checker code, even one that kept CHECKER_VERSION, is not trusted."""
    package = Path(__file__).resolve().parents[1]
    digest = hashlib.sha256()
    for path in sorted(p for pattern in CHECKER_SOURCES for p in package.glob(pattern)):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def pinned_files(cert: dict) -> list[str]:
    """The files beside certificate.json whose digests it pins (its tree files), by name."""
    if cert.get("kind") == "leaderboard":
        return [e["tree"] for e in cert.get("leaders", [])]
    return [] if cert.get("kind") == "infeasible" else ["tree.json"]


def write_record(folder: Path, cert: dict, complete: bool, summary: dict) -> Path:
    """Record a successful check of <folder>; a sample check never replaces a complete record of the same files."""
    folder = Path(folder)
    stored = [GAME_FILE] if (folder / GAME_FILE).exists() else []  # the lists the check read, if the folder has them
    files = {name: sha256_of(folder / name) for name in ["certificate.json", *pinned_files(cert), *stored]}
    if not complete and status(folder).verified:
        return folder / RECORD
    body = {"certificate_sha256": files["certificate.json"], "files": files, "checker_version": CHECKER_VERSION,
            "checker_code": checker_code(), "complete": bool(complete), "checked_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
            "summary": summary}
    handle, temporary = tempfile.mkstemp(prefix=".verification-", suffix=".json", dir=folder)
    try:
        with os.fdopen(handle, "w") as f:
            f.write(json.dumps(body, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, folder / RECORD)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return folder / RECORD


def forget_record(folder: Path) -> None:
    """Remove the record of a folder whose certificate a check has just rejected."""
    (Path(folder) / RECORD).unlink(missing_ok=True)


def status(folder: Path) -> Status:
    """VERIFIED when <folder>/verification.json is a complete record of this checker version and code and every
    file it names still has its recorded digest; PARTIAL for a matching sample record; else UNVERIFIED."""
    folder = Path(folder)
    try:
        body = json_of(file_bytes(folder / RECORD), folder / RECORD)
        files = body["files"]
        current = (body["checker_version"] == CHECKER_VERSION and body.get("checker_code") == checker_code()
                   and "certificate.json" in files
                   and files["certificate.json"] == body["certificate_sha256"]
                   and all(Path(name).name == name and sha256_of(folder / name) == digest
                           for name, digest in files.items()))
    except (FileRefused, OSError, ValueError, KeyError, TypeError, AttributeError):
        return Status(UNVERIFIED, folder)
    if not current:
        return Status(UNVERIFIED, folder)
    return Status(VERIFIED if body.get("complete") is True else PARTIAL, folder, body.get("checked_at"))


def verify_and_record(folder: Path, game, sample: int | None = None, say=None, workers: int = 1) -> tuple[dict, Path]:
    """Check <folder>'s certificate (a proof or a leaderboard) against `game` with this checker, then record the
    check; a rejection (CertificateError) removes any earlier record.  (the check's summary, the record's path)"""
    from pipeline.errors import PipelineError
    from pipeline.proofs.certificate import load_certificate, verify_certificate
    from pipeline.proofs.infeasible import verify_infeasible
    from pipeline.proofs.leaderboard import verify_leaderboard

    cert = load_certificate(folder)
    verify = {"leaderboard": verify_leaderboard, "infeasible": verify_infeasible}.get(cert.get("kind"),
                                                                                      verify_certificate)
    try:
        result = verify(folder, game, sample, say=say, workers=workers)
    except PipelineError:
        forget_record(folder)  # a record of an earlier check no longer stands
        raise
    try:
        return result, write_record(folder, cert, result["complete"], result)
    except OSError as err:
        raise PipelineError(f"the check passed, but its record could not be written in {folder} ({err}); "
                            "readers will call the certificate unverified") from None
