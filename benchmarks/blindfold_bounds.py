"""Blindfold Wordle, every allowed word a secret: the proven lower bound on f* against time, per method.

    python benchmarks/blindfold_bounds.py --method {highs,scip,lp-cuts} --time-limit S [--threads N]
        [--cluster-cuts [--max-families N]]
        [--game wordle_nyt_apr2022] [--sample-s 5] [--out benchmarks/results/blindfold-bounds-<method>-<commit>.json]

Prints one JSON document on stdout (progress on stderr).  The rows are the blindfold note's recipe: the pairs of
secrets made of the same letters differing in at most two positions (`pairs.same_letters_pairs`), then the pairs
inside the classes each solution leaves, added round by round (`pairs.class_labels`, `pairs_within_labels`,
`hardest_pairs`), each round's covering matrix reduced exactly (`model.CoverModel`).

- highs: each round's MIP by HiGHS (`CoverModel.solve`), its dual bound and incumbent read from HiGHS's MIP
  callbacks (logging and interrupt) as it runs.
- scip: the same rounds' reduced MIP (written by HiGHS as MPS, read by SCIP), solved by SCIP through pyscipopt (the
  optional extra `scip`), its bound read by an event handler.  SCIP solves on one thread: --threads is recorded.
- lp-cuts: no MIP: a best-first search over the cubes of `blindfold.cubes` (the split of branching.py), each cube
  bounded by its certified LP (`cubes.bound_cube`); the global bound is the least |fixed| + bound over the open
  cubes.  A cube whose fixed guesses separate every row adds the pairs of the classes they leave (the same rows
  rule).  The LP is the pair-row LP, or with --cluster-cuts also the cluster cuts of `blindfold.cluster_cuts`
  (one-position families and anagram groups of at least 3 secrets, narrowed by each cube's fixed guesses; the
  --max-families largest, default all); the record's `lp_rows` says which.

Every method's bound is over a subset of the pairs of secrets: every set separating all secrets covers every row,
so a bound on the rows is a lower bound on f* for the whole game.  `proven_f_star_at_least` is the bound rounded up
(f* is an integer).  An incumbent on the rows is not a separating set unless `verified_best` says so."""

import argparse
import heapq
import json
import os
import resource
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass, field
from importlib import metadata
from pathlib import Path

import numpy as np

from pipeline.blindfold import cluster_cuts as K
from pipeline.blindfold import cubes as C
from pipeline.blindfold import pairs as P
from pipeline.blindfold.model import CoverModel

ROOT = Path(__file__).resolve().parents[1]
METHODS = ("highs", "scip", "lp-cuts")
EPS = 1e-6  # a bound within this of an integer counts as that integer when rounded up
MAX_NEW_PAIRS = 200_000  # new rows per round at most (those with the fewest separators): BlindfoldOptions' default
ROWS_RULE = ("pairs of secrets made of the same letters differing in at most two positions, then the pairs inside "
             "the classes each solution leaves (at most %d new per round, those with the fewest separators), added "
             "round by round; each round's matrix reduced by dominance (exact)" % MAX_NEW_PAIRS)
VALIDITY = ("the rows are a subset of all pairs of secrets; every set separating all secrets covers them, so a "
            "lower bound on the rows is a lower bound on f* for the whole game")


def ceil_bound(value: float | None) -> int | None:
    """A bound on an integer optimum rounded up (within EPS of an integer: that integer)."""
    if value is None or not np.isfinite(value):
        return None
    return int(np.ceil(value - EPS))


@dataclass
class Curve:
    """The bound against time: a point whenever the bound, the incumbent or the rows change, and at least every
    `sample_s` seconds while the solver reports.  `lower` never goes down (a bound once proven stays proven)."""

    sample_s: float
    started: float = field(default_factory=time.perf_counter)
    points: list = field(default_factory=list)
    lower: float = 0.0
    incumbent: float | None = None
    rows: int = 0
    last_at: float = -1e9

    def seconds(self) -> float:
        return time.perf_counter() - self.started

    def note(self, *, lower=None, incumbent=None, rows=None, force=False) -> None:
        changed = False
        if lower is not None and np.isfinite(lower) and lower > self.lower + 1e-9:
            self.lower, changed = float(lower), True
        if incumbent is not None and np.isfinite(incumbent) and incumbent != self.incumbent:
            self.incumbent, changed = float(incumbent), True
        if rows is not None and rows != self.rows:
            self.rows, changed = int(rows), True
        now = self.seconds()
        if changed or force or now - self.last_at >= self.sample_s:
            self.last_at = now
            self.points.append({"t_s": round(now, 2), "lower_bound": round(self.lower, 6),
                                "incumbent": self.incumbent, "rows": self.rows})
            print(f"[{now:8.1f}s] lower {self.lower:.4f} (f* >= {ceil_bound(self.lower)}), incumbent "
                  f"{self.incumbent}, rows {self.rows}", file=sys.stderr, flush=True)


