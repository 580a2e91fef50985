"""A long check's finished work, kept so that a stopped check resumes where it stopped: sealed, bound to what it
checks.

A full check of a large certificate runs for hours (the 3158-answer list in hard mode re-derives hard V_4 and V_5
of thousands of eliminated openers), longer than a machine may stay up.  So each value the check re-derives (an
eliminated opener's V_level, a closure class's bound) is appended, as it is found, as one line of
<config folder>/check-journals/<id>.jsonl, beside this machine's checker key (seal.py).  The id is a sha256 of
what the values depend on and what they are for: the certificate's bytes, the game's lists as the certificate
names them, the checker's version and the hash of its code (record.checker_code).  Each line names its piece of
work by a digest of its description (`work`), its value, and the seal (HMAC-SHA256 under this machine's key) of
the three together: a line written by hand, edited, copied from another journal or sealed by another key does
not verify and is ignored (recomputed), never believed.

A later check of the same certificate bytes by the same checker code on this machine reads the lines back and
does not re-derive them; its summary says how many (`resumed_values`), and so does its verification record.  The
journal is removed when a check ends, passed or rejected: only a stopped check leaves one.
"""

import hashlib
import json
import os
import stat
from pathlib import Path

from pipeline.proofs.certificates import seal

JOURNALS = "check-journals"  # <config folder>/check-journals/<id>.jsonl


def journal_id(certificate_sha256: str, cert: dict, checker_version: int, checker_code: str) -> str:
    """What a journal's values stand for: these certificate bytes, its game's lists, this checker's code."""
    bound = {"certificate_sha256": certificate_sha256, "guesses_sha256": cert.get("guesses_sha256"),
             "secrets_sha256": cert.get("secrets_sha256"), "hard_mode": cert.get("hard_mode"),
             "checker_version": checker_version, "checker_code": checker_code}
    return hashlib.sha256(json.dumps(bound, sort_keys=True).encode()).hexdigest()


def work_digest(*description) -> str:
    """A piece of work named by its description (numbers, strings, bytes), as a hex digest.  Each part goes in
    with its kind and length first, so that no two descriptions share their bytes."""
    digest = hashlib.sha256()
    for part in description:
        data = part if isinstance(part, bytes) else repr(part).encode()
        digest.update(b"%s:%d:" % (b"b" if isinstance(part, bytes) else b"r", len(data)) + data)
    return digest.hexdigest()


class Journal:
    """The sealed journal of one check: `known(work)` reads a value back, `add(work, value)` keeps one."""

    def __init__(self, path: Path, key: bytes, identity: str):
        self.path, self.key, self.identity = Path(path), key, identity
        self.values = self._read_back()
        self.read_back = len(self.values)
        self.used = 0
        self.unwritable: str | None = None

    def _sealed(self, work: str, value: int) -> str:
        return seal.seal(self.key, {"journal": self.identity, "work": work, "value": value})

    def _read_back(self) -> dict[str, int]:
        """The lines this machine's key sealed for this journal (others are ignored)."""
        try:
            if not stat.S_ISREG(os.lstat(self.path).st_mode):
                return {}
            text = self.path.read_text(errors="replace")
        except OSError:
            return {}
        values = {}
        for line in text.splitlines():
            try:
                entry = json.loads(line)
                work, value, mac = entry["work"], entry["value"], entry["mac"]
            except (ValueError, KeyError, TypeError):
                continue
            if (isinstance(work, str) and type(value) is int and isinstance(mac, str)
                    and seal.sealed_here(self.key, {"journal": self.identity, "work": work, "value": value,
                                                    seal.SEAL_FIELD: mac})):
                values[work] = value
        return values

    def known(self, work: str) -> int | None:
        value = self.values.get(work)
        self.used += value is not None
        return value

    def add(self, work: str, value: int) -> None:
        """Keep one value: a line appended in one write, so that a stop loses at most the line being written.  A
        journal that cannot be written (a full disk, a read-only config folder) keeps nothing more, and the check
        goes on: it only cannot resume (`unwritable` says why)."""
        value = int(value)
        self.values[work] = value
        if self.unwritable:
            return
        line = json.dumps({"work": work, "value": value, "mac": self._sealed(work, value)}) + "\n"
        try:
            self.path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
            handle = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW, 0o600)
            try:
                os.write(handle, line.encode())
            finally:
                os.close(handle)
        except OSError as err:
            self.unwritable = f"{self.path}: {err.strerror or err}"

    def remove(self) -> None:
        """The journal goes, and its folder when no other check's journal is left in it."""
        for remove in (self.path.unlink, self.path.parent.rmdir):
            try:
                remove()
            except OSError:  # gone already, or never made (unwritable); another check's journal left beside it
                pass


class NoJournal:
    """A check that keeps nothing (the default of the checker's functions)."""

    read_back = used = 0

    def known(self, work: str) -> None:
        return None

    def add(self, work: str, value: int) -> None:
        pass

    def remove(self) -> None:
        pass


def journal_path(identity: str) -> Path:
    return seal.config_folder() / JOURNALS / f"{identity}.jsonl"


def open_journal(certificate_sha256: str, cert: dict, checker_version: int, checker_code: str) -> Journal:
    """This machine's journal of a check of these certificate bytes by this checker (made on the first value)."""
    identity = journal_id(certificate_sha256, cert, checker_version, checker_code)
    return Journal(journal_path(identity), seal.this_machine_key(create=True), identity)
