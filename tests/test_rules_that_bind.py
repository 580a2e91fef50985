"""Rules tested where they bind, each against the brute force of tests/helpers/brute.py (neither prover nor checker):

- a class's guesses left are the game's limit minus the opener, in the checker (certificate.py: a tied opener that
  would reach ub only with one guess more is refused) and in the prover (closure.py: class values);
- the funnel's first hard-mode level (funnel.py: levels from `hard_from` on, that one included, are hard);
- a bundle member that INDEX.json does not list is refused (archive.py).

The game: BOAST BRAIN COAST DRAIN GRAIN ROAST TOAST TRAIN within 3 guesses.  BOAST is optimal (19); BRAIN and
TRAIN would tie at 19 with a fourth guess, but within 3 their class DRAIN/GRAIN/TRAIN (after 02222) is unsolvable:
with two guesses left no guess separates three words that differ in their first letter only."""

import hashlib
import io
import json
import shutil
import tarfile

import numpy as np
import pytest

from pipeline.search.matrix import Matrix
from pipeline.feedback.matrix import game_matrix
from pipeline.games.game import Game
from pipeline.proofs.files import archive
from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate
from pipeline.proofs.game.stored_game import folder_game
from pipeline.search.bounds.lower import k_of_game
from pipeline.search.bounds.closure import ClassSettings, ClassSolvers, bound_class, guesses_left, opener_classes
from pipeline.search.exact.solver import IMPOSSIBLE
from pipeline.search.bounds.funnel import FunnelSolvers, level_rule
from tests.helpers.brute import NO_STRATEGY, BruteGame, code_table, wordle_code, wordle_colours
from tests.test_bundle import proved

WORDS = ("boast", "brain", "coast", "drain", "grain", "roast", "toast", "train")
LIMIT = 3


@pytest.fixture(scope="module")
def brute():
    return BruteGame(code_table(WORDS, WORDS, wordle_code), range(len(WORDS)), 243)


def opener_values(brute, limit) -> dict[str, float]:
    """V*(g, S) of every opener within `limit` guesses (NO_STRATEGY: none)."""
    everyone = tuple(range(len(WORDS)))
    return {w: brute.value(g, everyone, limit) for g, w in enumerate(WORDS)}


def test_the_limit_binds_on_tied_openers(brute):
    values, one_more = opener_values(brute, LIMIT), opener_values(brute, LIMIT + 1)
    ub = min(values.values())
    assert (ub, [w for w, v in values.items() if v == ub]) == (19, ["boast"])
    assert [w for w in WORDS if one_more[w] == ub and values[w] == NO_STRATEGY] == ["brain", "train"]


# ---- the checker: a tied opener's classes have the limit minus one guess ------------------------------------------

@pytest.fixture(scope="module")
def proof(tmp_path_factory):
    lists = tmp_path_factory.mktemp("lists")
    (lists / "words.txt").write_text("\n".join(WORDS) + "\n")
    return proved(tmp_path_factory.mktemp("proof"), ["game=words", f"game.secrets.path={lists / 'words.txt'}",
                                                      f"game.guesses.path={lists / 'words.txt'}",
                                                      f"game.max_guesses={LIMIT}"])


def test_the_proof_names_the_brute_force_optimum_and_verifies(proof, brute):
    cert = json.loads((proof / "certificate.json").read_text())
    values = opener_values(brute, LIMIT)
    assert (cert["ub"], cert["optimal_openers"]) == (min(values.values()), ["boast"])
    result = verify_certificate(proof, folder_game(proof))
    assert result["complete"] and result["optimal_openers"] == ["boast"]


def tied_with_one_guess_more(cert: dict, brute, opener: str) -> dict:
    """The certificate with `opener` claimed optimal: its classes' exact values computed with the whole limit left
    (one guess too many), which add up to ub."""
    g = WORDS.index(opener)
    classes = []
    for code, members in sorted(brute.classes(g, tuple(range(len(WORDS)))).items()):
        if code != brute.win:
            colours = "".join(map(str, wordle_colours(opener, WORDS[members[0]])))
            bound = int(brute.min_total(members, LIMIT))  # a slip: LIMIT - 1 guesses are left after the opener
            classes.append({"response": colours, "size": len(members), "bound": bound, "method": "exact"})
    total = sum(c["bound"] for c in classes)
    entry = {"opener": opener, "classes": classes, "sum": total, "value": len(WORDS) + total}
    cert["eliminated"] = [e for e in cert["eliminated"] if e["opener"] != opener]
    cert["survivors"] = [s for s in cert["survivors"] if s["opener"] != opener] + [entry]
    cert["optimal_openers"] = sorted(cert["optimal_openers"] + [opener])
    return cert


def test_a_tied_opener_that_needs_one_guess_more_is_refused(proof, brute, tmp_path):
    """BRAIN's classes valued with 3 guesses left add up to ub = 19 (a tie with BOAST), but it has 2 left: the
    checker re-derives its 02222 class within 2, finds no strategy there, and refuses BRAIN as optimal."""
    folder = shutil.copytree(proof, tmp_path / "forged")
    cert = tied_with_one_guess_more(json.loads((folder / "certificate.json").read_text()), brute, "brain")
    assert next(s["value"] for s in cert["survivors"] if s["opener"] == "brain") == cert["ub"]
    (folder / "certificate.json").write_text(json.dumps(cert))
    with pytest.raises(CertificateError, match="optimal opener brain class 02222: its bound 6 is not its exact "
                                               "MinTotal"):
        verify_certificate(folder, folder_game(folder))


