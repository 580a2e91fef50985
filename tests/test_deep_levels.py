"""benchmarks/deep_levels.py: with and without the LB_3 pass, prover and checker give the same V_4 and V_5
wherever they are within the threshold."""

import pytest

from benchmark_module import load_benchmark
from pipeline.games.catalog import builtin_game
from pipeline.feedback.matrix import game_matrix
from pipeline.proofs.game.answer import game_code_matrix
from pipeline.proofs.certificates.tree import answer_of


@pytest.mark.slow
def test_one_and_two_passes_agree_within_the_threshold_on_mini_nerdle():
    bench = load_benchmark("deep_levels")
    game = builtin_game("mini_nerdle")
    codes = game_matrix(game)
    checker_codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer_of(game))
    ub = 560
    openers = bench.deep_openers(game, codes, ub, 6, seed=0)
    assert len(openers) == 6
    results = bench.measure(game, codes, checker_codes, openers, ub)
    assert bench.agree(results, ub)
    within = [v for v in results["prover_two_pass_V4"]["values"] if v <= ub]
    assert within, "no V_4 within the threshold: the comparison would prove nothing"
    # the switch really switches: the LB_3 pass is back on after the one-pass run
    assert bench.prover_bounds.floor_levels(5) == (3, 5) and bench.checker_bounds.raise_steps(5) == (3, 5)
    results["checker_one_pass_V5"]["values"][0] = ub - 1 if results["checker_two_pass_V5"]["values"][0] != ub - 1 else ub - 2
    assert not bench.agree(results, ub)
