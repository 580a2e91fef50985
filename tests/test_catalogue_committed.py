"""stage=catalogue lists the committed archives (catalogue/*.tar.gz, stage.committed) beside the proofs under the
outputs, one row per game, mode and guess limit, each row saying where its certificates come from and whether
they agree; an archive reads "verified" only by this machine's sealed record of a check of its very bytes
(`verify-certificate <archive>` writes it under the archive's sha256, beside the checker key), and a damaged
archive is listed unreadable while the page is still written.  Each test has its own checker key folder."""

import hashlib
import json
import shutil
from pathlib import Path

import pytest

from pipeline.artifacts.catalogue import committed_bundles, gather
from pipeline.artifacts.tree_explorer import CHILDREN, SIZE, TOTAL, explorer_data
from pipeline.config.settings import PROJECT_ROOT
from pipeline.proofs.certificates import record, seal
from pipeline.proofs.files import archive
from pipeline.runtime.store import ArtifactStore
from pipeline.search.tree import from_json
from tests.helpers.chromium import DevTools, needs_chromium
from tests.helpers.proof_folders import committed_proofs, verify_certificate
from tests.test_bad_input import assert_one_error, fresh_console, run_main  # noqa: F401 (fresh_console: autouse)

COMMITTED = PROJECT_ROOT / "catalogue"
NERDLE, FEASIBLE, INFEASIBLE = "mini_nerdle-normal-g6.tar.gz", "mastermind-normal-unlimited.tar.gz", \
    "mastermind-normal-g4.tar.gz"  # the infeasible limit checks in seconds


@pytest.fixture(autouse=True)
def own_key_folder(tmp_path, monkeypatch) -> Path:
    """A checker key folder of the test's own: no record another test wrote counts here."""
    folder = tmp_path / "config"
    monkeypatch.setenv(seal.CONFIG_ENV, str(folder))
    return folder


