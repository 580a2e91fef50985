"""What a certificate may state and what readers call proven.

- the certificate's schema is checked before anything is computed: strict JSON, exact types, ranges, no unknown
  field, and a size limit on the game its parameters imply (one `error:` line, exit 2, within seconds);
- every number a certificate states is one the checker re-derives (elimination bounds, sums, class targets);
- `verify-certificate` writes verification.json sealed with this machine's checker key (pipeline/proofs/certificates/seal.py),
  and the catalogue, the assistant, the report and reproduce's rows call a result verified (proven) only when a
  complete record with this machine's seal matches the files as they are now: a hand-written record, one sealed
  in another key folder, or one whose files changed by a byte reads "not verified here".
"""

import hashlib
import json
import shutil
import time
from pathlib import Path

import pytest

from pipeline.artifacts.catalogue_page import verified_text
from pipeline.proofs.certificates import seal
from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate
from pipeline.proofs.certificates.record import (CHECKER_VERSION, NOT_SEALED_HERE, PARTIAL, RECORD, UNVERIFIED,
                                                 VERIFIED, checker_code, record_body, status, write_record)
from pipeline.proofs.certificates.schema import MAX_CELLS
from tests.test_bad_input import assert_one_error, fresh_console, run_main  # noqa: F401 (fresh_console: autouse)

DIGEST = "0" * 64


def shaped_certificate() -> dict:
    """A certificate of the right shape for Mini Nerdle (its numbers are not a proof): schema faults are found in it
    before any list is read, so each test below changes one field."""
    return {"objective": "total", "game": "mini_nerdle", "hard_mode": False, "max_guesses": 6,
            "guesses_sha256": DIGEST, "secrets_sha256": DIGEST, "n_guesses": 206, "n_secrets": 206, "k_s": 60,
            "ub": 544, "ub_opener": "4*7=28", "ub_tree_sha256": DIGEST,
            "eliminated": [{"opener": "1+9=10", "level": 3, "rule": "normal"}],
            "survivors": [{"opener": "4*7=28", "sum": 1, "value": 207,
                           "classes": [{"response": "000000", "size": 1, "bound": 1, "method": "LB_1"}]}],
            "optimal_openers": ["4*7=28"], "proven": True}


def written(tmp_path: Path, cert: dict, raw: dict | None = None) -> Path:
    """A folder holding `cert` as certificate.json; each `raw` placeholder string is replaced by its JSON text."""
    folder = tmp_path / "proof"
    folder.mkdir(exist_ok=True)
    text = json.dumps(cert)
    for placeholder, literal in (raw or {}).items():
        text = text.replace(json.dumps(placeholder), literal)
    (folder / "certificate.json").write_text(text)
    return folder


def refused(folder: Path, capsys, message: str) -> None:
    """verify-certificate exits 2 within seconds with one error line containing `message`, and records nothing."""
    started = time.monotonic()
    code, out, err = run_main(["verify-certificate", str(folder)], capsys)
    assert time.monotonic() - started < 10
    assert_one_error(code, err, message)
    assert not (folder / RECORD).exists() and out == ""


def _set(path: str, value):
    """An edit setting the field at a dotted path (list indices as numbers) to `value`."""
    def edit(cert):
        *parents, last = [int(p) if p.isdigit() else p for p in path.split(".")]
        target = cert
        for p in parents:
            target = target[p]
        target[last] = value
    return edit


# ---- the schema, before any computation ------------------------------------------------------------------------

@pytest.mark.parametrize("path", ["ub", "k_s", "eliminated.0.level", "survivors.0.classes.0.bound"])
@pytest.mark.parametrize("literal", ["NaN", "Infinity", "-Infinity"])
def test_non_finite_numbers_are_not_json(tmp_path, capsys, path, literal):
    cert = shaped_certificate()
    _set(path, "@number@")(cert)
    refused(written(tmp_path, cert, {"@number@": literal}), capsys,
            f"not valid JSON ({literal} is not a JSON number)")


