"""Stage blindfold's `stage.method=cubes` (not a stage): the fewest fixed guesses by cube-and-conquer.

Start from a verified separating set (stage.initial when it separates every secret, else the greedy one), then
ask `blindfold.cubes.search_cubes` whether one guess fewer suffices: the cubes of each level of the split and
the MIPs of the cubes left are fanned out through the stage's runtime (each finished cube a shard, so a
stopped run resumes).  A set found is checked again against every pair and the question asked again one guess
below it; f* is proven when every cube of the last question is pruned or infeasible.  Each question's cube
tree is written as cubes-k<k>.json, with what each cube fixed and excluded, so any cube can be re-run."""

import highspy
import numpy as np

from pipeline import PipelineError
from pipeline.artifacts.outputs import CUBES, SOLUTION, write_json
from pipeline.blindfold import cluster_cuts as K
from pipeline.blindfold import cubes as C
from pipeline.blindfold.model import check, greedy_complete
from pipeline.blindfold.pairs import separates_all, transpose_codes
from pipeline.runtime.log import log

TRUSTED = ("a pruned cube: its certified LP bound, computed here from HiGHS's row duals (sound whatever the "
           "solver's tolerances); an infeasible cube: HiGHS's word that its MIP has no solution (or an exact count "
           "when a pair has no separator left); a set found: checked here against every pair of secrets")
POOL_RULE = ("secrets made of the same letters differing in at most two positions (Poirrier's rows), with the "
             "stage.seed_limit starting pairs separated by the fewest guesses")
SPLIT_RULE = ("the pool pair the fixed guesses leave with the fewest separators outside the excluded ones; child i "
              "fixes its i-th separator (those separating the most pool pairs left first) and excludes the "
              "separators before it")


def run_cubes(ctx, cfg, codes, *, name: str, k_boards: int, allowed, pool_seeds) -> dict:
    """stage.method=cubes: solution.json and cubes-k<k>.json; the summary the stage returns."""
    game = ctx.game
    codes_t = transpose_codes(codes)
    pool = C.pool_pairs(codes_t, game.encoded_secrets(), pool_seeds, seed_limit=cfg.seed_limit, columns=allowed)
    best = best_known(codes, cfg, game, allowed)
    limits = C.CubeLimits(time_limit=cfg.cube_time_limit_s, threads=cfg.threads or 1, max_rounds=cfg.max_rounds)
    families = K.families(game.encoded_secrets(), max_families=cfg.cube_max_families) if cfg.cube_cluster_cuts else None
    lower, searches, k = 0, {}, len(best) - 1
    while k >= 0:
        search = C.search_cubes(codes_t, allowed, pool, k, depth=cfg.cube_depth, target=cfg.cube_target,
                                limits=limits, fan_out=fan_out_of(ctx, name, k, cfg.threads or 1), families=families)
        write_json(ctx.out.file(CUBES.named(str(k))), tree_record(game, cfg, search, pool, families=families))
        searches[k] = search
        lower = max(lower, search.root_lower_bound())
        log.info(f"{name}: cubes for {k} guesses: {search.status}, {search.counts()}")
        if search.status == C.FOUND:
            best = verified(codes, search.chosen)
            k = len(best) - 1
        else:
            lower = max(lower, k + 1) if search.status == C.NONE else lower
            break
    return write_summary(ctx, cfg, best, lower, searches, k_boards)


def fan_out_of(ctx, name: str, k: int, threads: int):
    """The `fan_out` search_cubes calls: the stage's, one label per question and level (its shards)."""
    return lambda fn, items, shared, label: ctx.fan_out(fn, items, shared, label=f"{name}-cubes-k{k}-{label}",
                                                        num_cpus=threads)


def best_known(codes, cfg, game, allowed) -> list[int]:
    """A verified separating set to start from: stage.initial when it uses allowed guesses only and separates
    every secret, else the greedy set."""
    initial = [game.guess_index[w.lower()] for w in cfg.initial]
    if initial and np.isin(initial, allowed).all() and separates_all(codes, initial):
        return sorted(initial)
    try:
        return verified(codes, greedy_complete(codes, [], allowed))
    except ValueError:
        raise PipelineError("blindfold: the allowed guesses cannot separate every secret (no set to start the "
                            "cubes from)") from None


