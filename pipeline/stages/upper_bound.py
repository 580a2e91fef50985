"""Stage upper_bound: ApMinTotal(S, n) of every opener fanned out over Ray (a few tasks per CPU); the best tree is UB.

The search plays the game's rules (hard mode, game.max_guesses): an opener
whose ApMinTotal strategy cannot find every secret within the limit is
listed with total null.  If no opener tried can, the search widens by itself (`widened_search`; off with
stage.widen_breadth=null), and the summary records how (`widened`):
1. each opener's response classes that break the limit are searched again at the next breadth of 3, 10, 30, 100, …
   above stage.breadth, up to stage.widen_breadth, each class keeping the first strategy found
   (search/apmintotal/widen.py): the 3158-answer list in hard mode within 6, where breadth 10 finds none for its
   10 best-ranked openers, needs no override;
2. if still none can and the openers are `ranked`, the stage.widen_top_k best-ranked openers (those not tried yet)
   are searched the same way.
If still none can, the summary says `feasible: false` (no ub, no tree), the log names the settings that search
wider, and the prove stage proves the limit infeasible (search/solvable/infeasible.py), or fails naming an opener
that has a strategy.  Every tree written is replayed and checked against the game's rules first.
With stage.refine=k the k best openers are then solved exactly (same rules,
alpha-beta under the best ApMinTotal total) and the best tree of all is the
UB: a proof closes only when UB is the optimum, and ApMinTotal misses it in
hard mode (8130 for SALET, exact 8122) and for Mastermind (5651 at breadth
10, exact 5625).

stage.objective=max_then_total (Knuth's criterion) ranks strategies by the
most guesses any secret needs, then by Total: per opener, the least guess
limit under which ApMinTotal finds a strategy, then ApMinTotal under it (the
heuristic's analogue of the lexicographic optimum, pipeline.search.strategies.objective);
refined openers get the exact lexicographic optimum.  The UB is then a Total
of a strategy, still an upper bound on MinTotal but not a proof target: the
proof experiments keep objective=total.

In a game with symmetries (Mastermind's colour and position permutations, search/symmetry/generators.py) symmetric
openers have the same values, so `ranked` and `all` try one opener per orbit (stage.symmetry=false tries
them all); Wordle's lists have none."""

from dataclasses import replace

import numpy as np
import pyarrow as pa

from pipeline.artifacts.outputs import OPENER_TOTALS, UB_SUMMARY, UPPER_BOUND, write_json, write_table
from pipeline.artifacts.trees import rule_violation, write_tree
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.search.apmintotal.value import RANKINGS, ApSearch, rank_openers
from pipeline.search.apmintotal.widen import ladder, widened_strategy
from pipeline.search.exact.solver import IMPOSSIBLE, INF, ExactSolver
from pipeline.search.strategies.objective import OBJECTIVES, least_limit
from pipeline.search.exact.symmetric import SymmetricExact
from pipeline.search.matrix import Matrix
from pipeline.search.symmetry.stabiliser import HistoryStabiliser
from pipeline.search.symmetry.generators import first_of_each_orbit, opener_representatives
from pipeline.artifacts.tree_nodes import exact_tree
from pipeline.runtime.executors import shared_args
from pipeline.runtime.log import log
from pipeline.search.tree import verify
from pipeline.stages.base import StageContext
from pipeline.config.stages import UpperBoundConfig

NAME, VERSION, INPUTS = "upper_bound", 4, ("feedback",)  # the stage contract: stages/base.py
OUTPUTS = UPPER_BOUND  # openers.parquet, summary.json, tree.json/.txt/.svg: pipeline/artifacts/outputs.py


SCHEMA = UpperBoundConfig


def validate(cfg: UpperBoundConfig, game) -> None:
    from pipeline.config.validation import (AP_MEMO_ENTRY_BYTES, at_least, enough_secrets, fits_memory, memo_bits,
                                            one_of, word_list)

    at_least(cfg, "breadth", 1)
    if cfg.ranking not in RANKINGS:
        raise PipelineError(f"stage.ranking must be one of {', '.join(RANKINGS)}, not {cfg.ranking!r}")
    at_least(cfg, "top_k", 1, allow_none=True)
    at_least(cfg, "widen_breadth", 1, allow_none=True)
    at_least(cfg, "widen_top_k", 1)
    at_least(cfg, "batch_size", 1)
    at_least(cfg, "max_memo_entries", 1)
    at_least(cfg, "refine", 0)
    at_least(cfg, "tree_depth", 1)
    memo_bits(cfg, "refine_memo_bits")
    one_of(cfg, "objective", OBJECTIVES)
    fits_memory("max_memo_entries", cfg.max_memo_entries, AP_MEMO_ENTRY_BYTES)
    enough_secrets(game, NAME)
    if isinstance(cfg.openers, str):
        if cfg.openers not in ("ranked", "all"):
            raise PipelineError(f"stage.openers must be ranked, all or a list of words, not {cfg.openers!r}")
        return
    if not isinstance(cfg.openers, (list, tuple)):
        raise PipelineError(f"stage.openers must be ranked, all or a list of words, not {cfg.openers!r}")
    word_list(cfg, "openers", game, allow_empty=False)


