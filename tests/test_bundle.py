"""Self-contained proofs: a proof folder stores its game (game.json.gz), `verify-certificate <folder>` needs no
override and no list file, and `bundle` packs the folder into one archive `verify-certificate <archive>` checks
after unpacking it warily (pipeline/proofs/files/archive.py).  The proofs are of tiny games (a 29-word list, a
3-peg Mastermind): seconds each."""

import gzip
import hashlib
import io
import json
import shutil
import tarfile
from pathlib import Path

import pytest

from pipeline.config.settings import DATA_DIR
from pipeline.proofs.files import archive
from pipeline.proofs.certificates.record import (RECORD, UNVERIFIED, VERIFIED, archive_record_path, archive_status,
                                                 status)
from tests.test_bad_input import assert_one_error, fresh_console, run_main  # noqa: F401 (fresh_console: autouse)

WORDS = (DATA_DIR / "wordle" / "original_answers.txt").read_text().split()[::80]  # 29 answers
EXCLUDED = WORDS[:3]


def proved(folder: Path, overrides: list[str]) -> Path:
    """The prove artifact folder of a run with `overrides`, its outputs under `folder`."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    cfg = compose_config([f"paths.outputs={folder / 'outputs'}", "progress=false", "ray.executor=local",
                          "stage=prove", *overrides])
    return run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs)).path


@pytest.fixture(scope="module")
def words_proof(tmp_path_factory) -> Path:
    """A game=words proof on a custom list with a game.exclude file; the list files are deleted afterwards, so
    only what the folder stores is left (a pristine copy: each test copies it)."""
    lists = tmp_path_factory.mktemp("lists")
    (lists / "secrets.txt").write_text("\n".join(WORDS) + "\n")
    (lists / "exclude.txt").write_text("\n".join(w.upper() for w in EXCLUDED) + "\n")
    folder = proved(tmp_path_factory.mktemp("words"), ["game=words", f"game.secrets.path={lists / 'secrets.txt'}",
                                                       f"game.exclude={lists / 'exclude.txt'}"])
    stored = json.loads(gzip.decompress((folder / "game.json.gz").read_bytes()))
    assert stored["files"]["exclude"]["sha256"] == hashlib.sha256((lists / "exclude.txt").read_bytes()).hexdigest()
    shutil.rmtree(lists)
    return folder


@pytest.fixture
def proof(words_proof, tmp_path) -> Path:
    """A copy of the words proof folder, for a test to change."""
    return Path(shutil.copytree(words_proof, tmp_path / words_proof.name))


def stored(folder: Path) -> dict:
    return json.loads(gzip.decompress((folder / "game.json.gz").read_bytes()))


def store(folder: Path, body: dict) -> None:
    (folder / "game.json.gz").write_bytes(gzip.compress(json.dumps(body).encode()))


def verified(argv: list[str], capsys) -> str:
    code, out, err = run_main(argv, capsys)
    assert code == 0, err
    assert out.startswith("ok: certificate verified"), out
    return out


# ---- the folder ---------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_words_proof_with_an_exclude_file_verifies_from_its_folder_alone(proof, capsys):
    """The lists are written out (excluded words removed from the secrets, kept as guesses) with the checker's
    digests; the check reads them, not the deleted files, and records game.json.gz among the files it read."""
    body = stored(proof)
    lists = body["lists"]
    assert lists["excluded"]["words"] == sorted(EXCLUDED)
    assert lists["secrets"]["words"] == sorted(set(WORDS) - set(EXCLUDED)) and lists["secrets"]["count"] == 26
    assert lists["guesses"]["words"] == sorted(WORDS)
    assert body["versions"]["stage"] == "prove" and body["versions"]["stage_version"] >= 3
    cert = json.loads((proof / "certificate.json").read_text())
    assert cert["secrets_sha256"] == lists["secrets"]["sorted_sha256"] and cert["n_secrets"] == 26
    out = verified(["verify-certificate", str(proof)], capsys)
    assert "26 secrets" in out and "3 excluded, stored in" in out and "no list file read" in out
    assert "game.json.gz" in json.loads((proof / RECORD).read_text())["files"]
    assert status(proof).state == VERIFIED


def test_overrides_that_agree_are_accepted_and_those_that_disagree_are_one_error_line(proof, tmp_path, capsys):
    verified(["verify-certificate", str(proof), "game.hard_mode=false", "game.max_guesses=6"], capsys)
    (tmp_path / "other.txt").write_text("\n".join(WORDS[:-1]) + "\n")
    code, out, err = run_main(["verify-certificate", str(proof), f"game.secrets.path={tmp_path / 'other.txt'}"],
                              capsys)
    assert_one_error(code, err, "disagree with the game")
    assert "guesses, secrets differ" in err and out == ""
    code, _, err = run_main(["verify-certificate", str(proof), "game.max_guesses=5"], capsys)
    assert_one_error(code, err, "(max_guesses differ)")


def test_a_stored_list_edited_is_refused_and_never_verified(proof, capsys):
    """A word changed under its recorded digest: refused; the digest changed too: the certificate is for other
    lists; either way the folder is not verified afterwards."""
    verified(["verify-certificate", str(proof)], capsys)
    body = stored(proof)
    secrets = body["lists"]["secrets"]
    secrets["words"][0] = secrets["words"][0][:-1] + "a"  # bongo -> bonga, still sorted
    store(proof, body)
    code, out, err = run_main(["verify-certificate", str(proof)], capsys)
    assert_one_error(code, err, "certificate rejected: game.json.gz: the secrets list's digest is")
    assert status(proof).state == UNVERIFIED and "verified" not in out
    secrets["words"] = secrets["words"][1:]  # a consistent list of fewer secrets: not the certificate's
    secrets["count"] = len(secrets["words"])
    secrets["sorted_sha256"] = hashlib.sha256(("\n".join(secrets["words"]) + "\n").encode()).hexdigest()
    store(proof, body)
    code, out, err = run_main(["verify-certificate", str(proof)], capsys)
    assert_one_error(code, err, "certificate rejected: it is for other word lists than game words")
    assert status(proof).state == UNVERIFIED and out == ""


@pytest.mark.slow
def test_a_mastermind_proof_verifies_from_its_folder_with_no_override(tmp_path, capsys):
    folder = proved(tmp_path, ["game=mastermind", "game.pegs=2", "game.colours=4"])
    assert stored(folder)["lists"]["secrets"]["count"] == 16 and stored(folder)["source"] == "mastermind"
    out = verified(["verify-certificate", str(folder)], capsys)
    assert "16 secrets" in out and "stored in" in out


# ---- the bundle ---------------------------------------------------------------------------------------------


def bundled(proof: Path, capsys) -> Path:
    code, out, err = run_main(["bundle", str(proof)], capsys)
    assert code == 0, err
    target = proof.with_name(proof.name + ".tar.gz")  # the default: a sibling of the folder
    assert f"wrote {target}" in out and target.is_file()
    return target


def members(path: Path) -> dict[str, bytes]:
    with tarfile.open(path, "r:gz") as tar:
        return {m.name: tar.extractfile(m).read() for m in tar if m.isreg()}


def repacked(path: Path, files: dict[str, bytes], reindex: bool = True) -> Path:
    """`files` (member name -> bytes) as a .tar.gz at `path`, INDEX.json rewritten to match them when `reindex`."""
    if reindex:
        index_name = next(n for n in files if n.endswith("/INDEX.json"))
        index = json.loads(files[index_name])
        index["files"] = {n.split("/", 1)[1]: {"bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()}
                          for n, d in files.items() if not n.endswith(("/INDEX.json", "/README.txt"))}
        files = {**files, index_name: json.dumps(index).encode()}
    with tarfile.open(path, "w:gz") as tar:
        for name, data in files.items():
            info = tarfile.TarInfo(name)
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


def test_a_bundle_holds_the_proof_and_verifies_as_it_is(proof, capsys):
    target = bundled(proof, capsys)
    files = members(target)
    top = f"prove-{proof.name}"
    assert set(files) == {f"{top}/{n}" for n in ("README.txt", "INDEX.json", "certificate.json", "tree.json",
                                                  "tree.svg", "game.json.gz", "manifest.json", "stage.log")}
    index = json.loads(files[f"{top}/INDEX.json"])
    assert index["files"]["certificate.json"]["sha256"] == hashlib.sha256(files[f"{top}/certificate.json"]).hexdigest()
    assert index["game"]["lists"]["excluded"]["count"] == 3
    assert "verify-certificate" in files[f"{top}/README.txt"].decode()
    first = target.read_bytes()
    assert bundled(proof, capsys).read_bytes() == first  # no time or owner inside: the same folder, the same bytes
    out = verified(["verify-certificate", str(target)], capsys)
    sha256 = hashlib.sha256(target.read_bytes()).hexdigest()  # the record is kept under the archive's bytes
    assert f"recorded: {archive_record_path(sha256)} (a complete check)" in out and not (proof / RECORD).exists()
    assert archive_status(target, sha256).verified


@pytest.mark.parametrize("tamper, reindex, message", [
    ("certificate", True, "certificate rejected: the UB tree replays to"),
    ("certificate", False, "certificate.json differs from its size and sha256 in INDEX.json"),
    ("list", True, "certificate rejected: game.json.gz: the secrets list's digest is"),
    ("tree", True, "tree.json digest differs"),
], ids=["certificate", "certificate-unindexed", "list", "tree"])
def test_a_tampered_bundle_is_refused(proof, tmp_path, capsys, tamper, reindex, message):
    files = members(bundled(proof, capsys))
    top = f"prove-{proof.name}"
    if tamper == "certificate":
        cert = json.loads(files[f"{top}/certificate.json"])
        cert["ub"] -= 1
        files[f"{top}/certificate.json"] = json.dumps(cert).encode()
    elif tamper == "list":
        body = json.loads(gzip.decompress(files[f"{top}/game.json.gz"]))
        body["lists"]["secrets"]["words"] = body["lists"]["secrets"]["words"][1:]
        body["lists"]["secrets"]["count"] -= 1
        files[f"{top}/game.json.gz"] = gzip.compress(json.dumps(body).encode())
    else:
        files[f"{top}/tree.json"] = files[f"{top}/tree.json"].replace(b'"total"', b'"total" ', 1)
    code, out, err = run_main(["verify-certificate", str(repacked(tmp_path / "t.tar.gz", files, reindex))], capsys)
    assert_one_error(code, err, message)
    assert "verified" not in out


def tar_of(path: Path, entries) -> Path:
    """A .tar.gz of hand-made members: (TarInfo, bytes or None)."""
    with tarfile.open(path, "w:gz") as tar:
        for info, data in entries:
            tar.addfile(info, io.BytesIO(data) if data is not None else None)
    return path


def regular(name: str, data: bytes = b"{}") -> tuple:
    info = tarfile.TarInfo(name)
    info.size = len(data)
    return info, data


def link(name: str, target: str, kind=tarfile.SYMTYPE) -> tuple:
    info = tarfile.TarInfo(name)
    info.type, info.linkname = kind, target
    return info, None


@pytest.mark.parametrize("entries, message", [
    ([regular("p/../../escaped.txt")], "points outside the archive's folder"),
    ([regular("/tmp/absolute.txt")], "points outside the archive's folder"),
    ([regular("p/certificate.json"), regular("q/tree.json")], "is not a file of the archive's one top folder"),
    ([regular("p/deeper/certificate.json")], "is not a file of the archive's one top folder"),
    ([link("p/certificate.json", "/etc/passwd")], "is a symbolic link (to '/etc/passwd')"),
    ([link("p/certificate.json", "p/x", tarfile.LNKTYPE)], "is a hard link"),
    ([regular("p/huge.bin", b"x" * 5000)], "holds 5000 bytes, more than 4096"),
    ([regular("p/a"), regular("p/a")], "is given twice"),
    ([regular("p/certificate.json")], "no INDEX.json"),
], ids=["traversal", "absolute", "two-tops", "nested", "symlink", "hardlink", "huge", "twice", "no-index"])
def test_a_bad_archive_is_one_error_line(tmp_path, capsys, monkeypatch, entries, message):
    monkeypatch.setattr(archive, "MAX_MEMBER_BYTES", 4096)
    code, out, err = run_main(["verify-certificate", str(tar_of(tmp_path / "bad.tar.gz", entries))], capsys)
    assert_one_error(code, err, message)
    assert out == "" and not (tmp_path / "escaped.txt").exists() and not Path("/tmp/absolute.txt").exists()


def test_an_archive_that_unpacks_too_far_is_refused(tmp_path, capsys, monkeypatch):
    """The unpacked bytes are counted as they come: zeros that compress to almost nothing stop at the limit."""
    monkeypatch.setattr(archive, "MAX_TOTAL_BYTES", 10_000)
    monkeypatch.setattr(archive, "HEADROOM", 0)
    path = tar_of(tmp_path / "bomb.tar.gz", [regular(f"p/zeros{i}", bytes(8000)) for i in range(4)])
    code, _, err = run_main(["verify-certificate", str(path)], capsys)
    assert_one_error(code, err, "more than")


@pytest.mark.parametrize("content", [b"just some text\n", b"\x1f\x8b\x08\x00broken", b""], ids=["text", "gzip", "empty"])
def test_a_file_that_is_no_archive_is_one_error_line(tmp_path, capsys, content):
    (tmp_path / "not.tar.gz").write_bytes(content)
    code, out, err = run_main(["verify-certificate", str(tmp_path / "not.tar.gz")], capsys)
    assert_one_error(code, err, "not")
    assert "archive" in err and out == ""


def test_bundle_refuses_what_is_not_a_proof_folder(words_proof, proof, tmp_path, capsys):
    code, _, err = run_main(["bundle", str(tmp_path / "nowhere")], capsys)
    assert_one_error(code, err, "is not a folder")
    feedback = next((words_proof.parent.parent / "feedback").iterdir())
    code, _, err = run_main(["bundle", str(feedback)], capsys)
    assert_one_error(code, err, "is a feedback artifact; bundle packs a prove, leaderboard or blindfold folder")
    code, _, err = run_main(["bundle", str(proof), "--out", str(tmp_path / "no" / "such.tar.gz")], capsys)
    assert_one_error(code, err, "no such folder")
    (proof / "tree.svg").unlink()
    (proof / "tree.svg").symlink_to(proof / "tree.json")
    code, _, err = run_main(["bundle", str(proof)], capsys)
    assert_one_error(code, err, "tree.svg is a symbolic link")
    (proof / "tree.svg").unlink()
    (proof / "game.json.gz").unlink()
    code, _, err = run_main(["bundle", str(proof)], capsys)
    assert_one_error(code, err, "holds no game.json.gz")
    assert not list(tmp_path.glob("*.tar.gz")) and not list(tmp_path.glob(".*"))


def test_a_blindfold_folder_is_named_for_what_it_is(tmp_path, capsys):
    """A blindfold folder stores its game too, but holds a solution, not a certificate: one line says so."""
    (tmp_path / "solution.json").write_text("{}\n")
    code, out, err = run_main(["verify-certificate", str(tmp_path)], capsys)
    assert_one_error(code, err, "holds a blindfold solution, not a certificate")
    assert out == ""
