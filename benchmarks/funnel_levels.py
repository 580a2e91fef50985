"""CPU seconds of the lower-bound funnel under level schedules (which V_i it computes, in order), as JSON lines.

    python benchmarks/funnel_levels.py --game wordle_original --ub 7920 --schedule full:1,2,3,4,5,6 \
                                       --schedule no4:1,2,3,5,6 [--hard] [--sample N] [--seed 0]

Each schedule runs the funnel's levels over every opener (or a seeded sample of `--sample` openers) against
`--ub`, as the lower_bound stage does: a level's survivors (V_i <= UB) enter the next listed level, each level by
the stage's rule (search/bounds/funnel.py; with `--hard` the hard-mode bounds from level 2 on).  A level starts
from empty memos, numba runs one thread and each level's time is process CPU time (a loaded machine changes it
little; the load average is printed beside it).  One JSON line per schedule: each level's CPU s and the openers
left after it, the total, and the first few final survivors (two schedules should leave the same ones).
"""

import argparse
import json
import os
import time

os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba is imported: one thread, CPU time is the work's

import numpy as np  # noqa: E402

HARD_FROM = 2  # the lower_bound stage's default stage.hard_from


def arguments():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="wordle_original")
    parser.add_argument("--ub", type=int, required=True, help="the funnel's threshold (the proof's UB)")
    parser.add_argument("--hard", action="store_true", help="hard mode: the hard-mode bounds from level 2 on")
    parser.add_argument("--sample", type=int, default=0, help="openers sampled (0: every opener)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--schedule", action="append", required=True,
                        help="NAME:LEVELS, e.g. full:1,2,3,4,5,6 (repeatable)")
    return parser.parse_args()


def run_schedule(solvers, openers, levels, ub, hard) -> tuple[list[dict], np.ndarray]:
    """(per level: CPU s and openers left, the final survivors) of one schedule."""
    from pipeline.search.bounds.funnel import level_rule

    rows, alive = [], openers
    for level in levels:
        for solver in solvers.built.values():
            solver.reset()
        start = time.process_time()
        values, _ = solvers.values(alive, level, ub, level_rule(hard, HARD_FROM, level))
        alive = alive[values <= ub]
        rows.append({"level": level, "cpu_s": round(time.process_time() - start, 2), "left": int(len(alive))})
        if not len(alive):
            break
    return rows, alive


def main() -> None:
    from pipeline.feedback.matrix import game_matrix
    from pipeline.games.catalog import builtin_game
    from pipeline.search.bounds.funnel import FunnelSolvers, level_rule
    from pipeline.search.bounds.lower import k_of_game
    from pipeline.search.matrix import Matrix

    args = arguments()
    game = builtin_game(args.game, hard_mode=args.hard)
    codes = game_matrix(game)
    solvers = FunnelSolvers(Matrix.of_game(codes, game), k_of_game(codes, game.n_codes))
    openers = np.arange(len(game.guesses), dtype=np.int32)
    if 0 < args.sample < len(openers):
        openers = np.sort(np.random.default_rng(args.seed).choice(openers, args.sample, replace=False))
        openers = openers.astype(np.int32)
    for rule in {"normal", level_rule(args.hard, HARD_FROM, 3)}:  # compile and warm every kernel first
        solvers.values(openers[:20], 3, args.ub, rule)
    for spec in args.schedule:
        name, levels = spec.split(":")
        load = os.getloadavg()
        rows, alive = run_schedule(solvers, openers, [int(level) for level in levels.split(",")], args.ub,
                                   args.hard)
        print(json.dumps({"game": args.game, "hard_mode": args.hard, "ub": args.ub, "openers": int(len(openers)),
                          "schedule": name, "cpu_s": round(sum(r["cpu_s"] for r in rows), 2), "levels": rows,
                          "final": [game.guesses[g] for g in alive[:5]],
                          "load": {"before": [round(x, 2) for x in load],
                                   "after": [round(x, 2) for x in os.getloadavg()]}}), flush=True)


if __name__ == "__main__":
    main()
