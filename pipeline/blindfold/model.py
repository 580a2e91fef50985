"""Blindfold Wordle as a set-cover MIP, solved by HiGHS with lazily added pairs.

Minimise sum_g x_g over binary x_g (one per allowed guess) subject to, for
every pair {s, t} of secrets in the current pair set, sum of x_g over the
guesses separating s and t >= 1.  The pair set starts with hard seeds and
grows with every pair inside the classes the current solution leaves
unseparated, until the solution separates all secrets.

The optimum of any relaxation (any subset of pairs) is a lower bound on f*;
a separating set verified against all secrets is an upper bound.  The loop
stops when the two meet (proven optimal), on the time limit, or on the
round limit.

Before each solve the covering matrix is reduced exactly: guesses whose
separated pairs are contained in another guess's are dropped (ties keep the
smaller index), then pairs implied by another pair (superset of its
separators) are dropped, repeated to a fixpoint.  Neither step changes the
optimum of the relaxation, and every solution of the reduced model covers
every pair of the relaxation.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field, replace

import highspy
import numpy as np

from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.processes.signals import held

_EPS = 1e-6
WAIT_SECONDS = 0.1  # how often the waiting thread looks whether HiGHS has finished (run_highs)


@dataclass
class RoundInfo:
    """What one round of the lazy loop did."""

    round: int
    pairs: int  # pairs in the relaxation
    pairs_added: int  # pairs added after this round's solve
    rows: int  # covering rows after reduction
    columns: int  # guess columns after reduction
    nonzeros: int
    objective: float | None  # value of the best solution HiGHS found (None: none)
    dual_bound: float  # HiGHS MIP dual bound: a lower bound on f*
    status: str  # HiGHS model status
    solver_seconds: float
    prep_seconds: float  # separators + reductions + model build
    chosen: list[int]  # guess indices of the round's solution
    unseparated_classes: int  # classes that solution leaves (0: it separates all)


@dataclass
class BlindfoldResult:
    """Outcome of `solve_blindfold`.

    `f_star` is the size of the best verified separating set (`chosen`), or
    None if none was found.  `lower_bound` is the best proven lower bound (the
    MIP dual bound of a relaxation; rounded up, as the objective is integral).
    `proven_optimal` is True iff lower_bound == f_star.
    """

    f_star: int | None
    chosen: np.ndarray
    lower_bound: int
    lower_bound_raw: float
    model_status: str
    proven_optimal: bool
    gap: float | None
    pairs_i: np.ndarray
    pairs_j: np.ndarray
    rounds: int
    solver_seconds: list[float]
    total_seconds: float
    round_log: list[RoundInfo] = field(default_factory=list)
    stop_reason: str = ""
    warm: "BlindfoldResult | None" = None

    def summary(self) -> dict:
        """JSON-friendly summary (no arrays of pairs)."""
        return {
            "f_star": self.f_star,
            "chosen": [int(g) for g in self.chosen],
            "lower_bound": self.lower_bound,
            "lower_bound_raw": self.lower_bound_raw,
            "model_status": self.model_status,
            "proven_optimal": self.proven_optimal,
            "gap": self.gap,
            "pairs": int(len(self.pairs_i)),
            "rounds": self.rounds,
            "solver_seconds": [round(s, 3) for s in self.solver_seconds],
            "solver_seconds_total": round(sum(self.solver_seconds), 3),
            "total_seconds": round(self.total_seconds, 3),
            "stop_reason": self.stop_reason,
            "warm": None if self.warm is None else self.warm.summary(),
        }


class CoverModel:
    """The covering MIP for a fixed set of pairs over a set of allowed guesses.

    `codes_t` is the secret-major code matrix (`pairs.transpose_codes`),
    `columns` the allowed guess indices, (pairs_i, pairs_j) the pairs.
    With `reduce` the matrix is reduced by dominance first (exact).  Guesses in `protect` are kept and never
    stand in for a dropped guess: a model with extra rows over them (a no-good cut) stays exact.
    """

    def __init__(self, codes_t, columns, pairs_i, pairs_j, *, reduce: bool = True, protect=None):
        self.columns = np.asarray(columns, dtype=np.int64)
        self.pairs_i = np.asarray(pairs_i, dtype=np.int32)
        self.pairs_j = np.asarray(pairs_j, dtype=np.int32)
        n_pairs = len(self.pairs_i)
        keep_cols = np.arange(len(self.columns))
        keep_rows = np.arange(n_pairs)
        # dominator[k] (position in self.columns) for dropped columns, -1 if kept
        self.dominator = np.full(len(self.columns), -1, dtype=np.int64)
        if n_pairs:
            counts = blindfold_pairs.separator_counts(codes_t, self.pairs_i, self.pairs_j, self.columns)
            self.uncoverable = np.flatnonzero(counts == 0)
        else:
            self.uncoverable = np.empty(0, dtype=np.int64)
        if reduce and n_pairs and len(self.columns) and self.uncoverable.size == 0:
            keep_cols, keep_rows = self._reduce(codes_t, np.isin(self.columns, _as_indices(protect)))
        self.kept_columns = keep_cols  # positions into self.columns
        self.kept_rows = keep_rows  # positions into the pairs
        indptr, indices = blindfold_pairs.separators(
            codes_t, self.pairs_i[keep_rows], self.pairs_j[keep_rows], self.columns[keep_cols]
        )
        self.n_rows = len(keep_rows)
        self.n_cols = len(keep_cols)
        self.nonzeros = int(indptr[-1])
        self.highs = highspy.Highs()
        self.highs.setOptionValue("output_flag", False)
        n = self.n_cols
        if n:
            idx = np.arange(n, dtype=np.int32)
            self.highs.addVars(n, np.zeros(n), np.ones(n))
            self.highs.changeColsCost(n, idx, np.ones(n))
            self.highs.changeColsIntegrality(n, idx, np.full(n, 1, dtype=np.uint8))  # kInteger
        m = self.n_rows
        if m:
            self.highs.addRows(
                m,
                np.ones(m),
                np.full(m, highspy.kHighsInf),
                self.nonzeros,
                indptr[:-1].astype(np.int32),
                indices.astype(np.int32),
                np.ones(self.nonzeros),
            )

    def _reduce(self, codes_t, protected):
        pi, pj = self.pairs_i, self.pairs_j
        n_pairs = len(pi)
        col_bits_all = blindfold_pairs.column_bits(codes_t, pi, pj, self.columns)
        keep_cols = np.arange(len(self.columns))
        keep_rows = np.arange(n_pairs)
        while True:
            sub = col_bits_all[keep_cols]
            if len(keep_rows) != n_pairs:
                sub = _select_bits(sub, keep_rows, n_pairs)
            dom = _dominators_outside(sub, protected[keep_cols])
            dropped = dom >= 0
            # remember dominators as positions into self.columns
            self.dominator[keep_cols[dropped]] = keep_cols[dom[dropped]]
            keep_cols = keep_cols[~dropped]
            rbits = blindfold_pairs.row_bits(sub[~dropped], len(keep_rows))
            rdrop = blindfold_pairs.dominated_rows(rbits)
            keep_rows = keep_rows[~rdrop]
            if not dropped.any() and not rdrop.any():
                break
        # resolve chains of dominators to kept columns
        kept = np.zeros(len(self.columns), dtype=bool)
        kept[keep_cols] = True
        for k in range(len(self.columns)):
            q = self.dominator[k]
            while q >= 0 and not kept[q]:
                q = self.dominator[q]
            self.dominator[k] = q
        return keep_cols, keep_rows

    def add_at_most(self, guesses, bound: int) -> None:
        """Add the row: at most `bound` of `guesses` (None: of all guesses) are chosen.  Guesses that are
        dominated must be protected (`protect`) for the row to mean what it says."""
        picked = np.arange(self.n_cols) if guesses is None else self.map_to_model(guesses)
        self.highs.addRow(-highspy.kHighsInf, float(bound), len(picked), picked.astype(np.int32),
                          np.ones(len(picked)))

    def map_to_model(self, guesses) -> np.ndarray:
        """Model column positions of a guess set (dominated guesses replaced by
        their kept dominators; guesses outside the allowed columns dropped)."""
        pos = {int(g): k for k, g in enumerate(self.columns)}
        col_of_kept = {int(k): m for m, k in enumerate(self.kept_columns)}
        out = set()
        for g in np.asarray(guesses, dtype=np.int64).ravel():
            k = pos.get(int(g))
            if k is None:
                continue
            if k not in col_of_kept:
                k = int(self.dominator[k])
                if k < 0:
                    continue
            out.add(col_of_kept[k])
        return np.array(sorted(out), dtype=np.int64)

    def solve(self, *, time_limit: float | None = None, threads: int | None = None, incumbent=None,
              stop_at: float | None = None, log: bool = False, options: dict | None = None) -> dict:
        """Run HiGHS.  `incumbent` (guess indices covering every pair) is given
        to HiGHS as a start solution.  `stop_at`: a proven lower bound on the
        optimum; HiGHS is interrupted as soon as it finds a solution that
        good (which is then optimal).  Returns status, objective, dual bound,
        chosen guess indices, every improving solution found ("solutions")
        and seconds."""
        if self.uncoverable.size:
            return _no_run("Infeasible", None, float("inf"))
        if self.n_rows == 0:
            return _no_run("Optimal", 0.0, 0.0)
        self._configure(time_limit, threads, log, options)
        if incumbent is not None and len(incumbent):
            self._start_from(incumbent)
        found, hit, seconds = self._run(stop_at)
        h = self.highs
        status = h.modelStatusToString(h.getModelStatus())
        info = h.getInfo()
        chosen, objective = np.empty(0, dtype=np.int64), None
        if info.primal_solution_status == 2:  # kSolutionStatusFeasible
            chosen = self._chosen(h.getSolution().col_value)
            objective = float(info.objective_function_value)
        dual = float(info.mip_dual_bound)
        if hit and objective is not None and objective <= stop_at + _EPS:
            # interrupted on reaching the known lower bound: the solution is optimal
            status = "Optimal"
            dual = max(dual, float(stop_at))
        return {"status": status, "objective": objective, "dual_bound": dual, "chosen": chosen, "seconds": seconds,
                "mip_gap": float(info.mip_gap), "nodes": int(info.mip_node_count), "solutions": found}

    def solve_lp(self, *, time_limit: float | None = None, threads: int | None = None) -> dict:
        """The LP relaxation (x >= 0, neither integral nor bounded above: a covering LP needs no x_g > 1, so the
        value is the same and the row duals alone are a dual solution).  Returns HiGHS's status, objective
        (None unless optimal) and row duals, one per kept row (`kept_rows`; empty when HiGHS gave none).  The
        model stays an LP afterwards."""
        n = self.n_cols
        if self.uncoverable.size or self.n_rows == 0:
            return {"status": "Infeasible" if self.uncoverable.size else "Optimal",
                    "objective": None if self.uncoverable.size else 0.0, "row_duals": np.zeros(self.n_rows)}
        idx = np.arange(n, dtype=np.int32)
        self.highs.changeColsIntegrality(n, idx, np.zeros(n, dtype=np.uint8))  # kContinuous
        self.highs.changeColsBounds(n, idx, np.zeros(n), np.full(n, highspy.kHighsInf))
        self._configure(time_limit, threads, False, None)
        self.highs.run()
        status = self.highs.modelStatusToString(self.highs.getModelStatus())
        info = self.highs.getInfo()
        duals = np.asarray(self.highs.getSolution().row_dual, dtype=np.float64)
        objective = float(info.objective_function_value) if status == "Optimal" else None
        return {"status": status, "objective": objective,
                "row_duals": duals if info.dual_solution_status >= 1 and len(duals) == self.n_rows else np.empty(0)}

    def _configure(self, time_limit, threads, log, options) -> None:
        h = self.highs
        h.setOptionValue("output_flag", bool(log))
        if time_limit is not None:
            h.setOptionValue("time_limit", float(max(time_limit, 0.01)))
        if threads is not None:
            h.setOptionValue("threads", int(threads))
        for key, value in (options or {}).items():
            h.setOptionValue(key, value)

    def _start_from(self, incumbent) -> None:
        """Give HiGHS the guess set `incumbent` as its start solution."""
        values = np.zeros(self.n_cols)
        values[self.map_to_model(incumbent)] = 1.0
        sol = highspy.HighsSolution()
        sol.col_value = list(values)
        sol.value_valid = True
        self.highs.setSolution(sol)

    def _chosen(self, col_value) -> np.ndarray:
        """The guess indices a model solution picks, sorted."""
        x = np.asarray(col_value)
        return np.sort(self.columns[self.kept_columns[np.flatnonzero(x > 0.5)]])

    def _run(self, stop_at: float | None) -> tuple[list[np.ndarray], bool, float]:
        """Run HiGHS, recording every improving solution and interrupting once one reaches `stop_at`."""
        h = self.highs
        found: list[np.ndarray] = []
        hit = [False]

        def on_solution(event):
            found.append(self._chosen(event.data_out.mip_solution))
            if stop_at is not None and event.data_out.objective_function_value <= stop_at + _EPS:
                hit[0] = True

        def on_interrupt(event):
            if hit[0]:
                event.interrupt()

        h.cbMipImprovingSolution.subscribe(on_solution)
        h.cbMipInterrupt.subscribe(on_interrupt)
        start = time.perf_counter()
        try:
            run_highs(h)
        finally:
            h.cbMipImprovingSolution.unsubscribe(on_solution)
            h.cbMipInterrupt.unsubscribe(on_interrupt)
        return found, hit[0], time.perf_counter() - start

    def write(self, path: str) -> None:
        """Export the (reduced) model; the format follows the suffix (.lp, .mps)."""
        status = self.highs.writeModel(str(path))
        if status == highspy.HighsStatus.kError:
            raise OSError(f"HiGHS could not write {path}")


def run_highs(h: highspy.Highs) -> None:
    """h.run() in a thread of HiGHS's own while this thread waits for it: a stop (Ctrl-C, SIGTERM, SIGHUP: the
    command line's handler raises Interrupted in the main thread, pipeline.processes.signals) asks HiGHS to stop at
    its next check, waits until it has, and goes on.  Python runs signal handlers in the main thread only: there,
    inside h.run(), a stop would wait until HiGHS returned (stage.time_limit_s), and one raised inside a callback
    of HiGHS would be swallowed (the solve ends as "Solve error" and the run goes on).  A signal while the solve
    starts waits until HiGHS's thread runs (`held`): raised inside startSolve, it would leave this function with
    HiGHS still solving, and the interpreter's exit would then abort (SIGABRT) under HiGHS's thread."""
    h.HandleUserInterrupt = True
    try:
        with held():
            h.startSolve()
        _finished(h)
    except BaseException:
        h.cancelSolve()
        _finished(h)
        raise


def _finished(h: highspy.Highs) -> None:
    """Wait until HiGHS's solve has ended (in steps of WAIT_SECONDS, so a signal is seen between them)."""
    while not h.wait(WAIT_SECONDS)[0]:
        pass


