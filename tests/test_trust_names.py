"""The checker names only the game it checked (pipeline/proofs/certificates/naming.py): a true proof of a 10-word list, relabelled
as a shipped game in its certificate and its stored game, is refused (from the folder and from a bundle), and so is
an infeasibility certificate; the certificate and the stored game must name the same game; a custom game is named
with its lists' digests; shipped games by their pinned lists (Wordle and its variants) or their size (Mastermind,
Bulls and Cows), each rule tried against the lists themselves.  A genuine shipped proof (Mini Nerdle, Mastermind)
verifies under its name: tests/test_committed_catalogue.py, tests/test_trust_checker.py."""

import gzip
import itertools
import json
from pathlib import Path

import pytest

from pipeline.config.settings import DATA_DIR
from pipeline.proofs.certificates.optimal import CertificateError
from pipeline.proofs.certificates.naming import checked_name
from pipeline.proofs.certificates.record import RECORD, status
from pipeline.proofs.game.stored_game import StoredGame, sorted_sha256
from tests.helpers.proof_folders import outputs_copy, verify_certificate
from tests.test_bad_input import assert_one_error, fresh_console  # noqa: F401 (fresh_console: autouse)
from tests.test_bundle import bundled, proved

ANSWERS = (DATA_DIR / "wordle" / "original_answers.txt").read_text().split()
TEN = ANSWERS[::230][:10]
WORDLE_SECRETS = "f40e47975cf360ff9febe7d49c8e285054d8fa3fb9644cea575922060951d6ee"  # conf/game/wordle_original.yaml
WORDLE_GUESSES = "feacc549249b5dcb43e2799fbbcda14ebc33d55904fb15d043779104e60c1579"


@pytest.fixture(scope="module")
def ten_words(tmp_path_factory) -> Path:
    """A true game=words proof on 10 original answers (guesses: the same 10), the prover's own folder."""
    lists = tmp_path_factory.mktemp("ten")
    (lists / "secrets.txt").write_text("\n".join(TEN) + "\n")
    return proved(tmp_path_factory.mktemp("words"), ["game=words", f"game.secrets.path={lists / 'secrets.txt'}"])


@pytest.fixture(scope="module")
def ten_words_infeasible(tmp_path_factory) -> Path:
    """The prover's certificate that no strategy finds each of the 10 words within 2 guesses."""
    lists = tmp_path_factory.mktemp("ten")
    (lists / "secrets.txt").write_text("\n".join(TEN) + "\n")
    return proved(tmp_path_factory.mktemp("words"), ["game=words", f"game.secrets.path={lists / 'secrets.txt'}",
                                                      "game.max_guesses=2"])


def relabelled(folder: Path, name: str, certificate: bool = True, stored: bool = True) -> Path:
    """The folder with its certificate's and/or its stored game's name changed to `name` (lists untouched)."""
    if certificate:
        cert = json.loads((folder / "certificate.json").read_text())
        (folder / "certificate.json").write_text(json.dumps({**cert, "game": name}, indent=1))
    if stored:
        body = json.loads(gzip.decompress((folder / "game.json.gz").read_bytes()))
        body["game"]["name"] = name
        (folder / "game.json.gz").write_bytes(gzip.compress(json.dumps(body).encode()))
    return folder


def ten_digests() -> tuple[str, str]:
    return sorted_sha256(TEN), sorted_sha256(TEN)


# ---- the name: only what was checked ----------------------------------------------------------------------------


def test_a_custom_game_is_named_with_its_digests(ten_words, tmp_path, capsys):
    proof = outputs_copy(ten_words, tmp_path)
    secrets, guesses = ten_digests()
    named = f"custom game words (secrets sha256 {secrets[:12]}…, guesses sha256 {guesses[:12]}…)"
    code, out, err = verify_certificate(proof, capsys)
    assert code == 0, err
    ub = json.loads((proof / "certificate.json").read_text())["ub"]
    assert out.startswith(f"ok: certificate verified — MinTotal = {ub} for {named} (normal mode, at most 6 guesses)")
    assert json.loads((proof / RECORD).read_text())["game"]["named"] == named and status(proof).named == named


@pytest.mark.parametrize("fixture", ["ten_words", "ten_words_infeasible"])
def test_a_true_proof_relabelled_as_a_shipped_game_is_refused_naming_both_digests(fixture, request, tmp_path,
                                                                                   capsys):
    """The proof is true, of 10 words; relabelled wordle_original in its certificate and its stored game, it is
    refused from the folder and from a bundle, and nothing is recorded; the catalogue never calls it verified."""
    original = request.getfixturevalue(fixture)
    capsys.readouterr()  # the fixture's own proof, made lazily here, logs to this test's stderr
    assert json.loads((original / "certificate.json").read_text()).get("kind") == (
        "infeasible" if fixture == "ten_words_infeasible" else None)
    proof = relabelled(outputs_copy(original, tmp_path), "wordle_original")
    secrets, guesses = ten_digests()
    message = (f"certificate rejected: it names the shipped game wordle_original, whose lists are pinned (secrets "
               f"sha256 {WORDLE_SECRETS[:12]}…, guesses sha256 {WORDLE_GUESSES[:12]}…), but its lists are secrets "
               f"sha256 {secrets[:12]}…, guesses sha256 {guesses[:12]}…")
    code, out, err = verify_certificate(proof, capsys)
    assert_one_error(code, err, message)
    assert out == "" and not (proof / RECORD).exists()
    code, out, err = verify_certificate(bundled(proof, capsys), capsys)
    assert_one_error(code, err, message)
    assert out == ""
    from pipeline.artifacts.catalogue import gather
    from pipeline.runtime.store import ArtifactStore

    [row] = gather(ArtifactStore(tmp_path / "outputs"))["rows"]
    assert row["game"] == "wordle_original" and not row["shown"]["verified"]


