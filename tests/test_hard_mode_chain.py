"""Hard mode and the game's guess limit through the whole chain, against a plain brute force.

The brute force below is written from the rules alone (the scalar answering
function, NYT hard mode as the game states it, "found within k guesses"):
it shares no code with the searches.  The tiny games are chosen so that
hard mode and the limit really bind (their values differ from normal
mode / no limit), so a search that ignores either gives another number.
"""

import itertools
import json

import numpy as np
import pytest

from pipeline.config.settings import PROJECT_ROOT
from pipeline import PipelineError
from pipeline.feedback.matrix import game_matrix
from pipeline.games.answer import code_to_colours
from pipeline.games.game import Game
from pipeline.search.apmintotal.value import ApSearch
from pipeline.search.exact.solver import IMPOSSIBLE, ExactSolver
from pipeline.search.strategies.greedy import greedy
from pipeline.search.hard_mode import state_after
from pipeline.search.matrix import Matrix
from pipeline.search.tree import statistics, verify
from pipeline.search.strategies.valuations import all_combinations
from pipeline.proofs.certificates.tree import verify_tree_file
from tests.helpers.words import HARD_BINDS, INF, LIMIT_BINDS, binding_game, brute_min_total, hard_ok

ORIGINAL_GUESSES = PROJECT_ROOT / "data" / "wordle" / "original_guesses.txt"
IGHT_ATCH = "batch catch eight fight hatch latch light match might night patch right sight tight watch wight".split()

CASES = [(game, hard, limit) for game in (HARD_BINDS, LIMIT_BINDS) for hard, limit in game[2]]


def tree_keeps_rules(tree, hard, limit) -> bool:
    """Every path within the limit, and in hard mode every guess allowed by `hard_ok`."""
    if limit is not None and statistics(tree)["max_guesses"] > limit:
        return False
    stack = [(tree, ())]
    while stack:
        node, rows = stack.pop()
        if hard and not hard_ok(node.guess, rows):
            return False
        stack += [(child, rows + ((node.guess, colours),)) for colours, child in node.children.items()]
    return True


@pytest.mark.parametrize("case, hard, limit", CASES)
def test_the_tiny_games_bind_by_brute_force(case, hard, limit):
    game = binding_game(case, hard, limit)
    assert brute_min_total(game.guesses, game.secrets, hard, limit) == case[2][hard, limit]


@pytest.mark.parametrize("case, hard, limit", CASES)
def test_apmintotal_full_breadth_is_the_brute_force_optimum(case, hard, limit):
    game = binding_game(case, hard, limit)
    codes = game_matrix(game)
    search = ApSearch(Matrix.of_game(codes, game), len(game.guesses), hard_mode=hard, max_guesses=limit)
    result = search.strategy()
    expected = case[2][hard, limit]
    if expected == INF:
        assert result.total is None and search.value() is None
        return
    tree = result.tree(list(game.guesses), game.length)
    assert result.total == expected == verify(tree, game.guesses, game.secrets) == search.value()
    assert tree_keeps_rules(tree, hard, limit)


@pytest.mark.parametrize("case, hard, limit", CASES)
def test_exact_is_the_brute_force_optimum(case, hard, limit):
    game = binding_game(case, hard, limit)
    codes = game_matrix(game)
    solver = ExactSolver(Matrix.of_game(codes, game), hard_mode=hard, max_guesses=limit)
    value, _ = solver.min_total()
    expected = case[2][hard, limit]
    if expected == INF:
        assert value >= IMPOSSIBLE
        return
    assert value == expected


def test_one_memo_serves_different_hard_mode_states():
    """The same candidate set is worth more after a response that restricts hard mode: a memo keyed by
    the set alone would hand the second search the first one's value."""
    game = binding_game(HARD_BINDS, True, None)
    codes = game_matrix(game)
    matrix = Matrix.of_game(codes, game)
    exact = ExactSolver(matrix, hard_mode=True)
    search = ApSearch(matrix, len(game.guesses), hard_mode=True)
    checked = 0
    for g, guess in enumerate(game.guesses):
        for code in np.unique(codes[g]):
            members = np.flatnonzero(codes[g] == code)
            cand = [game.secrets[i] for i in members]
            colours = code_to_colours(int(code), game.length)
            free = brute_min_total(game.guesses, cand, True, None)
            bound = brute_min_total(game.guesses, cand, True, None, rows=((guess, colours),))
            if len(cand) < 3 or bound == free:
                continue
            state = state_after([(matrix.encoded_guesses[g], int(code))], game.length)
            assert exact.min_total(members)[0] == search.value(members) == free
            assert exact.min_total(members, state=state)[0] == search.value(members, state=state) == bound
            checked += 1
    assert checked >= 1


