"""Stage exact: V*(g, S) and an optimal tree for chosen openers, by exhaustive search (one Ray task each).

The search plays the game's rules: hard mode when game.hard_mode, and every
secret found within game.max_guesses (the old stage.max_guesses is gone: the
limit is a rule of the game).  An opener with no strategy within the limit
is reported with total null ("infeasible").

stage.objective=max_then_total (Knuth's criterion) minimises the most guesses
first: per opener, the least guess limit d (within the game's own) under
which a strategy exists, then the exact Total under d -- the lexicographic
optimum (pipeline.search.strategies.objective).  Every row records its objective."""

import pyarrow as pa

from pipeline.artifacts.outputs import EXACT, EXACT_OUTPUTS, write_table
from pipeline.artifacts.tree_nodes import replayed_exact_tree
from pipeline.artifacts.trees import tree_name, write_tree
from pipeline.feedback.parquet import load_matrices
from pipeline.runtime.executors import shared_args
from pipeline.search.exact.solver import IMPOSSIBLE, ExactSolver
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.objective import OBJECTIVES, least_limit
from pipeline.stages.base import StageContext
from pipeline.config.stages import ExactConfig

NAME, VERSION, INPUTS = "exact", 3, ("feedback",)  # the stage contract: stages/base.py
OUTPUTS = EXACT_OUTPUTS  # exact.parquet, tree-<opener>.json/.txt/.svg: pipeline/artifacts/outputs.py


SCHEMA = ExactConfig


def validate(cfg: ExactConfig, game) -> None:
    from pipeline.config.validation import at_least, enough_secrets, memo_bits, one_of, word_list

    word_list(cfg, "openers", game)
    at_least(cfg, "tree_depth", 1)
    one_of(cfg, "objective", OBJECTIVES)
    memo_bits(cfg)
    enough_secrets(game, NAME)


def solve_opener(opener, matrix: Matrix, hard_mode, memo_bits, max_guesses, objective="total"):
    """(V*(opener, S), optimal tree nodes) under the game's rules and the objective; (None, None) if infeasible.

    max_then_total: the least limit d <= max_guesses with a strategy opening with `opener`, then V* under d."""
    solver = ExactSolver(matrix, hard_mode=hard_mode, memo_bits=memo_bits, max_guesses=max_guesses)

    def within(left):
        total, _ = solver.guess_value(opener, left=left)
        return None if total >= IMPOSSIBLE else total

    if objective == "total":
        depth, total = None, within(None)
    else:
        depth, total = least_limit(within, matrix.n_secrets, matrix.n_codes, max_guesses)
    if total is None:
        return None, None
    return total, solver.tree(opener, left=depth)


def run(ctx: StageContext, cfg: ExactConfig) -> dict:
    game = ctx.game
    codes, codes_t = load_matrices(ctx.inputs["feedback"], game)
    matrix = Matrix.of_game(codes, game, codes_t=codes_t)
    openers = [game.guess_index[w.lower()] for w in cfg.openers] or _best_opener(matrix)
    shared = shared_args(solve_opener, matrix=matrix, hard_mode=game.hard_mode, memo_bits=cfg.memo_bits,
                         max_guesses=game.max_guesses, objective=cfg.objective)
    results = ctx.fan_out(solve_opener, openers, shared, label=NAME)
    rows = [_row(ctx, cfg, codes, opener, total, nodes) for opener, (total, nodes) in zip(openers, results)]
    schema = pa.schema([("opener", pa.string()), ("objective", pa.string()), ("total", pa.int64()),
                        ("expected", pa.float64()), ("max_guesses", pa.int64())])
    write_table(ctx.out.file(EXACT.name), pa.Table.from_pylist(rows, schema=schema))
    notes = [f"{r['opener']}: infeasible, no strategy finds every secret within {game.max_guesses} guesses"
             for r in rows if r["total"] is None]
    return {"objective": cfg.objective, "results": rows, "hard_mode": game.hard_mode,
            "game_max_guesses": game.max_guesses, **({"notes": notes} if notes else {})}


def _best_opener(matrix: Matrix) -> list[int]:
    """ApMinTotal's best opener, for a run that names none (imported here: most runs name theirs)."""
    from pipeline.search.apmintotal.value import rank_openers

    return rank_openers(matrix, 1)


def _row(ctx: StageContext, cfg: ExactConfig, codes, opener, total, nodes) -> dict:
    """exact.parquet's row of one opener, its tree replayed and written (total None: infeasible, no tree)."""
    game = ctx.game
    row = {"opener": game.guesses[opener], "objective": cfg.objective, "total": total, "expected": None,
           "max_guesses": None}
    if total is None:
        return row
    tree = replayed_exact_tree(nodes, game, codes, total)
    stats = write_tree(ctx.out.file, tree, game, name=tree_name(game.guesses[opener]), objective=cfg.objective,
                       depth=cfg.tree_depth)
    return row | {"expected": stats["expected"], "max_guesses": stats["max_guesses"]}


def headline(summary: dict, folder) -> str:
    """Each opener's exact value: `4*7=28 544 (2.641 per secret, at most 4 guesses); ...`."""
    parts = []
    for row in summary["results"]:
        if row["total"] is None:
            parts.append(f"{row['opener']} infeasible")
        else:
            parts.append(f"{row['opener']} {row['total']} ({row['expected']:.3f} per secret, at most "
                         f"{row['max_guesses']} guesses)")
    objective = "" if summary.get("objective", "total") == "total" else f"{summary['objective']}: "
    return objective + "; ".join(parts)
