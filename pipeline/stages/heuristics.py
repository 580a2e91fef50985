"""Stage heuristics: greedy trees of valuation combinations (all 325 by default), fanned out over Ray.

The trees play the game's rules: in hard mode every guess is one the NYT
rule allows, and a tree that needs more than game.max_guesses guesses for
some secret is not a strategy of the game: its row says feasible=false and
total null (tree_total keeps the sum for reference)."""

import pyarrow as pa

from pipeline.artifacts.outputs import HEURISTICS, VALUATIONS, write_table
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.runtime.executors import shared_args
from pipeline.runtime.log import log
from pipeline.search.matrix import Matrix
from pipeline.search.strategies.greedy import greedy
from pipeline.search.tree import statistics
from pipeline.search.strategies.valuations import ARITHMETICS, all_combinations, parse_combination
from pipeline.stages.base import StageContext
from pipeline.config.stages import HeuristicsConfig

NAME, VERSION, INPUTS = "heuristics", 2, ("feedback",)  # the stage contract: stages/base.py
OUTPUTS = HEURISTICS  # valuations.parquet: pipeline/artifacts/outputs.py


SCHEMA = HeuristicsConfig


def chosen_combinations(cfg: HeuristicsConfig) -> list[tuple[str, ...]]:
    if not cfg.combinations:
        return all_combinations()
    try:
        return [parse_combination(spec) for spec in cfg.combinations]
    except ValueError as err:
        raise PipelineError(str(err)) from None


def validate(cfg: HeuristicsConfig, game) -> None:
    from pipeline.config.validation import at_least

    chosen_combinations(cfg)
    at_least(cfg, "batch_size", 1)
    if cfg.arithmetic not in ARITHMETICS:
        raise PipelineError(f"stage.arithmetic must be one of {', '.join(ARITHMETICS)}, not {cfg.arithmetic!r}")


def _evaluate_batch(batch, matrix: Matrix, hard_mode, guesses, code_text, arithmetic, limit):
    """valuations.parquet's rows of a task's combinations: each one's greedy tree under the game's rules (its
    total only when the tree keeps the guess `limit`).  The transposed matrix is made once per task."""
    matrix = matrix.with_transpose()
    rows = []
    for combination in batch:
        result = greedy(matrix, combination, arithmetic=arithmetic, hard_mode=hard_mode)
        stats = statistics(result.tree(guesses, code_text))
        feasible = limit is None or stats["max_guesses"] <= limit
        rows.append({"valuation": ",".join(combination), "total": result.total if feasible else None,
                     "feasible": feasible, "tree_total": result.total,
                     "expected": stats["expected"] if feasible else None,
                     "max_guesses": stats["max_guesses"], "opener": guesses[result.opener]})
    return rows


def run(ctx: StageContext, cfg: HeuristicsConfig) -> dict:
    combinations = chosen_combinations(cfg)
    codes = load_matrix(ctx.inputs["feedback"], ctx.game)
    game = ctx.game
    batches = [combinations[i:i + cfg.batch_size] for i in range(0, len(combinations), cfg.batch_size)]
    shared = shared_args(_evaluate_batch, matrix=Matrix.of_game(codes, game), hard_mode=game.hard_mode,
                         guesses=list(game.guesses), code_text=game.answering.text, arithmetic=cfg.arithmetic,
                         limit=game.max_guesses)
    rows = [row for part in ctx.fan_out(_evaluate_batch, batches, shared, label=NAME) for row in part]
    schema = pa.schema([("valuation", pa.string()), ("total", pa.int64()), ("feasible", pa.bool_()),
                        ("tree_total", pa.int64()), ("expected", pa.float64()), ("max_guesses", pa.int64()),
                        ("opener", pa.string())])
    table = pa.Table.from_pylist(rows, schema=schema).sort_by([("total", "ascending"), ("valuation", "ascending")])
    write_table(ctx.out.file(VALUATIONS.name), table)
    best = table.slice(0, 1).to_pylist()[0]
    n_feasible = sum(1 for row in rows if row["feasible"])
    summary = {"combinations": len(rows), "feasible": n_feasible, "hard_mode": game.hard_mode,
               "game_max_guesses": game.max_guesses}
    if not n_feasible:
        log.warning(f"{NAME}: no greedy tree finds every secret within {game.max_guesses} guesses")
        return summary | {"best_total": None, "note": f"infeasible: every tree needs more than "
                                                      f"{game.max_guesses} guesses for some secret"}
    n_best = sum(1 for t in table.column("total").to_pylist() if t == best["total"])
    return summary | {"best_total": best["total"], "best_valuation": best["valuation"],
                      "best_opener": best["opener"], "combinations_at_best": n_best}


def headline(summary: dict, folder) -> str:
    """`best total 544 by MostParts (opener 4*7=28), 3 of 9 combinations at best`, or why none is feasible."""
    if summary.get("best_total") is None:
        return summary.get("note", "no feasible combination")
    return (f"best total {summary['best_total']} by {summary['best_valuation']} (opener {summary['best_opener']}), "
            f"{summary['combinations_at_best']} of {summary['combinations']} combinations at best")
