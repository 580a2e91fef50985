"""This machine's checker key (pipeline/proofs/certificates/seal.py), what a verification record's seal is made with: made by
the first check in the user's config folder, mode 0600, never in the outputs nor in a bundle; an archive's check
keeps its record beside the key, named by the archive's sha256; a key file that cannot be trusted (open to other users, not hex, a link) is
refused, never used.  The readers of a forged record, one sealed in another key folder and one whose files
changed: tests/test_trust_checker.py."""

import hashlib
import os
import stat
import tarfile
from pathlib import Path

import pytest

from pipeline.proofs.certificates import seal
from pipeline.proofs.certificates.record import ARCHIVE_RECORDS, RECORD, UNVERIFIED, status
from tests.helpers.proof_folders import outputs_copy, verify_certificate
from tests.test_bad_input import assert_one_error, fresh_console  # noqa: F401 (fresh_console: autouse)
from tests.test_bundle import bundled, words_proof  # noqa: F401 (words_proof: a fixture)


def files_holding(folder: Path, secret: bytes) -> list[str]:
    """The files under `folder` (and the members of each .tar.gz there) whose bytes hold `secret`."""
    found = []
    for path in folder.rglob("*"):
        if path.is_file() and secret in path.read_bytes():
            found.append(str(path))
        if path.name.endswith(".tar.gz"):
            with tarfile.open(path) as tar:
                found += [f"{path}:{m.name}" for m in tar if m.isreg() and secret in tar.extractfile(m).read()]
    return found


def test_the_first_check_makes_the_key_0600_in_the_config_folder_never_in_the_outputs_or_a_bundle(
        words_proof, tmp_path, monkeypatch, capsys):
    config = tmp_path / "config" / "pipeline"
    monkeypatch.setenv(seal.CONFIG_ENV, str(config))
    proof = outputs_copy(words_proof, tmp_path)
    assert status(proof).why == "no verification record" and not config.exists()  # a reader makes no key
    assert verify_certificate(proof, capsys)[0] == 0 and status(proof).verified
    key_file = config / seal.KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600 and stat.S_IMODE(config.stat().st_mode) == 0o700
    assert sorted(os.listdir(config)) == [seal.KEY_FILE]  # no temporary left
    key = seal.this_machine_key(create=True)
    assert key_file.read_text().strip() == key.hex() and seal.this_machine_key(create=True) == key  # made once
    archive = bundled(proof, capsys)
    with tarfile.open(archive) as tar:
        assert not [m.name for m in tar if m.name.endswith((seal.KEY_FILE, RECORD))]
    assert files_holding(tmp_path / "outputs", key.hex().encode()) == []
    assert files_holding(tmp_path / "outputs", key) == []


def test_an_archives_check_is_recorded_beside_the_key_never_where_it_runs(words_proof, tmp_path, monkeypatch,
                                                                           capsys):
    """The archive is checked in a temporary folder; its record goes into the config folder, named by the archive's
    sha256 (record.archive_record_path), folder mode 0700 like the key's: nothing beside the archive or the proof."""
    proof = outputs_copy(words_proof, tmp_path)
    archive = bundled(proof, capsys)
    before = sorted(p.name for p in archive.parent.iterdir())
    monkeypatch.setenv(seal.CONFIG_ENV, str(tmp_path / "elsewhere"))
    code, out, err = verify_certificate(archive, capsys)
    assert code == 0, err
    sha256 = hashlib.sha256(archive.read_bytes()).hexdigest()
    records = tmp_path / "elsewhere" / ARCHIVE_RECORDS
    assert sorted(os.listdir(tmp_path / "elsewhere")) == [ARCHIVE_RECORDS, seal.KEY_FILE]
    assert os.listdir(records) == [f"{sha256}.json"] and stat.S_IMODE(records.stat().st_mode) == 0o700
    assert f"recorded: {records / sha256}.json (a complete check)" in out
    assert sorted(p.name for p in archive.parent.iterdir()) == before and not (proof / RECORD).exists()


@pytest.mark.parametrize("spoil, why", [
    (lambda key: key.chmod(0o644), "is open to other users (mode 644"),
    (lambda key: key.write_text("not hex\n"), "does not hold 64 hex digits"),
    (lambda key: (key.rename(key.with_name("real")), key.symlink_to("real")), "is not a regular file"),
], ids=["readable-by-others", "not-hex", "symlink"])
def test_a_key_that_cannot_be_trusted_is_refused_never_used(words_proof, tmp_path, monkeypatch, capsys, spoil, why):
    monkeypatch.setenv(seal.CONFIG_ENV, str(tmp_path / "config"))
    proof = outputs_copy(words_proof, tmp_path)
    assert verify_certificate(proof, capsys)[0] == 0 and status(proof).verified
    key_file = tmp_path / "config" / seal.KEY_FILE
    spoil(key_file)
    said = status(proof)
    assert said.state == UNVERIFIED and said.why.startswith("this machine's checker key cannot be used")
    assert why in said.why
    code, out, err = verify_certificate(proof, capsys)
    assert_one_error(code, err, "the check passed, but its record cannot be sealed: the checker key")
    assert why in err and not status(proof).verified
