"""Exact-search benchmark: V*(SALET), V*(CRANE) and hard-mode V*(SALET) (at most 6 guesses) on original Wordle.

Prints one JSON object.  For each case: the value, CPU seconds of the search
(time.process_time, best of 3 after a warm-up run that loads the numba
kernels), and the search counters of the timed run (nodes searched, memo hits,
guesses evaluated, full guess scans).  Every timed run starts from an empty
memo.  Run: .venv/bin/python benchmarks/exact.py [--only salet,crane,hard_salet]
"""

import argparse
import json
import os
import time

import numpy as np

from pipeline.feedback.matrix import game_matrix
from pipeline.compose import builtin_game
from pipeline.search.exact import ExactSolver, tree_total

CASES = {"salet": ("salet", False, None), "crane": ("crane", False, None), "hard_salet": ("salet", True, 6)}


def figures(game, codes, opener, hard, max_guesses, repeats=3):
    """Value and best-of-`repeats` CPU seconds of V*(opener, S), each run on a fresh memo."""
    solver = ExactSolver(codes, game.secret_of_guess, game.n_codes, hard_mode=hard,
                         encoded_guesses=game.encoded_guesses(), max_guesses=max_guesses)
    g = game.guess_index[opener]
    solver.guess_value(g, np.arange(40, dtype=np.int32))  # warm-up: compile or load the kernels
    times = []
    for _ in range(repeats):
        solver.reset()
        start = time.process_time()
        value, exact = solver.guess_value(g)
        times.append(time.process_time() - start)
    counters = solver.counters()
    total = tree_total(solver.tree(g), codes, np.arange(codes.shape[1]), game.n_codes - 1)
    return {"value": value, "exact": exact, "tree_total": total, "cpu_s": round(min(times), 3),
            "cpu_s_runs": [round(t, 3) for t in times], **counters}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(CASES), help="comma-separated cases: " + ",".join(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args()
    game = builtin_game("wordle_original")
    codes = game_matrix(game)
    out = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    for name in args.only.split(","):
        out[name] = figures(game, codes, *CASES[name], repeats=args.repeats)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
