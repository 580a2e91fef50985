"""Stage lower_bound: the V_i funnel. V_1, V_2, ... for every surviving opener, fanned out in batches
over Ray; an opener is eliminated as soon as V_i(g, S) > UB.  The levels the mode leaves out are not computed
(stage.skip_levels in normal mode, none by default; stage.hard_skip_levels in hard mode, V_3 by default: V_4
right after V_2 eliminates as many openers for no more work; docs/algorithms.md §4).

In hard mode, levels from stage.hard_from on use the hard-mode bounds (search/bounds/hard.py: every
minimum over guesses only over the guesses the rule allows).  They are stronger, and they are what
eliminates the openers whose normal-mode value lies below the hard-mode optimum; each row of the funnel
says which rule computed it (a hard bound proves nothing about normal mode).

A game with symmetries (search/symmetry/generators.py: Mastermind's colour and position permutations) has
V*(sigma g) = V*(g), so the funnel evaluates one opener per orbit (the UB opener for its own orbit);
the summary's "symmetry" names the generators and each other opener's representative, and each
funnel count includes the openers the surviving representatives stand for.

When the upper bound found no strategy within the guess limit there is no UB: the stage writes an empty
funnel and ub null, and the prove stage proves the limit infeasible."""

import json

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from pipeline.artifacts.summaries import no_strategy_found, upper_bound_summary
from pipeline.artifacts.outputs import FUNNEL, LB_SUMMARY, LOWER_BOUND
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.runtime.executors import shared_args
from pipeline.runtime.log import log
from pipeline.search.bounds.lower import k_of_game
from pipeline.search.bounds.funnel import FunnelSolvers, funnel_levels, level_rule
from pipeline.search.matrix import Matrix
from pipeline.search.symmetry.generators import opener_representatives
from pipeline.stages.base import StageContext
from pipeline.config.stages import LowerBoundConfig

NAME = "lower_bound"
VERSION = 3  # 3: hard mode leaves out V_3 (stage.hard_skip_levels)
INPUTS = ("feedback", "upper_bound")
OUTPUTS = LOWER_BOUND  # funnel.parquet, summary.json: pipeline/artifacts/outputs.py


SCHEMA = LowerBoundConfig
FUNNEL_SCHEMA = pa.schema([("opener", pa.string()), ("level", pa.int32()), ("rule", pa.string()), ("value", pa.int64()),
                           ("exact", pa.bool_()), ("eliminated", pa.bool_())])


def inputs(cfg: LowerBoundConfig) -> tuple[str, ...]:
    return ("feedback",) if cfg.ub is not None else INPUTS


def validate(cfg: LowerBoundConfig, game) -> None:
    from pipeline.config.validation import at_least, enough_secrets

    at_least(cfg, "max_level", 1)
    at_least(cfg, "batches_per_level", 1, allow_none=True)
    at_least(cfg, "max_batch", 1)
    at_least(cfg, "hard_from", 1)
    at_least(cfg, "ub", 1, allow_none=True)
    for name in ("skip_levels", "hard_skip_levels"):
        if any(isinstance(level, bool) or not isinstance(level, int) or level < 1 for level in getattr(cfg, name)):
            raise PipelineError(f"stage.{name} must list levels of at least 1, got {list(getattr(cfg, name))!r}")
    if not levels_of(cfg, game):
        raise PipelineError(f"stage.{skip_setting(game)} leaves out every level up to "
                            f"stage.max_level={cfg.max_level}: the funnel would compute none")
    enough_secrets(game, NAME)
    if cfg.ub is not None and cfg.ub < len(game.secrets):
        raise PipelineError(f"stage.ub={cfg.ub} is below |S|={len(game.secrets)}: no strategy can be that good")