# ---------------------------------------------------------------------------
# the round loop of the MIP methods (highs, scip)


def solve_highs(model: CoverModel, seconds: float, threads: int, curve: Curve, rows: int) -> dict:
    """One round's MIP by HiGHS; the curve follows HiGHS's dual bound and incumbent through its callbacks."""
    def on_event(event):
        data = event.data_out
        curve.note(lower=data.mip_dual_bound, incumbent=data.mip_primal_bound, rows=rows)

    highs = model.highs
    highs.cbMipLogging.subscribe(on_event)
    highs.cbMipInterrupt.subscribe(on_event)
    try:  # the log on (the logging callback fires only then), written nowhere
        out = model.solve(time_limit=seconds, threads=threads, options={"output_flag": True, "log_to_console": False})
    finally:
        highs.cbMipLogging.unsubscribe(on_event)
        highs.cbMipInterrupt.unsubscribe(on_event)
    return {"status": out["status"], "optimal": out["status"] == "Optimal", "objective": out["objective"],
            "dual_bound": out["dual_bound"], "solutions": [*out["solutions"], out["chosen"]],
            "nodes": out.get("nodes")}


def scip_module():
    """pyscipopt, or None when it is not installed (the optional extra `scip`)."""
    try:
        import pyscipopt
    except ImportError:
        return None
    return pyscipopt


def solve_scip(model: CoverModel, seconds: float, threads: int, curve: Curve, rows: int) -> dict:
    """One round's reduced MIP by SCIP (read from HiGHS's MPS export); the curve follows SCIP's dual bound and
    incumbent through an event handler."""
    scip = scip_module()
    with tempfile.TemporaryDirectory() as folder:
        path = str(Path(folder) / "round.mps")
        model.write(path)
        solver = scip.Model()
        solver.hideOutput()
        solver.readProblem(path)
    solver.setParam("limits/time", max(float(seconds), 0.01))
    solver.includeEventhdlr(_scip_watcher(scip, curve, rows), "bounds", "records the bound against time")
    solver.optimize()
    status = solver.getStatus()
    columns = {var.name: _column_of(var.name) for var in solver.getVars()}
    solutions = [_scip_chosen(model, solver, sol, columns) for sol in solver.getSols()]
    objective = solver.getObjVal() if solver.getNSols() else None
    return {"status": status, "optimal": status == "optimal", "objective": objective,
            "dual_bound": solver.getDualbound(), "solutions": solutions, "nodes": solver.getNNodes()}


def _scip_watcher(scip, curve: Curve, rows: int):
    class Watcher(scip.Eventhdlr):
        EVENTS = (scip.SCIP_EVENTTYPE.DUALBOUNDIMPROVED | scip.SCIP_EVENTTYPE.BESTSOLFOUND
                  | scip.SCIP_EVENTTYPE.NODESOLVED | scip.SCIP_EVENTTYPE.LPSOLVED)

        def eventinit(self):
            self.model.catchEvent(self.EVENTS, self)

        def eventexit(self):
            self.model.dropEvent(self.EVENTS, self)

        def eventexec(self, event):
            incumbent = self.model.getPrimalbound() if self.model.getNSols() else None
            curve.note(lower=self.model.getDualbound(), incumbent=incumbent, rows=rows)

    return Watcher()


def _column_of(name: str) -> int:
    """The model column of a variable HiGHS named in its MPS export (c0, c1, ...)."""
    return int(name.lstrip("c"))


def _scip_chosen(model: CoverModel, solver, sol, columns: dict) -> np.ndarray:
    """The guess indices a SCIP solution picks."""
    x = np.zeros(model.n_cols)
    for var in solver.getVars():
        x[columns[var.name]] = solver.getSolVal(sol, var)
    return model._chosen(x)


SOLVERS = {"highs": solve_highs, "scip": solve_scip}