def _as_indices(guesses) -> np.ndarray:
    return np.empty(0, dtype=np.int64) if guesses is None else np.asarray(guesses, dtype=np.int64).ravel()


def _dominators_outside(bits: np.ndarray, protected: np.ndarray) -> np.ndarray:
    """`pairs.column_dominators` among the unprotected columns only (protected ones are kept and dominate
    nothing); positions into `bits`, -1 for kept columns."""
    if not protected.any():
        return blindfold_pairs.column_dominators(bits)
    free = np.flatnonzero(~protected)
    dom = np.full(bits.shape[0], -1, dtype=np.int64)
    inner = blindfold_pairs.column_dominators(bits[free])
    dom[free[inner >= 0]] = free[inner[inner >= 0]]
    return dom


def _no_run(status: str, objective: float | None, dual_bound: float) -> dict:
    """CoverModel.solve's answer when HiGHS need not run (a pair nothing covers, or no pair at all)."""
    return {"status": status, "objective": objective, "dual_bound": dual_bound,
            "chosen": np.empty(0, dtype=np.int64), "seconds": 0.0, "solutions": []}


def _select_bits(col_bits: np.ndarray, rows: np.ndarray, n_pairs: int) -> np.ndarray:
    dense = np.unpackbits(col_bits.view(np.uint8), axis=1, bitorder="little")[:, :n_pairs]
    return blindfold_pairs._pack_rows(np.ascontiguousarray(dense[:, rows]))


