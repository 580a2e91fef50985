"""Stage blindfold: the fewest fixed guesses that identify every secret (set cover, HiGHS, lazy pairs),
with the relaxation's bound as proof; or check a given set (`stage.check=[...]`); or (`stage.mode=hybrid`)
`stage.fixed` fixed guesses followed by adaptive trees of at most `stage.depth` guesses per class."""

import numpy as np
import pyarrow as pa

from pipeline.artifacts.outputs import (BLINDFOLD, MODEL, OBSTACLES, PAIRS, SOLUTION, STORED_GAME, write_json,
                                        write_table)
from pipeline.artifacts.stored_game import write_stored_game
from pipeline.blindfold.model import check, solve_blindfold
from pipeline.blindfold.pairs import merge_pairs, seed_pairs, sort_pairs
from pipeline.blindfold.unique import prove_unique
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.runtime.log import log
from pipeline.stages.base import StageContext
from pipeline.config.stages import BlindfoldConfig

NAME, VERSION, INPUTS = "blindfold", 2, ("feedback",)  # the stage contract: stages/base.py
OUTPUTS = BLINDFOLD  # solution.json; pairs.parquet, model.<format>, obstacles.json, cubes-k<k>.json by mode/method
K_BOARDS = 8  # the summary states f* + k for k = 1..K_BOARDS simultaneous boards
FOUND = "found"  # hybrid: the status of a set that works (verified on every class)


SCHEMA = BlindfoldConfig


def _indices(cfg: BlindfoldConfig, name: str, game) -> list[int]:
    """The guess indices of the word list stage.<name>, read as `validate` checked it (a Primel prime that
    Hydra read as a number included)."""
    from pipeline.config.validation import word_list

    return [game.guess_index[w] for w in word_list(cfg, name, game)]


def validate(cfg: BlindfoldConfig, game) -> None:
    import math

    from pipeline.config.validation import at_least, one_of, word_list

    if game.hard_mode:
        raise PipelineError("blindfold chooses fixed guesses played without looking, a normal-mode question; "
                            "game.hard_mode=true is not supported")
    if game.answer != "wordle":
        raise PipelineError(f"blindfold counts Wordle colour pairs; game.answer={game.answer} is not supported")
    one_of(cfg, "guesses_from", ("allowed", "secrets"))
    one_of(cfg, "mode", ("cover", "hybrid"))
    one_of(cfg, "decision", ("branching", "mip"))
    one_of(cfg, "method", ("lazy", "cubes"))
    at_least(cfg, "seed_limit", 1, allow_none=True)
    at_least(cfg, "max_rounds", 1)
    at_least(cfg, "threads", 1, allow_none=True)
    if not (cfg.time_limit_s > 0 and math.isfinite(cfg.time_limit_s)):
        raise PipelineError(f"stage.time_limit_s must be positive (seconds), got {cfg.time_limit_s}")
    one_of(cfg, "model_format", ("lp", "mps"))
    word_list(cfg, "check", game)
    word_list(cfg, "exclude", game)
    word_list(cfg, "initial", game)
    if cfg.check and cfg.exclude:
        raise PipelineError("stage.check verifies a given set; stage.exclude applies only when solving (give one)")
    for pair in cfg.seed_pairs:
        words = pair.split(",")
        if len(words) != 2 or any(w.lower() not in game.secret_index for w in words):
            raise PipelineError(f"stage.seed_pairs: {pair!r} must be two secrets joined by a comma")
    if cfg.mode == "hybrid":
        validate_hybrid(cfg, game)
    if cfg.method == "cubes":
        validate_cubes(cfg)


def validate_cubes(cfg: BlindfoldConfig) -> None:
    """stage.method=cubes answers the cover question from scratch: its limits must be sane, and the settings of
    other questions are refused rather than ignored."""
    import math

    from pipeline.config.validation import at_least

    at_least(cfg, "cube_depth", 0)
    at_least(cfg, "cube_target", 1)
    if not (cfg.cube_time_limit_s > 0 and math.isfinite(cfg.cube_time_limit_s)):
        raise PipelineError(f"stage.cube_time_limit_s must be positive (seconds), got {cfg.cube_time_limit_s}")
    if cfg.cube_max_families is not None:
        at_least(cfg, "cube_max_families", 1)
        if not cfg.cube_cluster_cuts:
            raise PipelineError("stage.cube_max_families picks the cluster cuts' families: give it with "
                                "stage.cube_cluster_cuts=true")
    if cfg.mode != "cover" or cfg.check or cfg.uniqueness:
        raise PipelineError("stage.method=cubes finds the fewest fixed guesses (stage.mode=cover); give it without "
                            "stage.mode=hybrid, stage.check or stage.uniqueness")