@pytest.mark.parametrize("path,value,message", [
    ("hard_mode", "false", 'hard_mode must be true or false, not str "false"'),
    ("proven", 1, "proven must be true or false, not int 1"),
    ("ub", 544.0, "ub must be a whole number, not float 544.0"),
    ("ub", True, "ub must be a whole number, not bool true"),
    ("k_s", "60", 'k_s must be a whole number, not str "60"'),
    ("eliminated.0.level", 10**9, "eliminated[0].level = 1000000000 is outside 1..64"),
    ("eliminated.0.level", 0, "eliminated[0].level = 0 is outside 1..64"),
    ("survivors.0.classes.0.bound", 10**30, "survivors[0].classes[0].bound = 1000000000000000000000000000000 is outside"),
    ("survivors.0.classes.0.size", 1.5, "survivors[0].classes[0].size must be a whole number, not float 1.5"),
    ("max_guesses", 6.0, "max_guesses must be a whole number, not float 6.0"),
    ("game", "mini_nerdle,wordle_original", "game = 'mini_nerdle,wordle_original' is not a valid value"),
    ("ub_tree_sha256", "abc", "ub_tree_sha256 = 'abc' is not a valid value"),
    ("eliminated.0", {"opener": "1+9=10", "level": 3, "rule": "normal", "note": "trust me"},
     "eliminated[0].note is not a field this checker verifies"),
    ("survivors", {"opener": "4*7=28"}, "survivors must be a list, not dict"),
    ("symmetry", {"generators": [{"symbols": [0, 1.0], "positions": [0]}], "openers": []},
     "symmetry.generators[0].symbols[1] must be a whole number, not float 1.0"),
])
def test_fields_have_exact_types_and_ranges(tmp_path, capsys, path, value, message):
    cert = shaped_certificate()
    _set(path, value)(cert)
    refused(written(tmp_path, cert), capsys, message)


def test_infinity_parsed_from_a_huge_float_is_not_a_count(tmp_path, capsys):
    cert = shaped_certificate()
    cert["k_s"] = "@k@"
    refused(written(tmp_path, cert, {"@k@": "1e400"}), capsys, "not valid JSON (1e400 overflows a float)")


def test_a_key_given_twice_is_refused(tmp_path, capsys):
    folder = written(tmp_path, shaped_certificate())
    text = (folder / "certificate.json").read_text()
    (folder / "certificate.json").write_text(text.replace('"ub": 544', '"ub": 544, "ub": 500'))
    refused(folder, capsys, "key 'ub' is given twice in one object")


def test_a_missing_field_is_named(tmp_path, capsys):
    cert = shaped_certificate()
    del cert["survivors"][0]["classes"][0]["method"]
    refused(written(tmp_path, cert), capsys, "survivors[0].classes[0].method is missing")


def mastermind(length: int, colours: int, words: int) -> dict:
    return {**shaped_certificate(), "game": "mastermind", "answer": "mastermind", "length": length,
            "n_symbols": colours, "n_guesses": words, "n_secrets": words}


def test_a_huge_generated_game_is_refused_before_it_is_generated(tmp_path, capsys):
    """9 pegs of 9 colours would be 9**9 codes to generate before any digest could be compared."""
    refused(written(tmp_path, mastermind(9, 9, 1296)), capsys,
            f"mastermind with length 9 and 9 symbols has 387420489 codes, a code matrix of {387420489 ** 2} cells, "
            f"above the checker's limit of {MAX_CELLS}")


def test_claimed_list_sizes_must_be_those_the_parameters_imply(tmp_path, capsys):
    refused(written(tmp_path, mastermind(4, 6, 1000)), capsys,
            "mastermind with length 4 and 6 symbols has 1296 codes, not n_guesses=1000, n_secrets=1000")


def test_word_lists_too_big_for_the_checker_are_refused(tmp_path, capsys):
    cert = {**shaped_certificate(), "n_guesses": 20_000, "n_secrets": 20_000}
    refused(written(tmp_path, cert), capsys, f"20000 guesses x 20000 secrets is a code matrix of 400000000 cells, "
                                             f"above the checker's limit of {MAX_CELLS}")