def read_ub(ctx: StageContext, cfg: LowerBoundConfig) -> int:
    if cfg.ub is not None:
        return cfg.ub
    summary = upper_bound_summary(ctx.inputs["upper_bound"], ctx.game)
    if (summary.get("guesses_sha256"), summary.get("secrets_sha256")) != (ctx.game.guesses_digest, ctx.game.secrets_digest):
        raise PipelineError(f"{ctx.inputs['upper_bound'].path} is an upper bound for other word lists")
    return summary["ub"]


def ub_opener(ctx: StageContext, cfg: LowerBoundConfig) -> str | None:
    """The upper bound's opener (it represents its orbit), when the UB comes from an upper_bound artifact."""
    return None if cfg.ub is not None else upper_bound_summary(ctx.inputs["upper_bound"], ctx.game)["opener"]


def opener_orbits(game, codes, cfg: LowerBoundConfig, preferred: str | None) -> tuple[list[dict], np.ndarray]:
    """(generators of the game's symmetries, representative guess of every guess); no generators and
    every guess its own representative when stage.symmetry is off or the game has none."""
    if not cfg.symmetry or game.hard_mode:
        return [], np.arange(len(game.guesses))
    keep = [game.guess_index[preferred]] if preferred in game.guess_index else []
    return opener_representatives(game.encoded_guesses(), game.encoded_secrets(), codes, len(game.alphabet), keep)


def symmetry_summary(game, generators: list[dict], rep: np.ndarray) -> dict:
    """The summary's "symmetry" entry: generators and {opener: representative} for the other openers."""
    if not generators:
        return {}
    others = {game.guesses[g]: game.guesses[r] for g, r in enumerate(rep) if r != g}
    return {"symmetry": {"generators": generators, "represented_by": others}}


def _batch(openers, matrix: Matrix, k_s, level, budget, rule):
    """(V_level(g, S), exact) of a task's openers by the `rule` bounds, early exit above `budget`."""
    return FunnelSolvers(matrix, k_s).values(openers, level, budget, rule)


def skip_setting(game) -> str:
    """The setting naming the levels this game's mode leaves out."""
    return "hard_skip_levels" if game.hard_mode else "skip_levels"


def levels_of(cfg: LowerBoundConfig, game) -> list[int]:
    """The levels this funnel computes: 1..stage.max_level without the mode's skipped ones."""
    return funnel_levels(cfg.max_level, getattr(cfg, skip_setting(game)))


def rule_of_level(cfg: LowerBoundConfig, game, level: int) -> str:
    """Which bounds compute a level: "hard" (hard mode, from stage.hard_from on) or "normal"."""
    return level_rule(game.hard_mode, cfg.hard_from, level)


def batches(openers: np.ndarray, cfg: LowerBoundConfig, cluster_cpus: int) -> list[np.ndarray]:
    """A level's openers dealt round-robin into stage.batches_per_level tasks, or (null) a few per cluster CPU,
    none above stage.max_batch openers (the runtime's policy), larger first: neighbouring openers (similar
    words, similar costs) go to different tasks, so no task collects the costly ones and holds a level up."""
    from pipeline.runtime.policy import batch_count, deal

    return deal(openers, batch_count(len(openers), cluster_cpus, cfg.batches_per_level, max_batch=cfg.max_batch))


