"""Stage leaderboard: the exact values of the k best openers, and a certificate that every other opener is worse.

The method:
1. candidates: the upper bound's openers (ApMinTotal totals, upper bounds on their exact values); T0 = the
   k-th best of those totals bounds the k-th best exact value from above.  The candidates with a total
   <= T0, and the `stage.candidates` best-ranked openers (a tighter T for the funnel: the ApMinTotal list
   holds only upstream.upper_bound.top_k openers), are solved exactly against T0, and T = the k-th best
   exact value found.
2. the V_i funnel (stage lower_bound, run with stage.ub=T, one opener per task batch as always): an opener
   survives while its lower bound V_i(g, S) <= T.
3. the survivors are solved exactly in increasing order of their last lower bound, a round of a few at a
   time (fanned out); after each round T = the k-th best exact value so far, and survivors whose bound now
   exceeds T are dropped, until none is left with a bound <= T.
Every opener whose exact value is <= T (the k-th best) is listed: ties at the k-th value are all listed.

"Solving against T" is close_opener (search/bounds/closure.py): the opener's classes are solved exactly, largest first, each
with the budget that would lift the opener past T on its own; so an opener either gets its exact value
(every class exact, and then an optimal tree) or class bounds whose sum proves it is worse than T.
A listed opener's certificate entry bounds each class against its subtree in that opener's optimal tree
(closure.bound_class, in prove's class tasks: LB_j, or an exact MinTotal), so the checker finds its value from both sides: the
tree's total from above, the class bounds from below.

certificate.json (kind "leaderboard", checked by `verify-certificate`): `leaders` (opener, value, tree
file and digest, classes), `settled` (openers solved and found worse than the threshold: class bounds),
`eliminated` (every other opener: its funnel level and rule, claiming V_level > threshold), `threshold` = the k-th
best value.  The funnel runs without symmetry reduction, so every opener is named.
"""

import hashlib
import json

from pipeline.artifacts.summaries import lower_bound_summary, upper_bound_summary
from pipeline.artifacts.trees import tree_name, write_tree
from pipeline.artifacts.tree_nodes import replayed_exact_tree
from pipeline.artifacts.outputs import (FUNNEL, LEADERBOARD, LEADERBOARD_CERTIFICATE, LEADERBOARD_SUMMARY,
                                        OPENER_TOTALS, STORED_GAME)
from pipeline.artifacts.stored_game import write_stored_game
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.search.apmintotal.value import rank_openers
from pipeline.runtime.executors import shared_args
from pipeline.search.bounds.lower import k_of_game
from pipeline.search.bounds.closure import ClassSettings, close_opener, guesses_left, opener_classes, subtree_totals
from pipeline.search.matrix import Matrix
from pipeline.search.tree import to_json
from pipeline.stages.base import StageContext
from pipeline.stages.proof_tasks import class_task, fan_out_tasks, game_claims, survivor_entry, task_solvers
from pipeline.config.stages import LeaderboardConfig

# the stage contract: stages/base.py (VERSION 3: its summary names lower_bound's artifacts of version 3)
NAME, VERSION, INPUTS = "leaderboard", 3, ("feedback", "upper_bound")
OUTPUTS = LEADERBOARD  # certificate.json, summary.json, tree-<opener>.json/.txt/.svg: pipeline/artifacts/outputs.py
SCHEMA = LeaderboardConfig


def validate(cfg: LeaderboardConfig, game) -> None:
    from pipeline.config.validation import at_least, enough_secrets, memo_bits, total_only

    total_only(cfg, "the leaderboard certifies")
    if cfg.k > len(game.guesses):
        raise PipelineError(f"stage.k={cfg.k} is more than the {len(game.guesses)} openers of {game.name}")
    for name in ("k", "funnel_level", "closure_level", "round_size", "tree_depth"):
        at_least(cfg, name, 1, allow_none=name == "round_size")
    at_least(cfg, "candidates", 0)
    memo_bits(cfg)
    enough_secrets(game, NAME)


