"""Infeasible guess limits: the prover's witnesses (search/solvable/infeasible.py) and the checker's re-derivation
(proofs/certificates/infeasible.py) against brute force on tiny games where the limit binds, normal and hard mode; planted
off-by-ones; tampered certificates; the command line end to end."""

import json
import subprocess
import sys
from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from pipeline.games.catalog import builtin_game
from pipeline.config.settings import GameConfig, WordListConfig
from pipeline.games.constraints import hard_mode_rule
from pipeline.proofs.certificates import infeasible as checker
from pipeline.proofs.game.answer import response
from pipeline.proofs.certificates.optimal import CertificateError
from pipeline.search.solvable import infeasible
from pipeline.search.exact.solver import IMPOSSIBLE
from pipeline.search.matrix import Matrix
from pipeline.stages.prove_infeasible import opener_classes, witness_batch
from tests.test_proofs_checker import tampered

IGHT = "batch catch eight fight hatch latch light match might night patch right sight tight watch wight".split()
PROBES = "blimp crwth nymph psalm thumb fowls".split()  # guesses that are no secrets: the limit binds at 4 / 5


@pytest.fixture(scope="module")
def ight_lists(tmp_path_factory):
    folder = tmp_path_factory.mktemp("ight")
    (folder / "secrets.txt").write_text("\n".join(IGHT) + "\n")
    (folder / "guesses.txt").write_text("\n".join(IGHT + PROBES) + "\n")
    return folder


def ight_game(folder, hard: bool):
    from pipeline.games.catalog import load_game

    return load_game(GameConfig(name="words", secrets=WordListConfig(path=str(folder / "secrets.txt")),
                                guesses=WordListConfig(path=str(folder / "guesses.txt")), hard_mode=hard, length=5))


def brute_opener_feasible(game):
    """feasible(opener, limit): whether some strategy opening with `opener` finds every secret within `limit`
    guesses, by plain recursion over every (hard mode: every legal) guess; one memo for every opener and limit."""
    answer = game.answer

    @lru_cache(maxsize=None)
    def legal(history):
        """The guesses hard mode allows after `history` (the rule hard_mode_allowed applies, built once)."""
        rule = hard_mode_rule(list(history), game.length)
        return tuple(g for g in game.guesses if rule.violation(g) is None)

    @lru_cache(maxsize=None)
    def solvable(cands, left, history):
        if not cands:
            return True
        if left == 0:
            return False
        return any(after(g, cands, left, history) for g in (legal(history) if game.hard_mode else game.guesses))

    def after(g, cands, left, history):
        classes = {}
        for s in cands:
            classes.setdefault(response(answer, g, s), []).append(s)
        if len(classes) == 1 and g not in cands:
            return False
        return all(solvable(tuple(c), left - 1, history + ((g, r),) if game.hard_mode else ())
                   for r, c in classes.items() if c != [g])

    return lambda opener, limit: after(opener, tuple(game.secrets), limit, ())


def prover_witnesses(game, limit):
    from pipeline.feedback.matrix import game_matrix

    codes = game_matrix(game)
    return codes, witness_batch(np.arange(len(game.guesses)), Matrix.of_game(codes, game), game.hard_mode, limit)


def checker_opener_feasible(game, codes, opener: int, limit: int) -> bool:
    """The checker's own search: every non-win class of the opener solvable within limit - 1 guesses."""
    from pipeline.proofs.game.answer import symbols
    from pipeline.proofs.game.hard_mode import Rule

    search = checker.Feasibility(codes, symbols(game.guesses, game.alphabet), game.guess_of_secret, game.n_codes,
                                 len(game.alphabet), game.hard_mode)
    for code, members, _ in opener_classes(codes, opener, game.n_codes - 1, None):
        rule = Rule(game.length, len(game.alphabet)).after(search.words[opener], code) if game.hard_mode else None
        if not search.within(members, limit - 1, rule):
            return False
    return True


