"""The verification record: what `verify-certificate` found, kept beside the certificate it checked, sealed.

A certificate is only a claim until this checker has re-derived all of it.  After a check,
<folder>/verification.json records the sha256 of the content of every file the check read (certificate.json,
the tree files it pins and game.json.gz, the game a folder stores: proofs/game/stored_game.py), the game as the
check named it (proofs/certificates/naming.py) with its lists' digests, the checker's version and a hash of the checker's
own source, whether the check was complete or a sample, and when it ran; it is sealed with an HMAC-SHA256
under this machine's checker key (seal.py: a key in the user's config folder, never in the outputs), written
atomically (a temporary file renamed over it), and removed when a check rejects the certificate.

An archive (`python -m pipeline bundle`) is checked in a temporary folder that is removed afterwards, so its
record is kept apart, named by the content it stands for: <config folder>/archive-checks/<the archive's
sha256>.json, beside this machine's checker key (seal.py), holding the same fields plus `archive_sha256` (the
digest of exactly the bytes the check unpacked: pipeline/proofs/files/archive.py) and the archive's file name,
sealed the same way.  It reads verified (`archive_status`) only for an archive with those very bytes.

Readers (the catalogue, the assistant, the report, stage=reproduce) present a certificate's result as
verified only when `status` finds a record sealed by this machine's key, complete, of this checker version
and code, whose digests are those of the files as they are now.  Anything else reads "not verified here",
with the reason: never checked here, a record without this machine's seal (hand-written, edited, or copied
from another machine or key folder), checked only in part, checked by other checker code, or files changed
since.  Artifact keys do not hold the code that made them (pipeline/stages/runner.py), so a certificate found
under its key may come from older code: the record binds the check to the certificate's bytes and to this
machine's checker, never to the code that wrote the certificate.
"""

import functools
import hashlib
import json
import os
import tempfile
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

from pipeline import PipelineError
from pipeline.proofs.certificates import seal
from pipeline.proofs.certificates.journal import NoJournal, open_journal
from pipeline.proofs.files.reader import FileRefused, file_bytes, json_of
from pipeline.proofs.game.stored_game import GAME_FILE

CHECKER_VERSION = 2  # raised whenever the checker accepts less than before: older records then count for nothing
RECORD = "verification.json"
ARCHIVE_RECORDS = "archive-checks"  # <config folder>/archive-checks/<archive sha256>.json: checks of archives
CHECKER_SOURCES = ("proofs/**/*.py", "formats/*.py", "compiled/*.py", "__init__.py")  # the checker's code, below the package folder
VERIFIED, PARTIAL, UNVERIFIED = "verified", "partially checked", "unverified"
NEVER_CHECKED = "no verification record"
NOT_SEALED_HERE = ("its verification record is not sealed by this machine's checker key: written by hand, edited, "
                   "or copied from elsewhere")


@dataclass(frozen=True)
class Status:
    """What a reader may say of a certificate folder: `state` is VERIFIED, PARTIAL or UNVERIFIED (then `why`)."""

    state: str
    folder: Path
    checked_at: str | None = None
    why: str | None = None
    named: str | None = None  # the game as the check named it (proofs/certificates/naming.py)

    @property
    def verified(self) -> bool:
        return self.state == VERIFIED

    def label(self) -> str:
        """How a reader names the result: verified (and when), or not verified here (why, and how to check it)."""
        if self.verified:
            return f"verified certificate (checked {self.checked_at})"
        how = f"check it: python -m pipeline verify-certificate {self.folder}"
        if self.state == PARTIAL:
            return f"partially checked certificate (a sample only; {how})"
        return f"certificate not verified here ({self.why}; {how})"


def sha256_of(path: Path) -> str:
    """The sha256 of a regular file's content (files.file_bytes: a FIFO or folder in its place is refused, never
    opened blocking)."""
    return hashlib.sha256(file_bytes(path)).hexdigest()


@functools.lru_cache(maxsize=None)
def checker_code() -> str:
    """sha256 over the checker's source files (their paths below the package and their bytes): a record made by
    different checker code, even one that kept CHECKER_VERSION, is not trusted."""
    package = Path(__file__).resolve().parents[2]
    digest = hashlib.sha256()
    for path in sorted(p for pattern in CHECKER_SOURCES for p in package.glob(pattern)):
        digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


def pinned_files(cert: dict) -> list[str]:
    """The files beside certificate.json whose digests it pins (its tree files), by name."""
    if cert.get("kind") == "leaderboard":
        return [e["tree"] for e in cert.get("leaders", [])]
    return [] if cert.get("kind") == "infeasible" else ["tree.json"]


