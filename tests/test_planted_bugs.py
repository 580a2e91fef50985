"""Properties that a one-line slip in the solver or the checker would break while every other test still passed.

Each test pins one such property with values computed by the code under test and compared with a reference:
- the exact solver's memo keeps one candidate set under different numbers of guesses left apart (one solver
  asked under a loose limit and then a tight one, and the other way round, against brute force);
- verify-certificate compares a survivor's (a leaderboard entry's) class list with Split(S, g): a class's size,
  its response or an invented class is refused, in the sampled check too;
- a leaderboard's `settled` openers lie strictly above the threshold: an opener valued at it is a leader;
- a sampled check that re-derives every item of one list but not of the other is partial, never verified
  (a proof: every class, not every elimination; a leaderboard: every elimination, not every class);
- the hybrid's branching search keeps every set its rules do not exclude: a branch one splitter short, the
  last-two kernel starting a guess late, or an obstacle's splitters read without its last member each lose
  the only answer of a game that has one.
"""

import json
import shutil
import subprocess
import sys

import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate
from pipeline.proofs.certificates.leaderboard import verify_leaderboard
from pipeline.search.exact.solver import IMPOSSIBLE, ExactSolver
from pipeline.search.matrix import Matrix
from tests.helpers.words import INF, LIMIT_BINDS, binding_game as limit_game, brute_min_total
from test_leaderboard import board, tiny_game  # noqa: F401  (fixtures: a tiny game's leaderboard with a tie)
from test_proofs_checker import mini_proof, tampered  # noqa: F401  (fixture: the real Mini Nerdle proof)


# ---- the exact solver's memo and the guesses left ---------------------------------------------------------------

@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("order", [(5, 4, 3), (3, 4, 5)], ids=["loose-then-tight", "tight-then-loose"])
def test_one_solver_keeps_the_guesses_left_apart(hard, order):
    """One solver asked for MinTotal of the same secrets with 5, 4 and 3 guesses left (in both orders) gives the
    brute-force value each time: 22, 23, then no strategy.  The memo survives between calls, so a memo keyed on
    the candidate set alone would hand the later queries the first one's answer."""
    game = limit_game(LIMIT_BINDS, hard, 5)
    solver = ExactSolver(Matrix.of_game(game_matrix(game), game), hard_mode=hard, max_guesses=5)
    truth = {left: brute_min_total(game.guesses, game.secrets, hard, left) for left in order}
    assert (truth[5], truth[4], truth[3]) == (22, 23, INF)  # each limit binds: every answer differs
    for left in order:
        value, exact = solver.min_total(left=left)
        if truth[left] == INF:
            assert value >= IMPOSSIBLE and not exact, f"{left} guesses left"
        else:
            assert (value, exact) == (truth[left], True), f"{left} guesses left"


# ---- verify-certificate: a survivor's classes are those of Split(S, g) -----------------------------------------