@pytest.mark.parametrize("certificate, stored, message", [
    (True, False, "it names game 'wordle_original', but the game it is checked against is named 'words'"),
    (False, True, "it names game 'words', but the game it is checked against is named 'wordle_original'"),
    (False, True, "it names game 'words', but the game it is checked against is named 'other'"),
], ids=["certificate-only", "stored-only", "stored-renamed-custom"])
def test_the_certificate_and_the_stored_game_must_name_the_same_game(ten_words, tmp_path, capsys, certificate,
                                                                     stored, message):
    name = "other" if "other" in message else "wordle_original"
    proof = relabelled(outputs_copy(ten_words, tmp_path), name, certificate, stored)
    code, out, err = verify_certificate(proof, capsys)
    assert_one_error(code, err, f"certificate rejected: {message}")
    assert out == "" and not (proof / RECORD).exists()


def stored_game(name: str, words, secrets=None, alphabet: str = "abcdefghijklmnopqrstuvwxyz",
                answer: str = "wordle", excluded=()) -> StoredGame:
    """A game as the checker holds it (the stored game's reader builds these), for naming alone."""
    guesses = tuple(sorted(words))
    return StoredGame(name, guesses, tuple(sorted(guesses if secrets is None else secrets)), alphabet, False, 6,
                      answer, tuple(sorted(excluded)))


def named(game) -> str:
    return checked_name({"game": game.name}, game)


def test_shipped_wordle_is_named_only_for_its_pinned_lists():
    guesses = (DATA_DIR / "wordle" / "original_guesses.txt").read_text().split()
    assert named(stored_game("wordle_original", guesses, ANSWERS)) == "wordle_original"
    assert named(stored_game("wordle_original", guesses, ANSWERS[3:], excluded=ANSWERS[:3])) == \
        "wordle_original without 3 excluded secrets"
    assert named(stored_game("wordle_original", guesses)) == "wordle_original (secrets = guesses)"
    assert named(stored_game("wordle_original", guesses, ANSWERS, answer="mastermind")) == \
        "wordle_original, answered as mastermind (not as the shipped wordle)"
    for game in (stored_game("wordle_original", guesses, ANSWERS[3:]),  # secrets missing, not listed as excluded
                 stored_game("wordle_original", guesses[1:], ANSWERS)):  # one guess fewer
        with pytest.raises(CertificateError, match="it names the shipped game wordle_original, whose"):
            named(game)


def every_code(length: int, alphabet: str, distinct: bool = False) -> list[str]:
    codes = ("".join(c) for c in itertools.product(alphabet, repeat=length))
    return [c for c in codes if not distinct or len(set(c)) == length]


@pytest.mark.parametrize("pegs, colours", [(2, 4), (3, 3), (4, 6)])
def test_mastermind_is_named_by_its_size_only_when_every_code_is_there(pegs, colours):
    alphabet = "123456789"[:colours]
    codes = every_code(pegs, alphabet)
    game = stored_game("mastermind", codes, alphabet=alphabet, answer="mastermind")
    assert named(game) == f"mastermind ({pegs} pegs, {colours} colours)"
    assert named(stored_game("mastermind", codes, codes[1:], alphabet, "mastermind", codes[:1])) == \
        f"mastermind ({pegs} pegs, {colours} colours) without 1 excluded secret"
    for game in (stored_game("mastermind", codes[1:], alphabet=alphabet, answer="mastermind"),
                 stored_game("mastermind", codes, codes[1:], alphabet, "mastermind"),
                 stored_game("mastermind", every_code(pegs, "023456789"[:colours]), alphabet="023456789"[:colours],
                             answer="mastermind")):
        with pytest.raises(CertificateError, match="it names the shipped game mastermind, whose guesses and secrets "
                                                   "are every code of its size"):
            named(game)


def test_bulls_and_cows_is_named_by_its_length_only_for_every_code_of_distinct_digits():
    codes = every_code(3, "0123456789", distinct=True)
    assert len(codes) == 720
    assert named(stored_game("bulls_and_cows", codes, alphabet="0123456789", answer="bulls_and_cows")) == \
        "bulls_and_cows (3 digits)"
    with pytest.raises(CertificateError, match="it names the shipped game bulls_and_cows"):
        named(stored_game("bulls_and_cows", codes[:-1], alphabet="0123456789", answer="bulls_and_cows"))


def test_a_name_no_yaml_ships_is_custom():
    game = stored_game("mini_nerdle_x", TEN)
    digest = sorted_sha256(TEN)[:12]
    assert named(game) == f"custom game mini_nerdle_x (secrets sha256 {digest}…, guesses sha256 {digest}…)"
