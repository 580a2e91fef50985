"""Stage upper_bound: ApMinTotal(S, n) of every opener fanned out over Ray (a few tasks per CPU); the best tree is UB.

The search plays the game's rules (hard mode, game.max_guesses): an opener
whose ApMinTotal strategy cannot find every secret within the limit is
listed with total null; if no ranked opener can, the search runs once more, wider (stage.widen_breadth over
stage.widen_top_k openers: on original Wordle in hard mode within 5 guesses ApMinTotal at breadth 10 finds none,
at 100 over 200 openers PLAST's 8238), and the summary records it (`widened`); if still none can, the summary
says `feasible: false` (no ub, no tree) and the prove stage proves the limit infeasible (search/solvable/infeasible.py),
or fails naming an opener that has a strategy.
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
from pipeline.artifacts.trees import write_tree
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.search.apmintotal.value import RANKINGS, ApSearch, rank_openers
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

NAME, VERSION, INPUTS = "upper_bound", 3, ("feedback",)  # the stage contract: stages/base.py
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


def _evaluate(batch, matrix: Matrix, cfg: UpperBoundConfig, hard_mode, max_guesses):
    """[(depth, ApMinTotal result)] per opener of a task's batch, searched as `cfg` says (breadth, memo size,
    ranking, objective) under the game's rules; depth is the least feasible limit under max_then_total, else
    None.  Every opener gets a search of its own (an empty memo, as in a task of its own): its values and memo
    counters do not depend on which openers share its task.  Only the transposed matrix, an input and not a
    memo, is made once per task."""
    matrix = matrix.with_transpose()

    def new_search():
        return ApSearch(matrix, cfg.breadth, max_entries=cfg.max_memo_entries, hard_mode=hard_mode,
                        max_guesses=max_guesses, ranking=cfg.ranking)

    return [_evaluate_opener(new_search(), opener, matrix.n_secrets, matrix.n_codes, max_guesses, cfg.objective)
            for opener in batch]


def _evaluate_opener(search, opener, n_secrets, n_codes, max_guesses, objective):
    """(depth, ApMinTotal result) of one opener with its own `search`."""
    if objective == "total":
        return None, search.strategy(None, opener)

    def within(left):
        result = search.strategy(None, opener, left=left)
        return result if result.feasible else None

    depth, result = least_limit(within, n_secrets, n_codes, max_guesses)
    return depth, result or search.strategy(None, opener)  # infeasible: the result under the game's limit


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


def searched(ctx: StageContext, cfg: UpperBoundConfig, matrix: Matrix, symmetry, label: str = NAME) -> list:
    """`evaluated_openers` of the openers `cfg` chooses, at its breadth."""
    game = ctx.game
    shared = shared_args(_evaluate, matrix=matrix, cfg=cfg, hard_mode=game.hard_mode, max_guesses=game.max_guesses)
    return evaluated_openers(ctx, chosen_openers(cfg, game, matrix, symmetry), cfg, shared, label=label)


def widened(cfg: UpperBoundConfig, game, evaluated: list) -> UpperBoundConfig | None:
    """The config of the one wider search stage.widen_* asks for when a guess limit left every ranked opener
    tried without a strategy (ApMinTotal's narrow search misses some: hard mode within 5 guesses), else None."""
    if (any(r.feasible for _, r in evaluated) or game.max_guesses is None or cfg.openers != "ranked"
            or cfg.widen_breadth is None):
        return None
    wider = replace(cfg, breadth=max(cfg.breadth, cfg.widen_breadth),
                    top_k=max(cfg.top_k or cfg.breadth, cfg.widen_top_k))
    return wider if (wider.breadth, wider.top_k) != (cfg.breadth, cfg.top_k or cfg.breadth) else None


def run(ctx: StageContext, cfg: UpperBoundConfig) -> dict:
    game = ctx.game
    codes = load_matrix(ctx.inputs["feedback"], game)
    matrix = Matrix.of_game(codes, game)
    symmetry = GameSymmetry(cfg, game, matrix)
    evaluated = searched(ctx, cfg, matrix, symmetry)
    wider = widened(cfg, game, evaluated)
    if wider is not None:
        log.warning(f"{NAME}: no strategy within game.max_guesses={game.max_guesses} at breadth {cfg.breadth} over "
                    f"{len(evaluated)} openers; trying once more at breadth {wider.breadth} over {wider.top_k} "
                    f"(stage.widen_breadth, stage.widen_top_k)")
        cfg, evaluated = wider, searched(ctx, wider, matrix, symmetry, label=f"{NAME}-widened")
    results = [r for _, r in evaluated]
    feasible = [e for e in evaluated if e[1].feasible]
    if not feasible:
        return no_strategy_found(ctx, cfg, results, wider)
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
                      "rank": np.arange(1, len(results) + 1)})
    write_table(ctx.out.file(OPENER_TOTALS.name), table)
    tree = chosen["tree"]
    if verify(tree, game.guesses, game.secrets, game.answering.response) != chosen["total"]:
        raise PipelineError("internal error: the best tree does not replay to its total")
    stats = write_tree(ctx.out.file, tree, game, objective=cfg.objective, depth=cfg.tree_depth)
    summary = {"ub": chosen["total"], "objective": cfg.objective, "opener": game.guesses[chosen["opener"]],
               "method": chosen["method"],
               "breadth": cfg.breadth, "ranking": cfg.ranking, "openers_tried": len(results), **widening(wider),
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


def widening(wider) -> dict:
    """The summary's record of a widened search (breadth and openers_tried are then the wider search's)."""
    return {} if wider is None else {"widened": True}


def no_strategy_found(ctx: StageContext, cfg: UpperBoundConfig, results, wider=None) -> dict:
    """The artifact when no opener tried has an ApMinTotal strategy within game.max_guesses: the openers table and
    a summary with `feasible` false and no ub (no tree); the prove stage then proves the limit infeasible, or
    fails naming an opener whose classes search/solvable/within.py solves in time (a strategy ApMinTotal missed)."""
    game = ctx.game
    log.warning(f"{NAME}: no strategy found ({'hard mode, ' if game.hard_mode else ''}ApMinTotal breadth "
                f"{cfg.breadth}, {len(results)} openers) that finds every secret within game.max_guesses="
                f"{game.max_guesses} guesses; a wider search may find one (stage.breadth and stage.top_k, "
                f"upstream.upper_bound.* under prove); without one, prove sets out to show the limit infeasible")
    write_table(ctx.out.file(OPENER_TOTALS.name), pa.table({
        "opener": [game.guesses[r.opener] for r in results], "total": pa.array([None] * len(results), type=pa.int64()),
        "rank": np.arange(1, len(results) + 1)}))
    summary = {"feasible": False, "ub": None, "opener": None, "objective": cfg.objective, "breadth": cfg.breadth,
               "ranking": cfg.ranking, "openers_tried": len(results), **widening(wider),
               "openers_infeasible": len(results),
               "game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
               "hard_mode": game.hard_mode, "game_max_guesses": game.max_guesses}
    write_json(ctx.out.file(UB_SUMMARY.name), summary)
    return {k: summary[k] for k in ("feasible", "ub", "objective", "breadth", "openers_tried", "game_max_guesses")}


def headline(summary: dict, folder) -> str:
    """`upper bound 544 (2.641 per secret, at most 4 guesses) with opener 4*7=28; 10 openers tried (apmintotal)`."""
    if summary.get("feasible") is False:
        return (f"no strategy found within {summary['game_max_guesses']} guesses ({summary['openers_tried']} openers "
                "tried, ApMinTotal): the prove stage proves the limit infeasible or finds one")
    per = f"{summary['expected']:.3f} per secret, " if summary.get("expected") is not None else ""
    objective = "" if summary.get("objective", "total") == "total" else f" ({summary['objective']})"
    return (f"upper bound {summary['ub']}{objective} ({per}at most {summary['max_guesses']} guesses) with opener "
            f"{summary['opener']}; {summary['openers_tried']} openers tried ({summary['method']})")