def first_threshold(ctx: StageContext, k: int) -> tuple[int, list[int]]:
    """(T0, candidates): the k-th best ApMinTotal total of the upper bound's openers, and the openers whose total
    is at most T0 (at least k; their exact values are at most their totals, so the k-th best exact is <= T0)."""
    game, artifact = ctx.game, ctx.inputs["upper_bound"]
    summary = upper_bound_summary(artifact, game)
    if summary.get("objective", "total") != "total":
        raise PipelineError(f"the upper bound optimises {summary['objective']}: rerun with "
                            "upstream.upper_bound.objective=total")
    if (summary.get("guesses_sha256"), summary.get("secrets_sha256")) != (game.guesses_digest, game.secrets_digest):
        raise PipelineError(f"{artifact.path} is an upper bound for other word lists")
    tried = artifact.read_table(OPENER_TOTALS.name).to_pylist()
    rows = [r for r in tried if r["total"] is not None]
    if len(rows) < k:
        more = min(len(game.guesses), 2 * len(tried) * -(-k // max(len(rows), 1)))
        raise PipelineError(f"the upper bound found a strategy within the guess limit for {len(rows)} of its "
                            f"{len(tried)} openers, fewer than stage.k={k}: rerun with a larger "
                            f"upstream.upper_bound.top_k (e.g. {more})")
    t0 = sorted(r["total"] for r in rows)[k - 1]
    return t0, sorted(game.guess_index[r["opener"]] for r in rows if r["total"] <= t0)


def _settle(job, matrix: Matrix, memo_bits, hard, limit):
    """(value, class bounds, optimal tree nodes or None) of one opener solved against a threshold: the exact
    value and its tree when it is <= the threshold, else class bounds summing past it (closure.close_opener)."""
    opener, classes, threshold = job
    left = None if limit is None else limit - 1
    with task_solvers(matrix) as solvers:
        solver = solvers.exact(hard, memo_bits=memo_bits, left=left)
        bounds = close_opener(classes, n_secrets=matrix.n_secrets, ub=threshold, exact_solver=solver)
        value = matrix.n_secrets + sum(b for b, _ in bounds)
        return value, bounds, solver.tree(opener, left=limit) if value <= threshold else None


def settle(ctx: StageContext, cfg: LeaderboardConfig, matrix: Matrix, openers: list[int], threshold: int,
           label: str, settled: dict) -> None:
    """Solve `openers` against `threshold` (one task each) into settled[g] = (value, bounds, nodes)."""
    game = ctx.game
    jobs = [(g, [(m, state) for _, m, state in opener_classes(matrix.codes, game, g)], threshold) for g in openers]
    shared = shared_args(_settle, matrix=matrix, memo_bits=cfg.memo_bits, hard=game.hard_mode,
                         limit=game.max_guesses)
    for g, (value, bounds, nodes) in zip(openers, fan_out_tasks(ctx, _settle, jobs, shared, label)):
        settled[g] = (int(value), bounds, nodes)


def kth_value(settled: dict, k: int) -> int:
    """The k-th best exact value among the settled openers (exact: at most the threshold it was solved against)."""
    exact = sorted(value for value, _, nodes in settled.values() if nodes is not None)
    return exact[k - 1]


def run_funnel(ctx: StageContext, cfg: LeaderboardConfig, threshold: int):
    """The lower_bound artifact of the V_i funnel at UB = threshold, every opener its own (no orbits): an ordinary
    stage run through the runner, so it is keyed, reused when present and resumed when killed."""
    import dataclasses

    from pipeline.config.compose import compose_config
    from pipeline.stages.runner import run_stage

    outer = compose_config(["stage=lower_bound", f"stage.ub={threshold}", f"stage.max_level={cfg.funnel_level}",
                            "stage.symmetry=false"])  # the game and feedback matrix: ctx's own
    outer = dataclasses.replace(outer, ray=ctx.ray, progress=ctx.progress)
    return run_stage(outer.stage, outer, ctx.game, ctx.store, ready={"feedback": ctx.inputs["feedback"]})


def last_rows(funnel) -> dict[str, dict]:
    """Each opener's deepest funnel row as an elimination claim {opener, level, rule, bound}."""
    deepest = {}
    for r in funnel.read_table(FUNNEL.name).to_pylist():
        if r["opener"] not in deepest or r["level"] > deepest[r["opener"]]["level"]:
            deepest[r["opener"]] = {"opener": r["opener"], "level": r["level"], "rule": r.get("rule") or "normal",
                                    "bound": r["value"]}
    return deepest


def solve_survivors(ctx, cfg, matrix: Matrix, funnel, settled: dict, threshold: int) -> tuple[int, int]:
    """Solve the funnel's survivors (not yet settled) in increasing order of lower bound, `round_size` per round,
    lowering the threshold to the k-th best exact value after each round; (final threshold, rounds)."""
    game, size = ctx.game, cfg.round_size or 2 * ctx.cluster_cpus()
    summary = lower_bound_summary(funnel, game)
    bound_of = dict(zip(summary["survivors"], summary["survivor_values"]))
    pending = sorted((b, game.guess_index[w]) for w, b in bound_of.items() if game.guess_index[w] not in settled)
    rounds = 0
    while pending and pending[0][0] <= threshold:
        batch = [g for b, g in pending[:size] if b <= threshold]
        settle(ctx, cfg, matrix, batch, threshold, f"{NAME}-round{rounds}", settled)
        threshold, rounds = kth_value(settled, cfg.k), rounds + 1
        pending = pending[size:]
    return threshold, rounds


def leader_entries(ctx, cfg, matrix: Matrix, k_s, leaders: list[int], settled: dict) -> list[dict]:
    """Certificate entries of the listed openers: each tree written (tree-<opener>.json), each class bounded against
    its subtree (prove's class tasks, one per class)."""
    game, entries, jobs, owners = ctx.game, [], [], []
    for g in leaders:
        value, _, nodes = settled[g]
        tree = replayed_exact_tree(nodes, game, matrix.codes, value)
        name = tree_name(game.guesses[g])
        write_tree(ctx.out.file, tree, game, name=name, objective="total", depth=cfg.tree_depth)
        targets = subtree_totals(to_json(tree))
        classes = opener_classes(matrix.codes, game, g)
        jobs += [(m, targets[colours], state, None) for colours, m, state in classes]
        owners.append((g, classes, targets, name))
    settings = ClassSettings(k_s=k_s, max_level=cfg.closure_level, memo_bits=cfg.memo_bits, left=guesses_left(game))
    shared = shared_args(class_task, matrix=matrix, settings=settings)
    results = iter(fan_out_tasks(ctx, class_task, jobs, shared, f"{NAME}-closure"))
    for g, classes, targets, name in owners:
        entry = survivor_entry(game.guesses[g], classes, [next(results) for _ in classes], targets)
        digest = hashlib.sha256(ctx.out.file(f"{name}.json").read_bytes()).hexdigest()
        entries.append(summed(entry, len(game.secrets)) | {"tree": f"{name}.json", "tree_sha256": digest})
    return entries


def summed(entry: dict, n_secrets: int) -> dict:
    """An entry with the sum of its class bounds and its value |S| + that sum."""
    entry["sum"] = sum(c["bound"] for c in entry["classes"])
    entry["value"] = n_secrets + entry["sum"]
    return entry


def other_entries(ctx, codes, settled: dict, leaders: list[int], funnel, threshold: int) -> tuple[list, list]:
    """(settled, eliminated) claims of every opener not listed: class bounds of the openers solved and found
    worse, the deepest funnel bound of the rest; each above the threshold."""
    game, listed = ctx.game, set(leaders)
    worse = [summed(survivor_entry(game.guesses[g], opener_classes(codes, game, g), settled[g][1], {}),
                    len(game.secrets)) for g in sorted(settled) if g not in listed]
    names = {game.guesses[g] for g in settled}
    eliminated = [row for word, row in sorted(last_rows(funnel).items()) if word not in names]
    low = [e["opener"] for e in worse + eliminated if e.get("value", e.get("bound")) <= threshold]
    if low:
        raise PipelineError(f"internal error: opener(s) {low[:5]} are neither listed nor shown worse than {threshold}")
    return worse, eliminated


def without_bound(elimination: dict) -> dict:
    """An elimination as the certificate states it, V_level(g, S) > threshold: level and rule, not the funnel's
    value (a number from the prover's own bounds, which the checker's definitions need not reach)."""
    return {k: v for k, v in elimination.items() if k != "bound"}


def run(ctx: StageContext, cfg: LeaderboardConfig) -> dict:
    game = ctx.game
    write_stored_game(ctx.out.file(STORED_GAME.name), game, NAME, VERSION)  # its check needs nothing else
    codes = load_matrix(ctx.inputs["feedback"], game)
    matrix = Matrix.of_game(codes, game)
    t0, candidates = first_threshold(ctx, cfg.k)
    ranked = rank_openers(matrix, min(cfg.candidates, len(game.guesses)))
    candidates = sorted(set(candidates) | set(ranked))
    settled: dict = {}
    settle(ctx, cfg, matrix, candidates, t0, f"{NAME}-candidates", settled)
    t1 = kth_value(settled, cfg.k)
    funnel = run_funnel(ctx, cfg, t1)
    threshold, rounds = solve_survivors(ctx, cfg, matrix, funnel, settled, t1)
    leaders = sorted((g for g, (value, _, nodes) in settled.items() if nodes is not None and value <= threshold),
                     key=lambda g: (settled[g][0], game.guesses[g]))
    k_s = k_of_game(codes, game.n_codes)
    worse, eliminated = other_entries(ctx, codes, settled, leaders, funnel, threshold)
    certificate = {"kind": NAME, "objective": cfg.objective, **game_claims(game), "k_s": k_s, "k": cfg.k,
                   "threshold": threshold, "ties": len(leaders) > cfg.k,
                   "leaders": leader_entries(ctx, cfg, matrix, k_s, leaders, settled),
                   "settled": worse, "eliminated": [without_bound(e) for e in eliminated]}
    ctx.out.file(LEADERBOARD_CERTIFICATE.name).write_text(json.dumps(certificate, indent=1) + "\n")
    summary = {"k": cfg.k, "threshold": threshold, "ties": certificate["ties"],
               "leaders": [{"opener": e["opener"], "value": e["value"]} for e in certificate["leaders"]],
               "first_threshold": t0, "funnel_threshold": t1, "funnel": str(funnel.path),
               "funnel_survivors": len(lower_bound_summary(funnel, ctx.game)["survivors"]),
               "solved": len(settled), "rounds": rounds, "hard_mode": game.hard_mode}
    ctx.out.file(LEADERBOARD_SUMMARY.name).write_text(json.dumps(summary, indent=2) + "\n")
    return summary


def headline(summary: dict, folder) -> str:
    """The k best openers with their exact values, e.g. `the 2 best openers: a 544, b 550`."""
    leaders = ", ".join(f"{e['opener']} {e['value']}" for e in summary["leaders"])
    ties = " (ties at the threshold)" if summary.get("ties") else ""
    return f"the {summary['k']} best openers: {leaders}{ties}"
