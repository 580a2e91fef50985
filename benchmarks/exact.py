"""Exact-search benchmark: V*(SALET), V*(CRANE) and hard-mode V*(SALET) (at most 6 guesses) on original Wordle.

Prints one JSON object.  For each case: the value, CPU seconds of the search
(time.process_time, best of 3 after a warm-up run that loads the numba
kernels), and the search counters of the timed run (nodes searched, memo hits,
guesses evaluated, full guess scans).  Every timed run starts from an empty
memo.  Run: .venv/bin/python benchmarks/exact.py [--only salet,crane,hard_salet]

With `--vs-selby DIR` (a folder holding Alex Selby's wordle.cpp and its two
original lists; never part of the project) each case also runs Selby's solver,
built there with g++, on the same opener in the same run: its value and CPU
seconds (the best of the same repeats; its own "dCPU" figure) and the ratio
ours / Selby's.  Selby's solver always plays at most 6 guesses; the normal-mode
optima of SALET and CRANE are the same without the limit.
"""

import argparse
import json
import os
import re
import subprocess
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.exact.solver import ExactSolver, tree_total
from pipeline.search.matrix import Matrix

CASES = {"salet": ("salet", False, None), "crane": ("crane", False, None), "hard_salet": ("salet", True, 6)}


def figures(game, codes, opener, hard, max_guesses, repeats=3):
    """Value and best-of-`repeats` CPU seconds of V*(opener, S), each run on a fresh memo."""
    solver = ExactSolver(Matrix.of_game(codes, game), hard_mode=hard, max_guesses=max_guesses)
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


def build_selby(folder):
    """Selby's solver compiled from `folder`/wordle.cpp into a temporary folder (its path)."""
    source = Path(folder) / "wordle.cpp"
    if not source.is_file():
        raise SystemExit(f"error: no wordle.cpp in {folder}")
    binary = Path(tempfile.mkdtemp(prefix="selby-")) / "wordle"
    subprocess.run(["g++", "-O3", "-march=native", "-std=c++17", "-DCOMMITDESC=\"anchor\"", "-o", str(binary),
                    str(source)], check=True)
    return binary


def selby_figures(binary, folder, opener, hard, repeats=3):
    """Value and best-of-`repeats` CPU seconds (Selby's own dCPU) of Selby's solver on one opener."""
    command = [str(binary), "-a", "wordlist_orig_all", "-h", "wordlist_orig_hidden", "-w", opener]
    times, value = [], None
    for _ in range(repeats):
        out = subprocess.run(command + (["-H"] if hard else []), cwd=folder, capture_output=True, text=True,
                             check=True).stdout
        found = re.search(rf"First guess {opener}\s+=\s+(\d+).*dCPU =\s+([0-9.]+)", out)
        if found is None:
            raise SystemExit(f"error: Selby's solver printed no value for {opener}")
        value, cpu = int(found.group(1)), float(found.group(2))
        times.append(cpu)
    return {"value": value, "cpu_s": min(times), "cpu_s_runs": times}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--only", default=",".join(CASES), help="comma-separated cases: " + ",".join(CASES))
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--vs-selby", metavar="DIR", help="also run Selby's solver from DIR (wordle.cpp + lists)")
    args = parser.parse_args()
    selby = build_selby(args.vs_selby) if args.vs_selby else None
    game = builtin_game("wordle_original")
    codes = game_matrix(game)
    out = {"load_average": [round(x, 2) for x in os.getloadavg()]}
    for name in args.only.split(","):
        out[name] = figures(game, codes, *CASES[name], repeats=args.repeats)
        if selby is not None:
            opener, hard, _ = CASES[name]
            theirs = selby_figures(selby, args.vs_selby, opener, hard, repeats=args.repeats)
            out[name]["selby"] = theirs
            out[name]["ratio_to_selby"] = round(out[name]["cpu_s"] / theirs["cpu_s"], 3)
    out["load_average_after"] = [round(x, 2) for x in os.getloadavg()]
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