def validate_hybrid(cfg: BlindfoldConfig, game) -> None:
    """Refuse hybrid settings that are malformed, that mix in cover-only settings, or that no choice of fixed
    guesses can meet (counting: too many secrets for k fixed responses and trees of the given depth)."""
    from pipeline.blindfold.hybrid import most_secrets
    from pipeline.config.validation import at_least

    for name, low in (("fixed", 1), ("depth", 1), ("beam", 1), ("exhaustive_sets", 0)):
        at_least(cfg, name, low)
    if cfg.check or cfg.uniqueness:
        raise PipelineError("stage.check and stage.uniqueness belong to stage.mode=cover; give stage.mode=hybrid "
                            "without them")
    usable = len(columns(cfg, game)) - len(_indices(cfg, "exclude", game))
    if cfg.fixed > usable:
        raise PipelineError(f"stage.fixed={cfg.fixed} asks for more fixed guesses than the {usable} allowed")
    if game.max_guesses is not None and cfg.fixed + cfg.depth > game.max_guesses:
        raise PipelineError(f"stage.fixed={cfg.fixed} plus stage.depth={cfg.depth} guesses exceed "
                            f"game.max_guesses={game.max_guesses} (lower them, or set game.max_guesses=null)")
    reach = most_secrets(game.n_codes, cfg.fixed, cfg.depth)
    if reach < len(game.secrets):
        raise PipelineError(f"stage.fixed={cfg.fixed} with stage.depth={cfg.depth} can solve at most {reach} secrets; "
                            f"game {game.name} has {len(game.secrets)} (raise stage.fixed or stage.depth)")


def columns(cfg: BlindfoldConfig, game) -> np.ndarray:
    if cfg.guesses_from == "secrets":
        return np.asarray(game.guess_of_secret, dtype=np.int64)
    return np.arange(len(game.guesses), dtype=np.int64)


def starting_pairs(cfg: BlindfoldConfig, game):
    pairs = seed_pairs(game.encoded_secrets())
    if cfg.seed_pairs:
        extra = np.array([[game.secret_index[w.lower()] for w in p.split(",")] for p in cfg.seed_pairs])
        pairs = merge_pairs(pairs, sort_pairs(extra[:, 0], extra[:, 1]))
    return pairs


def solver_options(cfg: BlindfoldConfig, game) -> dict:
    warm = cfg.warm_start and cfg.guesses_from == "allowed"
    return {"time_limit": cfg.time_limit_s, "max_rounds": cfg.max_rounds, "threads": cfg.threads,
            "seed_limit": cfg.seed_limit, "warm_columns": game.guess_of_secret if warm else None}


def run_check(ctx: StageContext, cfg: BlindfoldConfig, codes) -> dict:
    game = ctx.game
    chosen = _indices(cfg, "check", game)
    classes = check(codes, chosen)
    result = {"check": [game.guesses[g] for g in chosen], "separates_all": not classes,
              "unseparated_classes": [[game.secrets[i] for i in c] for c in classes]}
    write_json(ctx.out.file(SOLUTION.name), result)
    if classes:
        log.warning(f"{NAME}: {' '.join(result['check'])} leaves {len(classes)} class(es) unseparated, "
                    f"e.g. {' '.join(result['unseparated_classes'][0][:6])}")
    return {k: result[k] for k in ("check", "separates_all")} | {"unseparated": len(classes)}


def run(ctx: StageContext, cfg: BlindfoldConfig) -> dict:
    game = ctx.game
    write_stored_game(ctx.out.file(STORED_GAME.name), game, NAME, VERSION)  # its check needs nothing else
    codes = load_matrix(ctx.inputs["feedback"], game)
    if cfg.check:
        return run_check(ctx, cfg, codes)
    if cfg.mode == "hybrid":
        return run_hybrid(ctx, cfg, codes)
    cols, seeds = columns(cfg, game), starting_pairs(cfg, game)
    excluded = _indices(cfg, "exclude", game)
    if cfg.method == "cubes":
        from pipeline.stages.blindfold_cubes import run_cubes

        return run_cubes(ctx, cfg, codes, name=NAME, k_boards=K_BOARDS, allowed=cols[~np.isin(cols, excluded)],
                         pool_seeds=seeds)
    initial = _indices(cfg, "initial", game)
    result = solve_blindfold(codes, seeds=seeds, columns=cols, exclude=excluded, initial=initial or None,
                             **solver_options(cfg, game),
                             model_path=str(ctx.out.file(MODEL.named(cfg.model_format))),
                             log=lambda r: log.info(f"{NAME}: round {r.round}: {r.pairs} pairs, objective "
                                                    f"{r.objective}, bound {r.dual_bound:.2f}, {r.solver_seconds:.1f}s"))
    write_table(ctx.out.file(PAIRS.name), pa.table({"i": result.pairs_i, "j": result.pairs_j,
                                                   "secret_i": [game.secrets[i] for i in result.pairs_i],
                                                   "secret_j": [game.secrets[j] for j in result.pairs_j]}))
    summary = {**result.summary(), "guesses": [game.guesses[g] for g in result.chosen],
               "guesses_from": cfg.guesses_from, "excluded": [game.guesses[g] for g in excluded]}
    if initial:  # a given starting set is an upper bound only once checked here against every secret
        summary["initial"] = {"guesses": [game.guesses[g] for g in initial], "separates_all": not check(codes, initial)}
    if result.f_star is not None:
        summary["k_boards"] = {k: result.f_star + k for k in range(1, K_BOARDS + 1)}
    if cfg.uniqueness and result.proven_optimal:
        summary["uniqueness"] = uniqueness(ctx, cfg, codes, cols, result)
    write_json(ctx.out.file(SOLUTION.name), summary)
    return {k: summary.get(k) for k in ("f_star", "guesses", "lower_bound", "proven_optimal", "rounds", "pairs")}