# ---- the prover: class values with the limit minus one guess ------------------------------------------------------

def test_prover_class_values_keep_the_limit(brute):
    """|S| + the exact value of each class (closure.bound_class, with the guesses the game leaves after the opener)
    is V*(g, S) within the limit for every opener; no strategy exactly when the brute force finds none."""
    game = Game("limit", WORDS, WORDS, "abcdefghijklmnopqrstuvwxyz", False, LIMIT)
    codes = game_matrix(game)
    solvers = ClassSolvers(Matrix.of_game(codes, game))
    settings = ClassSettings(k_s=k_of_game(codes, game.n_codes), max_level=3, memo_bits=10, left=guesses_left(game))
    got = {}
    for g, opener in enumerate(WORDS):
        solvers.reset()
        total = len(WORDS) + sum(bound_class(solvers, settings, members, None, hard_state=state)[0]
                                 for _, members, state in opener_classes(codes, game, g))
        got[opener] = NO_STRATEGY if total >= IMPOSSIBLE else total
    assert got == opener_values(brute, LIMIT)


# ---- the funnel: the first hard-mode level ----------------------------------------------------------------------

HARD_WORDS = ("eight", "hatch", "might", "night", "right", "watch", "wight")  # hard mode keeps a green IGHT
HARD_EXTRA = ("bored", "bunts", "dumas", "ikans", "noily", "swith")


@pytest.mark.parametrize("hard_from", [2, 4])
def test_the_first_hard_level_is_computed_by_the_hard_bounds(hard_from):
    """Level hard_from is hard (the one before it normal), and there the hard-mode values are what is computed:
    at most the brute-force hard-mode V*(g, S), and above the normal-mode bound for some opener."""
    guesses = tuple(sorted(HARD_WORDS + HARD_EXTRA))
    game = Game("hard", guesses, HARD_WORDS, "abcdefghijklmnopqrstuvwxyz", True, None)
    assert (level_rule(True, hard_from, hard_from - 1), level_rule(True, hard_from, hard_from)) == ("normal", "hard")
    assert level_rule(False, hard_from, hard_from) == "normal"
    codes = game_matrix(game)
    funnel = FunnelSolvers(Matrix.of_game(codes, game), k_of_game(codes, game.n_codes))
    openers = np.arange(len(guesses), dtype=np.int32)
    computed, _ = funnel.values(openers, hard_from, 10**9, level_rule(True, hard_from, hard_from))
    normal, _ = funnel.values(openers, hard_from, 10**9, "normal")
    words = [[ord(ch) - ord("a") for ch in w] for w in guesses]
    brute = BruteGame(code_table(guesses, HARD_WORDS, wordle_code), [guesses.index(w) for w in HARD_WORDS], 243,
                      hard=True, words=words)
    everyone = tuple(range(len(HARD_WORDS)))
    truth = [brute.value(g, everyone) for g in range(len(guesses))]
    assert all(c <= t for c, t in zip(computed.tolist(), truth))
    assert (computed >= normal).all() and (computed > normal).any()


# ---- the bundle: every member listed in INDEX.json ----------------------------------------------------------------

def archive_of(path, present: dict[str, bytes], listed: dict[str, bytes]):
    """A .tar.gz of the `present` members (as p/<name>) and an INDEX.json listing the size and sha256 of `listed`."""
    index = {"files": {n: {"bytes": len(d), "sha256": hashlib.sha256(d).hexdigest()} for n, d in listed.items()}}
    with tarfile.open(path, "w:gz") as tar:
        for name, data in {**present, archive.INDEX: json.dumps(index).encode()}.items():
            info = tarfile.TarInfo(f"p/{name}")
            info.size = len(data)
            tar.addfile(info, io.BytesIO(data))
    return path


CERTIFICATE, TREE = {"certificate.json": b'{"ub": 1}'}, {"tree.json": b'{"tree": {}}'}


@pytest.mark.parametrize("present, listed, message", [
    ({**CERTIFICATE, **TREE}, {**CERTIFICATE, **TREE}, None),
    ({**CERTIFICATE, **TREE}, CERTIFICATE, "tree.json is not listed in INDEX.json"),
    (CERTIFICATE, {**CERTIFICATE, **TREE}, "tree.json is missing"),
], ids=["all-listed", "one-unlisted", "one-missing"])
def test_a_member_not_listed_in_the_index_is_refused(tmp_path, present, listed, message):
    path = archive_of(tmp_path / "a.tar.gz", present, listed)
    into = tmp_path / "out"
    into.mkdir()
    if message is None:
        assert sorted(p.name for p in archive.unpack(path, into).iterdir()) == [
            "INDEX.json", "certificate.json", "tree.json"]
        return
    with pytest.raises(archive.ArchiveRefused, match=message):
        archive.unpack(path, into)
