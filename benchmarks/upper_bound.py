"""Time the upper-bound maths (greedy valuations and ApMinTotal) on one game; print JSON.

    python benchmarks/upper_bound.py [--game wordle_original] [--breadths 1,5,10] [--sweep] [--openers 10]

Compilation (numba, cached on disk) is timed separately from the runs.
`--sweep` also times all 325 greedy combinations single-threaded.
`--openers k` times ApMinTotal(S, 10) for each of the k best-ranked openers, each with a fresh search as the
upper_bound stage runs them (a search of its own per opener, whichever task it shares): per-opener CPU
seconds and totals.
"""

import argparse
import json
import resource
import time

import numpy as np

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.apmintotal.value import ApSearch, rank_openers
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.greedy import greedy
from pipeline.search.tree import statistics, verify
from pipeline.search.strategies.valuations import all_combinations, transposed

TABLE_1 = [
    "MostParts,InSet,ExpSizeSplit", "MostParts,InSet,Information", "MostParts,InSet",
    "Information,InSet,ExpSizeSplit", "MostParts", "Information", "ExpSizeSplit", "MaxSizeSplit", "InSet",
]


def timed(fn, *args, **kwargs):
    wall, cpu = time.perf_counter(), time.process_time()
    out = fn(*args, **kwargs)
    return out, round(time.perf_counter() - wall, 3), round(time.process_time() - cpu, 3)


def warm_up(matrix: Matrix) -> None:
    """Compile (or load from the numba cache) every kernel on a 40-secret sub-game."""
    small = np.arange(min(40, matrix.n_secrets))
    sog = matrix.secret_of_guess
    greedy(Matrix(matrix.codes[:, small], np.where(sog < len(small), sog, -1), matrix.n_codes), "MostParts")
    ApSearch(matrix, 2).strategy(small)


def per_opener(matrix: Matrix, guesses, k, breadth=10) -> dict:
    """ApMinTotal(S, breadth) of each of the k best-ranked openers, a fresh search each: totals and CPU s."""
    rows = []
    for g in rank_openers(matrix, k):
        search = ApSearch(matrix, breadth)
        result, wall, cpu = timed(search.strategy, None, g)
        rows.append({"opener": guesses[g], "total": result.total, "wall_s": wall, "cpu_s": cpu,
                     "scans": result.stats["scans"], "memo_entries": result.stats["memo_entries"]})
    best = min(rows, key=lambda r: r["total"])
    return {"breadth": breadth, "openers": rows, "best": [best["opener"], best["total"]],
            "cpu_s_total": round(sum(r["cpu_s"] for r in rows), 3),
            "cpu_s_max": max(r["cpu_s"] for r in rows)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="wordle_original")
    parser.add_argument("--breadths", default="1,5,10")
    parser.add_argument("--sweep", action="store_true")
    parser.add_argument("--openers", type=int, default=10, help="best-ranked openers timed one by one (0: none)")
    args = parser.parse_args()

    game = builtin_game(args.game)
    guesses, secrets = list(game.guesses), list(game.secrets)
    codes, matrix_s, _ = timed(game_matrix, game)
    codes_t, transpose_s, _ = timed(transposed, codes)
    matrix = Matrix(codes, game.secret_of_guess, game.n_codes, codes_t=codes_t)
    report = {"game": args.game, "guesses": len(guesses), "secrets": len(secrets),
              "matrix_s": matrix_s, "transpose_s": transpose_s}

    _, report["compile_s"], _ = timed(warm_up, matrix)

    report["greedy"] = []
    for combination in TABLE_1:
        result, wall, cpu = timed(greedy, matrix, combination)
        report["greedy"].append({"combination": combination, "total": result.total,
                                 "opener": guesses[result.opener], "wall_s": wall, "cpu_s": cpu})
    if args.sweep:
        totals, wall, cpu = timed(lambda: [greedy(matrix, c).total for c in all_combinations()])
        report["sweep"] = {"combinations": len(totals), "best": min(totals),
                           "reaching_best": totals.count(min(totals)), "wall_s": wall, "cpu_s": cpu}

    report["apmintotal"] = []
    for breadth in [int(b) for b in args.breadths.split(",") if b]:
        search = ApSearch(matrix, breadth)
        result, wall, cpu = timed(search.strategy)
        tree = result.tree(guesses, game.length)
        stats = statistics(tree)
        report["apmintotal"].append({
            "breadth": breadth, "total": result.total, "opener": guesses[result.opener],
            "verified_total": verify(tree, guesses, secrets), "distribution": stats["distribution"],
            "wall_s": wall, "cpu_s": cpu, **result.stats,
        })
    if args.openers:
        report["apmintotal_per_opener"] = per_opener(matrix, guesses, args.openers)
    report["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