def rounds_loop(codes, enc_secrets, method: str, time_limit: float, threads: int, curve: Curve) -> dict:
    """The lazy loop (rows added round by round) with `method`'s MIP solver, until a round's optimum separates
    every secret (then f* on the rows is f*), or the time runs out."""
    codes_t = P.transpose_codes(codes)
    columns = np.arange(codes.shape[0], dtype=np.int64)
    rows = P.same_letters_pairs(enc_secrets)
    deadline = curve.started + time_limit
    rounds, verified, stop = [], None, "time limit"
    while time.perf_counter() < deadline:
        prep = time.perf_counter()
        model = CoverModel(codes_t, columns, *rows, reduce=True)
        if model.uncoverable.size:
            stop = "a pair has no separator"
            break
        curve.note(rows=len(rows[0]), force=True)
        cpu, started = _cpu_seconds(), time.perf_counter()
        out = SOLVERS[method](model, deadline - started, threads, curve, len(rows[0]))
        curve.note(lower=out["dual_bound"], incumbent=out["objective"], force=True)
        wall = time.perf_counter() - started
        rounds.append({"round": len(rounds) + 1, "pairs": len(rows[0]), "rows_reduced": model.n_rows,
                       "columns_reduced": model.n_cols, "nonzeros": model.nonzeros, "status": out["status"],
                       "objective": out["objective"], "dual_bound": out["dual_bound"], "nodes": out["nodes"],
                       "prep_s": round(started - prep, 2), "solve_wall_s": round(wall, 2),
                       "solve_cpu_s": round(_cpu_seconds() - cpu, 2)})
        print(f"round {len(rounds)}: {rounds[-1]}", file=sys.stderr, flush=True)
        new, found = _new_rows(codes, codes_t, out["solutions"], rows, columns)
        verified = _smaller(verified, found)
        if not out["optimal"]:
            stop = f"solver stopped: {out['status']}"
            break
        if verified is not None and ceil_bound(curve.lower) >= len(verified):
            stop = "proven: a round's optimum separates every secret"
            break
        if not len(new[0]):
            stop = "no new rows"
            break
        rows = P.merge_pairs(rows, new)
    return {"rounds": rounds, "stop": stop, "verified_best": None if verified is None else [int(g) for g in verified]}


def _new_rows(codes, codes_t, solutions, rows, columns):
    """(the pairs the solutions leave that are not rows yet, the MIP's hardest MAX_NEW_PAIRS; the smallest
    solution that separates every secret, or None)."""
    labelled, found = [], None
    for solution in solutions:
        labels = P.class_labels(codes, solution)
        if int(labels.max(initial=-1)) + 1 == codes.shape[1]:
            found = _smaller(found, np.sort(np.asarray(solution, dtype=np.int64)))
        else:
            labelled.append(labels)
    new = P.merge_pairs(*[P.pairs_within_labels(labels) for labels in labelled])
    new = P.difference_pairs(new, rows, codes.shape[1])
    if len(new[0]) > MAX_NEW_PAIRS:
        new = P.hardest_pairs(codes_t, *new, MAX_NEW_PAIRS, columns)
    return new, found


def _smaller(best, candidate):
    if candidate is None:
        return best
    return candidate if best is None or len(candidate) < len(best) else best


# ---------------------------------------------------------------------------
# lp-cuts: best-first over the cubes, each bounded by its certified LP


def lp_search(codes, enc_secrets, time_limit: float, curve: Curve, families=None) -> dict:
    """Best-first search over the cubes (module docstring): the least |fixed| + LP bound over the open cubes is a
    lower bound on f* (each separating set lies in one open cube, or is a verified set already counted); with the
    cluster cuts of `families` in each cube's LP unless None."""
    codes_t = P.transpose_codes(codes)
    columns = np.arange(codes.shape[0], dtype=np.int64)
    pool = P.same_letters_pairs(enc_secrets)
    deadline = curve.started + time_limit
    heap = [(0.0, 0, C.Cube(), -1, ())]  # (value, tie, cube, pool size it was bounded on or -1, its separators)
    tie, verified, bounded, expanded = 1, None, 0, 0
    curve.note(rows=len(pool[0]), force=True)
    while heap and time.perf_counter() < deadline:
        value, _, cube, bounded_on, separators = heap[0]
        if verified is not None and value >= len(verified) - EPS:
            break
        heapq.heappop(heap)
        if bounded_on != len(pool[0]):
            bound = C.bound_cube(cube, codes_t, *pool, columns, codes.shape[0], families)
            bounded += 1
            if not bound.uncoverable:
                heapq.heappush(heap, (max(value, len(cube.fixed) + bound.bound), tie, cube, len(pool[0]),
                                      bound.separators))
                tie += 1
        else:
            tie, pool, verified = _expand(codes, codes_t, (value, cube, separators), heap, tie, pool, verified)
            expanded += 1
        curve.note(lower=_global_bound(heap, verified), incumbent=None if verified is None else len(verified),
                   rows=len(pool[0]))
    final = _global_bound(heap, verified)
    curve.note(lower=final, force=True)
    return {"cubes_bounded": bounded, "cubes_expanded": expanded, "open_cubes": len(heap),
            "stop": "proven" if verified is not None and final >= len(verified) - EPS else "time limit",
            "verified_best": None if verified is None else [int(g) for g in verified],
            "open_cubes_by_fixed": _by_fixed(heap)}


