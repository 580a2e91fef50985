"""Time the funnel's deep levels (V_4, V_5) with and without the LB_3 pass, prover and checker, as JSON.

    python benchmarks/deep_levels.py [--game wordle_nyt_jul2023] [--ub 11219] [--openers 8] [--seed 0]

It draws openers at random (seeded) and keeps the first `--openers` whose V_2 and V_3 are at most UB (the ones
the funnel's deep levels see), then measures V_4 and V_5 of each against UB, in CPU seconds of this process,
one fresh solver per level and way, its memo shared by the openers as in one batch of the stage:
- `two_pass`: the code as it is (from level 4 on, every class raised to LB_3, then to LB_level);
- `one_pass`: the same code with the LB_3 pass switched off (classes raised from LB_1 straight to LB_level);
and the same pair for the checker's own bounds (pipeline/proofs/bounds/lower.py).  Values at or below UB must agree
between the ways (they are exact); above UB each way may stop at a different bound.
"""

import argparse
import json
import time
from contextlib import contextmanager, nullcontext

import numpy as np

import pipeline.proofs.bounds.lower as checker_bounds
import pipeline.search.bounds.lower as prover_bounds
from pipeline.games.catalog import builtin_game
from pipeline.feedback.matrix import game_matrix
from pipeline.proofs.game.answer import game_code_matrix
from pipeline.proofs.certificates.tree import answer_of

LEVELS = (4, 5)


@contextmanager
def one_pass():
    """Switch the LB_3 pass off in prover and checker while inside."""
    saved = prover_bounds.floor_levels, checker_bounds.raise_steps
    prover_bounds.floor_levels = checker_bounds.raise_steps = lambda level: (level,)
    try:
        yield
    finally:
        prover_bounds.floor_levels, checker_bounds.raise_steps = saved


def deep_openers(game, codes, ub: int, count: int, seed: int) -> list[int]:
    """The first `count` openers, in a seeded random order, whose V_2 and V_3 are at most `ub`."""
    solver = prover_solver(game, codes)
    everyone = np.arange(codes.shape[1], dtype=np.int32)
    picked = []
    for g in np.random.default_rng(seed).permutation(codes.shape[0]):
        if all(solver.v(int(g), everyone, level, ub)[0] <= ub for level in (2, 3)):
            picked.append(int(g))
            if len(picked) == count:
                break
    return picked


def prover_solver(game, codes):
    k_s = prover_bounds.k_of_game(codes, game.n_codes)
    return prover_bounds.BoundSolver(codes, game.secret_of_guess, game.n_codes, k_s, game.encoded_guesses(),
                                     game.encoded_secrets())


def timed_values(value_of, openers, level, ub) -> dict:
    """V_level of each opener against ub: CPU seconds in all and per opener, and the values."""
    seconds, values = [], []
    for g in openers:
        start = time.process_time()
        values.append(int(value_of(g, level, ub)))
        seconds.append(round(time.process_time() - start, 3))
    return {"cpu_s": round(sum(seconds), 2), "per_opener_s": seconds, "values": values}


def measure(game, codes, checker_codes, openers, ub) -> dict:
    everyone = np.arange(codes.shape[1], dtype=np.int32)
    out = {}
    for way in ("one_pass", "two_pass"):
        for level in LEVELS:
            with one_pass() if way == "one_pass" else nullcontext():
                prover = prover_solver(game, codes)
                checker = checker_bounds.LowerBounds(checker_codes, game.guess_of_secret, game.n_codes)
                out[f"prover_{way}_V{level}"] = timed_values(
                    lambda g, lv, b: prover.v(g, everyone, lv, b)[0], openers, level, ub)
                out[f"checker_{way}_V{level}"] = timed_values(
                    lambda g, lv, b: checker.v(g, checker.everyone, lv, b)[0], openers, level, ub)
    return out


def agree(results: dict, ub: int) -> bool:
    """Every value at or below ub is the same in every way (prover and checker, one or two passes)."""
    for level in LEVELS:
        columns = [results[k]["values"] for k in results if k.endswith(f"V{level}")]
        for row in zip(*columns):
            within = {v for v in row if v <= ub}
            if within and (len(within) > 1 or any(v > ub for v in row)):
                return False
    return True


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="wordle_nyt_jul2023")
    parser.add_argument("--ub", type=int, default=11219, help="the threshold (11219: the list's optimum, TARSE)")
    parser.add_argument("--openers", type=int, default=8)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()
    game = builtin_game(args.game)
    codes = game_matrix(game)
    checker_codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer_of(game))
    openers = deep_openers(game, codes, args.ub, args.openers, args.seed)
    results = measure(game, codes, checker_codes, openers, args.ub)
    speedup = {f"{side}_V{level}": round(results[f"{side}_one_pass_V{level}"]["cpu_s"]
                                        / max(results[f"{side}_two_pass_V{level}"]["cpu_s"], 1e-9), 2)
               for side in ("prover", "checker") for level in LEVELS}
    print(json.dumps({"game": args.game, "ub": args.ub, "seed": args.seed,
                      "openers": [game.guesses[g] for g in openers], "results": results,
                      "one_pass_over_two_pass": speedup, "values_agree": agree(results, args.ub)}, indent=1))


if __name__ == "__main__":
    main()
