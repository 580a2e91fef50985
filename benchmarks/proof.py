"""Time the proof of optimality on original Wordle and print the figures as JSON.

    python benchmarks/proof.py [--hard] [--funnel-levels N] [--experiment]

Reports: V*(SALET) by exact search (normal mode; hard mode with at most six
guesses when --hard), V_1 and V_2 of all 12972 openers with the UB = 7920
funnel, optionally the funnel up to level N (V_3.. in-process, slow), SALET's
V_1..V_N, and peak memory.  CPU seconds are process time (all threads).

--experiment also runs `experiment=prove_wordle` as a user does (fresh
outputs folder, embedded Ray) and reports per stage and per fan-out level:
wall time, tasks, summed task seconds and the peak RSS of the whole process
tree while that level ran; plus totals (the summed task time is what a
cluster divides among its cores).
"""

import argparse
import json
import resource
import time

import numpy as np

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.bounds.lower import BoundSolver, k_of_game
from pipeline.search.exact.solver import ExactSolver, tree_total
from pipeline.search.matrix import Matrix

UB = 7920


class Clock:
    def __enter__(self):
        self.wall, self.cpu = time.perf_counter(), time.process_time()
        return self

    def __exit__(self, *exc):
        self.wall = round(time.perf_counter() - self.wall, 3)
        self.cpu = round(time.process_time() - self.cpu, 3)


def exact_figures(game, codes, hard):
    solver = ExactSolver(Matrix.of_game(codes, game), hard_mode=hard, max_guesses=6 if hard else None)
    salet = game.guess_index["salet"]
    solver.guess_value(salet, np.arange(20, dtype=np.int32))  # compile / load the kernels
    solver.reset()
    with Clock() as clock:
        value, exact = solver.guess_value(salet)
    counters = solver.counters()
    total = tree_total(solver.tree(salet), codes, np.arange(codes.shape[1]), game.n_codes - 1)
    return {"value": value, "exact": exact, "tree_total": total, "wall_s": clock.wall, "cpu_s": clock.cpu,
            **counters}


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--hard", action="store_true", help="also solve SALET in hard mode (slower)")
    parser.add_argument("--funnel-levels", type=int, default=2, help="run the funnel up to this level")
    parser.add_argument("--experiment", action="store_true",
                        help="also run experiment=prove_wordle end to end (about half an hour on 2 cores)")
    args = parser.parse_args()
    out = {}
    with Clock() as clock:
        game = builtin_game("wordle_original")
        codes = game_matrix(game)
    out["matrix"] = {"shape": list(codes.shape), "wall_s": clock.wall}
    out["exact_normal"] = exact_figures(game, codes, hard=False)
    if args.hard:
        out["exact_hard_max6"] = exact_figures(game, codes, hard=True)

    k_s = k_of_game(codes, game.n_codes)
    solver = BoundSolver(codes, game.secret_of_guess, game.n_codes, k_s,
                         game.encoded_guesses(), game.encoded_secrets())
    salet = game.guess_index["salet"]
    solver.opener_values([salet], 2)  # compile
    alive = np.arange(codes.shape[0])
    funnel = [{"level": 0, "survivors": len(alive)}]
    for level in range(1, args.funnel_levels + 1):
        with Clock() as clock:
            values, _ = solver.opener_values(alive, level, UB)
        alive = alive[values <= UB]
        funnel.append({"level": level, "survivors": len(alive), "wall_s": clock.wall, "cpu_s": clock.cpu})
    out["k_s"] = k_s
    out["funnel_ub_7920"] = funnel
    out["survivors"] = [game.guesses[g] for g in alive] if len(alive) <= 10 else len(alive)
    salet_values = {}
    for level in range(1, max(args.funnel_levels, 2) + 1):
        with Clock() as clock:
            value, _ = solver.v(salet, np.arange(codes.shape[1], dtype=np.int32), level)
        salet_values[f"V{level}"] = {"value": value, "wall_s": clock.wall}
    out["salet"] = salet_values
    out["peak_rss_mb"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)
    if args.experiment:
        out["prove_wordle"] = experiment_figures()
    print(json.dumps(out, indent=2))


def experiment_figures() -> dict:
    """Run experiment=prove_wordle end to end and break its time and memory down by fan-out level."""
    import stage_run  # benchmarks/stage_run.py, beside this script

    samples: list = []
    run = stage_run.run(["experiment=prove_wordle"], samples)
    stages, task_seconds = {}, 0.0
    for name, stage in run["stages"].items():
        fan = stage.get("fan_out") or {}
        task_seconds += fan.get("task_seconds", 0.0)
        stages[name] = {"run_seconds": stage["run_seconds"], "levels": [
            {"label": r["label"], "tasks": r["tasks"], "wall_s": r["wall_seconds"], "task_seconds": r["task_seconds"],
             "longest_task_s": r["longest_task"], "peak_rss_tree_mb": _peak_between(
                 samples, r.get("started_at", 0.0), r.get("started_at", 0.0) + r["wall_seconds"])}
            for r in fan.get("rounds", [])]}
    return {"returncode": run["returncode"], "wall_s": run["wall_s"], "peak_rss_tree_mb": run["peak_rss_tree_mb"],
            "task_seconds_total": round(task_seconds, 1), "stages": stages,
            "certificate": (run["stages"].get("prove") or {}).get("summary"), "stderr_tail": run["stderr_tail"]}


def _peak_between(samples, start, end) -> int | None:
    inside = [rss for t, rss in samples if start <= t <= end]
    return round(max(inside) / 2**20) if inside else None


if __name__ == "__main__":
    main()
