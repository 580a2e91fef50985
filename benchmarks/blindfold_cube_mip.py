"""Blindfold Wordle, every allowed word a secret: one cube of the cube-and-conquer split, its MIP's bound against
time, or its children's LP bounds.

    python benchmarks/blindfold_cube_mip.py [--path 0[,J,...]] [--k 9] [--solver {highs,scip}] --time-limit S
        [--children N] [--cluster-cuts [--max-families N]] [--out FILE]

The cubes are those of `stage.method=cubes` (`blindfold.cubes`): the stage's pool (the same-letters pairs with the
100 seed pairs separated by the fewest guesses); each cube splits on the pool pair its fixed guesses leave with the
fewest separators outside its excluded ones, child i fixing the i-th separator and excluding those before it;
`--path 0,5` is the root's child 0's child 5.  The cube holds no k-set separating every word when no k - |F| guesses
outside F and X cover the pool pairs F leaves: its certified LP bound (with the cluster cuts when asked) proves it
when it exceeds k - |F| (the stage prunes it), and so does its MIP (min sum x over those guesses covering those
pairs, one round: the stage's first) once the MIP's dual bound does.  The JSON holds every cube's bound on the path,
then either the MIP's dual bound and incumbent against time (HiGHS's callbacks or SCIP's event handler, as
`blindfold_bounds.py` reads them) or, with --children N, the LP bounds of the cube's first N children (each pruned or
not); CPU seconds.  A bound on the pool pairs is a bound for the whole game: every separating set covers them."""

import json
import os
import sys
import time

import numpy as np

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))  # blindfold_bounds.py, beside this script
from blindfold_bounds import (
    SOLVERS,
    Curve,
    _cpu_seconds,
    _Parser,
    ceil_bound,
    commit,
    load_real_game,
    loads,
    scip_module,
    solver_versions,
)

from pipeline.blindfold import cluster_cuts as K
from pipeline.blindfold import cubes as C
from pipeline.blindfold import pairs as P
from pipeline.blindfold.model import CoverModel
from pipeline.config.stages import BlindfoldConfig


def stage_pool(codes_t, enc_secrets, columns):
    """The pool `stage.method=cubes` builds with its defaults (stage.seed_limit's, no extra seed pairs)."""
    return C.pool_pairs(codes_t, enc_secrets, P.seed_pairs(enc_secrets), seed_limit=BlindfoldConfig().seed_limit,
                        columns=columns)


def cube_at(codes_t, pool, columns, *, k: int, path, families) -> tuple[C.Cube, C.CubeBound, list]:
    """The cube at `path` (child positions from the root, as the stage splits), its bound, and each ancestor's
    record (its bound, LP seconds, children)."""
    cube, ancestors = C.Cube(), []
    bound = timed_bound(cube, codes_t, pool, columns, k, families)
    for depth, child in enumerate(path):
        cubes = C.children(cube, bound[0].separators or ())
        ancestors.append(level_record(cube, bound, len(cubes), k))
        if not 0 <= child < len(cubes):
            raise IndexError(f"--path: position {child} at depth {depth + 1}: the cube there has {len(cubes)} "
                             "children")
        cube = cubes[child]
        bound = timed_bound(cube, codes_t, pool, columns, k, families)
    return cube, bound, ancestors


def timed_bound(cube, codes_t, pool, columns, k, families) -> tuple[C.CubeBound, float]:
    started = time.perf_counter()
    return C.bound_cube(cube, codes_t, *pool, columns, k, families), round(time.perf_counter() - started, 1)


def level_record(cube: C.Cube, bound, children: int, k: int) -> dict:
    return {"fixed": list(cube.fixed), "excluded": len(cube.excluded), "guesses_left": k - len(cube.fixed),
            "bound": bound[0].bound, "lp_s": bound[1], "pool_pairs_left": bound[0].uncovered, "children": children,
            "pruned": C.prunes(bound[0], k - len(cube.fixed))}