def chosen_openers(cfg: UpperBoundConfig, game, matrix: Matrix, symmetry) -> list[int]:
    """The openers to try: a given list as it is; `all` and `ranked` keep one opener per orbit of the game's
    symmetries (`symmetry`: the run's GameSymmetry), since symmetric openers have the same values."""
    if cfg.openers not in ("all", "ranked"):
        return [game.guess_index[str(w).lower()] for w in cfg.openers]
    n = len(game.guesses)
    rep = symmetry.representatives()
    if cfg.openers == "all":
        return first_of_each_orbit(range(n), rep)
    top_k = cfg.top_k or cfg.breadth
    symmetric = not np.array_equal(rep, np.arange(n))
    ranked = rank_openers(matrix, n if symmetric else top_k, ranking=cfg.ranking)
    return first_of_each_orbit(ranked, rep)[:top_k]


class GameSymmetry:
    """The game's symmetries as this run uses them, found once and only when first asked for (finding them costs
    about a second on a Wordle-size matrix): none when stage.symmetry is off or in hard mode."""

    def __init__(self, cfg: UpperBoundConfig, game, matrix: Matrix):
        self.off = not cfg.symmetry or game.hard_mode
        self.game, self.matrix = game, matrix
        self.found = None

    def _find(self) -> tuple[list[dict], np.ndarray]:
        if self.found is None:
            game, m = self.game, self.matrix
            self.found = ([], np.arange(len(game.guesses))) if self.off else opener_representatives(
                m.encoded_guesses, m.encoded_secrets, m.codes, len(game.alphabet))
        return self.found

    def generators(self) -> list[dict]:
        return self._find()[0]

    def representatives(self) -> np.ndarray:
        """The representative of every opener's orbit (every opener its own without symmetries)."""
        return self._find()[1]


def _evaluate(batch, matrix: Matrix, cfg: UpperBoundConfig, hard_mode, max_guesses, cap=None):
    """[(depth, ApMinTotal result)] per opener of a task's batch, searched as `cfg` says (breadth, memo size,
    ranking, objective) under the game's rules; depth is the least feasible limit under max_then_total, else
    None.  `cap` (not None): the opener's classes that break the limit are searched again wider, up to breadth
    `cap` (search/apmintotal/widen.py).  Every opener gets searches of its own (an empty memo, as in a task of
    its own): its values and memo counters do not depend on which openers share its task.  Only the transposed
    matrix, an input and not a memo, is made once per task."""
    matrix = matrix.with_transpose()
    return [_evaluate_opener(opener_strategy(matrix, cfg, hard_mode, max_guesses, opener, cap), matrix.n_secrets,
                             matrix.n_codes, max_guesses, cfg.objective) for opener in batch]


def opener_strategy(matrix: Matrix, cfg: UpperBoundConfig, hard_mode, max_guesses, opener, cap):
    """The opener's strategy as a function of the guesses left (None: the game's limit): ApMinTotal at
    stage.breadth, or with `cap` its classes that break the limit widened up to breadth `cap`."""
    options = {"hard_mode": hard_mode, "max_entries": cfg.max_memo_entries, "ranking": cfg.ranking}
    if cap is None:
        search = ApSearch(matrix, cfg.breadth, max_guesses=max_guesses, **options)
        return lambda left=None: search.strategy(None, opener, left=left)
    return lambda left=None: widened_strategy(matrix, opener, breadth=cfg.breadth, cap=cap,
                                              left=max_guesses if left is None else left, **options)


def _evaluate_opener(strategy, n_secrets, n_codes, max_guesses, objective):
    """(depth, ApMinTotal result) of one opener from its `strategy` (opener_strategy)."""
    if objective == "total":
        return None, strategy()

    def within(left):
        result = strategy(left)
        return result if result.feasible else None

    depth, result = least_limit(within, n_secrets, n_codes, max_guesses)
    return depth, result or strategy()  # infeasible: the result under the game's limit