def test_the_library_entry_refuses_the_same_way(tmp_path):
    cert = shaped_certificate()
    cert["hard_mode"] = "false"
    with pytest.raises(CertificateError, match="hard_mode must be true or false"):
        verify_certificate(written(tmp_path, cert), None)


# ---- a real proof: every stated number re-derived ----------------------------------------------------------

@pytest.fixture(scope="module")
def mini_nerdle_proof(tmp_path_factory, ray_session):
    """The real prover's Mini Nerdle proof: (artifact folder, game, the funnel's rows)."""
    import pyarrow.parquet as pq

    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    outputs = tmp_path_factory.mktemp("outputs")
    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "stage=prove", "game=mini_nerdle"])
    game = load_game(cfg.game)
    folder = run_stage(cfg.stage, cfg, game, ArtifactStore(outputs)).path
    funnel = Path(json.loads((folder / "manifest.json").read_text())["inputs"]["lower_bound"]["path"])
    return folder, game, pq.read_table(funnel / "funnel.parquet").to_pylist()


def copied(folder: Path, tmp_path: Path, edit=None, edit_tree=None) -> Path:
    """A copy of the proof folder (as outputs/prove/<key>) with the certificate and/or tree edited; an edited tree
    keeps its pinned digest consistent, so only the edited claim is wrong."""
    out = tmp_path / "outputs" / "prove" / folder.name
    shutil.copytree(folder, out)
    cert = json.loads((out / "certificate.json").read_text())
    if edit_tree:
        tree = json.loads((out / "tree.json").read_text())
        edit_tree(tree)
        (out / "tree.json").write_text(json.dumps(tree))
        cert["ub_tree_sha256"] = hashlib.sha256((out / "tree.json").read_bytes()).hexdigest()
    if edit or edit_tree:
        (edit or (lambda c: None))(cert)
        (out / "certificate.json").write_text(json.dumps(cert, indent=1))
    return out


def test_the_prover_states_only_the_claim_it_checks(mini_nerdle_proof):
    folder, _, _ = mini_nerdle_proof
    cert = json.loads((folder / "certificate.json").read_text())
    assert [set(e) for e in cert["eliminated"]] == [{"opener", "level", "rule"}] * 205
    assert "upper_bound_given" not in cert
    assert json.loads((folder / "manifest.json").read_text())["summary"]["upper_bound_given"] == \
        {"ub": 544, "opener": "4*7=28"}


def _stated(rows, raise_by=0, opener=None):
    """An edit stating each elimination's funnel value as its bound (as older certificates do), one raised."""
    values = {r["opener"]: r["value"] for r in rows if r["eliminated"]}

    def edit(cert):
        for e in cert["eliminated"]:
            e["bound"] = values[e["opener"]] + (raise_by if e["opener"] == opener else 0)
    return edit


def test_stated_elimination_bounds_are_re_derived(mini_nerdle_proof, tmp_path):
    folder, game, rows = mini_nerdle_proof
    honest = verify_certificate(copied(folder, tmp_path / "a", _stated(rows)), game)
    assert honest["complete"] and honest["ub"] == 544
    deep = next(r for r in rows if r["eliminated"] and r["level"] == 3)
    inflated = copied(folder, tmp_path / "b", _stated(rows, 1000, deep["opener"]))
    with pytest.raises(CertificateError, match=rf"opener {deep['opener'].replace('*', '.').replace('+', '.')}: "
                                               rf"normal V_3 re-derived as \d+, below its stated bound "
                                               rf"{deep['value'] + 1000}"):
        verify_certificate(inflated, game)


def _ub_class(cert):
    return max(cert["survivors"][0]["classes"], key=lambda c: c["size"])


