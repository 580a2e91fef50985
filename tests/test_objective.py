"""The worst-case objective (stage.objective=max_then_total) against a brute force over every strategy.

The reference below is written from the rules alone: for every candidate set it keeps the Pareto front of
(most guesses, Total) over all strategies (a strategy's pair is 1 + the deepest class's depth and |C| + the
classes' Totals, both monotone, so dominated pairs of a class never help), and the lexicographic optimum is
the least pair of the root's front within the game's limit.  It shares no code with the searches, which go
the other way (the least feasible guess limit, then MinTotal under it).
"""

import json
from functools import lru_cache

import pyarrow.parquet as pq
import pytest

from pipeline.artifacts.tree_nodes import exact_tree
from pipeline import PipelineError
from pipeline.feedback.matrix import game_matrix
from pipeline.games.answer import feedback
from pipeline.games.catalog import builtin_game
from pipeline.config.stages import UpperBoundConfig
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.objective import depth_lower_bound, least_limit
from pipeline.search.tree import statistics, verify
from pipeline.stages import exact, upper_bound
from tests.helpers.words import HARD_BINDS, INF, LIMIT_BINDS, binding_game, hard_ok
from tests.test_hard_mode_chain import tree_keeps_rules


def pareto(pairs):
    """The (depth, total) pairs no other pair beats in both."""
    front = []
    for depth, total in sorted(set(pairs)):
        if not front or total < front[-1][1]:
            front.append((depth, total))
    return front


def brute_fronts(guesses, secrets, respond, hard):
    """front(opener or None) -> Pareto front of (max guesses, Total) over every strategy (opening with `opener`)."""
    win = respond(secrets[0], secrets[0])

    @lru_cache(maxsize=None)
    def front(cand, rows, forced=None):
        if len(cand) == 1 and forced is None:
            return ((1, 1),)
        pairs = []
        for g in guesses if forced is None else (forced,):
            if hard and not hard_ok(g, rows):
                continue
            parts = {}
            for s in cand:
                parts.setdefault(respond(g, s), []).append(s)
            if len(parts) == 1 and g not in cand:
                continue
            combined = [(1, len(cand))]
            for code, part in parts.items():
                if code != win:
                    child = front(tuple(part), tuple(sorted(rows + ((g, code),))) if hard else ())
                    combined = pareto([(max(d, 1 + cd), t + ct) for d, t in combined for cd, ct in child])
            pairs += combined
        return tuple(pareto(pairs))

    return lambda opener=None: front(tuple(secrets), (), opener)


def lexicographic(front, limit):
    """The least (max guesses, Total) within the limit, None if no strategy meets it."""
    return min((p for p in front if limit is None or p[0] <= limit), default=None)


def min_total(front, limit):
    return min((t for d, t in front if limit is None or d <= limit), default=None)


# secrets, extra guesses, {}: the least Total (18) needs 4 guesses, 3 cost 19; opening with POUND, 24 needs 5, 4 cost 25
TRADES = (["cills", "fight", "hight", "kills", "latch", "lills", "might", "pound"], ["acorn", "ictus", "vitae"], {})
TINY = [(case, hard, limit) for case in (HARD_BINDS, LIMIT_BINDS, TRADES) for hard in (False, True)
        for limit in (None, 4)]


@pytest.mark.parametrize("case, hard, limit", TINY)
def test_exact_max_then_total_is_the_brute_force_per_opener(case, hard, limit):
    game = binding_game(case, hard, limit)
    fronts = brute_fronts(game.guesses, game.secrets, feedback, hard)
    if (hard, limit) in case[2]:  # the front agrees with the MinTotal brute force of test_hard_mode_chain
        assert min_total(fronts(), limit) == (None if case[2][hard, limit] == INF else case[2][hard, limit])
    codes = game_matrix(game)
    best = None
    for g, word in enumerate(game.guesses):
        expected = lexicographic(fronts(word), limit)
        total, nodes = exact.solve_opener(g, Matrix.of_game(codes, game), hard_mode=hard, memo_bits=16,
                                          max_guesses=limit, objective="max_then_total")
        if expected is None:
            assert total is None, word
            continue
        tree = exact_tree(nodes, game, codes)
        assert (statistics(tree)["max_guesses"], total) == expected, word
        assert verify(tree, game.guesses, game.secrets) == total and tree_keeps_rules(tree, hard, limit)
        best = expected if best is None else min(best, expected)
    assert best == lexicographic(fronts(), limit)