def measure(codes, enc_secrets, *, k: int, path=(0,), solver: str = "highs", time_limit: float = 1800.0,
            families=None, children: int = 0) -> dict:
    """The cube at `path`: its LP bound and either its MIP's bound against time, or (children > 0) the LP bounds
    of its first `children` children."""
    codes_t = P.transpose_codes(codes)
    columns = np.arange(codes.shape[0], dtype=np.int64)
    pool = stage_pool(codes_t, enc_secrets, columns)
    cpu = _cpu_seconds()
    cube, bound, ancestors = cube_at(codes_t, pool, columns, k=k, path=path, families=families)
    split = C.children(cube, bound[0].separators or ())
    record = {"pool_pairs": len(pool[0]), "path": list(path), "ancestors": ancestors,
              "cube": level_record(cube, bound, len(split), k)}
    if children:
        record["children"] = []
        for number, child in enumerate(split[:children]):
            record["children"].append(level_record(child, timed_bound(child, codes_t, pool, columns, k, families),
                                                   -1, k))
            print(f"child {number}: bound {record['children'][-1]['bound']:.4f} with "
                  f"{record['children'][-1]['guesses_left']} guesses left", file=sys.stderr, flush=True)
    else:
        record["mip"] = solve_mip(codes_t, pool, columns, cube, k=k, solver=solver, time_limit=time_limit)
    return record | {"cpu_s": round(_cpu_seconds() - cpu, 1)}


def solve_mip(codes_t, pool, columns, cube: C.Cube, *, k: int, solver: str, time_limit: float) -> dict:
    """The cube's MIP on the pool pairs its fixed guesses leave (one round), its bound against time."""
    rows = P.sort_pairs(*C.uncovered(codes_t, *pool, cube.fixed))
    model = CoverModel(codes_t, C.available(cube, columns), *rows, reduce=True)
    curve = Curve(sample_s=30.0)
    out = SOLVERS[solver](model, time_limit, 1, curve, len(rows[0]))
    left = k - len(cube.fixed)
    closed = str(out["status"]).lower() == "infeasible" or curve.lower > left + C.PRUNE_MARGIN
    return {"solver": solver, "status": out["status"], "dual_bound": out["dual_bound"],
            "objective": out["objective"], "nodes": out["nodes"], "closed": closed,
            "proven_guesses_to_add_at_least": ceil_bound(curve.lower), "curve": curve.points,
            "wall_s": round(curve.seconds(), 1)}


def main():
    json_out = os.fdopen(os.dup(1), "w")  # HiGHS prints a banner on stdout; keep stdout for the JSON only
    os.dup2(2, 1)
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--path", default="0", help="the cube: child positions from the root, comma-separated")
    parser.add_argument("--children", type=int, default=0,
                        help="bound the cube's first N children (LPs) instead of solving its MIP")
    parser.add_argument("--k", type=int, default=9, help="the question: can k fixed guesses separate every word")
    parser.add_argument("--solver", choices=tuple(SOLVERS), default="highs")
    parser.add_argument("--time-limit", type=float, default=1800.0, help="seconds of the MIP")
    parser.add_argument("--cluster-cuts", action="store_true", help="the LP bounds also hold the cluster cuts")
    parser.add_argument("--max-families", type=int, help="--cluster-cuts: the largest families only")
    parser.add_argument("--game", default="wordle_nyt_apr2022")
    parser.add_argument("--out", help="also write the JSON to this file")
    args = parser.parse_args()
    try:
        path = tuple(int(p) for p in args.path.split(",")) if args.path else ()
    except ValueError:
        parser.error(f"--path: child positions separated by commas, got {args.path!r}")
    if not args.time_limit > 0 or args.k < 1 or min(path, default=0) < 0 or args.children < 0:
        parser.error("--time-limit must be positive, --k at least 1, --path and --children not negative")
    if args.max_families is not None and (not args.cluster_cuts or args.max_families < 1):
        parser.error("--max-families must be at least 1 and goes with --cluster-cuts")
    if args.solver == "scip" and scip_module() is None:
        parser.error("--solver scip needs pyscipopt (the project's extra: pip install -e '.[scip]')")
    load_start = loads()
    try:
        codes, enc_secrets, setup_s = load_real_game(args.game)
    except Exception as err:  # noqa: BLE001 - one line for an unknown game
        parser.error(f"--game {args.game}: {err}")
    families = K.families(enc_secrets, max_families=args.max_families) if args.cluster_cuts else None
    record = {"benchmark": "blindfold_cube_mip", "game": args.game, "command": " ".join(sys.argv), **commit(),
              "solvers": solver_versions("scip" if args.solver == "scip" else "highs"), "k": args.k,
              "lp_rows": "pool pairs" + (f" + cluster cuts of {len(families)} families"
                                                              if families else ""),
              "setup_s": round(setup_s, 1), "load_start": load_start}
    try:
        record |= measure(codes, enc_secrets, k=args.k, path=path, solver=args.solver, time_limit=args.time_limit,
                          families=families, children=args.children)
    except IndexError as err:
        parser.error(str(err))
    record["load_end"] = loads()
    text = json.dumps(record, indent=1) + "\n"
    if args.out:
        with open(args.out, "w") as f:
            f.write(text)
    json_out.write(text)
    json_out.flush()


if __name__ == "__main__":
    main()