def uniqueness(ctx: StageContext, cfg: BlindfoldConfig, codes, cols, result) -> dict:
    """Is the proven-optimal set the only one of its size?  One lazy MIP over the sets other than it (no-good
    cut), seeded with the main solve's pairs: infeasible on a subset of the pairs proves uniqueness."""
    game = ctx.game
    allowed = cols[~np.isin(cols, _indices(cfg, "exclude", game))]
    found = prove_unique(codes, result.chosen, (result.pairs_i, result.pairs_j), columns=allowed,
                         time_limit=cfg.time_limit_s,
                         threads=cfg.threads, max_rounds=cfg.max_rounds,
                         log=lambda r: log.info(f"{NAME}: uniqueness round {r['round']}: {r['pairs']} pairs, "
                                                f"{r['status']}, {r['seconds']:.1f}s"))
    summary = found.summary()
    summary["other"] = None if found.other is None else [game.guesses[g] for g in found.other]
    return summary


def run_hybrid(ctx: StageContext, cfg: BlindfoldConfig, codes) -> dict:
    """stage.mode=hybrid: the best `fixed` guesses whose classes are all solved within `depth` further guesses.
    When the beam finds no such set, the exact decision (`blindfold.obstacles`) answers: a set found, proven
    impossible, or not settled within stage.time_limit_s."""
    from pipeline.blindfold.hybrid import enumerates, solve_hybrid

    game = ctx.game
    excluded = set(_indices(cfg, "exclude", game))
    cols = [int(g) for g in columns(cfg, game) if int(g) not in excluded]
    result = solve_hybrid(codes, cols, cfg.fixed, cfg.depth, game.answering.win, game.n_codes, cfg.beam,
                          cfg.exhaustive_sets)
    if result is None and enumerates(len(cols), cfg.fixed, cfg.exhaustive_sets):
        raise PipelineError(f"stage.mode=hybrid: no {cfg.fixed} fixed guesses leave every class solvable within "
                            f"stage.depth={cfg.depth} further guesses (every set was tried)")
    if result is None:
        return run_decision(ctx, cfg, codes, cols)
    return write_hybrid(ctx, cfg, result, {"status": FOUND, "search": "exhaustive" if result.exhaustive else "beam"})


def write_hybrid(ctx: StageContext, cfg: BlindfoldConfig, result, extra: dict) -> dict:
    """solution.json of a hybrid set found (by enumeration, the beam or the exact decision); the printed result."""
    game = ctx.game
    summary = {"mode": "hybrid", **extra, "fixed": [game.guesses[g] for g in result.fixed], "depth": cfg.depth,
               "worst_case": result.worst_case, "mean": round(result.total / len(game.secrets), 4),
               "total": result.total, "distribution": result.distribution, "classes": sum(result.class_sizes.values()),
               "largest_class": max(result.class_sizes, default=0), "class_sizes": result.class_sizes,
               "optimal": result.exhaustive, "sets_evaluated": result.sets_evaluated,
               "feasible_sets": result.feasible_sets, "guesses_from": cfg.guesses_from,
               "excluded": sorted(game.guesses[g] for g in _indices(cfg, "exclude", game))}
    write_json(ctx.out.file(SOLUTION.name), summary)
    return {k: summary[k] for k in ("status", "fixed", "depth", "worst_case", "mean", "classes", "search")}