@pytest.mark.parametrize("case", [HARD_BINDS, LIMIT_BINDS])
def test_greedy_trees_keep_hard_mode(case):
    game = binding_game(case, True, None)
    codes = game_matrix(game)
    for combination in all_combinations()[::7]:
        result = greedy(Matrix.of_game(codes, game), combination, arithmetic="exact", hard_mode=True)
        tree = result.tree(list(game.guesses), game.length)
        assert verify(tree, game.guesses, game.secrets) == result.total
        assert tree_keeps_rules(tree, True, None), combination
        assert result.depth == statistics(tree)["max_guesses"]
        assert result.total >= case[2][True, None]


def ight_game(hard, limit=6, name="ight"):
    return Game(name, tuple(sorted(ORIGINAL_GUESSES.read_text().split())), tuple(IGHT_ATCH),
                "abcdefghijklmnopqrstuvwxyz", hard, limit)


@pytest.mark.parametrize("hard, optimum", [(False, 41), (True, 42)])
def test_ight_atch_optimum_by_exact_and_apmintotal(hard, optimum):
    game = ight_game(hard)
    codes = game_matrix(game)
    matrix = Matrix.of_game(codes, game)
    solver = ExactSolver(matrix, hard_mode=hard, max_guesses=6)
    assert solver.min_total()[0] == optimum
    result = ApSearch(matrix, 30, hard_mode=hard, max_guesses=6).strategy()
    tree = result.tree(list(game.guesses), game.length)
    assert result.total == optimum == verify(tree, game.guesses, game.secrets)
    assert tree_keeps_rules(tree, hard, 6)


@pytest.fixture
def ight_overrides(tmp_path):
    secrets = tmp_path / "ight_atch.txt"
    secrets.write_text("\n".join(IGHT_ATCH) + "\n")
    return ["game=words", f"game.secrets.path={secrets}", f"game.guesses.path={ORIGINAL_GUESSES}"]


@pytest.mark.slow
@pytest.mark.parametrize("hard, optimum", [(False, 41), (True, 42)])
def test_prove_ight_atch_in_both_modes(run_pipeline, ray_session, ight_overrides, hard, optimum, tmp_path):
    mode = f"game.hard_mode={str(hard).lower()}"
    # every level, V_3 included (hard mode leaves it out by default): CLEWS is the opener hard V_3 eliminates
    artifact = run_pipeline("experiment=prove_wordle", *ight_overrides, mode,
                            "upstream.lower_bound.hard_skip_levels=[]")
    summary = artifact.manifest["summary"]
    assert summary["ub"] == optimum and summary["proven"] is True
    cert = json.loads(artifact.file("certificate.json").read_text())
    assert cert["hard_mode"] is hard and cert["max_guesses"] == 6
    tree = json.loads(artifact.file("tree.json").read_text())
    assert tree["hard_mode"] is hard and tree["game_max_guesses"] == 6 and tree["total"] == optimum
    if hard:
        rests_on_hard_bounds(artifact.path, cert, ight_game(True, name=cert["game"]), tmp_path)  # as it ran


def rests_on_hard_bounds(folder, cert, game, scratch):
    """The hard-mode proof (42) needs the hard-mode bounds: the independent checker re-derives them with its own
    hard-mode rule, and the same claims read as normal-mode bounds do not hold.  CLEWS is eliminated by the
    hard-mode V_3 while its normal-mode V_3 is 42 (a normal-mode funnel keeps it)."""
    import shutil

    from pipeline.proofs.certificates.journal import Journal
    from pipeline.proofs.certificates.optimal import CertificateError, elimination_work, verify_certificate

    result = verify_certificate(folder, game, workers=2, journal=Journal(scratch / "journal", bytes(32), "ight"))
    assert result["complete"] and result["ub"] == 42 and result["resumed_values"] == 0
    kept = Journal(scratch / "journal", bytes(32), "ight")  # what the workers' chunks re-derived, read back
    assert kept.values[elimination_work(3, "hard", game.guess_index["clews"], 42)] > 42
    again = verify_certificate(folder, game, workers=2, journal=kept)
    assert again["complete"] and again["resumed_values"] == kept.read_back >= len(cert["eliminated"])
    clews = next(e for e in cert["eliminated"] if e["opener"] == "clews")
    assert clews["rule"] == "hard" and clews["level"] == 3
    for field, value, message in (("rule", "normal", "normal V_3 re-derived as 42, not above ub=42"),
                                  ("level", 2, "hard V_2 re-derived as .* not above ub=42")):
        forged = scratch / f"forged-{field}"
        shutil.copytree(folder, forged)
        changed = json.loads((forged / "certificate.json").read_text())
        next(e for e in changed["eliminated"] if e["opener"] == "clews")[field] = value
        (forged / "certificate.json").write_text(json.dumps(changed))
        with pytest.raises(CertificateError, match=message):
            verify_certificate(forged, game)