def record_body(folder: Path, cert: dict, complete: bool, summary: dict) -> dict:
    """The record of a successful check of <folder>, unsealed: every file it rests on hashed by content, the game
    as the check named it and its lists' digests (the certificate's: the check found them the game's), the
    checker, the verdict."""
    stored = [GAME_FILE] if os.path.lexists(folder / GAME_FILE) else []  # the lists the check read, if stored
    files = {name: sha256_of(folder / name) for name in ["certificate.json", *pinned_files(cert), *stored]}
    game = {"named": summary.get("game"), "guesses_sha256": cert["guesses_sha256"],
            "secrets_sha256": cert["secrets_sha256"], "hard_mode": cert["hard_mode"],
            "max_guesses": summary.get("max_guesses")}
    return {"certificate_sha256": files["certificate.json"], "files": files, "game": game,
            "checker_version": CHECKER_VERSION, "checker_code": checker_code(), "complete": bool(complete),
            "checked_at": datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"), "summary": summary}


def write_record(folder: Path, cert: dict, complete: bool, summary: dict) -> Path:
    """Record a successful check of <folder>, sealed with this machine's key (made on the first check); a sample
    check never replaces a complete record of the same files.  PipelineError when the key cannot be used."""
    folder = Path(folder)
    if not complete and status(folder).verified:
        return folder / RECORD
    return sealed_write(folder / RECORD, record_body(folder, cert, complete, summary))


def sealed_write(path: Path, body: dict) -> Path:
    """`body` sealed with this machine's key (made on the first check) and written atomically to `path` (a
    temporary file beside it, renamed over it; its folder made, mode 0700, once the key's is: an archive's
    record).  PipelineError when the key cannot be used."""
    try:
        body = {**body, seal.SEAL_FIELD: seal.seal(seal.this_machine_key(create=True), body)}
    except seal.KeyUnusable as err:
        raise PipelineError(f"the check passed, but its record cannot be sealed: {err}") from None
    except OSError as err:
        raise PipelineError(f"the check passed, but this machine's checker key {seal.key_path()} could not be "
                            f"made ({err.strerror or err})") from None
    path.parent.mkdir(mode=0o700, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".verification-", suffix=".json", dir=path.parent)
    try:
        with os.fdopen(handle, "w") as f:
            f.write(json.dumps(body, indent=1) + "\n")
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        Path(temporary).unlink(missing_ok=True)
        raise
    return path


def forget_record(folder: Path) -> None:
    """Remove the record of a folder whose certificate a check has just rejected."""
    (Path(folder) / RECORD).unlink(missing_ok=True)


def status(folder: Path) -> Status:
    """VERIFIED when <folder>/verification.json is sealed by this machine's key, complete, of this checker version
    and code, and every file it names (and game.json.gz, if the folder has one now) still has its recorded
    digest; PARTIAL for such a record of a sample check; else UNVERIFIED, saying why."""
    folder = Path(folder)
    body, why = sealed_record(folder / RECORD)
    return read_status(folder, body, why or why_not_current(folder, body))


def sealed_record(path: Path) -> tuple[dict | None, str | None]:
    """(the record at `path`, None) when it is a JSON object this machine's key sealed; else (None, why not)."""
    try:
        body = json_of(file_bytes(path), path)
    except FileRefused as err:
        return None, NEVER_CHECKED if err.missing else "its verification record is unreadable"
    except ValueError:
        return None, "its verification record is unreadable"
    if not isinstance(body, dict):
        return None, "its verification record is unreadable"
    why = why_not_sealed(body)
    return (None, why) if why else (body, None)


def read_status(shown: Path, body: dict | None, why: str | None) -> Status:
    """What a record says of the folder or archive `shown`: UNVERIFIED for `why`; else VERIFIED or PARTIAL."""
    if why:
        return Status(UNVERIFIED, shown, why=why)
    game = body.get("game") if isinstance(body.get("game"), dict) else {}
    return Status(VERIFIED if body["complete"] else PARTIAL, shown, body.get("checked_at"), named=game.get("named"))


def why_not_sealed(body: dict) -> str | None:
    """Why the record is not one this machine's checker sealed (None when it is)."""
    try:
        key = seal.this_machine_key(create=False)
    except (seal.KeyUnusable, OSError) as err:
        return f"this machine's checker key cannot be used: {err}"
    if key is None:
        return f"this machine has no checker key ({seal.key_path()}): nothing was checked here"
    return None if seal.sealed_here(key, body) else NOT_SEALED_HERE


def why_other_checker(body: dict) -> str | None:
    """Why a sealed record is not this checker's (None when its version and code are this checker's)."""
    version, code = body.get("checker_version"), body.get("checker_code")
    if version != CHECKER_VERSION or code != checker_code():
        return f"checked by other checker code (version {version}, code {str(code)[:12]})"
    return None


def why_not_current(folder: Path, body: dict) -> str | None:
    """Why a sealed record no longer stands for the folder as it is now (None when it does)."""
    files = body.get("files")
    why = why_other_checker(body)
    if why:
        return why
    if (not isinstance(files, dict) or files.get("certificate.json") != body.get("certificate_sha256")
            or type(body.get("complete")) is not bool):
        return "its verification record is unreadable"
    names = set(files) | ({GAME_FILE} if os.path.lexists(folder / GAME_FILE) else set())
    for name in sorted(names):
        try:
            changed = Path(name).name != name or sha256_of(folder / name) != files.get(name)
        except (FileRefused, OSError):
            changed = True
        if changed:
            return f"its files changed since they were checked ({name})"
    return None


def archive_record_path(archive_sha256: str) -> Path:
    """Where the check of the archive whose bytes have this sha256 is recorded: beside this machine's key."""
    return seal.config_folder() / ARCHIVE_RECORDS / f"{archive_sha256}.json"


def write_archive_record(archive: Path, archive_sha256: str, folder: Path, cert: dict, complete: bool,
                         summary: dict) -> Path:
    """Record a successful check of `folder`, unpacked from `archive` (whose bytes have `archive_sha256`), sealed
    with this machine's key; a sample check never replaces a complete record of the same archive."""
    if not complete and archive_status(archive, archive_sha256).verified:
        return archive_record_path(archive_sha256)
    body = {**record_body(folder, cert, complete, summary), "archive": Path(archive).name,
            "archive_sha256": archive_sha256}
    return sealed_write(archive_record_path(archive_sha256), body)


def forget_archive_record(archive_sha256: str) -> None:
    """Remove the record of an archive whose certificate a check has just rejected."""
    archive_record_path(archive_sha256).unlink(missing_ok=True)


def archive_status(archive: Path, archive_sha256: str) -> Status:
    """VERIFIED when this machine's record of the archive with these bytes (`archive_sha256`, which the reader
    computed) is sealed by this machine's key, complete, of this checker version and code, and names these
    bytes; PARTIAL for such a record of a sample check; else UNVERIFIED, saying why."""
    body, why = sealed_record(archive_record_path(archive_sha256))
    why = why or why_other_checker(body) or why_not_these_bytes(body, archive_sha256)
    return read_status(Path(archive), body, why)


def why_not_these_bytes(body: dict, archive_sha256: str) -> str | None:
    """Why a sealed record of this checker does not stand for the archive whose bytes have `archive_sha256`."""
    if type(body.get("complete")) is not bool:
        return "its verification record is unreadable"
    if body.get("archive_sha256") != archive_sha256:
        return f"its verification record is of other bytes (archive sha256 {str(body.get('archive_sha256'))[:12]})"
    return None


def check_journal(folder: Path, cert: dict, say):
    """This machine's sealed journal of a check of these certificate bytes by this checker (journal.py): what an
    earlier, stopped check re-derived is read back, not re-derived.  A NoJournal when this machine's key cannot be used
    (the check then keeps nothing, and its record cannot be sealed either: write_record says so)."""
    try:
        journal = open_journal(sha256_of(Path(folder) / "certificate.json"), cert, CHECKER_VERSION, checker_code())
    except (seal.KeyUnusable, OSError):
        return NoJournal()
    if journal.read_back and say is not None:
        say(f"resuming a stopped check: {journal.read_back} re-derived values read back from this machine's sealed "
            f"journal ({journal.path})")
    return journal


def verify_and_record(folder: Path, game, sample: int | None = None, say=None, workers: int = 1,
                      archive: Path | None = None, archive_sha256: str | None = None) -> tuple[dict, Path]:
    """Check <folder>'s certificate (a proof, an infeasible limit or a leaderboard) against `game` with this
    checker, then record the check: beside it, or for a folder unpacked from `archive` (whose bytes have
    `archive_sha256`) under the archive's sha256; a rejection (CertificateError) removes any earlier record.
    (the check's summary, the record's path)"""
    from pipeline.proofs.certificates.optimal import load_certificate, verify_certificate
    from pipeline.proofs.certificates.infeasible import verify_infeasible
    from pipeline.proofs.certificates.leaderboard import verify_leaderboard

    cert = load_certificate(folder)
    if cert.get("kind") == "infeasible":  # minutes at most: no journal
        verify, journal, kept = verify_infeasible, NoJournal(), {}
    else:
        verify = verify_leaderboard if cert.get("kind") == "leaderboard" else verify_certificate
        journal = check_journal(folder, cert, say)
        kept = {"journal": journal}
    try:
        result = verify(folder, game, sample, say=say, workers=workers, **kept)
    except PipelineError:  # a record of an earlier check no longer stands
        if archive is None:
            forget_record(folder)
        else:
            forget_archive_record(archive_sha256)
        journal.remove()
        raise
    journal.remove()
    try:
        if archive is None:
            return result, write_record(folder, cert, result["complete"], result)
        return result, write_archive_record(archive, archive_sha256, folder, cert, result["complete"], result)
    except OSError as err:
        where = folder if archive is None else archive_record_path(archive_sha256).parent
        raise PipelineError(f"the check passed, but its record could not be written in {where} ({err}); "
                            "readers will call the certificate not verified here") from None