def level_values(parts: list, jobs: list[np.ndarray], openers: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(values, exact) of the tasks' results, in the order of `openers` (sorted; the jobs deal them out)."""
    position = np.searchsorted(openers, np.concatenate(jobs))
    values, exact = np.empty(len(openers), dtype=np.int64), np.empty(len(openers), dtype=bool)
    values[position] = np.concatenate([p[0] for p in parts])
    exact[position] = np.concatenate([p[1] for p in parts])
    return values, exact


def run(ctx: StageContext, cfg: LowerBoundConfig) -> dict:
    if cfg.ub is None and no_strategy_found(ctx.inputs["upper_bound"]):
        return no_funnel(ctx)
    game, ub = ctx.game, read_ub(ctx, cfg)
    codes = load_matrix(ctx.inputs["feedback"], game)
    k_s = k_of_game(codes, game.n_codes)
    matrix = Matrix.of_game(codes, game)
    generators, rep = opener_orbits(game, codes, cfg, ub_opener(ctx, cfg))
    orbit_size = np.bincount(rep, minlength=len(game.guesses))
    survivors = np.flatnonzero(orbit_size).astype(np.int32)
    rows, funnel, values = [], [{"level": 0, "survivors": len(game.guesses)}], np.zeros(0)
    for level in levels_of(cfg, game):
        rule = rule_of_level(cfg, game, level)
        shared = shared_args(_batch, matrix=matrix, k_s=k_s, level=level, budget=ub, rule=rule)
        jobs = batches(survivors, cfg, cluster_cpus=ctx.cluster_cpus())
        parts = ctx.fan_out(_batch, jobs, shared, label=f"{NAME}-V{level}")
        values, exact = level_values(parts, jobs, survivors)
        eliminated = values > ub
        rows += [{"opener": game.guesses[g], "level": level, "rule": rule, "value": int(v), "exact": bool(x),
                  "eliminated": bool(e)} for g, v, x, e in zip(survivors, values, exact, eliminated)]
        survivors, values = survivors[~eliminated], values[~eliminated]
        funnel.append({"level": level, "rule": rule, "survivors": int(orbit_size[survivors].sum())})
        if len(survivors) <= 1 or (values >= ub).all():
            break
    pq.write_table(pa.Table.from_pylist(rows, schema=FUNNEL_SCHEMA), ctx.out.file(FUNNEL.name))
    summary = {"ub": ub, "k_s": k_s, "funnel": funnel, "survivors": [game.guesses[g] for g in survivors],
               "survivor_values": [int(v) for v in values], "levels": funnel[-1]["level"],
               "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
               **symmetry_summary(game, generators, rep)}
    if not len(survivors):
        summary["note"] = f"every opener has a lower bound above UB={ub}: the optimum is larger than this UB"
        log.warning(f"{NAME}: {summary['note']}")
    ctx.out.file(LB_SUMMARY.name).write_text(json.dumps(summary, indent=2) + "\n")
    return {k: summary[k] for k in ("ub", "funnel", "survivors")} | ({"note": summary["note"]} if "note" in summary else {})


def no_funnel(ctx: StageContext) -> dict:
    """The artifact when the upper bound found no strategy within the guess limit: no UB to eliminate openers
    against, so an empty funnel and a summary with ub null (the prove stage proves the limit infeasible)."""
    game = ctx.game
    pq.write_table(pa.Table.from_pylist([], schema=FUNNEL_SCHEMA), ctx.out.file(FUNNEL.name))
    summary = {"ub": None, "funnel": [{"level": 0, "survivors": len(game.guesses)}], "survivors": [],
               "survivor_values": [], "levels": 0, "guesses_sha256": game.guesses_digest,
               "secrets_sha256": game.secrets_digest,
               "note": f"no strategy found within game.max_guesses={game.max_guesses}: no funnel run"}
    ctx.out.file(LB_SUMMARY.name).write_text(json.dumps(summary, indent=2) + "\n")
    return {k: summary[k] for k in ("ub", "funnel", "survivors", "note")}


def headline(summary: dict, folder) -> str:
    """`funnel 206 → 7 → 7 → 1 against UB 544; survivor 4*7=28` (or the note when nothing survives)."""
    if summary["ub"] is None:
        return summary["note"]
    funnel = " → ".join(str(level["survivors"]) for level in summary["funnel"])
    survivors = summary["survivors"]
    shown = ", ".join(survivors[:10]) + (f" and {len(survivors) - 10} more" if len(survivors) > 10 else "")
    left = f"survivors {shown}" if survivors else summary.get("note", "no survivors")
    return f"funnel {funnel} against UB {summary['ub']}; {left}"