def opener_batches(n_openers: int, cfg: UpperBoundConfig, cluster_cpus: int) -> list[list[int]]:
    """Which openers (their positions in the tried order) each task evaluates: a few tasks per cluster CPU (the
    runtime's `batch_count`), none above stage.batch_size openers, dealt round-robin so neighbours in the ranking
    (often of similar cost) go to different tasks.  Results do not depend on the split (`_evaluate`)."""
    from pipeline.runtime.policy import batch_count, deal

    return deal(list(range(n_openers)), batch_count(n_openers, cluster_cpus, max_batch=cfg.batch_size))


def evaluated_openers(ctx: StageContext, openers: list[int], cfg: UpperBoundConfig, shared: tuple,
                      label: str = NAME) -> list:
    """[(depth, ApMinTotal result)] of every opener, in the order of `openers`, from `opener_batches` tasks."""
    batches = opener_batches(len(openers), cfg, ctx.cluster_cpus()) if openers else []
    parts = ctx.fan_out(_evaluate, [[openers[i] for i in b] for b in batches], shared, label=label)
    results = [None] * len(openers)
    for batch, part in zip(batches, parts):
        for i, result in zip(batch, part):
            results[i] = result
    return results


def _exact_opener(opener, matrix: Matrix, hard_mode, max_guesses, memo_bits, best, generators=()):
    """(depth, V*(opener, S), its tree nodes) when it beats the best ApMinTotal strategy, else (None, None, None).

    `best` = (best_depth, beta).  best_depth None (objective total): beat Total `beta` under the game's limit.
    Otherwise (max_then_total) beat (best_depth, beta) lexicographically: the least limit d <= best_depth with a
    strategy, then V* under d (below `beta` when d = best_depth).  With the game's symmetry `generators` each
    node near the top tries one guess per orbit of the symmetries fixing the guesses played so far
    (search/exact/symmetric.py)."""
    best_depth, beta = best
    solver = ExactSolver(matrix, hard_mode=hard_mode, max_guesses=max_guesses, memo_bits=memo_bits)
    if generators:
        solver = SymmetricExact(solver, HistoryStabiliser(matrix.encoded_guesses, len(generators[0]["symbols"]),
                                                          list(generators)))

    def within(left, budget):
        total, exact = solver.guess_value(opener, beta=budget, left=left)
        return int(total) if exact and total < IMPOSSIBLE else None

    if best_depth is None:
        depth, total = None, within(None, beta)
    else:
        depth, total = least_limit(lambda d: within(d, INF if d < best_depth else beta), matrix.n_secrets,
                                   matrix.n_codes, best_depth)
    if total is None:
        return None, None, None
    return depth, total, (solver.tree(None, (), left=depth, first=opener) if generators else
                          solver.tree(opener, left=depth))


def refined(ctx: StageContext, cfg: UpperBoundConfig, matrix: Matrix, feasible, best, symmetry) -> list[dict]:
    """Exact values and trees of the `refine` best openers that beat `best` (depth, total), searched with the
    game's `symmetry` (GameSymmetry): [{opener, depth, total, tree}]."""
    game = ctx.game
    picked = [r.opener for _, r in sorted(feasible, key=rank)[:cfg.refine]]
    generators = symmetry.generators()
    shared = shared_args(_exact_opener, matrix=matrix, hard_mode=game.hard_mode, max_guesses=game.max_guesses,
                         memo_bits=cfg.refine_memo_bits, best=(best[0], best[1].total), generators=generators)
    solved = ctx.fan_out(_exact_opener, picked, shared, label=f"{NAME}-refine")
    return [{"opener": g, "depth": depth, "total": total, "tree": exact_tree(nodes, game, matrix.codes)}
            for g, (depth, total, nodes) in zip(picked, solved) if total is not None]


def rank(entry) -> tuple:
    """Sort key of a (depth, ApMinTotal result): Total, after the depth under max_then_total (depth not None)."""
    depth, result = entry
    return (depth or 0, result.total)


def searched(ctx: StageContext, cfg: UpperBoundConfig, matrix: Matrix, openers: list[int], cap=None,
             label: str = NAME) -> list:
    """`evaluated_openers` of `openers` at stage.breadth (their classes widened up to breadth `cap` if given)."""
    game = ctx.game
    shared = shared_args(_evaluate, matrix=matrix, cfg=cfg, hard_mode=game.hard_mode, max_guesses=game.max_guesses,
                         cap=cap)
    return evaluated_openers(ctx, openers, cfg, shared, label=label)