# ---------------------------------------------------------------------------
# checking and repairing fixed guess sets


def check(codes: np.ndarray, guesses) -> list[list[int]]:
    """Classes of secrets (sorted lists of secret indices, size >= 2, largest
    first) that the fixed guess set (guess indices) leaves unseparated; []
    iff it identifies every secret."""
    return [c.tolist() for c in blindfold_pairs.unseparated_classes(codes, guesses)]


def greedy_complete(codes: np.ndarray, start, columns=None) -> np.ndarray:
    """Extend `start` greedily (each step: the allowed guess leaving the fewest
    unseparated pairs) until it separates all secrets; returns guess indices.
    Raises ValueError if the allowed guesses cannot separate everything."""
    chosen = [int(g) for g in np.asarray(start, dtype=np.int64).ravel()]
    cols = np.arange(codes.shape[0], dtype=np.int64) if columns is None else np.asarray(columns, dtype=np.int64)
    labels = blindfold_pairs.class_labels(codes, chosen)
    left = blindfold_pairs.unseparated_pair_count(codes, chosen)
    while left:
        scores = blindfold_pairs.pairs_left_after(codes, labels, cols)
        best = int(np.argmin(scores))
        if scores[best] >= left:
            raise ValueError("the allowed guesses cannot separate every secret")
        chosen.append(int(cols[best]))
        left = int(scores[best])
        labels = blindfold_pairs.class_labels(codes, chosen)
    return np.array(chosen, dtype=np.int64)


