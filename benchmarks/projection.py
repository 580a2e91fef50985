"""Project the cost of a whole proof of a big game from a partial run, and print it as JSON.

    python benchmarks/projection.py --game wordle_nyt_jul2023 [--ub N] [--sample 40] [--max-level 5]

What is measured (CPU seconds in this process, so a loaded machine changes little):
- the code matrix; the upper bound: ApMinTotal (n = 10, under the game's guess limit) over the 10
  best-ranked openers, one per orbit of the game's symmetries, then the best opener solved exactly (what
  `experiment=prove_wordle` does with refine=1, with the stages' default memo sizes); `--ub` replaces both
  by a given threshold (e.g. a published exact value), `--no-exact` keeps ApMinTotal's best as the
  threshold when the exact solve is out of reach (the closure is then priced by V_max of the UB opener);
- the game's symmetries (search/symmetry.py): the funnel runs on one opener per orbit, as the stage does;
  S = G games (Primel, Nerdle) need nothing else: secret_of_guess maps every guess to its secret;
- the funnel's V_1 over every opener and V_2 over the V_1 survivors, in full;
- V_3 .. V_max on a seeded sample of the V_2 survivors: each sampled opener goes up the levels while it
  survives, so every level's survival rate and cost per opener come from the sample;
- the closure: prove solves each final survivor's classes exactly; its cost per opener is projected by the
  exact solve of the UB opener (an opener the closure must settle too).

The projection: the opener count of each level is the previous count times the sample's survival rate;
core-seconds are counts times mean seconds. Wall on N cores is the sum over the steps of
max(core-seconds / N, the longest single task), since levels run one after another; the matrix and the
upper bound count as they ran. Sample sizes are printed beside every estimate: small samples of rare
survivors give wide estimates.
"""

import argparse
import json
import resource
import sys
import time

import numpy as np

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.apmintotal import ApSearch, rank_openers
from pipeline.search.bounds import BoundSolver, k_of_game, opener_values
from pipeline.search.exact import ExactSolver
from pipeline.search.symmetry import first_of_each_orbit, opener_representatives

CORES = (2, 8, 64, 512)
BREADTH = 10
AP_MEMO_ENTRIES = 2_000_000  # stage.max_memo_entries of upper_bound
EXACT_MEMO_BITS = 22  # upper_bound's refine_memo_bits and prove's memo_bits


def timed(fn, *args, **kwargs):
    """(result, CPU seconds of this process); a line on stderr per call, to follow a long run."""
    start = time.process_time()
    result = fn(*args, **kwargs)
    seconds = time.process_time() - start
    print(f"{time.strftime('%H:%M:%S')} {fn.__name__}: {seconds:.1f} CPU s", file=sys.stderr, flush=True)
    return result, seconds


def ranked_openers(game, codes, rep: np.ndarray) -> list[int]:
    """The BREADTH best-ranked openers, one per orbit (the upper_bound stage's `ranked`)."""
    symmetric = not np.array_equal(rep, np.arange(len(rep)))
    ranked = rank_openers(codes, game.secret_of_guess, game.n_codes, len(rep) if symmetric else BREADTH)
    return first_of_each_orbit(ranked, rep)[:BREADTH]


def exact_solver(game, codes) -> ExactSolver:
    return ExactSolver(codes, game.secret_of_guess, game.n_codes, max_guesses=game.max_guesses,
                       memo_bits=EXACT_MEMO_BITS)


def upper_bound(game, codes, rep, given: int | None, exact: bool = True) -> dict:
    """ApMinTotal (n = 10) over the 10 best-ranked openers under the game's guess limit, then (`exact`) the
    best feasible one solved exactly."""
    if given is not None:
        return {"ub": given, "source": "--ub", "cpu_s": 0.0, "longest_task_s": 0.0}
    search = ApSearch(codes, game.secret_of_guess, game.n_codes, BREADTH, max_guesses=game.max_guesses,
                      max_entries=AP_MEMO_ENTRIES)
    ranked, rank_s = timed(ranked_openers, game, codes, rep)
    results, ap_s = [], []
    for opener in ranked:
        result, seconds = timed(search.strategy, None, opener)
        results.append(result)
        ap_s.append(seconds)
    feasible = [r for r in results if r.feasible]
    if not feasible:
        raise SystemExit(f"no ApMinTotal strategy within {game.max_guesses} guesses for the ranked openers")
    best = min(feasible, key=lambda r: r.total)
    out = {"opener": game.guesses[best.opener], "apmintotal": best.total, "openers_tried": len(results),
           "infeasible": len(results) - len(feasible), "apmintotal_task_s": round(max(ap_s), 1)}
    value, exact_s = None, 0.0
    if exact:
        (value, solved), exact_s = timed(exact_solver(game, codes).guess_value, best.opener, None, best.total + 1)
        value = int(value) if solved else None
    longest = max(max(ap_s), exact_s)
    return {"ub": value or best.total, **out, "exact": value, "cpu_s": round(rank_s + sum(ap_s) + exact_s, 1),
            "exact_s": round(exact_s, 1) if exact else "skipped (--no-exact)", "longest_task_s": round(longest, 1)}