def _global_bound(heap, verified) -> float:
    """The least value over the open cubes and the verified set (every separating set is in one of them)."""
    least = heap[0][0] if heap else float("inf")
    return least if verified is None else min(least, float(len(verified)))


def _by_fixed(heap) -> dict:
    sizes = [len(item[2].fixed) for item in heap]
    return {str(n): sizes.count(n) for n in sorted(set(sizes))}


def _expand(codes, codes_t, top, heap, tie, pool, verified):
    """The cube `top` (value, cube, separators), bounded on the current rows: split it into its children (they
    start from its value), or, when its fixed guesses separate every row, verify them (a separating set: the
    incumbent) or add the pairs of the classes they leave as rows (the cube is bounded again)."""
    value, cube, separators = top
    if separators:
        for child in C.children(cube, separators):
            heapq.heappush(heap, (value, tie, child, -1, ()))
            tie += 1
        return tie, pool, verified
    labels = P.class_labels(codes, list(cube.fixed))
    if int(labels.max(initial=-1)) + 1 == codes.shape[1]:
        return tie, pool, _smaller(verified, np.sort(np.array(cube.fixed, dtype=np.int64)))
    new = P.difference_pairs(P.pairs_within_labels(labels), pool, codes.shape[1])
    if len(new[0]) > MAX_NEW_PAIRS:
        new = P.hardest_pairs(codes_t, *new, MAX_NEW_PAIRS)
    heapq.heappush(heap, (value, tie, cube, -1, ()))
    return tie + 1, P.merge_pairs(pool, new), verified


# ---------------------------------------------------------------------------
# the run and its record


def measure(codes, enc_secrets, *, method: str, time_limit: float, threads: int, sample_s: float,
            cluster_cuts: bool = False, max_families: int | None = None) -> dict:
    """Run `method` for `time_limit` seconds on the code matrix; the record (without machine and game facts).
    `cluster_cuts`: lp-cuts' LPs also hold the cluster cuts of the secrets' letter families (the `max_families`
    largest; None: all)."""
    curve = Curve(sample_s)
    cpu = _cpu_seconds()
    if method == "lp-cuts":
        families = K.families(enc_secrets, max_families=max_families) if cluster_cuts else None
        outcome = {"lp_rows": lp_rows(families), **lp_search(codes, enc_secrets, time_limit, curve, families)}
    else:
        outcome = rounds_loop(codes, enc_secrets, method, time_limit, threads, curve)
    return {"method": method, "time_limit_s": time_limit, "wall_s": round(curve.seconds(), 2),
            "cpu_s": round(_cpu_seconds() - cpu, 2), "lower_bound_raw": curve.lower,
            "proven_f_star_at_least": ceil_bound(curve.lower), "incumbent_on_rows": curve.incumbent,
            "curve": curve.points, **outcome}


def lp_rows(families) -> str:
    """What lp-cuts' LPs hold."""
    if families is None:
        return "pair rows"
    return (f"pair rows + cluster cuts of {len(families)} families (one-position families and anagram groups of at "
            f"least {K.MIN_FAMILY} secrets, narrowed by each cube's fixed guesses)")