# ---------------------------------------------------------------------------
# the lazy loop


@dataclass(frozen=True)
class BlindfoldOptions:
    """How the lazy loop runs.  Only the limits change what it proves (a time or round limit may stop it
    before lower bound and best set meet); the rest change how fast it gets there.

    seed_limit: keep only this many starting pairs, those separated by the fewest allowed guesses (None: all)
    -- a small start keeps the reduced MIPs small, the loop adds the rest.  max_new_pairs: if one round's
    unseparated classes hold more pairs, only that many of them (the hardest) are added (still progress).
    time_limit: seconds for the whole loop (warm run included).  threads: HiGHS threads.  max_rounds: the
    round limit.  reduce: dominance reductions before each solve.  repair: greedily complete each round's
    non-separating solution for an upper bound.  highs_options / highs_log: passed to HiGHS.  warm_pairs:
    keep the warm run's pairs too.
    """

    seed_limit: int | None = 100
    max_new_pairs: int = 200_000
    time_limit: float | None = None
    threads: int | None = None
    max_rounds: int = 200
    reduce: bool = True
    repair: bool = True
    highs_options: dict | None = None
    highs_log: bool = False
    warm_pairs: bool = False


@dataclass
class _Loop:
    """The lazy loop's state: the relaxation's pairs, the best verified set, the best lower bound."""

    codes: np.ndarray
    codes_t: np.ndarray
    columns: np.ndarray
    pairs: tuple[np.ndarray, np.ndarray]
    best: np.ndarray | None
    started: float
    lower: float = 0.0
    status: str = "NotSet"
    stop: str = ""
    model: CoverModel | None = None
    rounds: list[RoundInfo] = field(default_factory=list)

    def seconds_left(self, options: BlindfoldOptions) -> float | None:
        if options.time_limit is None:
            return None
        return options.time_limit - (time.perf_counter() - self.started)

    def keep_if_better(self, guesses) -> None:
        if self.best is None or len(guesses) < len(self.best):
            self.best = np.asarray(guesses, dtype=np.int64)


