"""Project the cost of a whole proof of a big game from a partial run, and print it as JSON.

    python benchmarks/projection.py --game primel [--sample 30] [--full-levels 1] [--ub N] [--max-level 8] [--hard]

It follows what `experiment=prove_wordle` does, stage by stage (in hard mode with `--hard`, as
`game.hard_mode=true` does), and measures CPU seconds in this process (so a loaded machine changes little):
- the code matrix; the upper bound: ApMinTotal (n = 10 or `--breadth`, under the game's guess limit) over
  the 10 (or `--top-k`) best-ranked openers, one per orbit of the game's symmetries (none in hard mode),
  then the best opener solved exactly (refine = 1); `--ub` replaces both by a given threshold, `--no-exact`
  keeps ApMinTotal's best;
- the funnel: V_1 .. V_full-levels over every opener (one per orbit), in full; then a seeded sample of
  that level's survivors (the UB opener apart) climbs every level up to max_level (the experiment's
  `lower_bound.max_level` unless `--max-level`) while it survives, each level by the stage's rule (hard-mode
  bounds from `lower_bound.hard_from` on in hard mode), and the UB opener, which survives
  every level, climbs beside it.  A level's survival rate is the sample's; when none of the sample
  survive, the one-sided 95 % upper bound of the rate, 1 - 0.05^(1/n), is used instead of zero, and
  the levels after it (no sampled survivor left) price every projected survivor at the UB opener's cost
  and let all of them survive.  The climb stops where the stage stops: one survivor left, or every
  survivor's bound at UB;
- the closure, by the prove stage's own code (search/bounds/closure.py): the UB opener's classes are bounded one
  by one by `bound_class` against its UB tree's subtree totals (a size-stratified sample of `--class-sample`
  classes, the largest included, priced by the mean), and each other survivor is closed by `close_opener`
  (measured on the sampled survivors of the last level, else on the UB opener as a stand-in, whose every class
  must be solved exactly); one set of solvers serves every class, emptied after each, as a worker's are.
Building a solver is set-up, priced apart from the work: a lower_bound task builds its own (one build per task,
as many tasks as the stage makes on N cores), a prove worker process builds them once (one per core at most).

The projection ("upper"): the opener count of each level is 1 (the UB opener) + the others times the survival
rate; core-seconds are counts times mean seconds plus the set-ups of a REFERENCE_CORES-core cluster.  "central"
(`central_estimate`; `--central-of <json>` adds it to a stored projection) repeats it from the same measurements
with central counts at the sampled levels: an opener's offset is its value at the last full level minus the UB
opener's there; an opener whose offset exceeds the UB opener's slack at a level (UB minus its value there) cannot
survive that level unless its gap to the UB opener shrank, so the survivors are the UB opener + the other
*eligible* openers times the survival rate of the sampled eligible ones (median-unbiased 1 - 0.5^(1/n) when none
of n survive, 0.5 when the sample has none), never more than entered; the climb stops at one opener.  Wall on N
cores is the sum over the steps of max(core-seconds there / N, the longest single task + one set-up), since
levels run one after another; the matrix and the upper bound count as they ran. Sample sizes are printed beside
every estimate.
"""

import argparse
import json
import resource
import sys
import time
from collections import Counter
from pathlib import Path

import numpy as np
from omegaconf import OmegaConf

from pipeline.artifacts.tree_nodes import exact_tree
from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.apmintotal.value import ApSearch, rank_openers
from pipeline.search.bounds.lower import k_of_game
from pipeline.search.hard_mode import initial_state
from pipeline.search.bounds.closure import (ClassSettings, ClassSolvers, bound_class, guesses_left, opener_classes,
                                            settle_opener, subtree_totals)
from pipeline.search.exact.solver import ExactSolver
from pipeline.search.matrix import Matrix
from pipeline.search.bounds.funnel import FunnelSolvers, funnel_levels, level_rule
from pipeline.search.symmetry.generators import first_of_each_orbit, opener_representatives
from pipeline.search.tree import to_json
from pipeline.config.stages import LowerBoundConfig, ProveConfig, UpperBoundConfig
from pipeline.runtime.policy import batch_count
from pipeline.stages.prove import CLASS_TASKS_PER_CPU