@pytest.mark.parametrize("edit,message", [
    (lambda c: c["survivors"][0].__setitem__("sum", c["survivors"][0]["sum"] + 1),
     r"opener 4\*7=28: sum 339 is not the sum of its class bounds, 338"),
    (lambda c: _ub_class(c).__setitem__("target", _ub_class(c)["target"] + 5),
     r"class \d+: target \d+ is not the total of that class's subtree in the tree"),
    (lambda c: c.__setitem__("upper_bound_given", {"ub": 500, "opener": "4*7=28"}),
     r"upper_bound_given .* is not an upper bound at least ub=544"),
    (lambda c: c.__setitem__("upper_bound_given", {"ub": 600, "opener": "xyz"}),
     r"upper_bound_given .* opening with an allowed guess"),
])
def test_restated_numbers_are_checked(mini_nerdle_proof, tmp_path, edit, message):
    folder, game, _ = mini_nerdle_proof
    cert = json.loads((folder / "certificate.json").read_text())
    assert cert["survivors"][0]["sum"] == 338 and "target" in _ub_class(cert)
    with pytest.raises(CertificateError, match=message):
        verify_certificate(copied(folder, tmp_path, edit), game)


def test_a_true_legacy_upper_bound_given_is_accepted(mini_nerdle_proof, tmp_path):
    folder, game, _ = mini_nerdle_proof
    older = copied(folder, tmp_path, lambda c: c.__setitem__("upper_bound_given", {"ub": 547, "opener": "3*9=27"}))
    assert verify_certificate(older, game)["complete"]


def test_a_tree_count_must_be_a_whole_number(mini_nerdle_proof, tmp_path):
    folder, game, _ = mini_nerdle_proof
    fractional = copied(folder, tmp_path, edit_tree=lambda t: t["tree"].__setitem__("candidates", 206.0))
    with pytest.raises(CertificateError, match="claims 206.0 candidates"):
        verify_certificate(fractional, game)


# ---- the verification record and its readers -------------------------------------------------------------------

@pytest.fixture
def unpublished(monkeypatch):
    """Mini Nerdle without its published optimum, so the assistant's start value comes from the certificate."""
    from pipeline.report import published

    monkeypatch.delitem(published.OPTIMUM, "mini_nerdle")


def readers(folder: Path, game) -> dict:
    """What each reader says of the proof in `folder` (an outputs/prove/<key> folder)."""
    from pipeline.assistant.values import KnownValues
    from pipeline.report.checks import proof_of, proven_total
    from pipeline.runtime.store import Artifact
    from pipeline.stages.report import prove_section

    best = KnownValues(game, folder.parent.parent).best()
    artifacts = {"prove": Artifact("prove", folder.name, folder)}
    return {"assistant": (best.kind, best.total, best.source),
            "report": prove_section([{"path": folder, "run_seconds": 1.0}], game),
            "reproduce": (proof_of(artifacts), proven_total(artifacts))}


def verify(folder: Path, capsys, *options) -> tuple[int, str, str]:
    return run_main(["verify-certificate", str(folder), "--workers", "1", *options], capsys)


