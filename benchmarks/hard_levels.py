"""CPU seconds per opener of one lower-bound funnel level (hard-mode bounds with --hard), and an A/B against another
checkout, printed as one JSON object.

    python benchmarks/hard_levels.py --game wordle_nyt_jul2023 --hard --ub 11627 --level 4 [--sample 20]
                                     [--seed 0] [--ref COMMIT_OR_CHECKOUT] [--checker]

A seeded sample of `--sample` openers that reach the level (their V_{level-1} at most `--ub`, by the rule the
funnel uses there: the hard-mode bounds from level 2 on with `--hard`; found by trying the guesses in a seeded
random order) gets V_level(g, S) with early exit above `--ub`, in index order, as a lower_bound task computes it
(search/bounds/funnel.py: one solver, its memo kept from opener to opener): the hard-mode bounds with `--hard`,
else the normal-mode ones.  The kernels are warmed first (the screening, then the solvers' memos emptied), numba
runs one thread, and each opener's time is process CPU time (time.process_time), so a loaded machine changes it
little; the load average is printed beside it.  `--ref` runs the same measurement in a subprocess on another checkout (a folder, or a
commit checked out into a temporary git worktree that is removed afterwards) and reports both, the ratio of
their CPU seconds (ref / this) and whether every (value, exact) pair is identical.  `--checker` times the
certificate checker's own bounds instead (proofs/bounds/: V_level(g, S) with early exit above `--ub`, one
instance for the sample, as a check's worker does), on the same sample; its `exact` is the value being at most
the UB (it returns no flag).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

os.environ["NUMBA_NUM_THREADS"] = "1"  # before numba is imported: one thread, CPU time is the work's

import numpy as np  # noqa: E402

ROOT = Path(__file__).resolve().parents[1]
HARD_FROM = 2  # the lower_bound stage's default stage.hard_from


def checkout_commit(folder) -> str:
    """The short commit of a checkout, with "-dirty" when its tracked files differ from it."""
    commit = subprocess.run(["git", "-C", str(folder), "rev-parse", "--short", "HEAD"], capture_output=True,
                            text=True).stdout.strip() or "unknown"
    dirty = subprocess.run(["git", "-C", str(folder), "status", "--porcelain", "--untracked-files=no"],
                           capture_output=True, text=True).stdout.strip()
    return commit + ("-dirty" if dirty else "")


def reaching_openers(solvers, n_guesses: int, args) -> np.ndarray:
    """The first `args.sample` guesses of a seeded random order whose V_{level-1} is at most the UB, sorted."""
    from pipeline.search.bounds.funnel import level_rule

    chosen = []
    for g in np.random.default_rng(args.seed).permutation(n_guesses).astype(np.int32):
        if args.level > 1:
            rule = level_rule(args.hard, HARD_FROM, args.level - 1)
            value, _ = solvers.values(np.array([g], dtype=np.int32), args.level - 1, args.ub, rule)
            if value[0] > args.ub:
                continue
        chosen.append(g)
        if len(chosen) == args.sample:
            break
    return np.sort(np.array(chosen, dtype=np.int32))


def measure(args) -> dict:
    """This checkout's figures: per-opener CPU seconds, values and exact flags of the sample."""
    from pipeline.feedback.matrix import game_matrix
    from pipeline.games.catalog import builtin_game
    from pipeline.search.bounds.funnel import FunnelSolvers
    from pipeline.search.bounds.lower import k_of_game
    from pipeline.search.matrix import Matrix

    game = builtin_game(args.game)
    codes = game_matrix(game)
    solvers = FunnelSolvers(Matrix.of_game(codes, game), k_of_game(codes, game.n_codes))
    solver = solvers.solver("hard" if args.hard else "normal")
    if args.openers:
        openers = np.array([game.guess_index[w] for w in args.openers.split(",")], dtype=np.int32)
    else:
        openers = reaching_openers(solvers, len(game.guesses), args)
    if args.checker:
        value_of = checker_values(game, codes, args)
    else:
        solver.opener_values(openers[:1], args.level, args.ub)  # warm
        for built in solvers.built.values():
            built.reset()
        value_of = lambda g: solver.opener_values(np.array([g], dtype=np.int32), args.level, args.ub)  # noqa: E731
    load_before = os.getloadavg()
    seconds, values, exact = [], [], []
    for g in openers:
        started = time.process_time()
        value, done = value_of(g)
        seconds.append(round(time.process_time() - started, 4))
        values.append(int(value[0]))
        exact.append(bool(done[0]))
    return {"checkout": str(ROOT if args.checkout is None else args.checkout), "commit": checkout_commit(
        ROOT if args.checkout is None else args.checkout), "openers": [game.guesses[g] for g in openers],
        "cpu_s_total": round(sum(seconds), 3), "cpu_s_mean": round(float(np.mean(seconds)), 4),
        "cpu_s_median": round(float(np.median(seconds)), 4), "cpu_s_max": round(max(seconds), 4),
        "cpu_s": seconds, "values": values, "exact": exact, "load_before": [round(x, 2) for x in load_before],
        "load_after": [round(x, 2) for x in os.getloadavg()]}