def verified(codes, chosen) -> list[int]:
    """`chosen` (sorted) after the exact check against every pair of secrets; never returns an unchecked set."""
    chosen = sorted(int(g) for g in chosen)
    if check(codes, chosen):
        raise RuntimeError(f"a set the cubes returned leaves secrets unseparated: {chosen}")
    return chosen


def write_summary(ctx, cfg, best, lower, searches, k_boards) -> dict:
    game = ctx.game
    f_star = len(best)
    summary = {"method": "cubes", "f_star": f_star, "guesses": [game.guesses[g] for g in best],
               "lower_bound": min(lower, f_star), "proven_optimal": lower >= f_star,
               "guesses_from": cfg.guesses_from, "excluded": sorted(game.guesses[g] for g in _excluded(cfg, game)),
               "cubes": {str(k): {"status": s.status, **s.counts(), "file": CUBES.named(str(k))}
                         for k, s in searches.items()},
               "trusted": TRUSTED, "k_boards": {k: f_star + k for k in range(1, k_boards + 1)}}
    write_json(ctx.out.file(SOLUTION.name), summary)
    return {key: summary[key] for key in ("method", "f_star", "guesses", "lower_bound", "proven_optimal", "cubes")}


def _excluded(cfg, game) -> list[int]:
    return [game.guess_index[w.lower()] for w in cfg.exclude]


def tree_record(game, cfg, search: C.CubeSearch, pool, *, families=None) -> dict:
    """cubes-k<k>.json: the question, its answer, the rules and every cube (enough to re-run any of them)."""
    version = highspy.Highs().version()
    record = {"k": search.k, "question": f"can {search.k} fixed guesses separate every pair of secrets",
            "status": search.status, "chosen": [game.guesses[g] for g in search.chosen] or None,
            "counts": search.counts(), "trusted": TRUSTED,
            "split": {"depth": cfg.cube_depth, "target": cfg.cube_target, "rule": SPLIT_RULE,
                      "prune": f"certified LP bound > guesses left + {C.PRUNE_MARGIN}"},
            "solver": {"lp": f"HiGHS {version} (LP, dual bound certified here)", "mip": f"HiGHS {version} (MIP)",
                       "cube_time_limit_s": cfg.cube_time_limit_s, "threads": cfg.threads or 1,
                       "max_rounds": cfg.max_rounds},
            "pool": {"rule": POOL_RULE, "pairs": [[game.secrets[i], game.secrets[j]] for i, j in zip(*pool)]},
            "cubes": [cube_record(game, search.k, node) for node in search.nodes]}
    if cfg.cube_cluster_cuts:  # the pair-row runs' records stay as they were
        which = "all" if cfg.cube_max_families is None else f"the {cfg.cube_max_families} largest"
        record["solver"]["families"] = len(families)
        record["solver"]["lp_rows"] = (f"pool pairs left + cluster cuts of {which} of the secrets' one-position "
                                       f"families and anagram groups of at least {K.MIN_FAMILY} words, narrowed by the "
                                       "fixed guesses")
    return record


def cube_record(game, k: int, node: C.CubeNode) -> dict:
    cube, bound = node.cube, node.bound
    record = {"id": ".".join(map(str, cube.path)) or "root", "fixed": [game.guesses[g] for g in cube.fixed],
              "excluded": [game.guesses[g] for g in cube.excluded], "left": k - len(cube.fixed),
              "outcome": node.result.outcome if node.result else node.outcome,
              "lp": {"value": bound.lp_value, "certified_bound": round(bound.bound, 9), "status": bound.status,
                     "pool_pairs_left": bound.uncovered, "seconds": round(bound.seconds, 3)}}
    if node.outcome == C.PRUNED:
        record["pruned_by"] = ("a pool pair with no separator left" if bound.uncoverable
                               else f"LP: certified bound {bound.bound:.6f} > {k - len(cube.fixed)} guesses left")
    if node.outcome == C.SPLIT:
        record["branch"] = {"pair": [game.secrets[s] for s in bound.pair], "children": len(bound.separators)}
    if node.result is not None:
        result = node.result
        record["mip"] = {"status": result.status, "rounds": result.rounds, "pairs": result.pairs,
                         "dual_bound": result.dual_bound, "seconds": round(result.seconds, 3),
                         "set": [game.guesses[g] for g in result.chosen] or None}
    return record
