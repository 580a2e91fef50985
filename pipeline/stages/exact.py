"""Stage exact: V*(g, S) and an optimal tree for chosen openers, by exhaustive search (one Ray task each)."""

from dataclasses import dataclass, field

import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.errors import PipelineError
from pipeline.search.apmintotal import rank_openers
from pipeline.search.exact import ExactSolver
from pipeline.search.tree import verify
from pipeline.stages import feedback
from pipeline.stages.base import StageConfig, StageContext
from pipeline.stages.trees import tree_name, write_tree
from pipeline.stages.tree_nodes import exact_tree

NAME = "exact"
VERSION = 1
INPUTS = ("feedback",)


@dataclass
class ExactConfig(StageConfig):
    name: str = NAME
    openers: list[str] = field(default_factory=list)  # [] = the opener ranked first by MostParts,InSet,ExpSizeSplit
    memo_bits: int = 22  # exact-search memo of 2**memo_bits entries (~41 bytes each) per task
    max_guesses: int | None = None  # only strategies finding every secret within this many guesses (hard mode: 6)


SCHEMA = ExactConfig


def validate(cfg: ExactConfig, game) -> None:
    from pipeline.stages.checks import at_least, enough_secrets, memo_bits, word_list

    word_list(cfg, "openers", game)
    at_least(cfg, "max_guesses", 1, allow_none=True)
    memo_bits(cfg)
    enough_secrets(game, NAME)


def _solve(opener, codes, secret_of_guess, n_codes, hard_mode, encoded_guesses, memo_bits, max_guesses):
    solver = ExactSolver(codes, secret_of_guess, n_codes, hard_mode, encoded_guesses, memo_bits=memo_bits,
                         max_guesses=max_guesses)
    total, _ = solver.guess_value(opener)
    return total, solver.tree(opener)


def run(ctx: StageContext, cfg: ExactConfig) -> dict:
    game = ctx.game
    codes = feedback.load(ctx.inputs["feedback"], game)
    openers = [game.guess_index[w.lower()] for w in cfg.openers] or rank_openers(codes, game.secret_of_guess,
                                                                                    game.n_codes, 1)
    shared = (codes, game.secret_of_guess, game.n_codes, game.hard_mode, game.encoded_guesses(), cfg.memo_bits,
              cfg.max_guesses)
    results = ctx.fan_out(_solve, openers, shared, label=NAME)
    rows = []
    for opener, (total, nodes) in zip(openers, results):
        tree = exact_tree(nodes, game, codes)
        if verify(tree, game.guesses, game.secrets) != total:
            raise PipelineError(f"internal error: the exact tree of {game.guesses[opener]} does not replay to {total}")
        stats = write_tree(ctx.out.file, tree, game, name=tree_name(game.guesses[opener]))
        rows.append({"opener": game.guesses[opener], "total": total, "expected": stats["expected"],
                     "max_guesses": stats["max_guesses"]})
    pq.write_table(pa.Table.from_pylist(rows), ctx.out.file("exact.parquet"))
    return {"results": rows, "hard_mode": game.hard_mode}
