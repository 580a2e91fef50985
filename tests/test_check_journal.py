"""A stopped check resumes from its sealed journal (pipeline/proofs/certificates/journal.py): what a check re-derived
is read back by the next check of the same certificate bytes with the same checker on this machine, never a value
that this machine's key did not seal; the journal goes when a check ends, passed or rejected."""

import json
from pathlib import Path

import pytest

from pipeline.proofs.certificates import journal as journals
from pipeline.proofs.certificates.record import CHECKER_VERSION, RECORD, checker_code, sha256_of, status
from pipeline.proofs.certificates.optimal import elimination_work, rule_of
from pipeline.proofs.game.stored_game import folder_game
from tests.helpers.proof_folders import outputs_copy, verify_certificate
from tests.test_bad_input import fresh_console  # noqa: F401 (fresh_console: autouse)
from tests.test_bundle import words_proof  # noqa: F401 (words_proof: a fixture)

READ_BACK = "read back from a stopped check's sealed journal"


def journal_file(folder: Path) -> Path:
    cert = json.loads((folder / "certificate.json").read_text())
    identity = journals.journal_id(sha256_of(folder / "certificate.json"), cert, CHECKER_VERSION, checker_code())
    return journals.journal_path(identity)


@pytest.fixture
def stopped(words_proof, tmp_path, monkeypatch, capsys) -> Path:
    """A copy of the words proof whose check ran to its end but left its journal, as a check stopped after its last
    value would: (the folder)."""
    folder = outputs_copy(words_proof, tmp_path)
    with monkeypatch.context() as patch:
        patch.setattr(journals.Journal, "remove", lambda self: None)
        assert verify_certificate(folder, capsys)[0] == 0
    (folder / RECORD).unlink()
    assert journal_file(folder).exists()
    return folder


def journal_lines(folder: Path) -> list[dict]:
    return [json.loads(line) for line in journal_file(folder).read_text().splitlines()]


def first_elimination(folder: Path) -> tuple[str, str, int]:
    """(the work name of the certificate's first eliminated opener, its opener, the ub)."""
    cert = json.loads((folder / "certificate.json").read_text())
    e = cert["eliminated"][0]
    work = elimination_work(int(e["level"]), rule_of(e), folder_game(folder).guess_index[e["opener"]], int(cert["ub"]))
    return work, e["opener"], int(cert["ub"])


def test_the_next_check_reads_the_journal_back_verifies_and_removes_it(stopped, capsys):
    lines = journal_lines(stopped)
    cert = json.loads((stopped / "certificate.json").read_text())
    assert len({line["work"] for line in lines}) >= len(cert["eliminated"])  # each opener's value, and the classes'
    code, out, err = verify_certificate(stopped, capsys)
    assert code == 0 and f"({len(lines)} of them {READ_BACK})" in out
    assert status(stopped).verified and not journal_file(stopped).exists()
    record = json.loads((stopped / RECORD).read_text())
    assert record["summary"]["resumed_values"] == len(lines) == len({line["work"] for line in lines})


def test_a_value_this_key_sealed_is_believed(stopped, capsys):
    """The journal is read, not re-derived: a value sealed by this machine's key (here written through the journal
    itself) that is not above the ub makes the check reject the certificate, and the journal goes with it."""
    work, opener, ub = first_elimination(stopped)
    journal = journals.Journal(journal_file(stopped), journals.seal.this_machine_key(create=False),
                               journal_file(stopped).stem)
    journal.add(work, ub)
    code, out, err = verify_certificate(stopped, capsys)
    assert code == 2 and f"opener {opener}" in err and "not above ub" in err
    assert not journal_file(stopped).exists() and not (stopped / RECORD).exists()


@pytest.mark.parametrize("forge", ["edited value", "other key", "other journal", "not json"])
def test_a_value_not_sealed_for_this_journal_by_this_key_is_re_derived(stopped, capsys, forge):
    work, _, ub = first_elimination(stopped)
    path = journal_file(stopped)
    key = journals.seal.this_machine_key(create=False)
    line = {"work": work, "value": ub, "mac": journals.Journal(path, key, path.stem)._sealed(work, ub)}
    if forge == "edited value":
        line["mac"] = journals.Journal(path, key, path.stem)._sealed(work, ub + 100)
    elif forge == "other key":
        line["mac"] = journals.Journal(path, bytes(32), path.stem)._sealed(work, ub)
    elif forge == "other journal":
        line["mac"] = journals.Journal(path, key, "0" * 64)._sealed(work, ub)
    with path.open("a") as f:
        f.write(("{not json" if forge == "not json" else json.dumps(line)) + "\n")
    code, out, _ = verify_certificate(stopped, capsys)
    assert code == 0 and "ok: certificate verified" in out and not path.exists()


def test_a_journal_of_other_certificate_bytes_is_not_read(stopped, capsys):
    old = journal_file(stopped)
    cert = json.loads((stopped / "certificate.json").read_text())
    (stopped / "certificate.json").write_text(json.dumps(cert, indent=2))  # the same claims, other bytes
    code, out, _ = verify_certificate(stopped, capsys)
    assert code == 0 and "ok: certificate verified" in out and READ_BACK not in out
    assert old.exists() and not journal_file(stopped).exists()
    old.unlink()  # the session's config folder is shared by the tests that follow


def test_a_journal_that_cannot_be_written_does_not_stop_the_check(words_proof, tmp_path, capsys, monkeypatch):
    monkeypatch.setenv(journals.seal.CONFIG_ENV, str(tmp_path / "config"))
    folder = outputs_copy(words_proof, tmp_path)
    blocked = journal_file(folder).parent
    blocked.parent.mkdir(parents=True)
    blocked.write_text("a file where the journals' folder would be")
    code, out, err = verify_certificate(folder, capsys)
    assert code == 0 and "ok: certificate verified" in out and "Traceback" not in err
    assert status(folder).verified and blocked.is_file()


def test_work_names_do_not_collide_where_a_plain_concatenation_would():
    """Class members are raw bytes, which may hold any byte: each part is named with its kind and length."""
    assert journals.work_digest(b"x\0b", b"y") != journals.work_digest(b"x", b"\0by")
    assert journals.work_digest("3", 3) != journals.work_digest(3, "3")
    assert journals.work_digest(b"ab") != journals.work_digest(b"a", b"b")
    assert journals.work_digest("class", b"\1\0\0\0", 3) == journals.work_digest("class", b"\1\0\0\0", 3)