CORES = (2, 8, 64, 512)
REFERENCE_CORES = 2  # core-hours count the set-ups of a cluster this big (the machine the real runs ran on)
EXPERIMENT = Path(__file__).resolve().parents[1] / "conf" / "experiment" / "prove_wordle.yaml"
CONFIDENCE = 0.95  # one-sided bound on a survival rate the sample saw no survivor of
NO_INFORMATION_RATE = 0.5  # the central survival rate of eligible openers when the sample has none of them


def experiment_settings() -> dict:
    """The settings of `experiment=prove_wordle` the projection mirrors: its yaml over the stage schemas."""
    upstream = OmegaConf.load(EXPERIMENT).upstream
    ub_cfg, lb_cfg, prove_cfg = UpperBoundConfig(), LowerBoundConfig(), ProveConfig()
    return {"breadth": int(upstream.upper_bound.get("breadth", ub_cfg.breadth)), "top_k": ub_cfg.top_k,
            "ap_memo_entries": ub_cfg.max_memo_entries, "refine_memo_bits": ub_cfg.refine_memo_bits,
            "max_level": int(upstream.lower_bound.max_level),
            "max_batch": int(upstream.lower_bound.get("max_batch", lb_cfg.max_batch)),
            "hard_from": int(upstream.lower_bound.get("hard_from", lb_cfg.hard_from)),
            "skip_levels": list(upstream.lower_bound.get("skip_levels", lb_cfg.skip_levels)),
            "hard_skip_levels": list(upstream.lower_bound.get("hard_skip_levels", lb_cfg.hard_skip_levels)),
            "prove_max_level": prove_cfg.max_level, "prove_memo_bits": prove_cfg.memo_bits}


def timed(fn, *args, **kwargs):
    """(result, CPU seconds of this process); a line on stderr per call, to follow a long run."""
    start = time.process_time()
    result = fn(*args, **kwargs)
    seconds = time.process_time() - start
    print(f"{time.strftime('%H:%M:%S')} {fn.__name__}: {seconds:.1f} CPU s", file=sys.stderr, flush=True)
    return result, seconds


def rate_upper(kept: int, sampled: int, confidence: float = CONFIDENCE) -> float:
    """One-sided upper confidence bound of a binomial rate (Clopper-Pearson): the p at which seeing at most
    `kept` of `sampled` has probability 1 - confidence; 1 - (1 - confidence)^(1/n) when kept = 0."""
    if kept >= sampled:
        return 1.0
    alpha = 1.0 - confidence
    if kept == 0:
        return 1.0 - alpha ** (1.0 / sampled)

    def cdf(p):  # P(X <= kept) for X ~ Binomial(sampled, p), decreasing in p
        term, total = (1.0 - p) ** sampled, 0.0
        for i in range(kept + 1):
            total += term
            term *= (sampled - i) / (i + 1) * p / (1.0 - p)
        return total

    low, high = kept / sampled, 1.0
    for _ in range(60):
        mid = (low + high) / 2
        low, high = (mid, high) if cdf(mid) > alpha else (low, mid)
    return high


class FunnelBounds(FunnelSolvers):
    """V_level(g, S) of an opener by the rule the lower_bound stage uses at that level (search/bounds/funnel.py): the
    hard-mode bounds from `hard_from` on when `hard_from` is given (hard mode), the normal-mode ones otherwise."""

    def __init__(self, matrix: Matrix, k_s, hard_from=None):
        super().__init__(matrix, k_s)
        self.hard_from = hard_from
        self.start = None if hard_from is None else initial_state(matrix.encoded_guesses.shape[1])
        self.everyone = np.arange(matrix.n_secrets, dtype=np.int32)
        self.build_s: dict[str, float] = {}

    def solver(self, rule: str):
        """The rule's solver; the CPU seconds its build took are kept in `build_s` (a lower_bound task pays
        them again: it builds its own solvers)."""
        if rule not in self.build_s:
            start = time.process_time()
            super().solver(rule)
            self.build_s[rule] = time.process_time() - start
        return super().solver(rule)

    def rule(self, level: int) -> str:
        return level_rule(self.hard_from is not None, self.hard_from or 0, level)

    def v(self, g: int, level: int, budget: int) -> tuple[int, bool]:
        """(V_level(g, S), exact) of one opener."""
        if self.rule(level) == "hard":
            return self.solver("hard").v(g, self.everyone, self.start, level, budget)
        return self.solver("normal").v(g, self.everyone, level, budget)

    def opener_values(self, openers: np.ndarray, level: int, budget: int) -> tuple[np.ndarray, np.ndarray]:
        """(values, exact) of every opener in `openers`, as one lower_bound task computes them."""
        return self.values(openers, level, budget, self.rule(level))


