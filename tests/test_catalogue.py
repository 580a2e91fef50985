"""stage=catalogue: every certificate under the outputs, one row per game, mode and guess limit, verified only by a
current verification record, with links that resolve from the catalogue's folder.  The certificates are the
session's Mini Nerdle proof and leaderboard (tests/conftest.py), copied into a test's own outputs to be checked,
edited or damaged there."""

import json
import shutil
import tarfile
from pathlib import Path
from urllib.parse import quote

import pytest

from pipeline.proofs.certificates import record
from pipeline.proofs.certificates import seal
from pipeline.runtime.store import ArtifactStore
from test_bad_input import fresh_console, run_main  # noqa: F401 (the in-process command line and its log reset)


def copied(store: ArtifactStore, outputs: Path, *stages: str) -> ArtifactStore:
    """The finished artifacts of `stages` copied into `outputs` (times kept: the store's order is theirs)."""
    for stage in stages:
        for artifact in store.finished(stage):
            shutil.copytree(artifact.path, outputs / stage / artifact.key)
    return ArtifactStore(outputs)


def certificate(artifact) -> dict:
    return json.loads(artifact.file("certificate.json").read_text())


def catalogue_of(artifact) -> dict:
    return json.loads(artifact.file("catalogue.json").read_text())


def test_the_session_catalogue_lists_the_proof_and_the_leaderboard_in_one_row(mini_nerdle_store):
    proof, board = mini_nerdle_store.finished("prove")[-1], mini_nerdle_store.finished("leaderboard")[-1]
    cert, leaders = certificate(proof), certificate(board)["leaders"]
    tree = json.loads(proof.file("tree.json").read_text())
    artifact = mini_nerdle_store.finished("catalogue")[-1]
    body = catalogue_of(artifact)
    assert body["counts"] == {"results": 1, "verified": 0, "certificates": 2, "committed": 0, "unreadable": 0}
    [row] = body["rows"]
    assert (row["game"], row["mode"], row["guess_limit"], row["secrets"]) == \
        ("mini_nerdle", "normal", cert["max_guesses"], cert["n_secrets"])
    assert row["shown_as"] == "the newest of 2 certificates, none verified"
    shown, [other] = row["shown"], row["others"]
    assert (shown["kind"], other["kind"]) == ("leaderboard", "proof")  # the leaderboard was written last
    assert cert["proven"] and other["optimum"] == cert["ub"] == shown["optimum"] == min(e["value"] for e in leaders)
    assert other["optimal_openers"] == cert["optimal_openers"]
    assert other["average"] == cert["ub"] / cert["n_secrets"]
    assert other["worst_case"] == tree["max_guesses"] == max(map(int, tree["distribution"]))
    assert other["funnel"] == proof.manifest["summary"]["funnel"]
    assert other["certificate_sha256"] == record.sha256_of(proof.file("certificate.json"))
    for entry in (shown, other):
        assert not entry["verified"] and entry["verification"] == {"state": "unverified",
                                                                   "why": "no verification record"}
        assert entry["bundle_path"] is None
        for name in ("certificate_path", "tree_svg_path"):
            assert (artifact.path / entry[name]).resolve().is_file(), name
    assert (artifact.path / other["certificate_path"]).resolve() == proof.file("certificate.json")
    tree_link = quote(shown["tree_svg_path"])  # the leader's tree-4%2A7%3D28.svg: its % written %25 in a URL
    assert "%25" in tree_link and f'href="{tree_link}"' in artifact.file("index.html").read_text()
    text = artifact.file("catalogue.md").read_text()
    assert f"| {cert['ub']} |" in text and "not verified here: no verification record" in text
    assert f"{cert['ub'] / cert['n_secrets']:.6f} ({cert['ub']}/{cert['n_secrets']})" in text