def solve_blindfold(codes: np.ndarray, *, seeds: tuple[np.ndarray, np.ndarray] | None = None,
                    enc_secrets: np.ndarray | None = None, columns=None, exclude=None, initial=None,
                    warm_columns=None, options: BlindfoldOptions | None = None, log=None,
                    model_path: str | None = None, **settings) -> BlindfoldResult:
    """Fewest fixed guesses identifying every secret, by a lazy set-cover MIP.

    codes: |G| x |S| code matrix.  seeds: starting pairs (i, j); default the one-position and anagram pairs
    of `enc_secrets` (needed then).  columns: allowed guess indices (default all); exclude: guess indices
    forbidden.  initial: a guess set to try as starting upper bound (used only if it uses allowed guesses
    and separates everything).  warm_columns: first run the same loop with the guesses restricted to these
    (e.g. the answer words: a much smaller MIP) and start from its verified set; the warm run's own result
    is in `result.warm`.  options: how the loop runs (BlindfoldOptions), or its fields as keywords
    (`settings`, e.g. time_limit=60); on hitting the time limit the result reports the best bound and gap
    with proven_optimal False.  log: callable receiving each RoundInfo.  model_path: write the last model
    (.lp/.mps).
    """
    options = replace(options or BlindfoldOptions(), **settings)
    started = time.perf_counter()
    cols = _allowed_columns(codes.shape[0], columns, exclude)
    codes_t = blindfold_pairs.transpose_codes(codes)
    pairs = _starting_pairs(codes_t, seeds, enc_secrets, cols, options.seed_limit)
    warm = None
    if warm_columns is not None:
        warm_cols = np.intersect1d(np.asarray(warm_columns, dtype=np.int64), cols)
        warm = solve_blindfold(codes, seeds=pairs, columns=warm_cols, initial=initial, log=log,
                               options=replace(options, seed_limit=None, warm_pairs=False))
        if options.warm_pairs:
            pairs = blindfold_pairs.merge_pairs(pairs, (warm.pairs_i, warm.pairs_j))
        if warm.f_star is not None and (initial is None or not len(initial) or len(warm.chosen) < len(initial)):
            initial = warm.chosen
    loop = _Loop(codes, codes_t, cols, pairs, _verified(codes, initial, cols), started)
    _lazy_loop(loop, options, log)
    if model_path is not None and loop.model is not None:
        loop.model.write(model_path)
    return _result(loop, warm)