@pytest.mark.slow
def test_verify_tree_refuses_a_normal_tree_in_hard_mode(run_pipeline, ray_session, ight_overrides):
    from pipeline.games.catalog import load_game
    from pipeline.config.compose import compose_config

    normal = run_pipeline("stage=upper_bound", *ight_overrides)
    hard = run_pipeline("stage=upper_bound", *ight_overrides, "game.hard_mode=true")
    hard_game = load_game(compose_config([*ight_overrides, "game.hard_mode=true"]).game)
    assert verify_tree_file(hard.file("tree.json"), hard_game)["total"] == 42
    with pytest.raises(PipelineError, match="breaks hard mode"):
        verify_tree_file(normal.file("tree.json"), hard_game)
    assert normal.manifest["summary"]["ub"] == 41


@pytest.mark.slow
def test_a_limit_no_strategy_meets_is_recorded_not_an_error(run_pipeline, ray_session, ight_overrides):
    """No ub and no tree: the prove stage proves such a limit infeasible (tests/test_infeasible.py)."""
    artifact = run_pipeline("stage=upper_bound", *ight_overrides, "game.max_guesses=2")
    summary = artifact.manifest["summary"]
    assert (summary["feasible"], summary["ub"], summary["game_max_guesses"]) == (False, None, 2)
    assert not artifact.file("tree.json").exists()


def test_exact_stage_reports_an_infeasible_opener(run_pipeline, ray_session, ight_overrides):
    artifact = run_pipeline("stage=exact", *ight_overrides, "game.max_guesses=3", "stage.openers=[fight,zymic]")
    rows = {r["opener"]: r["total"] for r in artifact.manifest["summary"]["results"]}
    assert rows["zymic"] is None or rows["zymic"] > 41
    assert np.all([v is None or v >= 41 for v in rows.values()])


def test_heuristics_flag_trees_deeper_than_the_limit(run_pipeline, ray_session, ight_overrides):
    import pyarrow.parquet as pq

    artifact = run_pipeline("stage=heuristics", *ight_overrides, "game.max_guesses=3",
                            "stage.combinations=[InSet,MostParts]")
    rows = {r["valuation"]: r for r in pq.read_table(artifact.file("valuations.parquet")).to_pylist()}
    for row in rows.values():
        assert row["feasible"] == (row["max_guesses"] <= 3)
        assert (row["total"] is None) == (not row["feasible"])
    assert not rows["InSet"]["feasible"]  # guessing candidates one by one cannot find 16 secrets in 3


@pytest.mark.parametrize("case, hard, limit", [c for c in CASES if c[0][2][c[1], c[2]] < INF])
def test_prove_settles_every_opener_like_the_brute_force(case, hard, limit):
    """prove's closure of an opener without a UB subtree: at ub its value is exact (an optimal opener),
    otherwise a lower bound above ub; with a lower ub every opener is shown worse, never better than it is."""
    from pipeline.search.bounds.closure import ClassSolvers, close_opener, level_floor, opener_classes
    from pipeline.search.bounds.lower import k_of_game

    game = binding_game(case, hard, limit)
    codes = game_matrix(game)
    left = None if limit is None else limit - 1
    matrix = Matrix.of_game(codes, game)
    solver = ExactSolver(matrix, hard_mode=hard, max_guesses=left)
    within = None if limit is None else ClassSolvers(matrix).within(hard)
    lb_solver = ClassSolvers(matrix).bounds(k_of_game(codes, game.n_codes), hard)
    floors = [None] + [level_floor(lb_solver, hard=hard, level=level) for level in (1, 3)]
    optimum = case[2][hard, limit]
    for g, word in enumerate(game.guesses):
        classes = opener_classes(codes, game, g)
        brutes = [brute_min_total(game.guesses, [game.secrets[i] for i in m], hard,
                                  None if limit is None else limit - 1, ((word, colours),))
                  for colours, m, _ in classes]
        brute = len(game.secrets) + sum(brutes)
        for ub, floor in itertools.product((optimum, optimum - 1), floors):
            bounds = close_opener([(m, s) for _, m, s in classes], len(game.secrets), ub, solver, within, left, floor)
            value = len(game.secrets) + sum(b for b, _ in bounds)
            assert value == brute if value == ub else ub < value <= brute, (word, ub, value, brute)
            assert all(b <= truth or b >= INF for (b, _), truth in zip(bounds, brutes)), (word, bounds, brutes)