def _cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def loads() -> dict:
    with open("/proc/loadavg") as f:
        text = f.read().strip()
    return {"loadavg": text, "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}


def commit() -> dict:
    def git(*args):
        done = subprocess.run(["git", "-C", str(ROOT), *args], capture_output=True, text=True)
        return done.stdout.strip() if done.returncode == 0 else None

    changes = git("status", "--porcelain", "--untracked-files=no")
    return {"commit": git("rev-parse", "--short", "HEAD"), "clean": None if changes is None else not changes}


def solver_versions(method: str) -> dict:
    versions = {"highspy": metadata.version("highspy")}
    if method == "scip":
        versions["pyscipopt"] = metadata.version("pyscipopt")
        versions["scip"] = str(scip_module().Model().version())
    return versions


THREADS_NOTE = {
    "highs": "HiGHS's `threads` option; its branch and bound runs on one thread (the others serve parallel "
             "pieces such as the LP's dual simplex): cpu_s / wall_s says how many it kept busy",
    "scip": "SCIP's optimize() runs on one thread whatever --threads says",
    "lp-cuts": "each cube's LP by HiGHS on one thread, one cube after the other",
}


def load_real_game(name: str):
    """(code matrix, encoded secrets, setup seconds) of `name` with every allowed word a secret."""
    from pipeline.feedback.matrix import game_matrix
    from pipeline.games.catalog import builtin_game

    started = time.perf_counter()
    game = builtin_game(name, secrets_are_guesses=True)
    return game_matrix(game), game.encoded_secrets(), time.perf_counter() - started


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one line, status 2
        print(f"error: {message}", file=sys.stderr)
        sys.exit(2)


def main():
    json_out = os.fdopen(os.dup(1), "w")  # HiGHS prints a banner on stdout; keep stdout for the JSON only
    os.dup2(2, 1)
    parser = _Parser(description=__doc__.splitlines()[0])
    parser.add_argument("--method", choices=METHODS, default="highs")
    parser.add_argument("--time-limit", type=float, default=1800.0, help="seconds of solving (setup not counted)")
    parser.add_argument("--threads", type=int, default=2, help="HiGHS threads (recorded for the others)")
    parser.add_argument("--game", default="wordle_nyt_apr2022")
    parser.add_argument("--sample-s", type=float, default=5.0, help="a curve point at least this often")
    parser.add_argument("--out", type=Path, help="also write the JSON to this file")
    parser.add_argument("--cluster-cuts", action="store_true", help="lp-cuts: the LPs also hold cluster cuts")
    parser.add_argument("--max-families", type=int, help="--cluster-cuts: the largest families only (default: all)")
    args = parser.parse_args()
    if not args.time_limit > 0 or args.threads < 1 or not args.sample_s > 0:
        parser.error("--time-limit and --sample-s must be positive, --threads at least 1")
    if args.cluster_cuts and args.method != "lp-cuts":
        parser.error("--cluster-cuts goes with --method lp-cuts only")
    if args.max_families is not None and (not args.cluster_cuts or args.max_families < 1):
        parser.error("--max-families must be at least 1 and goes with --cluster-cuts")
    if args.out is not None and not args.out.parent.is_dir():
        parser.error(f"--out: no folder {args.out.parent}")
    if args.method == "scip" and scip_module() is None:
        parser.error("--method scip needs pyscipopt (pip install pyscipopt, or the project's extra: pip install "
                     "-e '.[scip]')")
    load_start = loads()
    try:
        codes, enc_secrets, setup_s = load_real_game(args.game)
    except Exception as err:  # noqa: BLE001 - one line for an unknown game
        parser.error(f"--game {args.game}: {err}")
    record = {"benchmark": "blindfold_bounds", "game": args.game, "secrets_are_guesses": True,
              "secrets": int(codes.shape[1]), "guesses": int(codes.shape[0]), "command": " ".join(sys.argv),
              **commit(), "solvers": solver_versions(args.method), "threads": args.threads,
              "threads_note": THREADS_NOTE[args.method], "rows_rule": ROWS_RULE, "validity": VALIDITY,
              "setup_s": round(setup_s, 2), "load_start": load_start}
    record.update(measure(codes, enc_secrets, method=args.method, time_limit=args.time_limit, threads=args.threads,
                          sample_s=args.sample_s, cluster_cuts=args.cluster_cuts,
                          max_families=args.max_families))
    record["load_end"] = loads()
    text = json.dumps(record, indent=1) + "\n"
    if args.out is not None:
        partial = args.out.with_name(args.out.name + ".partial")
        partial.write_text(text)
        partial.replace(args.out)
    json_out.write(text)
    json_out.flush()


if __name__ == "__main__":
    main()