def widens(cfg: UpperBoundConfig, game, evaluated: list) -> bool:
    """Whether the search widens: a guess limit that no opener tried meets, and stage.widen_breadth set."""
    return (game.max_guesses is not None and cfg.widen_breadth is not None
            and not any(r.feasible for _, r in evaluated))


def widened_search(ctx: StageContext, cfg: UpperBoundConfig, matrix: Matrix, symmetry, openers: list[int],
                   evaluated: list) -> tuple[list[int], list, dict]:
    """(openers, their results, the summary's `widened` record) once no opener tried meets the limit: their
    classes that break it widened up to stage.widen_breadth, then, if still none meets it and the openers are
    ranked, the stage.widen_top_k best-ranked openers not yet tried, searched the same way."""
    cap, steps = cfg.widen_breadth, ladder(cfg.breadth, cfg.widen_breadth)
    log.warning(f"{NAME}: no strategy within game.max_guesses={ctx.game.max_guesses} at breadth {cfg.breadth} over "
                f"{len(openers)} openers; widening (stage.widen_breadth={cap}, stage.widen_top_k={cfg.widen_top_k})")
    widened = 0
    if steps:
        evaluated, widened = searched(ctx, cfg, matrix, openers, cap, label=f"{NAME}-widened"), len(openers)
    more = []
    if cfg.openers == "ranked" and not any(r.feasible for _, r in evaluated):
        tried = set(openers)
        more = [g for g in chosen_openers(replace(cfg, top_k=cfg.widen_top_k), ctx.game, matrix, symmetry)
                if g not in tried]
    if more:
        evaluated = evaluated + searched(ctx, cfg, matrix, more, cap, label=f"{NAME}-more-openers")
    record = {"breadths": steps, "openers": widened + len(more), "more_openers": len(more)}
    return openers + more, evaluated, record


def run(ctx: StageContext, cfg: UpperBoundConfig) -> dict:
    game = ctx.game
    codes = load_matrix(ctx.inputs["feedback"], game)
    matrix = Matrix.of_game(codes, game)
    symmetry = GameSymmetry(cfg, game, matrix)
    openers = chosen_openers(cfg, game, matrix, symmetry)
    evaluated = searched(ctx, cfg, matrix, openers)
    widened = None
    if widens(cfg, game, evaluated):
        openers, evaluated, widened = widened_search(ctx, cfg, matrix, symmetry, openers, evaluated)
    results = [r for _, r in evaluated]
    feasible = [e for e in evaluated if e[1].feasible]
    if not feasible:
        return no_strategy_found(ctx, cfg, results, widened)
    best_depth, best = min(feasible, key=rank)  # first in opener order on ties
    chosen = {"opener": best.opener, "depth": best_depth, "total": best.total, "method": "ApMinTotal",
              "tree": best.tree(list(game.guesses), game.answering.text)}
    exact = refined(ctx, cfg, matrix, feasible, (best_depth, best), symmetry) if cfg.refine else []
    for entry in exact:
        if (entry["depth"] or 0, entry["total"]) < (chosen["depth"] or 0, chosen["total"]):
            chosen = entry | {"method": "exact"}
    table = pa.table({"opener": [game.guesses[r.opener] for r in results],
                      "total": pa.array([r.total for r in results], type=pa.int64()),
                      **({} if cfg.objective == "total" else
                         {"max_guesses": pa.array([d for d, _ in evaluated], type=pa.int64())}),
                      **({} if widened is None else
                         {"widest_breadth": pa.array([widest(r) for r in results], type=pa.int64())}),
                      "rank": np.arange(1, len(results) + 1)})
    write_table(ctx.out.file(OPENER_TOTALS.name), table)
    tree = chosen["tree"]
    checked(tree, chosen["total"], game)
    stats = write_tree(ctx.out.file, tree, game, objective=cfg.objective, depth=cfg.tree_depth)
    summary = {"ub": chosen["total"], "objective": cfg.objective, "opener": game.guesses[chosen["opener"]],
               "method": chosen["method"],
               "breadth": cfg.breadth, "ranking": cfg.ranking, "openers_tried": len(results),
               **widening(widened, best),
               "apmintotal_best": best.total,
               "exact": [{"opener": game.guesses[e["opener"]], "total": e["total"]} for e in exact],
               "expected": stats["expected"], "max_guesses": stats["max_guesses"],
               "distribution": stats["distribution"], "memo": best.stats,
               "openers_infeasible": len(results) - len(feasible),
               "game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
               "hard_mode": game.hard_mode, "game_max_guesses": game.max_guesses}
    write_json(ctx.out.file(UB_SUMMARY.name), summary)
    return {k: summary[k] for k in ("ub", "objective", "opener", "method", "breadth", "openers_tried", "max_guesses",
                                    "distribution", "expected")}