def rate_median(kept: int, sampled: int) -> float:
    """A central survival rate: the sample's, or when the sample kept none, the median-unbiased 1 - 0.5^(1/n)
    (the rate at which seeing none of n survive is as likely as not)."""
    return kept / sampled if kept else 1.0 - 0.5 ** (1.0 / sampled)


def eligibility(offsets: dict, entering, values, ub: int, ub_value: int) -> dict:
    """A sampled level's conditional information.  An opener's offset is its value at the last full level minus
    the UB opener's there; the UB opener's slack at this level is UB minus its value here.  If no opener's gap
    to the UB opener shrinks from level to level, only openers whose offset is at most that slack can survive
    this level: the `eligible` ones (of every opener of the last full level, the UB opener among them).  Also
    how many of the sample `entering` the level (their `values` here) are eligible, and how many of those
    survive."""
    slack = ub - ub_value
    every = np.fromiter(offsets.values(), dtype=np.int64, count=len(offsets))
    picked = [v for g, v in zip(entering, values) if offsets[int(g)] <= slack]
    return {"ub_opener_slack": int(slack), "eligible": int(np.count_nonzero(every <= slack)),
            "sampled_eligible": len(picked), "eligible_survivors": int(sum(v <= ub for v in picked))}


def central_survivors(count: float, has_ub: int, row: dict) -> float:
    """The central survivor count of a sampled level entered by `count` openers (the UB opener among them when
    `has_ub`): the UB opener + the other eligible openers (`eligibility`) times the rate of the sampled
    eligible ones (rate_median: theirs, median-unbiased when none of them survive, NO_INFORMATION_RATE when
    the sample has none), never more than entered."""
    others = max(row["eligible"] - has_ub, 0)
    n, kept = row["sampled_eligible"], row["eligible_survivors"]
    rate = rate_median(kept, n) if n else NO_INFORMATION_RATE
    return min(count, has_ub + others * rate)


def central_rate_survivors(count: float, has_ub: int, row: dict) -> float:
    """A sampled level's central survivor count: `central_survivors` when the row has the eligibility, else
    (a stored projection made before it) the UB opener + the others times rate_median."""
    if "eligible" in row:
        return central_survivors(count, has_ub, row)
    rate = rate_median(row["sample_survivors"], row["sampled"]) if row["sampled"] else 1.0
    return has_ub + (count - has_ub) * rate


def central_estimate(out: dict) -> dict:
    """The projection again from the same measurements with central survivor counts (`central_rate_survivors`)
    at the sampled levels: levels run in full, every cost as measured, each sampled level priced for the openers
    the central count lets in (at the sample's mean cost, or the UB opener's where no sampled opener is left),
    its set-up for as many tasks; the climb stops where it leaves one opener or where the upper climb stopped.
    The other survivors' closure is priced for the central count left."""
    max_batch = out["settings"].get("max_batch")
    steps = [step(out["matrix"]["cpu_s"], out["matrix"]["cpu_s"]),
             step(out["upper_bound"]["cpu_s"], out["upper_bound"]["longest_task_s"])]
    survivors, count = {}, 0.0
    for row in out["funnel"]:
        if row.get("sample_survivors") is None:  # a level run over every opener
            count = float(row["survivors"])
            steps.append(row_step(row))
        else:
            has_ub = int("ub_opener_s" in row)
            work = (count - has_ub) * row["mean_s"] + row.get("ub_opener_s", 0.0)
            steps.append(step(work, row["longest_s"], row.get("setup_s", 0.0), level_setups(count, max_batch)))
            count = central_rate_survivors(count, has_ub, row)
        survivors[str(row["level"])] = round(count, 2)
        if count <= 1:
            break
    close = out["closure"]
    others = max(count - int("ub_opener" in close), 0.0)
    if "ub_opener" in close:
        steps.append(row_step(close["ub_opener"]))
    steps.append(step(others * close["others"].get("mean_s", 0.0), close["others"]["longest_s"],
                      close["others"].get("setup_s", 0.0), worker_setups(others)))
    return {"rate_rule": "eligible openers (offset at the last full level <= the UB opener's slack) times the "
                         "sampled eligible ones' rate, median-unbiased when none survive, "
                         f"{NO_INFORMATION_RATE} when none sampled", "survivors": survivors,
            "core_seconds": round(core_seconds(steps), 1), "core_hours": round(core_seconds(steps) / 3600, 2),
            "projected_wall_s": projected_wall(steps)}