def run_decision(ctx: StageContext, cfg: BlindfoldConfig, codes, cols) -> dict:
    """The beam found no set: decide exactly whether one exists (stage.decision: the branching search over the
    fixed sets, or the lazy hitting-set MIP, both over minimal unsolvable sets of secrets).  solution.json says
    found, proven impossible, or not settled (time limit), and by which method; obstacles.json holds the
    unsolvable sets found, each checkable on its own."""
    from pipeline.blindfold.hybrid import HybridResult, beam_sets, evaluate
    from pipeline.blindfold.obstacles import FOUND as SET_FOUND, NONE, families

    game, win = ctx.game, ctx.game.answering.win
    starts = beam_sets(codes, np.asarray(cols), cfg.fixed, game.n_codes, cfg.beam)
    decided = decider(cfg)(codes, cols, cfg.fixed, cfg.depth, win, seeds=families(game.encoded_secrets()),
                           starts=starts, time_limit=cfg.time_limit_s,
                           log=lambda r: log.info(f"{NAME}: exact round {r['round']}: {r['obstacles']} obstacles, "
                                                  f"{r['status']}, {r['seconds']:.1f}s"))
    write_json(ctx.out.file(OBSTACLES.name), [[game.secrets[s] for s in o] for o in decided.obstacles], indent=0)
    method = f"the {decided.method}"
    evidence = {"search": "exact", "decision": decided.summary()}
    if decided.status == SET_FOUND:
        chosen = pad(decided.chosen, cols, cfg.fixed)
        rows = tuple(int(np.searchsorted(np.asarray(cols), g)) for g in chosen)
        total, worst, dist, sizes = evaluate(codes[np.asarray(cols)], rows, cfg.depth, win, {})
        found = HybridResult(sorted(chosen, key=lambda g: (not (codes[g] == win).any(), g)), cfg.depth, worst,
                             total, dist, sizes, False, 1, 1)
        return write_hybrid(ctx, cfg, found, {"status": FOUND, **evidence})
    status = (f"proven: no such set, by {method}" if decided.status == NONE
              else f"not settled: {decided.stop} hit (stage.time_limit_s={cfg.time_limit_s})")
    summary = {"mode": "hybrid", "status": status, "fixed": None, "fixed_count": cfg.fixed, "depth": cfg.depth,
               "worst_case_asked": cfg.fixed + cfg.depth, **evidence, "guesses_from": cfg.guesses_from}
    write_json(ctx.out.file(SOLUTION.name), summary)
    log.warning(f"{NAME}: {cfg.fixed} fixed guesses, then trees of {cfg.depth}: {status}")
    return {k: summary[k] for k in ("status", "fixed", "depth", "search")} | {
        "obstacles": len(decided.obstacles), "rounds": decided.rounds, "seconds": round(decided.seconds, 1)}


def decider(cfg: BlindfoldConfig):
    """The exact decision stage.decision names, as one call: (codes, columns, k, depth, win, seeds=, starts=,
    time_limit=, log=) -> obstacles.ObstacleResult."""
    from functools import partial

    from pipeline.blindfold.branching import decide_by_branching
    from pipeline.blindfold.obstacles import decide

    return decide_by_branching if cfg.decision == "branching" else partial(decide, threads=cfg.threads)


def pad(chosen: list[int], cols: list[int], k: int) -> list[int]:
    """`chosen` completed to k fixed guesses with the first other allowed guesses (more fixed guesses only split
    the classes further, and a part of a solvable class is solvable)."""
    extra = [g for g in cols if g not in chosen][:k - len(chosen)]
    return [*chosen, *extra]


def headline(summary: dict, folder) -> str:
    """f* and its bound (`f* = 3, lower bound 3: proven optimal; guesses a b c`); a hybrid's or a check's result."""
    if "check" in summary:
        verdict = "separate every secret" if summary["separates_all"] else f"leave {summary['unseparated']} class(es)"
        return f"{' '.join(summary['check'])} {verdict}"
    if "fixed" in summary and summary["fixed"] is None:
        return f"hybrid: {summary['status']}"
    if "fixed" in summary:
        return (f"fixed {' '.join(summary['fixed'])}: at worst {summary['worst_case']} guesses, mean "
                f"{summary['mean']}, {summary['classes']} classes ({summary['search']} search)")
    if summary.get("method") == "cubes":
        closed = "; ".join(f"{k} guesses: {c['status']} ({c['pruned']} pruned, {c['infeasible']} infeasible, "
                           f"{c['feasible']} feasible, {c['open']} open)" for k, c in summary["cubes"].items())
        return (f"f_star: {summary['f_star']}, proven_optimal: {str(summary['proven_optimal']).lower()}, lower bound "
                f"{summary['lower_bound']}; guesses {' '.join(summary['guesses'])}; cubes {closed}")
    if summary.get("f_star") is None:
        return f"no separating set found; lower bound {summary.get('lower_bound')}"
    verdict = "proven optimal" if summary.get("proven_optimal") else "not proven optimal"
    return (f"f* = {summary['f_star']}, lower bound {summary.get('lower_bound')}: {verdict}; guesses "
            f"{' '.join(summary['guesses'])}")