TINY = [("mastermind", {"pegs": 2, "colours": 4}), ("mastermind", {"pegs": 3, "colours": 3}),
        ("mastermind", {"pegs": 2, "colours": 2})]  # the last: 12's class {11, 22} is tight, reach(2, 1) = 2


def tiny_games(ight_lists):
    return [ight_game(ight_lists, False), ight_game(ight_lists, True)] + [builtin_game(name, **kw) for name, kw in TINY]


def mismatches(game, limit) -> list[str]:
    """Openers where the prover's verdict (witness or none) or the checker's differs from brute force."""
    codes, witnesses = prover_witnesses(game, limit)
    feasible, wrong = brute_opener_feasible(game), []
    for g, w in enumerate(witnesses):
        truth = feasible(game.guesses[g], limit)
        if (w is None) != truth or checker_opener_feasible(game, codes, g, limit) != truth:
            wrong.append(game.guesses[g])
    return wrong


def test_reach_is_the_recurrence_in_both_implementations():
    for impl in (infeasible.reach, checker.reach):
        assert [impl(j, 3) for j in range(5)] == [0, 1, 4, 13, 40]
        assert impl(2, 12) == 13 and impl(3, 1) == 3


@pytest.mark.slow
@pytest.mark.parametrize("which", range(5))
@pytest.mark.parametrize("limit", [2, 3, 4])
def test_verdicts_match_brute_force(ight_lists, which, limit):
    assert mismatches(tiny_games(ight_lists)[which], limit) == []


def test_the_limit_binds_on_these_games(ight_lists):
    """Computed verdicts (brute force agrees above): feasible openers per limit, and hard mode differs at 5."""
    normal, hard, mm24, mm33, mm22 = tiny_games(ight_lists)
    feasible = lambda game, limit: sum(w is None for w in prover_witnesses(game, limit)[1])
    assert [feasible(mm24, limit) for limit in (3, 4)] == [0, 16]
    assert [feasible(mm33, limit) for limit in (3, 4)] == [0, 27]
    assert [feasible(mm22, limit) for limit in (2, 3)] == [0, 4]
    assert (feasible(normal, 4), feasible(normal, 5), feasible(hard, 4), feasible(hard, 5)) == (0, 8, 0, 1)
    reasons = [w["reason"] for w in prover_witnesses(mm33, 3)[1]]
    assert (reasons.count("counting"), reasons.count("search")) == (3, 24)
    solved = {game: {game.guesses[g] for g, w in enumerate(prover_witnesses(game, 5)[1]) if w is None}
              for game in (normal, hard)}
    assert solved[hard] < solved[normal]  # hard mode only removes strategies
    opener = sorted(solved[normal] - solved[hard])[0]
    assert brute_opener_feasible(normal)(opener, 5) and not brute_opener_feasible(hard)(opener, 5)


def test_hard_mode_limit_5_matches_brute_force(ight_lists):
    assert mismatches(ight_game(ight_lists, True), 5) == []


def test_planted_counting_bound_one_too_small_fails(ight_lists, monkeypatch):
    """reach - 1 claims solvable classes infeasible: Mastermind 2x2's class {11, 22} after 12 has m = 1 and is
    solved in reach(2, 1) = 2 guesses (11, then 22); the prover's and the checker's bound each."""
    true_reach = infeasible.reach
    mm22 = tiny_games(ight_lists)[-1]
    assert mismatches(mm22, 3) == [] and tight_counting_claim_refused(mm22)
    monkeypatch.setattr(infeasible, "reach", lambda j, m: true_reach(j, m) - 1)
    assert mismatches(mm22, 3) != []
    monkeypatch.undo()
    monkeypatch.setattr(checker, "reach", lambda j, m: true_reach(j, m) - 1)
    assert not tight_counting_claim_refused(mm22)