@pytest.mark.parametrize("case, hard, limit", TINY)
def test_apmintotal_full_breadth_max_then_total_is_the_brute_force(case, hard, limit):
    game = binding_game(case, hard, limit)
    fronts = brute_fronts(game.guesses, game.secrets, feedback, hard)
    codes = game_matrix(game)
    openers = list(range(len(game.guesses)))
    cfg = UpperBoundConfig(breadth=len(game.guesses), max_memo_entries=100_000, ranking="ExpSizeSplit",
                           objective="max_then_total")
    evaluated = upper_bound._evaluate(openers, Matrix.of_game(codes, game), cfg, hard_mode=hard, max_guesses=limit)
    for g, (depth, result) in zip(openers, evaluated):
        expected = lexicographic(fronts(game.guesses[g]), limit)
        assert (None if depth is None else (depth, result.total)) == expected, game.guesses[g]
        if expected is not None:
            tree = result.tree(list(game.guesses), game.length)
            assert statistics(tree)["max_guesses"] == depth and tree_keeps_rules(tree, hard, limit)


def test_the_objectives_differ_on_a_tiny_game():
    """TRADES: Total and the worst case trade off for the game and for the opener POUND, so a search that
    ignores the objective gives other numbers."""
    game = binding_game(TRADES, False, None)
    fronts = brute_fronts(game.guesses, game.secrets, feedback, False)
    assert fronts() == ((3, 19), (4, 18)) and fronts("pound") == ((4, 25), (5, 24))
    codes = game_matrix(game)
    g = game.guess_index["pound"]
    for objective, expected in (("total", (5, 24)), ("max_then_total", (4, 25))):
        total, nodes = exact.solve_opener(g, Matrix.of_game(codes, game), hard_mode=False, memo_bits=16,
                                          max_guesses=None, objective=objective)
        tree = exact_tree(nodes, game, codes)
        assert (statistics(tree)["max_guesses"], total) == expected


@pytest.mark.parametrize("overrides", [{"pegs": 3, "colours": 3}, {"pegs": 2, "colours": 4}])
def test_small_mastermind_max_then_total_is_the_brute_force(overrides):
    game = builtin_game("mastermind", **overrides)
    fronts = brute_fronts(game.guesses, game.secrets, game.answering.response, False)
    codes = game_matrix(game)
    results = {}
    for g, word in enumerate(game.guesses):
        total, nodes = exact.solve_opener(g, Matrix.of_game(codes, game), hard_mode=False, memo_bits=16,
                                          max_guesses=None, objective="max_then_total")
        results[word] = (statistics(exact_tree(nodes, game, codes))["max_guesses"], total)
        assert results[word] == lexicographic(fronts(word), None), word
    assert min(results.values()) == lexicographic(fronts(), None)


def test_least_limit_and_the_counting_bound():
    assert [depth_lower_bound(n, 15) for n in (1, 2, 15, 16, 211, 212, 1296)] == [1, 2, 2, 3, 3, 4, 4]
    tried = []

    def within(d):
        tried.append(d)
        return 10 * d if d >= 5 else None

    assert least_limit(within, 1296, 15, None) == (5, 50) and tried == [4, 5]
    assert least_limit(within, 1296, 15, 4) == (None, None)


@pytest.mark.slow
def test_stages_record_the_objective(run_pipeline, ray_session, tmp_path):
    """TRADES as game=words: exact (POUND) and upper_bound (full breadth, refined) record their objective and
    reach the brute force's pairs."""
    secrets, extra, _ = TRADES
    (tmp_path / "s.txt").write_text("\n".join(secrets) + "\n")
    (tmp_path / "g.txt").write_text("\n".join(sorted(set(secrets + extra))) + "\n")
    game = ["game=words", f"game.secrets.path={tmp_path / 's.txt'}", f"game.guesses.path={tmp_path / 'g.txt'}",
            "game.max_guesses=null"]
    for objective, opener, best in (("total", (5, 24), (4, 18)), ("max_then_total", (4, 25), (3, 19))):
        art = run_pipeline("stage=exact", *game, "stage.openers=[pound]", "stage.memo_bits=12",
                           f"stage.objective={objective}")
        row = pq.read_table(art.file("exact.parquet")).to_pylist()[0]
        assert (row["objective"], row["max_guesses"], row["total"]) == (objective, *opener)
        body = json.loads(art.file("tree-pound.json").read_text())
        assert (body["objective"], body["max_guesses"], body["total"]) == (objective, *opener)
        assert art.manifest["summary"]["objective"] == objective
        art = run_pipeline("stage=upper_bound", *game, "stage.breadth=11", "stage.refine=2", "stage.batch_size=11",
                           "stage.max_memo_entries=10000", "stage.refine_memo_bits=12",
                           f"stage.objective={objective}")
        summary = json.loads(art.file("summary.json").read_text())
        assert (summary["objective"], summary["max_guesses"], summary["ub"]) == (objective, *best)
        assert json.loads(art.file("tree.json").read_text())["objective"] == objective


@pytest.mark.parametrize("stage", ["exact", "upper_bound"])
def test_a_bad_objective_is_one_error(compose_config, stage):
    cfg = compose_config(f"stage={stage}", "stage.objective=worst")
    module = {"exact": exact, "upper_bound": upper_bound}[stage]
    with pytest.raises(PipelineError, match="stage.objective must be total or max_then_total, not 'worst'"):
        module.validate(cfg.stage, builtin_game("mastermind", pegs=2, colours=3))