def test_verified_then_edited_then_unverified(mini_nerdle_proof, tmp_path, capsys, unpublished):
    folder, game, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    before = readers(proof, game)
    assert status(proof).state == UNVERIFIED  # the prove stage does not run the checker
    assert before["assistant"][0] == "upper bound" and before["assistant"][2].startswith(
        f"certificate not verified here (no verification record; check it: python -m pipeline verify-certificate "
        f"{proof}), claiming 544")
    assert "proven: **not verified here** — the certificate claims MinTotal = 544" in before["report"]
    assert before["reproduce"] == (f"544 by 4*7=28, certificate not verified here (no verification record; check it: "
                                   f"python -m pipeline verify-certificate {proof})", None)

    code, out, err = verify(proof, capsys)
    assert code == 0, err
    assert out.startswith("ok: certificate verified — MinTotal = 544 for mini_nerdle (normal mode, at most 6 "
                          "guesses)")
    assert f"recorded: {proof / RECORD} (a complete check)" in out
    record = json.loads((proof / RECORD).read_text())
    digest = hashlib.sha256((proof / "certificate.json").read_bytes()).hexdigest()
    assert record["certificate_sha256"] == digest and record["files"]["certificate.json"] == digest
    assert record["files"]["tree.json"] == hashlib.sha256((proof / "tree.json").read_bytes()).hexdigest()
    assert record["checker_version"] == CHECKER_VERSION and record["complete"] is True
    assert record["game"] == {"named": "mini_nerdle", "guesses_sha256": game.guesses_digest,
                              "secrets_sha256": game.secrets_digest, "hard_mode": False, "max_guesses": 6}
    assert record["mac"] == seal.seal(seal.this_machine_key(create=False), record)
    assert status(proof).state == VERIFIED and not list(proof.glob(".verification-*"))
    assert verified_text(catalogue_entry(proof)).startswith(
        f"verified here by checker version {CHECKER_VERSION} (code {checker_code()[:12]}) at ")
    assert verified_text(catalogue_entry(proof)).endswith(", as mini_nerdle")
    after = readers(proof, game)
    assert after["assistant"][:2] == ("exact", 544) and after["assistant"][2].startswith(
        f"proven optimum (prove/{proof.name}, verified certificate (checked ")
    assert "proven: **True** — MinTotal = 544, optimal opener(s) 4*7=28 (verified certificate" in after["report"]
    assert after["reproduce"] == ("544 by 4*7=28", 544)

    text = (proof / "certificate.json").read_text()
    assert text.count('"ub": 544') == 1
    (proof / "certificate.json").write_text(text.replace('"ub": 544', '"ub": 500'))
    assert status(proof).state == UNVERIFIED
    edited = readers(proof, game)
    assert edited["assistant"][:2] == ("upper bound", 500) and edited["assistant"][2].startswith(
        "certificate not verified here (its files changed since they were checked (certificate.json); check it:")
    assert "proven: **True**" not in edited["report"] and "claims MinTotal = 500" in edited["report"]
    assert edited["reproduce"][1] is None and "certificate not verified here" in edited["reproduce"][0]


def test_a_tree_edited_after_the_check_unverifies(mini_nerdle_proof, tmp_path, capsys):
    folder, game, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    assert verify(proof, capsys)[0] == 0 and status(proof).verified
    with open(proof / "tree.json", "a") as f:
        f.write(" ")
    assert status(proof).state == UNVERIFIED and readers(proof, game)["reproduce"][1] is None


def test_a_sample_check_is_never_a_verification(mini_nerdle_proof, tmp_path, capsys, unpublished):
    folder, game, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    code, out, err = verify(proof, capsys, "--sample", "3")
    assert code == 0, err
    assert "partially checked (sample only)" in out and "(a sample: not a verification)" in out
    assert json.loads((proof / RECORD).read_text())["complete"] is False
    assert status(proof).state == PARTIAL
    said = readers(proof, game)
    assert said["assistant"][0] == "upper bound" and said["assistant"][2].startswith(
        "partially checked certificate (a sample only; check it: python -m pipeline verify-certificate")
    assert "proven: **not verified here**" in said["report"] and said["reproduce"][1] is None
    assert verify(proof, capsys)[0] == 0 and status(proof).verified  # the complete check then counts
    assert verify(proof, capsys, "--sample", "3")[0] == 0 and status(proof).verified  # and a sample keeps it


def test_a_rejected_certificate_loses_its_record(mini_nerdle_proof, tmp_path, capsys):
    folder, _, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    assert verify(proof, capsys)[0] == 0 and status(proof).verified
    cert = json.loads((proof / "certificate.json").read_text())
    cert["optimal_openers"] = ["1+9=10"]
    (proof / "certificate.json").write_text(json.dumps(cert))
    code, out, err = verify(proof, capsys)
    assert_one_error(code, err, "certificate rejected: optimal_openers")
    assert not (proof / RECORD).exists() and out == ""


# ---- the seal: only a record this machine's checker sealed verifies ------------------------------------------------