def _unused_response(classes, length):
    """A response string that names no class in `classes` (and is not the win)."""
    taken = {c["response"] for c in classes} | {"2" * length}
    return next(text for code in range(3 ** length)
                if (text := "".join(str(code // 3 ** i % 3) for i in range(length))) not in taken)


def _grow_a_class(classes, length):  # one class claims a member more; its bound and every sum are unchanged
    classes[0]["size"] += 1


def _rename_a_class(classes, length):  # one class claims a response that is no class of the opener's split
    classes[-1]["response"] = _unused_response(classes, length)


def _invent_a_class(classes, length):  # an extra class of one member bounded at 1, paid for by a bound 1 lower
    response = _unused_response(classes, length)
    max(classes, key=lambda c: c["bound"])["bound"] -= 1
    classes.append({"response": response, "size": 1, "bound": 1, "method": "LB_1"})


CLASS_EDITS = [_grow_a_class, _rename_a_class, _invent_a_class]


@pytest.mark.parametrize("sample", [None, 5], ids=["full", "sampled"])
@pytest.mark.parametrize("edit", CLASS_EDITS)
def test_class_list_other_than_the_split_is_rejected(mini_proof, tmp_path, edit, sample):
    """Sums still close and the tampered class may never be sampled: only comparing the listed classes (response
    and size) with Split(S, opener) notices, and that comparison runs whatever is sampled."""
    folder, game = mini_proof
    cert = json.loads((folder / "certificate.json").read_text())
    survivor = cert["survivors"][0]
    assert len(survivor["classes"]) > 5 and survivor["value"] == len(game.secrets) + sum(
        c["bound"] for c in survivor["classes"])
    forged = tampered(folder, tmp_path, lambda c: edit(c["survivors"][0]["classes"], game.length))
    with pytest.raises(CertificateError, match=r"its classes are not the classes of Split\(S, "):
        verify_certificate(forged, game, sample=sample)


@pytest.mark.slow
@pytest.mark.parametrize("sample", [None, 5], ids=["full", "sampled"])
@pytest.mark.parametrize("edit", CLASS_EDITS)
def test_leaderboard_class_list_other_than_the_split_is_rejected(board, tmp_path, edit, sample):  # noqa: F811
    """The same three edits to the classes of a settled opener (the one with most classes) on a leaderboard
    certificate are refused."""
    artifact, game, _, _ = board
    cert = json.loads((artifact.path / "certificate.json").read_text())
    classes = max(cert["settled"], key=lambda e: len(e["classes"]))["classes"]
    assert sum(len(e["classes"]) for part in ("leaders", "settled") for e in cert[part]) > 5  # more than sampled
    edit(classes, game.length)
    folder = tmp_path / "forged"
    shutil.copytree(artifact.path, folder)
    (folder / "certificate.json").write_text(json.dumps(cert))
    with pytest.raises(CertificateError, match=r"its classes are not the classes of Split\(S, "):
        verify_leaderboard(folder, game, sample=sample)


# ---- leaderboard: settled openers are worth more than the threshold ---------------------------------------------

def _settle_a_tied_leader(cert):
    """The last leader (tied at the threshold) moved into `settled` with its true class bounds, as the stage
    writes a settled entry (no tree, no subtree targets); `ties` updated so the ranking still holds."""
    leader = cert["leaders"].pop()
    assert leader["value"] == cert["threshold"]
    cert["ties"] = len(cert["leaders"]) > cert["k"]
    classes = [{key: c[key] for key in ("response", "size", "bound", "method")} for c in leader["classes"]]
    cert["settled"].append({"opener": leader["opener"], "classes": classes, "sum": leader["sum"],
                            "value": leader["value"]})


def test_an_opener_valued_at_the_threshold_is_not_settled(board, tmp_path):  # noqa: F811
    """Settled openers must be worth MORE than the k-th best; one worth exactly as much is a tied leader, and a
    certificate that lists it as settled hides a tie, so it is refused even though its class bounds are true."""
    artifact, game, values, k = board
    cert = json.loads((artifact.path / "certificate.json").read_text())
    assert cert["ties"] and len(cert["leaders"]) > k and values[cert["leaders"][-1]["opener"]] == cert["threshold"]
    folder = tmp_path / "settled_tie"
    shutil.copytree(artifact.path, folder)
    _settle_a_tied_leader(cert)
    (folder / "certificate.json").write_text(json.dumps(cert))
    with pytest.raises(CertificateError, match=f"does not exceed the threshold {cert['threshold']}"):
        verify_leaderboard(folder, game)


# ---- a sample covering one list but not the other is partial --------------------------------------------------

@pytest.mark.slow
def test_sample_larger_than_the_classes_but_not_the_eliminations_is_partial(mini_proof):
    """Mini Nerdle's certificate has 74 survivor classes and 205 eliminations: a sample of 100 re-derives every
    class but not every elimination, so the check is partial, never `verified`."""
    folder, game = mini_proof
    cert = json.loads((folder / "certificate.json").read_text())
    assert sum(len(s["classes"]) for s in cert["survivors"]) == 74 and len(cert["eliminated"]) == 205
    result = verify_certificate(folder, game, sample=100)
    assert (result["classes_rederived"], result["classes"]) == (74, 74)
    assert (result["openers_rederived"], result["openers_eliminated"]) == (100, 205)
    assert result["complete"] is False
    proc = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(folder), "--sample", "100"],
                          capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("partially checked") and "verified" not in proc.stdout
    assert "re-derived 100 of 205 elimination bounds and 74 of 74 closure class bounds" in proc.stdout


def test_leaderboard_sample_covering_the_eliminations_but_not_the_classes_is_partial(board):  # noqa: F811
    """The other way round, on the tiny leaderboard: a sample of 20 re-derives all of its few eliminations but
    not all of its classes, so that check too is partial."""
    artifact, game, _, _ = board
    cert = json.loads((artifact.path / "certificate.json").read_text())
    n_classes = sum(len(e["classes"]) for part in ("leaders", "settled") for e in cert[part])
    assert len(cert["eliminated"]) < 20 < n_classes
    result = verify_leaderboard(artifact.path, game, sample=20)
    assert (result["openers_rederived"], result["openers_eliminated"]) == (len(cert["eliminated"]),) * 2
    assert (result["classes_rederived"], result["classes"]) == (20, n_classes)
    assert result["complete"] is False


# ---- the hybrid's branching search: a rule that cuts one set too many loses a unique answer --------------------

def _branch_one_short(monkeypatch, branching):
    original = branching._Search.splitters_of
    monkeypatch.setattr(branching._Search, "splitters_of", lambda self, *args: original(self, *args)[1:])


def _kernel_a_guess_late(monkeypatch, branching):
    original = branching._next_pair
    monkeypatch.setattr(branching, "_next_pair", lambda bits, unsplit, branch, start, blocked, acc:
                        original(bits, unsplit, branch, start + 1, blocked, acc))


def _splitters_without_the_last_member(monkeypatch, branching):
    original = branching._splitter_bits
    monkeypatch.setattr(branching, "_splitter_bits", lambda codes, members, out: original(codes, members[:-1], out))


@pytest.mark.parametrize("plant", [_branch_one_short, _kernel_a_guess_late, _splitters_without_the_last_member])
def test_a_branching_rule_one_off_loses_the_unique_answer(plant, monkeypatch):
    """The games of test_a_unique_answer_is_found (one k-set works, by brute force) are all answered right, and
    no longer with one slip planted."""
    from pipeline.blindfold import branching
    from test_blindfold_branching import unique_answer_games, unique_answers_found

    games = unique_answer_games(per_k=2)
    assert unique_answers_found(games)
    plant(monkeypatch, branching)
    assert not unique_answers_found(games)