def checker_values(game, codes, args):
    """The checker's V_level(g, S) (early exit above the UB) as (values, exact) arrays of one, its kernels warmed on
    a small level first (a fresh instance then, so no memo carries over)."""
    from pipeline.proofs.bounds.hard import HardLowerBounds
    from pipeline.proofs.bounds.lower import LowerBounds
    from pipeline.proofs.game.answer import symbols

    def instance():
        normal = LowerBounds(codes, game.guess_of_secret, game.n_codes)
        return HardLowerBounds(normal, symbols(game.guesses, game.alphabet), len(game.alphabet)) if args.hard else normal

    def value_of(bounds, g):
        value = bounds.opener(int(g), args.level, args.ub) if args.hard else bounds.openers([g], args.level, args.ub)[0]
        return np.array([value]), np.array([value <= args.ub])

    value_of(instance(), 0)
    bounds = instance()
    return lambda g: value_of(bounds, g)


def run_ref(args, ref: str, openers: list[str]) -> dict:
    """`measure` on another checkout, in a subprocess whose `pipeline` is that checkout's."""
    folder, temporary = Path(ref), None
    if not folder.is_dir():
        temporary = Path(tempfile.mkdtemp(prefix="hard-levels-ref-")) / "checkout"
        added = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", str(temporary), ref],
                               capture_output=True, text=True)
        if added.returncode != 0:
            sys.exit(f"error: --ref {ref} is neither a folder nor a commit of this repository")
        folder = temporary
    try:
        command = [sys.executable, __file__, "--game", args.game, "--ub", str(args.ub), "--level", str(args.level),
                   "--sample", str(args.sample), "--seed", str(args.seed), "--checkout", str(folder),
                   "--openers", ",".join(openers)]
        command += ["--hard"] if args.hard else []
        command += ["--checker"] if args.checker else []
        env = {**os.environ, "PYTHONPATH": str(folder)}
        done = subprocess.run(command, cwd=folder, env=env, capture_output=True, text=True)
        if done.returncode != 0:
            sys.exit(f"error: the run on {folder} failed: {done.stderr.strip().splitlines()[-1:]}")
        return json.loads(done.stdout)["this"]
    finally:
        if temporary is not None:
            subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force", str(temporary)],
                           capture_output=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="wordle_nyt_jul2023", help="a built-in game")
    parser.add_argument("--hard", action="store_true", help="the hard-mode bounds (else the normal-mode ones)")
    parser.add_argument("--ub", type=int, required=True, help="the budget: early exit above it")
    parser.add_argument("--level", type=int, default=4, help="the funnel level V_level")
    parser.add_argument("--sample", type=int, default=20, help="openers timed")
    parser.add_argument("--seed", type=int, default=0, help="the sample's seed")
    parser.add_argument("--checker", action="store_true", help="time the certificate checker's bounds instead")
    parser.add_argument("--ref", default=None, help="another checkout (folder or commit) to time beside this one")
    parser.add_argument("--checkout", default=None, help=argparse.SUPPRESS)  # set by --ref's subprocess
    parser.add_argument("--openers", default=None, help=argparse.SUPPRESS)  # the sample --ref's subprocess times
    args = parser.parse_args()
    if args.level < 1 or args.sample < 1:
        sys.exit("error: --level and --sample must be at least 1")
    out = {"game": args.game, "rule": "hard" if args.hard else "normal", "bounds": "checker" if args.checker else "prover", "ub": args.ub, "level": args.level,
           "sample": args.sample, "seed": args.seed, "numba_threads": 1, "cpus": os.cpu_count(),
           "this": measure(args)}
    if args.ref is not None:
        ref = run_ref(args, args.ref, out["this"]["openers"])
        out["ref"] = ref
        out["ratio_ref_over_this"] = round(ref["cpu_s_total"] / max(out["this"]["cpu_s_total"], 1e-9), 3)
        out["identical"] = (ref["values"] == out["this"]["values"] and ref["exact"] == out["this"]["exact"]
                            and ref["openers"] == out["this"]["openers"])
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