def catalogue_entry(proof: Path) -> dict:
    """What stage=catalogue says of the one proof under the outputs holding `proof` (outputs/prove/<key>)."""
    from pipeline.artifacts.catalogue import gather
    from pipeline.runtime.store import ArtifactStore

    [row] = gather(ArtifactStore(proof.parent.parent))["rows"]
    return row["shown"]


def checked_record(proof: Path) -> None:
    """The record a complete check of `proof` writes (record.write_record, as verify_and_record calls it after the
    check passes; the check itself: the tests above), sealed with the key of the current config folder."""
    cert = json.loads((proof / "certificate.json").read_text())
    write_record(proof, cert, complete=True, summary={"game": cert["game"], "max_guesses": cert["max_guesses"]})


def hand_written_record(proof: Path, key: bytes | None) -> None:
    """What a forger writes: every field a check of the folder as it is now would record (the certificate's sha256,
    every file's by content, the public checker code digest, complete), sealed with a key of the forger's own
    (None: no seal)."""
    cert = json.loads((proof / "certificate.json").read_text())
    body = record_body(proof, cert, complete=True, summary={"game": cert["game"], "max_guesses": cert["max_guesses"]})
    if key is not None:
        body[seal.SEAL_FIELD] = seal.seal(key, body)
    (proof / RECORD).write_text(json.dumps(body, indent=1))


@pytest.mark.parametrize("forger_key", [None, bytes(32)], ids=["unsealed", "sealed-with-the-forger's-key"])
def test_a_hand_written_record_of_an_edited_proof_is_verified_nowhere(mini_nerdle_proof, tmp_path, capsys, unpublished,
                                                                      forger_key):
    """The forgery: `ub` edited to a number of the same size (a manifest of sizes sees nothing) and a record written
    by hand with the edited certificate's sha256 and the public checker code digest.  The catalogue, the assistant
    (`analyse` included), the report and reproduce's rows call it neither verified nor proven."""
    folder, game, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    text = (proof / "certificate.json").read_text()
    (proof / "certificate.json").write_text(text.replace('"ub": 544', '"ub": 543'))
    assert (proof / "certificate.json").stat().st_size == (folder / "certificate.json").stat().st_size
    seal.this_machine_key(create=True)  # this machine has a key; the forger does not know it
    hand_written_record(proof, forger_key)
    check = status(proof)
    assert (check.state, check.why) == (UNVERIFIED, NOT_SEALED_HERE)
    said = readers(proof, game)
    assert said["assistant"][:2] == ("upper bound", 543) and said["assistant"][2].startswith(
        f"certificate not verified here ({NOT_SEALED_HERE}; check it: python -m pipeline verify-certificate {proof})")
    assert "proven: **True**" not in said["report"]
    assert "proven: **not verified here** — the certificate claims MinTotal = 543" in said["report"]
    assert said["reproduce"] == (f"543 by 4*7=28, {check.label()}", None)
    entry = catalogue_entry(proof)
    assert entry["optimum"] == 543 and not entry["verified"]
    assert verified_text(entry) == f"not verified here: {NOT_SEALED_HERE}"
    code, out, err = run_main(["analyse", "game=mini_nerdle", f"paths.outputs={proof.parent.parent}",
                               "secret=4*7=28", "guesses=[4*7=28]", "--json"], capsys)
    assert code in (0, None), err
    best = json.loads(out)["rows"][0]["best"]
    assert (best["total"], best["kind"], best["source"]) == (544, "exact", "exact solver")  # its own, not 543