def sha256_of(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def committed_copy(tmp_path: Path, *names: str) -> Path:
    """A folder of copies of the committed archives `names` (a test's own catalogue/ to add to or damage)."""
    folder = tmp_path / "committed"
    folder.mkdir()
    for name in names:
        shutil.copy(COMMITTED / name, folder / name)
    return folder


def archive_files(path: Path, *names: str) -> dict:
    """Files of an archive, unpacked by the checker's reader: name -> parsed JSON."""
    with archive.unpacked(path) as top:
        return {name: json.loads((top / name).read_text()) for name in names}


def row_of(index: dict) -> tuple:
    game = index["game"]
    return game["name"], "hard" if game["hard_mode"] else "normal", game["max_guesses"]


def catalogue_of(artifact) -> dict:
    return json.loads(artifact.file("catalogue.json").read_text())


def gathered(outputs: Path, folder: Path) -> dict:
    """What the catalogue says of the outputs and the archives of `folder` now, by game (one row per game here)."""
    store = ArtifactStore(outputs)
    with committed_bundles(store, folder, "committed") as bundles:
        return {row["game"]: row for row in gather(store, bundles)["rows"]}


# ---- the whole committed catalogue beside one proof of the outputs -------------------------------------------------


@pytest.mark.slow
def test_the_committed_catalogue_and_an_output_proof_make_one_page(outputs, run_pipeline):
    archives = sorted(COMMITTED.glob("*.tar.gz"))
    before = {p.name: p.stat().st_mtime_ns for p in COMMITTED.iterdir()}
    indexes = {p.name: archive_files(p, archive.INDEX, "certificate.json") for p in archives}
    [proof] = committed_proofs(outputs, NERDLE).values()  # the same proof, as a folder of the outputs
    artifact = run_pipeline("stage=catalogue")  # stage.committed: the checkout's catalogue/ by default
    body = catalogue_of(artifact)

    assert body["counts"] == {"results": len(archives), "verified": 0, "certificates": len(archives) + 1,
                              "committed": len(archives), "unreadable": 0}
    rows = {(r["game"], r["mode"], r["guess_limit"]): r for r in body["rows"]}
    assert set(rows) == {row_of(i[archive.INDEX]) for i in indexes.values()}
    both = rows[("mini_nerdle", "normal", 6)]
    assert (both["source"], both["agree"], both["claims"]) == ("both", True, {"committed": ["544"],
                                                                              "outputs": ["544"]})
    assert both["shown"]["folder"] == f"prove/{proof.key}"  # a tie: the outputs' folder, whose files link
    assert [(e["source"], e["folder"]) for e in both["others"]] == [("committed", f"catalogue/{NERDLE}")]
    for name, files in indexes.items():
        entry = next(e for r in body["rows"] for e in [r["shown"], *r["others"]] if e["archive"] == name)
        cert = files["certificate.json"]
        assert entry["archive_sha256"] == sha256_of(COMMITTED / name)
        assert entry["optimum"] == (cert["ub"] if cert.get("kind") != "infeasible" else None)
        assert not entry["verified"] and entry["verification"] == {"state": "unverified",
                                                                   "why": "no verification record"}
        assert entry["check_command"] == f"python -m pipeline verify-certificate catalogue/{name}"
        assert entry["certificate_path"] is entry["tree_svg_path"] is entry["bundle_path"] is None
    assert {r["source"] for key, r in rows.items() if key != ("mini_nerdle", "normal", 6)} == {"committed"}

    text, page = artifact.file("catalogue.md").read_text(), artifact.file("index.html").read_text()
    assert f"from {len(archives) + 1} certificates ({len(archives)} in committed archives)" in text
    assert ("not verified here: no verification record; check it: python -m pipeline verify-certificate "
            f"catalogue/{FEASIBLE}") in page
    assert "both; they agree on the optimum (committed archive: 544; this outputs folder: 544)" in text
    mastermind = rows[("mastermind", "normal", None)]["shown"]  # a committed row's explorer, from the archive
    with archive.unpacked(COMMITTED / FEASIBLE) as top:
        tree = from_json(json.loads((top / "tree.json").read_text())["tree"])
    explorer = artifact.file(mastermind["explorer_path"]).read_text()
    assert json.dumps(explorer_data(tree, "mastermind"), separators=(",", ":")) in explorer
    assert f"certificate: proof catalogue/{FEASIBLE}, sha256 {mastermind['certificate_sha256']}" in explorer
    assert artifact.manifest["summary"]["explorers"] == sum(r["shown"]["explorer_path"] is not None
                                                            for r in body["rows"]) == len(archives) - 3
    assert not [p for p in outputs.iterdir() if p.name.startswith(".catalogue-bundles-")]  # unpacked, removed
    assert {p.name: p.stat().st_mtime_ns for p in COMMITTED.iterdir()} == before  # nothing written there
    assert run_pipeline("stage=catalogue").path == artifact.path  # nothing changed: up to date


# ---- verified only by this machine's sealed record of those very bytes ----------------------------------------------


def rewritten(path: Path, **changes) -> None:
    """The record at `path` with fields changed, its seal kept as it was (an edit)."""
    path.write_text(json.dumps({**json.loads(path.read_text()), **changes}))


def test_a_committed_archive_is_verified_only_by_a_sealed_record_of_its_bytes(outputs, tmp_path, capsys):
    folder = committed_copy(tmp_path, INFEASIBLE, NERDLE)
    assert gathered(outputs, folder)["mastermind"]["shown"]["verification"]["why"] == "no verification record"
    code, out, err = verify_certificate(folder / INFEASIBLE, capsys)  # the check itself, in full
    assert code == 0, err
    path = record.archive_record_path(sha256_of(folder / INFEASIBLE))
    assert f"recorded: {path} (a complete check)" in out
    entry = gathered(outputs, folder)["mastermind"]["shown"]
    genuine = json.loads(path.read_text())
    assert entry["verified"] and entry["verification"] == {
        "state": "verified", "checker_version": record.CHECKER_VERSION, "checker_code": record.checker_code(),
        "checked_at": genuine["checked_at"], "checked_as": "mastermind (4 pegs, 6 colours)"}
    assert not gathered(outputs, folder)["mini_nerdle"]["shown"]["verified"]  # a record is of one archive only

    def why() -> str:
        shown = gathered(outputs, folder)["mastermind"]["shown"]
        assert not shown["verified"]
        return shown["verification"].get("why") or shown["verification"]["state"]

    rewritten(path, checked_at="2000-01-01T00:00:00Z")  # edited after it was sealed
    assert why() == record.NOT_SEALED_HERE
    unsealed = {k: v for k, v in genuine.items() if k != seal.SEAL_FIELD}
    path.write_text(json.dumps(unsealed))  # written by hand: every field right, no seal
    assert why() == record.NOT_SEALED_HERE
    path.write_text(json.dumps({**unsealed, seal.SEAL_FIELD: seal.seal(b"k" * seal.KEY_BYTES, unsealed)}))
    assert why() == record.NOT_SEALED_HERE  # sealed with another machine's key
    here = seal.this_machine_key(create=False)
    path.write_text(json.dumps({**unsealed, "checker_code": "0" * 64,
                                seal.SEAL_FIELD: seal.seal(here, {**unsealed, "checker_code": "0" * 64})}))
    assert why() == f"checked by other checker code (version {record.CHECKER_VERSION}, code 000000000000)"
    path.write_text(json.dumps(genuine))
    other = record.archive_record_path(sha256_of(folder / NERDLE))
    other.write_text(json.dumps(genuine))  # a genuine record, under another archive's name
    nerdle = gathered(outputs, folder)["mini_nerdle"]["shown"]
    assert nerdle["verification"]["why"] == (f"its verification record is of other bytes (archive sha256 "
                                             f"{genuine['archive_sha256'][:12]})") and not nerdle["verified"]
    path.write_text(json.dumps({**unsealed, "complete": False, seal.SEAL_FIELD: seal.seal(
        here, {**unsealed, "complete": False})}))  # a sample check
    assert why() == record.PARTIAL
    with (folder / INFEASIBLE).open("ab") as extended:
        extended.write(b"\0" * 512)  # other bytes (still a readable archive): no record of them
    path.write_text(json.dumps(genuine))
    assert why() == "no verification record"


def test_the_archive_digest_is_of_every_byte_read(tmp_path):
    """Bytes after the tar's end are hashed too (the reader reads the file to its end, past what gzip buffers):
    the digest the record is kept under is the file's sha256, never that of a prefix."""
    path = tmp_path / INFEASIBLE
    path.write_bytes((COMMITTED / INFEASIBLE).read_bytes() + b"tail" * 2**18)
    with archive.unpacked_hashed(path) as found:
        assert found.sha256 == sha256_of(path) != sha256_of(COMMITTED / INFEASIBLE)
        assert (found.top / "certificate.json").is_file()


# ---- damaged archives, the key, a bad setting -------------------------------------------------------------------


def test_a_damaged_archive_is_listed_unreadable_and_the_page_is_still_written(outputs, tmp_path, capsys):
    folder = committed_copy(tmp_path, NERDLE, INFEASIBLE)
    data = (folder / INFEASIBLE).read_bytes()
    (folder / INFEASIBLE).write_bytes(data[: len(data) // 2])  # truncated
    (folder / "notes.tar.gz").write_text("not an archive\n")
    (folder / "linked.tar.gz").symlink_to(COMMITTED / FEASIBLE)
    code, out, err = run_main(["stage=catalogue", f"stage.committed={folder}", f"paths.outputs={outputs}",
                               "progress=false"], capsys)
    assert code == 0, err
    headline, written = out.strip().splitlines()
    assert headline == "catalogue: 1 result (0 verified) from 1 certificate (1 in committed archives), 3 unreadable"
    body = json.loads((Path(written) / "catalogue.json").read_text())
    assert [(r["game"], r["source"]) for r in body["rows"]] == [("mini_nerdle", "committed")]
    problems = {Path(u["folder"]).name: (u["source"], u["problem"], u["archive_sha256"]) for u in body["unreadable"]}
    assert problems["linked.tar.gz"] == ("committed", f"a symbolic link to {COMMITTED / FEASIBLE}: not followed",
                                         None)
    assert problems["notes.tar.gz"] == ("committed", "the archive cannot be read: not a .tar.gz archive (no gzip "
                                        "header)", sha256_of(folder / "notes.tar.gz"))
    source, problem, digest = problems[INFEASIBLE]
    assert problem.startswith("the archive cannot be read: not a readable .tar.gz archive (") and \
        digest == sha256_of(folder / INFEASIBLE)
    page = (Path(written) / "index.html").read_text()
    assert f"<code>{folder / INFEASIBLE}</code>: the archive cannot be read" in page
    assert (Path(written) / body["rows"][0]["shown"]["explorer_path"]).is_file()
    assert not [p for p in outputs.iterdir() if p.name.startswith(".catalogue-bundles-")]


def test_the_key_holds_the_archives_digests_and_verification_records(outputs, tmp_path, run_pipeline, capsys):
    """A new archive, a check of one or other bytes in one makes a new catalogue; an unchanged folder finds it up
    to date (the key reads the archives without unpacking them)."""
    folder = committed_copy(tmp_path, NERDLE)
    first = run_pipeline("stage=catalogue", f"stage.committed={folder}").path
    assert run_pipeline("stage=catalogue", f"stage.committed={folder}").path == first
    shutil.copy(COMMITTED / INFEASIBLE, folder / INFEASIBLE)
    added = run_pipeline("stage=catalogue", f"stage.committed={folder}")
    assert added.path != first and not catalogue_of(added)["counts"]["verified"]
    code, _, err = verify_certificate(folder / INFEASIBLE, capsys)
    assert code == 0, err
    checked = run_pipeline("stage=catalogue", f"stage.committed={folder}")
    assert checked.path not in (first, added.path) and catalogue_of(checked)["counts"]["verified"] == 1
    with (folder / INFEASIBLE).open("ab") as extended:
        extended.write(b"\0")
    assert run_pipeline("stage=catalogue", f"stage.committed={folder}").path not in (first, added.path, checked.path)


def test_a_committed_folder_that_is_no_folder_is_one_error_line(outputs, tmp_path, capsys):
    (tmp_path / "file").write_text("x")
    for given in (tmp_path / "file", tmp_path / "missing"):
        code, _, err = run_main(["stage=catalogue", f"stage.committed={given}", f"paths.outputs={outputs}"],
                                capsys)
        assert_one_error(code, err, f"stage.committed={given} is not a folder")
        assert not (outputs / "catalogue").exists()


# ---- a committed row's explorer in the browser ------------------------------------------------------------------


@needs_chromium
def test_a_committed_rows_explorer_opens_from_its_link_in_chromium(outputs, tmp_path, run_pipeline):
    folder = committed_copy(tmp_path, NERDLE)
    artifact = run_pipeline("stage=catalogue", f"stage.committed={folder}")
    [row] = catalogue_of(artifact)["rows"]
    with archive.unpacked(folder / NERDLE) as top:
        data = explorer_data(from_json(json.loads((top / "tree.json").read_text())["tree"]), "nerdle")
    with DevTools(tmp_path / "profile") as browser:
        session = browser.open(artifact.file("index.html").as_uri())
        browser.click(session, 'tr[data-game="mini_nerdle"] a[href^="explore-"]')  # the row's one link
        browser.wait_for("Page.loadEventFired", session)
        assert browser.evaluate(session, "location.pathname").endswith("/" + row["shown"]["explorer_path"])
        opener = browser.evaluate(session, """[...document.querySelector("#tree > ul").children]
            .filter((li) => li.matches("li.class"))
            .map((li) => [li.dataset.response, Number(li.dataset.size), Number(li.dataset.total)])""")
    assert opener == [[response, child[SIZE], child[TOTAL]] for response, child in data["root"][CHILDREN]]