def tight_counting_claim_refused(mm22) -> bool:
    """Whether the checker refuses "counting" for opener 12's class 1B0W = {11, 22} within 3 guesses."""
    from pipeline.proofs.game.answer import game_code_matrix, symbols

    codes = game_code_matrix(mm22.guesses, mm22.secrets, mm22.alphabet, "mastermind")
    search = checker.Feasibility(codes, symbols(mm22.guesses, mm22.alphabet), mm22.guess_of_secret, mm22.n_codes,
                                 len(mm22.alphabet), False)
    try:
        checker.check_witness({"opener": "12", "response": "1B0W", "size": 2, "reason": "counting"}, mm22, codes,
                              search, 3)
    except CertificateError:
        return True
    return False


def test_planted_witness_with_one_guess_fewer_fails(ight_lists, monkeypatch):
    """One guess fewer than left, with 3 left (Mastermind 3x3 within 4: the shallow kernels) and with 4 (the -ight
    words within 5: every first guess over them)."""
    import pipeline.stages.prove_infeasible as stage

    true_within = infeasible.within_solvable
    monkeypatch.setattr(stage, "within_solvable", lambda within, left: true_within(within, left - 1))
    assert mismatches(tiny_games(ight_lists)[3], 4) != []
    assert mismatches(tiny_games(ight_lists)[0], 5) != []


# ---- certificates --------------------------------------------------------------------------------------------