def with_central(path: Path) -> dict:
    """A stored projection's JSON with its central estimate added; one `error:` line and exit 2 when the file is
    not one."""
    try:
        if not path.is_file():  # a directory or a FIFO would fail or block on reading
            raise ValueError("not a regular file")
        stored = json.loads(path.read_text())
        return {**stored, "central": central_estimate(stored)}
    except (OSError, UnicodeDecodeError, ValueError, KeyError, TypeError, AttributeError) as err:
        print(f"error: {path} is not a stored projection ({type(err).__name__}: {err})", file=sys.stderr)
        raise SystemExit(2) from None


def stratified(sizes, n: int) -> np.ndarray:
    """Indices of n items spread evenly over `sizes` sorted largest first (the largest always in)."""
    order = np.argsort(-np.asarray(sizes), kind="stable")
    if n >= len(order):
        return order
    return order[np.unique(np.linspace(0, len(order) - 1, n).round().astype(int))]


def ranked_openers(game, codes, rep: np.ndarray, top_k: int) -> list[int]:
    """The `top_k` best-ranked openers, one per orbit (the upper_bound stage's `ranked`)."""
    symmetric = not np.array_equal(rep, np.arange(len(rep)))
    ranked = rank_openers(Matrix.of_game(codes, game), len(rep) if symmetric else top_k)
    return first_of_each_orbit(ranked, rep)[:top_k]


def upper_bound(game, codes, rep, settings, given: int | None, exact: bool = True) -> tuple[dict, dict]:
    """ApMinTotal (n = breadth) over the best-ranked openers under the game's guess limit, then (`exact`)
    the best feasible one solved exactly; (figures, the UB tree's subtree totals by response)."""
    if given is not None:
        return {"ub": given, "source": "--ub", "cpu_s": 0.0, "longest_task_s": 0.0}, {}
    breadth = settings["breadth"]
    matrix = Matrix.of_game(codes, game)
    search = ApSearch(matrix, breadth, hard_mode=game.hard_mode, max_guesses=game.max_guesses,
                      max_entries=settings["ap_memo_entries"])
    ranked, rank_s = timed(ranked_openers, game, codes, rep, settings["top_k"] or breadth)
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
    tree, value, exact_s = best.tree(list(game.guesses), game.answering.text), None, 0.0
    if exact:
        solver = ExactSolver(matrix, hard_mode=game.hard_mode, max_guesses=game.max_guesses,
                             memo_bits=settings["refine_memo_bits"])
        (value, solved), exact_s = timed(solver.guess_value, best.opener, None, best.total + 1)
        value = int(value) if solved else None
        if value is not None and value < best.total:  # the stage keeps ApMinTotal's tree on a tie
            tree = exact_tree(solver.tree(best.opener), game, codes)
    longest = max(max(ap_s), exact_s)
    return ({"ub": value or best.total, **out, "exact": value, "cpu_s": round(rank_s + sum(ap_s) + exact_s, 1),
             "exact_s": round(exact_s, 1) if exact else "skipped (--no-exact)", "longest_task_s": round(longest, 1)},
            subtree_totals(to_json(tree)))


def full_level(bounds: FunnelBounds, alive, level, ub, max_batch=None) -> tuple[np.ndarray, np.ndarray, dict]:
    """V_level of every opener in `alive`; (survivors, their values, figures).  The solver's build is set-up,
    paid once per task of the stage (`level_setups`), not work."""
    bounds.solver(bounds.rule(level))
    (values, _), seconds = timed(bounds.opener_values, alive, level, ub)
    kept = values <= ub
    return alive[kept], values[kept], {
        "level": level, "rule": bounds.rule(level), "openers": len(alive), "survivors": int(kept.sum()),
        "sampled": len(alive), "cpu_s": round(seconds, 1), "mean_s": round(seconds / max(len(alive), 1), 4),
        "setup_s": round(bounds.build_s[bounds.rule(level)], 2), "setups": level_setups(len(alive), max_batch)}