@pytest.mark.slow
def test_a_verified_proof_is_shown_before_a_newer_unverified_one(mini_nerdle_store, outputs, run_pipeline):
    """Only a complete record of this checker's code verifies; a sample, or a record of other checker code, does
    not; each check (and a bundle beside the folder) re-keys the catalogue, an unchanged store reuses it."""
    store = copied(mini_nerdle_store, outputs, "prove", "leaderboard")
    proof = store.finished("prove")[-1]
    # the record a complete verify-certificate writes (the check itself: tests/test_proofs_checker.py)
    record.write_record(proof.path, certificate(proof), complete=True, summary={})
    checked_at = json.loads(proof.file(record.RECORD).read_text())["checked_at"]
    first = run_pipeline("stage=catalogue", "stage.committed=null")
    [row] = catalogue_of(first)["rows"]
    assert row["shown_as"] == "the newest verified of 2 certificates"
    assert row["shown"]["stage"] == "prove" and row["shown"]["verified"]
    assert row["shown"]["verification"] == {"state": "verified", "checker_version": record.CHECKER_VERSION,
                                            "checker_code": record.checker_code(), "checked_at": checked_at,
                                            "checked_as": None}
    assert [e["stage"] for e in row["others"]] == ["leaderboard"]
    assert f"verified here by checker version {record.CHECKER_VERSION} (code {record.checker_code()[:12]}) at " \
           f"{checked_at}" in first.file("catalogue.md").read_text()
    assert run_pipeline("stage=catalogue", "stage.committed=null").path == first.path  # nothing changed: up to date

    with tarfile.open(proof.path.with_name(proof.key + ".tar.gz"), "w:gz") as bundle:
        bundle.add(proof.path, arcname=proof.key)
    bundled = run_pipeline("stage=catalogue", "stage.committed=null")
    link = catalogue_of(bundled)["rows"][0]["shown"]["bundle_path"]
    assert bundled.path != first.path and link == f"../../prove/{proof.key}.tar.gz"
    assert (bundled.path / link).resolve().is_file()

    body = {**json.loads(proof.file(record.RECORD).read_text()), "checker_code": "0" * 64}  # this machine's key,
    body[seal.SEAL_FIELD] = seal.seal(seal.this_machine_key(create=False), body)  # other (older) checker code
    proof.file(record.RECORD).write_text(json.dumps(body))
    other_code = catalogue_of(run_pipeline("stage=catalogue", "stage.committed=null"))
    assert other_code["counts"]["verified"] == 0
    [row] = other_code["rows"]
    assert row["shown_as"] == "the newest of 2 certificates, none verified" and row["shown"]["stage"] == "leaderboard"
    assert row["others"][0]["verification"]["why"] == f"checked by other checker code (version {record.CHECKER_VERSION}, code 000000000000)"

    record.write_record(proof.path, certificate(proof), complete=False, summary={})  # a sample check
    sampled = catalogue_of(run_pipeline("stage=catalogue", "stage.committed=null"))["rows"][0]["others"][0]
    assert sampled["verification"]["state"] == record.PARTIAL and not sampled["verified"]


def edited_copy(proof, name: str, **changes) -> Path:
    """A copy of the proof folder beside it, its certificate's fields changed (so no longer verified)."""
    folder = proof.path.with_name(name)
    shutil.copytree(proof.path, folder)
    cert = certificate(proof) | changes
    (folder / "certificate.json").write_text(json.dumps(cert, indent=1) + "\n")
    return folder


def test_rows_by_mode_and_guess_limit_and_an_unreadable_certificate(mini_nerdle_store, outputs, capsys):
    store = copied(mini_nerdle_store, outputs, "prove")
    proof = store.finished("prove")[-1]
    edited_copy(proof, "hard", hard_mode=True)
    edited_copy(proof, "unlimited", max_guesses=None)
    (edited_copy(proof, "damaged") / "certificate.json").write_text('{"ub": 5')
    edited_copy(proof, "untyped", ub="544")
    (edited_copy(proof, "treeless") / "tree.json").unlink()
    code, out, err = run_main(["stage=catalogue", "stage.committed=null", f"paths.outputs={outputs}", "progress=false"],
                              capsys)
    assert code == 0, err
    headline, folder = out.strip().splitlines()
    assert headline == "catalogue: 3 results (0 verified) from 3 certificates, 3 unreadable"
    body = json.loads((Path(folder) / "catalogue.json").read_text())
    limit = certificate(proof)["max_guesses"]
    assert [(r["mode"], r["guess_limit"], r["shown"]["folder"]) for r in body["rows"]] == [
        ("normal", limit, f"prove/{proof.key}"), ("normal", None, "prove/unlimited"), ("hard", limit, "prove/hard")]
    assert all(r["shown"]["optimum"] == certificate(proof)["ub"] for r in body["rows"])
    assert body["unreadable"] == [
        {"source": "outputs", "folder": "prove/damaged", "problem": "certificate.json is damaged (JSONDecodeError)"},
        {"source": "outputs", "folder": "prove/treeless", "problem": "tree.json is missing"},
        {"source": "outputs", "folder": "prove/untyped", "problem": "certificate.json: ub is missing or not a whole "
                                                                   "number"}]
    page = (Path(folder) / "index.html").read_text()
    assert "prove/damaged" in page and "<script" not in page


def test_empty_outputs_make_an_empty_catalogue(outputs, capsys):
    code, out, err = run_main(["stage=catalogue", "stage.committed=null", f"paths.outputs={outputs}", "progress=false"],
                              capsys)
    assert code == 0, err
    headline, folder = out.strip().splitlines()
    assert headline == f"catalogue: no certificates under {outputs.resolve()}"
    body = json.loads((Path(folder) / "catalogue.json").read_text())
    assert body["rows"] == body["unreadable"] == [] and body["counts"]["certificates"] == 0


def test_a_bad_setting_is_one_error_line(outputs, capsys):
    from test_bad_input import assert_one_error

    code, _, err = run_main(["stage=catalogue", "stage.committed=null", "stage.openers_shown=0",
                             f"paths.outputs={outputs}"], capsys)
    assert_one_error(code, err, "stage.openers_shown must be at least 1, got 0")
    assert not (outputs / "catalogue").exists()


@pytest.mark.parametrize("many, shown", [(3, "a, b, c"), (7, "a, b, c, d, e and 2 more (in catalogue.json)")])
def test_many_optimal_openers_are_named_in_part(many, shown):
    from pipeline.artifacts.catalogue_page import openers_text

    assert openers_text(list("abcdefg")[:many], 5) == shown