def _allowed_columns(n_guesses: int, columns, exclude) -> np.ndarray:
    """The guesses the set may use: `columns` (default all) without `exclude`, sorted."""
    cols = np.arange(n_guesses, dtype=np.int64) if columns is None else np.unique(np.asarray(columns, dtype=np.int64))
    if exclude is not None and len(exclude):
        cols = cols[~np.isin(cols, np.asarray(exclude, dtype=np.int64))]
    return cols


def _starting_pairs(codes_t, seeds, enc_secrets, cols, seed_limit):
    """The first relaxation's pairs: the seeds (default: from the secrets' spelling), the hardest kept."""
    if seeds is None:
        if enc_secrets is None:
            raise ValueError("give seeds or enc_secrets")
        seeds = blindfold_pairs.seed_pairs(enc_secrets)
    pairs = blindfold_pairs.sort_pairs(*seeds)
    if seed_limit is not None:
        pairs = blindfold_pairs.hardest_pairs(codes_t, *pairs, seed_limit, cols)
    return pairs


def _verified(codes, initial, cols) -> np.ndarray | None:
    """`initial` as a starting upper bound if it uses allowed guesses only and separates every secret."""
    if initial is None or not len(initial):
        return None
    init = np.unique(np.asarray(initial, dtype=np.int64))
    return init if np.isin(init, cols).all() and blindfold_pairs.separates_all(codes, init) else None


def _lazy_loop(loop: _Loop, options: BlindfoldOptions, log) -> None:
    """Solve, verify, add the pairs the solutions leave, until proven, separated, or out of time or rounds."""
    for number in range(1, options.max_rounds + 1):
        remaining = loop.seconds_left(options)
        if remaining is not None and remaining <= 0:
            loop.stop = "time limit"
            return
        info, out = _solve_round(loop, number, options)
        loop.stop = _round_outcome(loop, info, out, options)
        if log:
            log(info)
        if loop.stop:
            return
    loop.stop = "round limit"