def level_row(level, count, has_ub, seconds, values, ub, ub_cost) -> dict:
    """One sampled level's projection from the sample's (seconds, values) and the UB opener's (seconds,
    value) or None: openers entering `count` (the UB opener among them when `has_ub`); survivors = the UB
    opener + the others times the sample's rate, its one-sided upper bound when none survive, every one
    when no sample is left (priced at the UB opener's cost)."""
    others = count - has_ub
    kept = sum(v <= ub for v in values)
    if values:
        rate, rule = kept / len(values), "the sample's rate"
        if not kept:
            rate, rule = rate_upper(0, len(values)), f"none of the sample survive: one-sided {CONFIDENCE:.0%} bound"
        mean_s = float(np.mean(seconds))
    else:
        rate, rule, mean_s = 1.0, "no sampled survivor left: all assumed to survive, at the UB opener's cost", ub_cost[0]
    longest = max(seconds + ([ub_cost[0]] if ub_cost else []))
    row = {"level": level, "openers": round(count), "sampled": len(values), "sample_survivors": int(kept),
           "survivors": round(has_ub + others * rate), "survivors_exact": round(has_ub + others * rate, 2),
           "survival_rate": round(rate, 4), "rate_rule": rule, "mean_s": round(mean_s, 4),
           "longest_s": round(longest, 2), "cpu_s": round(others * mean_s + (ub_cost[0] if ub_cost else 0.0), 1)}
    if values:
        row["survival_rate_upper95"] = round(rate_upper(int(kept), len(values)), 4)
    if ub_cost:
        row["ub_opener_s"] = round(ub_cost[0], 2)
    return row


def stage_stops(row, values, ub, ub_cost) -> bool:
    """The lower_bound stage's stop: one survivor left, or every survivor's bound at UB (judged on the
    sample's survivors and the UB opener, when the sample has any)."""
    if row["survivors_exact"] <= 1:
        return True
    seen = [v for v in values if v <= ub] + ([ub_cost[1]] if ub_cost else [])
    return row["sample_survivors"] > 0 and all(v >= ub for v in seen)


def sampled_levels(bounds: FunnelBounds, sample, ub_opener, n_openers, ub, levels, offsets=None,
                   max_batch=None) -> tuple[list[dict], list[int]]:
    """The `levels` on a sample (UB opener apart) that climbs while it survives, the UB opener
    beside it; (rows, the sampled openers alive after the last level run).  With `offsets` ({opener: its offset}
    over the last full level's survivors, `eligibility`) and a UB opener, each row has its eligibility; each
    has its set-up (`level_setups` of the openers entering, stage.max_batch openers a task at most)."""
    rows, alive, count, has_ub = [], list(sample), float(n_openers), int(ub_opener is not None)
    for level in levels:
        bounds.solver(bounds.rule(level))
        seconds, values = [], []
        for g in alive:
            (value, _), s = timed(bounds.v, int(g), level, ub)
            seconds.append(s)
            values.append(int(value))
        ub_cost = None
        if has_ub:
            (value, _), s = timed(bounds.v, int(ub_opener), level, ub)
            ub_cost = (s, int(value))
        if not alive and not has_ub:
            break
        row = {"rule": bounds.rule(level), **level_row(level, count, has_ub, seconds, values, ub, ub_cost),
               "setup_s": round(bounds.build_s[bounds.rule(level)], 2), "setups": level_setups(count, max_batch)}
        if offsets is not None and ub_cost:
            row.update(eligibility(offsets, alive, values, ub, ub_cost[1]))
        rows.append(row)
        alive, count = [g for g, v in zip(alive, values) if v <= ub], row["survivors_exact"]
        if stage_stops(row, values, ub, ub_cost):
            row["stage_stops_here"] = True
            break
    return rows, alive


def built_in(solvers: ClassSolvers, *builds) -> float:
    """CPU seconds that building `solvers`' solvers takes: each of `builds` (a method name and its arguments)."""
    start = time.process_time()
    for name, *arguments in builds:
        getattr(solvers, name)(*arguments)
    return time.process_time() - start