def checked(tree, total: int, game) -> None:
    """The tree replays every secret to `total` and keeps the game's rules (guess limit, hard mode), or an internal
    error: the stage never writes a bound its tree does not meet."""
    if verify(tree, game.guesses, game.secrets, game.answering.response) != total:
        raise PipelineError("internal error: the best tree does not replay to its total")
    problem = rule_violation(tree, game)
    if problem:
        raise PipelineError(f"internal error: the best tree breaks the game's rules: {problem}")


def widest(result) -> int | None:
    """The widest breadth an opener's classes needed (its stage.breadth when none was widened); None when the
    opener has no strategy."""
    return max(result.widened, default=result.breadth) if result.feasible else None


def widening(widened: dict | None, best=None) -> dict:
    """The summary's record of a widened search: the wider breadths, the openers searched with them (`openers`,
    of which `more_openers` beyond the first ones tried) and, with a strategy found, how many classes of the best
    ApMinTotal opener each wider breadth solved (`classes_of_best`)."""
    if widened is None:
        return {}
    classes = {} if best is None else {"classes_of_best": {str(b): n for b, n in sorted(best.widened.items())}}
    return {"widened": widened | classes}


def no_strategy_found(ctx: StageContext, cfg: UpperBoundConfig, results, widened=None) -> dict:
    """The artifact when no opener tried has an ApMinTotal strategy within game.max_guesses: the openers table and
    a summary with `feasible` false and no ub (no tree); the prove stage then proves the limit infeasible, or
    fails naming an opener whose classes search/solvable/within.py solves in time (a strategy ApMinTotal missed)."""
    game = ctx.game
    how = (f"breadth {cfg.breadth}" if widened is None else
           f"breadth {cfg.breadth}, classes that break the limit widened up to {cfg.widen_breadth}")
    log.warning(f"{NAME}: no strategy found ({'hard mode, ' if game.hard_mode else ''}ApMinTotal {how}, "
                f"{len(results)} openers) that finds every secret within game.max_guesses={game.max_guesses} "
                f"guesses; to search wider, {wider_settings(cfg)} (upstream.upper_bound.* under prove); without a "
                "strategy, prove sets out to show the limit infeasible")
    write_table(ctx.out.file(OPENER_TOTALS.name), pa.table({
        "opener": [game.guesses[r.opener] for r in results], "total": pa.array([None] * len(results), type=pa.int64()),
        "rank": np.arange(1, len(results) + 1)}))
    summary = {"feasible": False, "ub": None, "opener": None, "objective": cfg.objective, "breadth": cfg.breadth,
               "ranking": cfg.ranking, "openers_tried": len(results), **widening(widened),
               "openers_infeasible": len(results),
               "game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
               "hard_mode": game.hard_mode, "game_max_guesses": game.max_guesses}
    write_json(ctx.out.file(UB_SUMMARY.name), summary)
    return {k: summary[k] for k in ("feasible", "ub", "objective", "breadth", "openers_tried", "game_max_guesses")}


def wider_settings(cfg: UpperBoundConfig) -> str:
    """The settings a user raises to search wider than `cfg` did."""
    if cfg.widen_breadth is None:
        return "set stage.widen_breadth (null here: no widening)"
    return (f"raise stage.widen_breadth (here {cfg.widen_breadth})"
            + (f" or stage.widen_top_k (here {cfg.widen_top_k})" if cfg.openers == "ranked" else ""))


def headline(summary: dict, folder) -> str:
    """`upper bound 544 (2.641 per secret, at most 4 guesses) with opener 4*7=28; 10 openers tried (apmintotal)`."""
    if summary.get("feasible") is False:
        return (f"no strategy found within {summary['game_max_guesses']} guesses ({summary['openers_tried']} openers "
                "tried, ApMinTotal): the prove stage proves the limit infeasible or finds one")
    per = f"{summary['expected']:.3f} per secret, " if summary.get("expected") is not None else ""
    objective = "" if summary.get("objective", "total") == "total" else f" ({summary['objective']})"
    return (f"upper bound {summary['ub']}{objective} ({per}at most {summary['max_guesses']} guesses) with opener "
            f"{summary['opener']}; {summary['openers_tried']} openers tried ({summary['method']})")