def run(outputs, *overrides):
    """(artifact folder, game) of the stage the overrides compose, run in `outputs`."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", *overrides])
    game = load_game(cfg.game)
    return run_stage(cfg.stage, cfg, game, ArtifactStore(outputs)).path, game


def prove(outputs, *overrides):
    return run(outputs, "experiment=prove", *overrides)


@pytest.fixture(scope="module")
def mm33_proof(tmp_path_factory, ray_session):
    return prove(tmp_path_factory.mktemp("out"), "game=mastermind", "game.pegs=3", "game.colours=3",
                 "game.max_guesses=3")


def verify(folder, game, **kw):
    from pipeline.proofs.certificates.record import verify_and_record

    return verify_and_record(folder, game, **kw)[0]


def test_certificate_of_an_infeasible_limit_is_verified(mm33_proof):
    folder, game = mm33_proof
    cert = json.loads((folder / "certificate.json").read_text())
    assert (cert["kind"], cert["proven"], cert["feasible"], cert["max_guesses"], cert["hard_mode"]) == (
        "infeasible", True, False, 3, False)
    assert len(cert["openers"]) == 3 and len(cert["symmetry"]["openers"]) == 24
    result = verify(folder, game)
    assert result["complete"] and (result["by_counting"], result["by_search"]) == (1, 2)
    assert not verify(folder, game, sample=1)["complete"]


@pytest.mark.slow
def test_hard_mode_certificate_is_verified(ight_lists, tmp_path, ray_session):
    folder, game = prove(tmp_path, "game=words", f"game.secrets.path={ight_lists / 'secrets.txt'}",
                         f"game.guesses.path={ight_lists / 'guesses.txt'}", "game.length=5", "game.hard_mode=true",
                         "game.max_guesses=4")
    cert = json.loads((folder / "certificate.json").read_text())
    assert cert["hard_mode"] and "symmetry" not in cert and len(cert["openers"]) == len(IGHT + PROBES)
    assert verify(folder, game)["complete"]
    claims_normal = tampered(folder, tmp_path, lambda c: c.__setitem__("hard_mode", False))
    with pytest.raises(CertificateError, match="hard_mode"):
        verify(claims_normal, game)
    opener, response, size = solvable_hard_class(game)
    moved = tampered(folder, tmp_path, lambda c: next(e for e in c["openers"] if e["opener"] == opener).update(
        response=response, size=size))
    with pytest.raises(CertificateError, match="can be solved within the 3 guesses left"):
        verify(moved, game)
    assert verify(folder, game, workers=2) == verify(folder, game)  # its witnesses over two processes
    with pytest.raises(CertificateError, match="can be solved within the 3 guesses left"):
        verify(moved, game, workers=2)


def solvable_hard_class(game) -> tuple[str, str, int]:
    """(opener, response, size) of a class of at least 3 secrets that the prover solves within 3 hard-mode
    guesses (the deepest shallow case), for a witness moved onto it."""
    from pipeline.feedback.matrix import game_matrix
    from pipeline.search.solvable.shallow import Shallow

    codes, words = game_matrix(game), game.encoded_guesses()
    shallow = Shallow(codes, game.n_codes, np.ones(codes.shape[1], dtype=bool), words)
    for g in range(len(game.guesses)):
        for code, members, state in opener_classes(codes, g, game.n_codes - 1, words):
            if len(members) >= 3 and shallow.solvable(members, 3, state):
                return game.guesses[g], game.code_text(code), len(members)
    raise AssertionError("no class of 3 or more is solved within 3 guesses")


def _solvable_class(cert):
    """A search witness moved to another class of its opener, one solved within the two guesses left."""
    entry = next(e for e in cert["openers"] if e["reason"] == "search")
    entry["response"], entry["size"] = SOLVABLE[entry["opener"]]


SOLVABLE = {"112": ("1B0W", 6), "123": ("1B2W", 3)}  # classes of two guesses left that are solved in time


@pytest.mark.parametrize("edit, message", [
    (lambda c: c["openers"].pop(), "not exactly the allowed guesses"),
    (lambda c: c["symmetry"]["openers"].pop(), "not exactly the allowed guesses"),
    (lambda c: c.__setitem__("max_guesses", 4), "limit of 4 guesses"),
    (lambda c: c.__setitem__("hard_mode", True), "hard_mode"),
    (lambda c: c.__setitem__("feasible", True), "feasible false"),
    (lambda c: c["openers"][0].__setitem__("size", c["openers"][0]["size"] + 1), "secrets, not"),
    (lambda c: c["openers"][0].__setitem__("response", "3B0W"), "not a response"),
    (lambda c: [e.__setitem__("reason", "counting") for e in c["openers"]], "counting shows nothing"),
    (_solvable_class, "can be solved within the 2 guesses left"),
    (lambda c: c["openers"][0].__setitem__("extra", 1), "not a field this checker verifies"),
])
def test_tampered_certificates_are_refused(mm33_proof, tmp_path, edit, message):
    folder, game = mm33_proof
    with pytest.raises(CertificateError, match=message):
        verify(tampered(folder, tmp_path, edit), game)


@pytest.mark.slow
def test_command_line_prove_then_verify(tmp_path):
    run = [sys.executable, "-m", "pipeline"]
    proof = subprocess.run(run + ["experiment=prove", "game=mastermind", "game.pegs=2", "game.colours=4",
                                  "game.max_guesses=3", f"paths.outputs={tmp_path}", "progress=false"],
                           capture_output=True, text=True)
    assert proof.returncode == 0, proof.stderr
    assert "no strategy finds every secret within 3 guesses (proven)" in proof.stdout + proof.stderr
    folder = proof.stdout.strip().splitlines()[-1]
    check = subprocess.run(run + ["verify-certificate", folder], capture_output=True, text=True)
    assert check.returncode == 0 and check.stdout.startswith("ok: certificate verified — no strategy finds every "
                                                             "secret within 3 guesses for mastermind"), check.stderr
    bad = tampered(Path(folder), tmp_path, lambda c: c["openers"].pop())
    refused = subprocess.run(run + ["verify-certificate", str(bad)], capture_output=True, text=True)
    assert refused.returncode == 2 and refused.stderr.strip().startswith("error: certificate rejected")
    assert refused.stderr.strip().count("\n") == 0


def test_catalogue_row_of_an_infeasible_limit(mm33_proof):
    from pipeline.artifacts.catalogue import infeasible_result
    from pipeline.artifacts.catalogue_page import optimum_text

    folder, _ = mm33_proof
    row = infeasible_result(json.loads((folder / "certificate.json").read_text()))
    assert (row["kind"], row["proven"], row["optimum"], row["average"]) == ("infeasible", True, None, None)
    assert optimum_text(row) == "no strategy within the limit (proven)"


def test_a_class_no_strategy_solves_in_time_settles_a_survivor(ight_lists, tmp_path, ray_session):
    """Hard mode within 5 guesses: PSALM survives the funnel, and its class 00000 cannot be solved in the 4 guesses
    left.  The prover names that one class (its other classes stay at their floors) and the checker decides the
    claim by its own feasibility search; the claim moved to a class that can be solved in time is refused."""
    from pipeline.proofs.certificates.optimal import verify_certificate

    folder, game = prove(tmp_path, "game=words", f"game.secrets.path={ight_lists / 'secrets.txt'}",
                         f"game.guesses.path={ight_lists / 'guesses.txt'}", "game.length=5", "game.hard_mode=true",
                         "game.max_guesses=5", "experiment=prove_wordle")
    cert = json.loads((folder / "certificate.json").read_text())
    psalm = next(s for s in cert["survivors"] if s["opener"] == "psalm")
    impossible = [c for c in psalm["classes"] if c["bound"] >= IMPOSSIBLE]
    assert [(c["response"], c["size"], c["method"]) for c in impossible] == [("00000", 6, "exact")]
    assert all(c["bound"] == 2 * c["size"] - 1 for c in psalm["classes"] if c not in impossible)
    assert cert["proven"] and cert["ub"] == 50 and verify_certificate(folder, game)["complete"]

    def moved(c):
        classes = next(s for s in c["survivors"] if s["opener"] == "psalm")["classes"]
        solvable = next(x for x in classes if x["size"] >= 2 and x["bound"] < IMPOSSIBLE)
        solvable["bound"], solvable["method"] = IMPOSSIBLE, "exact"
        entry = next(s for s in c["survivors"] if s["opener"] == "psalm")
        entry["sum"] = sum(x["bound"] for x in classes)
        entry["value"] = len(IGHT) + entry["sum"]

    with pytest.raises(CertificateError, match="claims no strategy solves it within the 4 guesses left, but one does"):
        verify_certificate(tampered(folder, tmp_path, moved), game)


def upper_bound(outputs, ight_lists, *overrides):
    """The upper_bound stage's summary on the -ight words in hard mode within 5 guesses (one opener has a strategy)."""
    folder, _ = run(outputs, "stage=upper_bound", "game=words", f"game.secrets.path={ight_lists / 'secrets.txt'}",
                    f"game.guesses.path={ight_lists / 'guesses.txt'}", "game.length=5", "game.hard_mode=true",
                    "game.max_guesses=5", "stage.breadth=1", "stage.top_k=1", *overrides)
    return json.loads((folder / "summary.json").read_text())


def test_a_guess_limit_no_ranked_opener_meets_widens_the_search(ight_lists, tmp_path, ray_session):
    """At breadth 1 over the first ranked opener (PSALM) no strategy meets the limit; the stage then widens PSALM's
    classes that break it (breadths 3, 10: PSALM's class 00000 cannot be solved in time at any), then searches the
    stage.widen_top_k ranked openers the same way and finds the one opener that has a strategy, and says so; with
    widen_breadth null it does not."""
    narrow = upper_bound(tmp_path / "narrow", ight_lists, "stage.widen_breadth=null")
    assert (narrow["feasible"], narrow["openers_tried"], narrow["breadth"]) == (False, 1, 1)
    assert "widened" not in narrow
    wide = upper_bound(tmp_path / "wide", ight_lists, "stage.widen_breadth=10", "stage.widen_top_k=22")
    assert (wide["breadth"], wide["openers_tried"]) == (1, len(IGHT + PROBES))
    assert wide["widened"] == {"breadths": [3, 10], "openers": 22, "more_openers": 21, "classes_of_best": {}}
    assert wide["ub"] == 50 and wide["opener"] != "psalm" and wide["max_guesses"] <= 5