def ub_opener_closure(game, codes, k_s, ub_opener, targets, settings, generators, n_sample) -> dict:
    """The prove stage's tasks for the UB opener: `bound_class` of each response class against its UB subtree
    total, on a size-stratified sample of the classes, with one set of solvers emptied after each class as a
    worker's are (`task_solvers`); the work is the mean times the class count, the solvers' build is set-up,
    once per worker process (`worker_setups` of the stage's class tasks)."""
    classes = opener_classes(codes, game, ub_opener)
    picked = stratified([len(m) for _, m, _ in classes], n_sample)
    seconds, methods = [], Counter()
    solvers = ClassSolvers(Matrix.of_game(codes, game))
    setup_s = built_in(solvers, ("bounds", k_s, game.hard_mode))
    closing = ClassSettings(k_s=k_s, max_level=settings["prove_max_level"], memo_bits=settings["prove_memo_bits"],
                            left=guesses_left(game), generators=generators)
    for i in picked:
        colours, members, state = classes[i]
        (_, method), s = timed(bound_class, solvers, closing, members, targets.get(colours), hard_state=state,
                               history=(ub_opener,) if generators else None)
        solvers.reset()
        seconds.append(s)
        methods[method] += 1
    mean_s = float(np.mean(seconds))
    return {"opener": game.guesses[ub_opener], "classes": len(classes), "sampled": len(picked),
            "sampled_sizes": [len(classes[i][1]) for i in picked], "methods": dict(methods),
            "mean_s": round(mean_s, 4), "longest_s": round(max(seconds), 2), "cpu_s": round(mean_s * len(classes), 1),
            "setup_s": round(setup_s, 2), "setups": worker_setups(len(classes), per_cpu=CLASS_TASKS_PER_CPU)}


def close_survivor(solvers: ClassSolvers, game, codes, opener, ub, k_s, settings) -> tuple[float, dict]:
    """(CPU seconds, figures) of the prove stage's task for a survivor other than the UB opener:
    `settle_opener` over its classes, with `solvers` emptied afterwards as a worker's are."""
    classes = [(m, state) for _, m, state in opener_classes(codes, game, opener)]
    start = time.process_time()
    bounds = settle_opener(solvers, classes, ub=ub, hard=game.hard_mode, memo_bits=settings["prove_memo_bits"],
                           left=guesses_left(game), k_s=k_s, level=settings["prove_max_level"])
    seconds = time.process_time() - start
    solvers.reset()
    print(f"{time.strftime('%H:%M:%S')} close_opener {game.guesses[opener]}: {seconds:.1f} CPU s", file=sys.stderr,
          flush=True)
    return seconds, {"opener": game.guesses[opener], "classes": len(classes), "cpu_s": round(seconds, 2),
                     "value": len(game.secrets) + sum(b for b, _ in bounds),
                     "exact_classes": sum(method == "exact" for _, method in bounds)}


def others_closure(game, codes, k_s, survivors, alive, ub_opener, ub, settings, n_sample) -> dict:
    """The other survivors' closure: `close_opener` on up to n_sample sampled survivors of the last level,
    or, when none is left, on the UB opener as a stand-in; projected over `survivors` openers, the solvers'
    build as set-up once per worker process."""
    measured_on = alive[:n_sample] if alive else ([ub_opener] if ub_opener is not None and survivors > 0 else [])
    if not measured_on:
        return {"openers": 0, "cpu_s": 0.0, "longest_s": 0.0, "priced_by": "no other survivor"}
    solvers = ClassSolvers(Matrix.of_game(codes, game))
    builds = [("exact", game.hard_mode, settings["prove_memo_bits"], guesses_left(game)),
              ("bounds", k_s, game.hard_mode)]
    setup_s = built_in(solvers, *builds, *([("within", game.hard_mode)] if guesses_left(game) is not None else []))
    figures = [close_survivor(solvers, game, codes, int(g), ub, k_s, settings) for g in measured_on]
    seconds = [s for s, _ in figures]
    basis = ("close_opener on the sampled survivors of the last level" if alive else
             "close_opener on the UB opener (a stand-in: no sampled survivor left; every class solved exactly)")
    return {"openers": round(survivors, 1), "priced_by": basis, "measured": [f for _, f in figures],
            "mean_s": round(float(np.mean(seconds)), 2), "longest_s": round(max(seconds), 2),
            "cpu_s": round(survivors * float(np.mean(seconds)), 1), "setup_s": round(setup_s, 2),
            "setups": worker_setups(survivors)}