def test_a_record_sealed_in_another_key_folder_is_not_verified_here(mini_nerdle_proof, tmp_path, monkeypatch):
    """A record is verified only under the key it was sealed with: copied to (or read from) another machine or key
    folder it reads "not verified here"; a reader never makes a key."""
    folder, _, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    monkeypatch.setenv(seal.CONFIG_ENV, str(tmp_path / "machine-a"))
    checked_record(proof)
    assert status(proof).verified and (tmp_path / "machine-a" / seal.KEY_FILE).is_file()
    monkeypatch.setenv(seal.CONFIG_ENV, str(tmp_path / "machine-b"))
    check = status(proof)
    assert not check.verified and check.why.startswith("this machine has no checker key")
    assert not (tmp_path / "machine-b").exists()
    seal.this_machine_key(create=True)  # machine b's first check makes its own key
    assert (status(proof).state, status(proof).why) == (UNVERIFIED, NOT_SEALED_HERE)
    from pipeline.stages.report import prove_section

    assert "proven: **True**" not in prove_section([{"path": proof, "run_seconds": 1.0}], None)
    monkeypatch.setenv(seal.CONFIG_ENV, str(tmp_path / "machine-a"))
    assert status(proof).verified


@pytest.mark.parametrize("name", ["certificate.json", "tree.json", "game.json.gz"])
def test_one_byte_changed_in_a_file_the_certificate_rests_on_unverifies(mini_nerdle_proof, tmp_path, name):
    """Every file the check read is recorded by the sha256 of its content: one byte changed, the size kept, and the
    record no longer stands (a record of sizes would)."""
    folder, _, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    checked_record(proof)
    assert status(proof).verified
    data = bytearray((proof / name).read_bytes())
    data[len(data) // 2] ^= 1
    (proof / name).write_bytes(bytes(data))
    assert (status(proof).state, status(proof).why) == (UNVERIFIED,
                                                        f"its files changed since they were checked ({name})")


def test_a_stored_game_added_after_the_check_unverifies(mini_nerdle_proof, tmp_path):
    """A game.json.gz that was not there when the check ran is not what the check read."""
    folder, _, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    stored = (proof / "game.json.gz").read_bytes()
    (proof / "game.json.gz").unlink()
    checked_record(proof)
    assert status(proof).verified
    (proof / "game.json.gz").write_bytes(stored)
    assert status(proof).why == "its files changed since they were checked (game.json.gz)"


def test_analyse_calls_the_start_proven_only_when_verified(mini_nerdle_proof, tmp_path, capsys, unpublished):
    """`analyse` at the start: a verified certificate is the known optimum; an edited one is not believed, the exact
    solver's value is shown instead."""
    folder, _, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    outputs = proof.parent.parent

    def first_best():
        code, out, err = run_main(["analyse", "game=mini_nerdle", f"paths.outputs={outputs}", "secret=4*7=28",
                                   "guesses=[4*7=28]", "--json"], capsys)
        assert code in (0, None), err
        return json.loads(out)["rows"][0]["best"]

    assert verify(proof, capsys)[0] == 0
    best = first_best()
    assert best["total"] == 544 and best["source"].startswith("proven optimum")
    text = (proof / "certificate.json").read_text()
    (proof / "certificate.json").write_text(text.replace('"ub": 544', '"ub": 500'))
    best = first_best()
    assert best["total"] == 544 and best["kind"] == "exact" and best["source"] == "exact solver"


def test_the_report_follows_its_certificate_through_a_check_and_an_edit(mini_nerdle_proof, tmp_path, capsys):
    """The report stage is keyed by each certificate's digest and verification state: it is rewritten after a check
    and after an edit, never reused with a stale verdict."""
    folder, _, _ = mini_nerdle_proof
    proof = copied(folder, tmp_path)
    outputs = proof.parent.parent

    def proof_line():
        code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", "stage=report", "game=mini_nerdle",
                                   "stage.plots=false"], capsys)
        assert code in (0, None), err
        return next(line for line in (Path(out.strip().splitlines()[-1]) / "report.md").read_text().splitlines()
                    if line.startswith("proven:"))

    assert proof_line().startswith("proven: **not verified here** — the certificate claims MinTotal = 544")
    assert verify(proof, capsys)[0] == 0
    assert proof_line().startswith("proven: **True** — MinTotal = 544")
    text = (proof / "certificate.json").read_text()
    (proof / "certificate.json").write_text(text.replace('"ub": 544', '"ub": 500'))
    assert proof_line().startswith("proven: **not verified here** — the certificate claims MinTotal = 500")