def _solve_round(loop: _Loop, number: int, options: BlindfoldOptions) -> tuple[RoundInfo, dict]:
    """Build the reduced model of the current pairs and solve it; the round's record and HiGHS' answer."""
    prep_started = time.perf_counter()
    loop.model = CoverModel(loop.codes_t, loop.columns, *loop.pairs, reduce=options.reduce)
    prep = time.perf_counter() - prep_started
    out = loop.model.solve(time_limit=loop.seconds_left(options), threads=options.threads, incumbent=loop.best,
                           stop_at=_ceil(loop.lower) if loop.lower > 0 else None, log=options.highs_log,
                           options=options.highs_options)
    loop.status = out["status"]
    loop.lower = max(loop.lower, out["dual_bound"])
    classes = blindfold_pairs.unseparated_classes(loop.codes, out["chosen"]) if out["objective"] is not None else None
    info = RoundInfo(round=number, pairs=len(loop.pairs[0]), pairs_added=0, rows=loop.model.n_rows,
                     columns=loop.model.n_cols, nonzeros=loop.model.nonzeros, objective=out["objective"],
                     dual_bound=out["dual_bound"], status=loop.status, solver_seconds=out["seconds"],
                     prep_seconds=prep, chosen=[int(g) for g in out["chosen"]],
                     unseparated_classes=-1 if classes is None else len(classes))
    out["classes"] = classes
    return info, out


def _round_outcome(loop: _Loop, info: RoundInfo, out: dict, options: BlindfoldOptions) -> str:
    """Use the round's solutions (upper bounds, or pairs for the next relaxation); why the loop stops ("" if
    it goes on, with the new pairs added)."""
    loop.rounds.append(info)
    if loop.status == "Infeasible":
        return "infeasible: some pair is separated by no allowed guess"
    new_labels = _use_solutions(loop, out, options.repair)
    if loop.best is not None and _ceil(loop.lower) >= len(loop.best):
        return "proven"
    if loop.status != "Optimal":
        return "time limit" if "time" in loop.status.lower() else f"solver stopped: {loop.status}"
    if not new_labels:
        return "separating solution"
    new = blindfold_pairs.merge_pairs(*[blindfold_pairs.pairs_within_labels(labels) for labels in new_labels])
    new = blindfold_pairs.difference_pairs(new, loop.pairs, loop.codes.shape[1])
    if len(new[0]) > options.max_new_pairs:
        new = blindfold_pairs.hardest_pairs(loop.codes_t, *new, options.max_new_pairs, loop.columns)
    info.pairs_added = len(new[0])
    loop.pairs = blindfold_pairs.merge_pairs(loop.pairs, new)
    return ""


def _use_solutions(loop: _Loop, out: dict, repair: bool) -> list[np.ndarray]:
    """Every solution HiGHS reported this round: verified ones are upper bounds, the others give the class
    labels whose pairs join the relaxation; with `repair` the round's solution is completed greedily."""
    new_labels = []
    candidates = list(out["solutions"]) + ([out["chosen"]] if out["objective"] is not None else [])
    for solution in candidates:
        labels = blindfold_pairs.class_labels(loop.codes, solution)
        if int(labels.max(initial=-1)) + 1 == loop.codes.shape[1]:
            loop.keep_if_better(solution)
        else:
            new_labels.append(labels)
    if out["classes"] and repair:
        try:
            loop.keep_if_better(greedy_complete(loop.codes, out["chosen"], loop.columns))
        except ValueError:
            pass
    return new_labels


def _result(loop: _Loop, warm: BlindfoldResult | None) -> BlindfoldResult:
    """The loop's outcome: best verified set, its proven lower bound and the gap between them."""
    lb = _ceil(loop.lower)
    f_star = None if loop.best is None else int(len(loop.best))
    proven = f_star is not None and lb >= f_star
    if proven:
        lb = f_star
    gap = None if f_star is None else (f_star - lb) / f_star if f_star else 0.0
    return BlindfoldResult(
        f_star=f_star, chosen=np.empty(0, dtype=np.int64) if loop.best is None else np.sort(loop.best),
        lower_bound=int(lb) if np.isfinite(lb) else lb, lower_bound_raw=float(loop.lower),
        model_status=loop.status, proven_optimal=bool(proven), gap=gap, pairs_i=loop.pairs[0],
        pairs_j=loop.pairs[1], rounds=len(loop.rounds), solver_seconds=[r.solver_seconds for r in loop.rounds],
        total_seconds=time.perf_counter() - loop.started, round_log=loop.rounds, stop_reason=loop.stop, warm=warm)


def _ceil(x: float) -> float:
    if not np.isfinite(x):
        return x
    return float(np.ceil(x - _EPS))