def closure(game, codes, k_s, ub_row, targets, survivors, alive, settings, generators, args) -> dict:
    """The prove stage priced by its own code: the UB opener's class tasks and the other survivors'
    opener tasks. The legacy keys (per_opener_s, openers, cpu_s, longest_task_s) sum both."""
    ub_opener = game.guess_index[ub_row["opener"]] if "opener" in ub_row else None
    out = {}
    if ub_opener is not None:
        out["ub_opener"] = ub_opener_closure(game, codes, k_s, ub_opener, targets, settings, generators,
                                               args.class_sample)
    others = max(survivors - (ub_opener is not None), 0.0)
    out["others"] = others_closure(game, codes, k_s, others, alive, ub_opener, ub_row["ub"], settings,
                                   args.closure_sample)
    cpu = out.get("ub_opener", {}).get("cpu_s", 0.0) + out["others"]["cpu_s"]
    longest = max(out.get("ub_opener", {}).get("longest_s", 0.0), out["others"]["longest_s"])
    return {"per_opener_s": round(cpu / max(survivors, 1.0), 1), "openers": round(survivors, 1),
            "priced_by": "search/bounds/closure.py bound_class (UB opener, per class) and close_opener (others), "
                         "solvers built once per worker",
            "cpu_s": round(cpu, 1), "longest_task_s": longest, **out}


def step(cpu_s: float, longest_s: float, setup_s: float = 0.0, setups: dict | None = None) -> dict:
    """One step of the proof: its work in core-seconds, its longest task, and the set-up (solver build, CPU
    seconds) paid `setups[N]` times on a cluster of N cores (none when `setups` is None)."""
    return {"cpu_s": cpu_s, "longest_s": longest_s, "setup_s": setup_s, "setups": setups or {}}


def row_step(row: dict) -> dict:
    """The step of a stored funnel level or closure fan-out (a row without set-up fields has none)."""
    return step(row["cpu_s"], row.get("longest_s", row.get("mean_s", 0.0)), row.get("setup_s", 0.0),
                row.get("setups"))


def level_setups(openers: float, max_batch: int | None) -> dict[str, int]:
    """Solver builds of a lower_bound level over `openers` openers on each cluster size: one per task (a task
    builds its own solvers), as many tasks as the stage makes (runtime/policy.py `batch_count`)."""
    return {str(n): batch_count(round(openers), n, max_batch=max_batch) for n in CORES}


def worker_setups(tasks: float, per_cpu: int = 1) -> dict[str, int]:
    """Solver builds of a prove fan-out of `tasks` items, `per_cpu` tasks per cluster CPU: one per worker
    process (`task_solvers` keeps them from task to task), so at most one per core."""
    return {str(n): min(n, batch_count(int(np.ceil(tasks)), n, per_cpu=per_cpu)) for n in CORES}


def core_seconds(steps: list[dict], cores: int = REFERENCE_CORES) -> float:
    """CPU seconds of the steps on a cluster of `cores`: their work and their set-ups there."""
    return sum(s["cpu_s"] + s["setup_s"] * s["setups"].get(str(cores), 0) for s in steps)


def closure_steps(close: dict) -> list[dict]:
    """The prove stage's two fan-outs, one after the other."""
    steps = [row_step(close["ub_opener"])] if "ub_opener" in close else []
    return steps + [row_step(close["others"])]


def projected_wall(steps: list[dict]) -> dict:
    """Wall on N cores: sum over steps of max(core-seconds there / N, longest task + one set-up)."""
    def wall(s, n):
        setups = s["setups"].get(str(n), 0)
        return max((s["cpu_s"] + s["setup_s"] * setups) / n, s["longest_s"] + (s["setup_s"] if setups else 0.0))

    return {str(n): round(sum(wall(s, n) for s in steps), 1) for n in CORES}


def arguments(settings: dict):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="wordle_nyt_jul2023")
    parser.add_argument("--ub", type=int, default=None, help="funnel threshold instead of computing the UB")
    parser.add_argument("--sample", type=int, default=30, help="openers sampled from the last full level")
    parser.add_argument("--full-levels", type=int, default=2, help="levels run over every opener (1 or 2)")
    parser.add_argument("--max-level", type=int, default=settings["max_level"],
                        help="deepest V_i (default: experiment=prove_wordle's lower_bound.max_level)")
    parser.add_argument("--class-sample", type=int, default=30, help="UB opener classes bounded to price them")
    parser.add_argument("--closure-sample", type=int, default=10, help="last-level survivors closed to price them")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--no-exact", action="store_true", help="skip the UB opener's exact solve")
    parser.add_argument("--hard", action="store_true", help="hard mode (game.hard_mode=true)")
    parser.add_argument("--breadth", type=int, default=None, help="ApMinTotal's n (upstream.upper_bound.breadth)")
    parser.add_argument("--top-k", type=int, default=None, help="openers ApMinTotal tries (upstream.upper_bound.top_k)")
    parser.add_argument("--central-of", type=Path, default=None,
                        help="print this stored projection's JSON with its central estimate added; nothing is run")
    return parser.parse_args()