def full_level(codes, game, k_s, solver, alive, level, ub) -> tuple[np.ndarray, dict]:
    """V_level of every opener in `alive`; (survivors, figures)."""
    (values, _), seconds = timed(opener_values, codes, game.secret_of_guess, game.n_codes, k_s, alive, level, ub,
                                 solver=solver)
    survivors = alive[values <= ub]
    return survivors, {"level": level, "openers": len(alive), "survivors": len(survivors), "sampled": len(alive),
                       "cpu_s": round(seconds, 1), "mean_s": round(seconds / max(len(alive), 1), 4)}


def sampled_levels(solver, sample, n_openers, ub, first, last) -> list[dict]:
    """Levels first..last on a sample that climbs while it survives; counts projected from `n_openers`."""
    everyone = np.arange(solver.codes.shape[1], dtype=np.int32)
    rows, alive, count = [], list(sample), float(n_openers)
    for level in range(first, last + 1):
        if not alive:
            break
        seconds, kept = [], []
        for g in alive:
            (value, _), s = timed(solver.v, int(g), everyone, level, ub)
            seconds.append(s)
            if value <= ub:
                kept.append(g)
        rows.append({"level": level, "openers": round(count), "sampled": len(alive), "sample_survivors": len(kept),
                     "survivors": round(count * len(kept) / len(alive)), "mean_s": round(float(np.mean(seconds)), 4),
                     "longest_s": round(max(seconds), 2), "cpu_s": round(count * float(np.mean(seconds)), 1)})
        count, alive = count * len(kept) / len(alive), kept
    return rows


def closure(game, codes, ub_row: dict, survivors: float, last_level: dict) -> dict:
    """The closure's cost per surviving opener: the UB opener's exact solve when it ran, else the last
    level's longest V (a floor: the closure solves classes the bounds could not settle)."""
    if "opener" not in ub_row:
        return {"skipped": "no UB opener (--ub given)"}
    seconds = ub_row["exact_s"] if ub_row["exact"] is not None else last_level.get("longest_s",
                                                                                 last_level["mean_s"])
    basis = "the UB opener's exact solve" if ub_row["exact"] is not None else "V_max's longest opener (a floor)"
    return {"per_opener_s": seconds, "priced_by": basis, "openers": round(survivors, 1),
            "cpu_s": round(max(survivors, 1.0) * seconds, 1), "longest_task_s": seconds}


def projected_wall(steps: list[tuple[float, float]]) -> dict:
    """Wall on N cores: sum over steps of max(core-seconds / N, longest task)."""
    return {str(n): round(sum(max(cpu / n, longest) for cpu, longest in steps), 1) for n in CORES}


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="wordle_nyt_jul2023")
    parser.add_argument("--ub", type=int, default=None, help="funnel threshold instead of computing the UB")
    parser.add_argument("--sample", type=int, default=40, help="V_2 survivors sampled for V_3 and up")
    parser.add_argument("--max-level", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-exact", action="store_true", help="skip the UB opener's exact solve")
    args = parser.parse_args()
    game = builtin_game(args.game)
    codes, matrix_s = timed(game_matrix, game)
    out = {"game": args.game, "guesses": len(game.guesses), "secrets": len(game.secrets),
           "matrix": {"shape": list(codes.shape), "cpu_s": round(matrix_s, 1), "mb": round(codes.nbytes / 2**20)}}
    generators, rep = opener_representatives(game.encoded_guesses(), game.encoded_secrets(), codes,
                                             len(game.alphabet))
    out["symmetry"] = {"generators": len(generators), "orbits": int(len(np.unique(rep)))}
    ub = upper_bound(game, codes, rep, args.ub, exact=not args.no_exact)
    out["upper_bound"] = ub
    k_s = k_of_game(codes, game.n_codes)
    solver = BoundSolver(codes, game.secret_of_guess, game.n_codes, k_s, game.encoded_guesses(),
                         game.encoded_secrets())
    alive, levels = np.unique(rep).astype(np.int32), []
    for level in (1, 2):
        alive, row = full_level(codes, game, k_s, solver, alive, level, ub["ub"])
        levels.append(row)
    rng = np.random.default_rng(args.seed)
    sample = rng.choice(alive, size=min(args.sample, len(alive)), replace=False)
    levels += sampled_levels(solver, sample, len(alive), ub["ub"], 3, args.max_level)
    out["funnel"] = levels
    out["closure"] = close = closure(game, codes, ub, levels[-1]["survivors"], levels[-1])
    steps = [(matrix_s, matrix_s), (ub["cpu_s"], ub["longest_task_s"])]
    steps += [(row["cpu_s"], row.get("longest_s", row["mean_s"])) for row in levels]
    steps.append((close.get("cpu_s", 0.0), close.get("longest_task_s", 0.0)))
    out["core_hours"] = round(sum(cpu for cpu, _ in steps) / 3600, 2)
    out["projected_wall_s"] = projected_wall(steps)
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
