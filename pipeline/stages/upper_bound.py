"""Stage upper_bound: ApMinTotal(S, n) fanned out per opener over Ray; the best opener's tree is UB.

The search plays the game's rules (hard mode, game.max_guesses): an opener
whose ApMinTotal strategy cannot find every secret within the limit is
listed with total null; if no opener can, the stage fails with one error.
With stage.refine=k the k best openers are then solved exactly (same rules,
alpha-beta under the best ApMinTotal total) and the best tree of all is the
UB: a proof closes only when UB is the optimum, and ApMinTotal misses it in
hard mode (8130 for SALET, exact 8122) and for Mastermind (5651 at breadth
10, exact 5625)."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.artifacts.trees import write_tree
from pipeline.errors import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.search.apmintotal import RANKINGS, ApSearch, rank_openers
from pipeline.search.exact import ExactSolver
from pipeline.artifacts.tree_nodes import exact_tree
from pipeline.search.tree import verify
from pipeline.stages.base import StageContext
from pipeline.stages.schemas import UpperBoundConfig

NAME, VERSION, INPUTS = "upper_bound", 1, ("feedback",)  # the stage contract: stages/base.py


SCHEMA = UpperBoundConfig


def validate(cfg: UpperBoundConfig, game) -> None:
    from pipeline.validation import (AP_MEMO_ENTRY_BYTES, at_least, enough_secrets, fits_memory, memo_bits,
                                     word_list)

    at_least(cfg, "breadth", 1)
    if cfg.ranking not in RANKINGS:
        raise PipelineError(f"stage.ranking must be one of {', '.join(RANKINGS)}, not {cfg.ranking!r}")
    at_least(cfg, "top_k", 1, allow_none=True)
    at_least(cfg, "batch_size", 1)
    at_least(cfg, "max_memo_entries", 1)
    at_least(cfg, "refine", 0)
    memo_bits(cfg, "refine_memo_bits")
    fits_memory("max_memo_entries", cfg.max_memo_entries, AP_MEMO_ENTRY_BYTES)
    enough_secrets(game, NAME)
    if isinstance(cfg.openers, str):
        if cfg.openers not in ("ranked", "all"):
            raise PipelineError(f"stage.openers must be ranked, all or a list of words, not {cfg.openers!r}")
        return
    if not isinstance(cfg.openers, (list, tuple)):
        raise PipelineError(f"stage.openers must be ranked, all or a list of words, not {cfg.openers!r}")
    word_list(cfg, "openers", game, allow_empty=False)


def chosen_openers(cfg: UpperBoundConfig, game, codes) -> list[int]:
    if cfg.openers == "all":
        return list(range(len(game.guesses)))
    if cfg.openers == "ranked":
        top_k = cfg.top_k or cfg.breadth
        return rank_openers(codes, game.secret_of_guess, game.n_codes, top_k, ranking=cfg.ranking)
    return [game.guess_index[str(w).lower()] for w in cfg.openers]


def _evaluate(batch, codes, secret_of_guess, n_codes, breadth, max_entries, encoded_guesses, max_guesses,
              ranking):
    search = ApSearch(codes, secret_of_guess, n_codes, breadth, max_entries=max_entries,
                      hard_mode=encoded_guesses is not None, encoded_guesses=encoded_guesses,
                      max_guesses=max_guesses, ranking=ranking)
    return [search.strategy(None, opener) for opener in batch]


def _exact_opener(opener, codes, secret_of_guess, n_codes, encoded_guesses, max_guesses, memo_bits, beta):
    """(V*(opener, S), its tree nodes) when below `beta` (the best ApMinTotal total), else (None, None)."""
    solver = ExactSolver(codes, secret_of_guess, n_codes, encoded_guesses is not None, encoded_guesses,
                         max_guesses=max_guesses, memo_bits=memo_bits)
    total, exact = solver.guess_value(opener, beta=beta)
    return (int(total), solver.tree(opener)) if exact else (None, None)


def refined(ctx: StageContext, cfg: UpperBoundConfig, codes, feasible, beta) -> list[dict]:
    """Exact totals and trees of the `refine` best openers that beat `beta`: [{opener, total, tree}]."""
    game = ctx.game
    picked = [r.opener for r in sorted(feasible, key=lambda r: r.total)[:cfg.refine]]
    shared = (codes, game.secret_of_guess, game.n_codes, game.encoded_guesses() if game.hard_mode else None,
              game.max_guesses, cfg.refine_memo_bits, beta)
    solved = ctx.fan_out(_exact_opener, picked, shared, label=f"{NAME}-refine")
    return [{"opener": g, "total": total, "tree": exact_tree(nodes, game, codes)}
            for g, (total, nodes) in zip(picked, solved) if total is not None]


def run(ctx: StageContext, cfg: UpperBoundConfig) -> dict:
    game = ctx.game
    codes = load_matrix(ctx.inputs["feedback"], game)
    openers = chosen_openers(cfg, game, codes)
    batches = [openers[i:i + cfg.batch_size] for i in range(0, len(openers), cfg.batch_size)]
    shared = (codes, game.secret_of_guess, game.n_codes, cfg.breadth, cfg.max_memo_entries,
              game.encoded_guesses() if game.hard_mode else None, game.max_guesses, cfg.ranking)
    results = [r for part in ctx.fan_out(_evaluate, batches, shared, label=NAME) for r in part]
    feasible = [r for r in results if r.feasible]
    if not feasible:
        mode = "hard mode, " if game.hard_mode else ""
        raise PipelineError(f"no strategy found ({mode}ApMinTotal breadth {cfg.breadth}, {len(results)} openers) "
                            f"that finds every secret within game.max_guesses={game.max_guesses} guesses")
    best = min(feasible, key=lambda r: r.total)  # first in opener order on ties
    chosen = {"opener": best.opener, "total": best.total, "method": "ApMinTotal",
              "tree": best.tree(list(game.guesses), game.answering.text)}
    exact = refined(ctx, cfg, codes, feasible, best.total) if cfg.refine else []
    for entry in exact:
        if entry["total"] < chosen["total"]:
            chosen = entry | {"method": "exact"}
    table = pa.table({"opener": [game.guesses[r.opener] for r in results],
                      "total": pa.array([r.total for r in results], type=pa.int64()),
                      "rank": np.arange(1, len(results) + 1)})
    pq.write_table(table, ctx.out.file("openers.parquet"))
    tree = chosen["tree"]
    if verify(tree, game.guesses, game.secrets, game.answering.response) != chosen["total"]:
        raise PipelineError("internal error: the best tree does not replay to its total")
    stats = write_tree(ctx.out.file, tree, game)
    summary = {"ub": chosen["total"], "opener": game.guesses[chosen["opener"]], "method": chosen["method"],
               "breadth": cfg.breadth, "ranking": cfg.ranking, "openers_tried": len(results),
               "apmintotal_best": best.total,
               "exact": [{"opener": game.guesses[e["opener"]], "total": e["total"]} for e in exact],
               "expected": stats["expected"], "max_guesses": stats["max_guesses"],
               "distribution": stats["distribution"], "memo": best.stats,
               "openers_infeasible": len(results) - len(feasible),
               "game": game.name, "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
               "hard_mode": game.hard_mode, "game_max_guesses": game.max_guesses}
    ctx.out.file("summary.json").write_text(json.dumps(summary, indent=2) + "\n")
    return {k: summary[k] for k in ("ub", "opener", "method", "breadth", "openers_tried", "max_guesses",
                                    "distribution")}