def funnel(game, codes, rep, ub_row, args, settings) -> tuple[list[dict], list[int], int]:
    """V_1..V_full-levels in full, then the sampled climb; (rows, sampled survivors of the last level, K_S)."""
    k_s = k_of_game(codes, game.n_codes)
    bounds = FunnelBounds(Matrix.of_game(codes, game), k_s,
                          hard_from=settings["hard_from"] if game.hard_mode else None)
    ub, alive, levels = ub_row["ub"], np.unique(rep).astype(np.int32), []
    climb = funnel_levels(args.max_level, settings["hard_skip_levels" if game.hard_mode else "skip_levels"])
    for level in [level for level in climb if level <= args.full_levels]:
        alive, values, row = full_level(bounds, alive, level, ub, settings["max_batch"])
        levels.append(row)
    ub_opener = game.guess_index[ub_row["opener"]] if "opener" in ub_row else None
    pool = alive[alive != ub_opener] if ub_opener is not None else alive
    offsets = None
    if ub_opener is not None and ub_opener in alive:
        offsets = dict(zip(alive.tolist(), (values - values[alive == ub_opener][0]).tolist()))
    sample = np.random.default_rng(args.seed).choice(pool, size=min(args.sample, len(pool)), replace=False)
    rows, kept = sampled_levels(bounds, sample, ub_opener, len(alive), ub,
                                [level for level in climb if level > args.full_levels], offsets=offsets,
                                max_batch=settings["max_batch"])
    return levels + rows, kept, k_s


def main():
    settings = experiment_settings()
    args = arguments(settings)
    if args.central_of is not None:
        print(json.dumps(with_central(args.central_of), indent=2))
        return
    settings["breadth"] = args.breadth or settings["breadth"]
    settings["top_k"] = args.top_k or settings["top_k"]
    game = builtin_game(args.game, hard_mode=args.hard)
    codes, matrix_s = timed(game_matrix, game)
    out = {"game": args.game, "hard_mode": game.hard_mode, "guesses": len(game.guesses), "secrets": len(game.secrets), "settings": settings,
           "sample": args.sample, "full_levels": args.full_levels, "max_level": args.max_level,
           "matrix": {"shape": list(codes.shape), "cpu_s": round(matrix_s, 1), "mb": round(codes.nbytes / 2**20)}}
    generators, rep = ([], np.arange(len(game.guesses))) if game.hard_mode else opener_representatives(
        game.encoded_guesses(), game.encoded_secrets(), codes, len(game.alphabet))
    out["symmetry"] = {"generators": len(generators), "orbits": int(len(np.unique(rep)))}
    ub, targets = upper_bound(game, codes, rep, settings, args.ub, exact=not args.no_exact)
    out["upper_bound"] = ub
    out["funnel"], alive, k_s = funnel(game, codes, rep, ub, args, settings)
    last = out["funnel"][-1]
    survivors = last.get("survivors_exact", last["survivors"])
    below_root = generators if "opener" in ub and not game.hard_mode else []
    out["closure"] = close = closure(game, codes, k_s, ub, targets, survivors, alive, settings, below_root, args)
    steps = [step(matrix_s, matrix_s), step(ub["cpu_s"], ub["longest_task_s"])]
    steps += [row_step(row) for row in out["funnel"]]
    steps += closure_steps(close)
    out["core_seconds"] = round(core_seconds(steps), 1)
    out["core_hours"] = round(core_seconds(steps) / 3600, 2)
    out["core_hours_cluster_cpus"] = REFERENCE_CORES
    out["projected_wall_s"] = projected_wall(steps)
    out["fits_60_min_on_2_cores"] = out["projected_wall_s"]["2"] <= 3600
    out["central"] = central_estimate(out)
    usage = resource.getrusage(resource.RUSAGE_SELF)
    out["measured_cpu_s"] = round(usage.ru_utime + usage.ru_stime, 1)
    out["peak_rss_mb"] = round(usage.ru_maxrss / 1024)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
