"""Stage prove: close the gap. For each opener that survived the funnel, raise a lower bound on every
response class (LB_j for growing j, then an exact solve), until |S| + sum of class bounds reaches UB; the
UB opener's classes go out a few Ray tasks per cluster CPU, largest first (one task per class on a big cluster). Writes certificate.json (checked by `verify-certificate`).
The mathematics of the closure is search/bounds/closure.py; this module reads the inputs, fans the classes
out and writes the certificate.  A worker process builds its solvers once per matrix and reuses them for
every class it is given (`task_solvers`, on runtime/worker_cache.py: a new solver costs seconds on a big
game, more than most classes' bounds).

The game's rules hold throughout: in hard mode a class is closed by the hard-mode bounds or a
hard-mode exact solve from the state its opener's response leaves, and a class has
game.max_guesses - 1 guesses left (LB_j ignore the limit, which only raises values); under a limit, a survivor
with a class no strategy solves in the guesses left is settled by that class alone (search/solvable/within.py).
The UB tree itself must keep both rules (upper_bound plays them); a tree that does not is refused.
When the funnel ran on orbit representatives (a game with symmetries), the certificate's "symmetry"
lists the generators and, for every other opener, its representative: the checker verifies both.
When the upper bound found no strategy within game.max_guesses, the stage proves that limit infeasible instead
(stages/prove_infeasible.py): a certificate of kind infeasible, a witness class per opener.
The symmetries fixing the opener also map each of its classes onto itself, so a class's exact solve
tries one guess per orbit of the symmetries fixing the guesses played so far, at the class's root and one level
below (search/exact/symmetric.py, search/symmetry/stabiliser.py)."""

import hashlib
import json
import shutil

from pipeline.artifacts.summaries import lower_bound_summary, no_strategy_found, upper_bound_summary
from pipeline.artifacts.tree_nodes import replayed_exact_tree
from pipeline.artifacts.trees import draw_tree, rule_violation, write_tree
from pipeline.artifacts.outputs import CERTIFICATE, FUNNEL, LB_SUMMARY, PROVE, STORED_GAME, TREE
from pipeline.artifacts.stored_game import write_stored_game
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.runtime.executors import shared_args
from pipeline.runtime.log import log
from pipeline.search.bounds.lower import k_of_game
from pipeline.search.bounds.closure import ClassSettings, guesses_left, opener_classes, settle_opener, subtree_totals
from pipeline.search.exact.solver import ExactSolver
from pipeline.search.exact.symmetric import SymmetricExact
from pipeline.search.matrix import Matrix
from pipeline.search.symmetry.stabiliser import HistoryStabiliser
from pipeline.search.tree import from_json
from pipeline.stages import prove_infeasible
from pipeline.stages.base import StageContext
from pipeline.stages.proof_tasks import class_task, fan_out_tasks, game_claims, survivor_entry, task_solvers
from pipeline.config.stages import ProveConfig

NAME = "prove"
VERSION = 7
INPUTS = ("feedback", "upper_bound", "lower_bound")
OUTPUTS = PROVE  # certificate.json, tree.json/.svg (and .txt for a better tree), game.json.gz: artifacts/outputs.py


SCHEMA = ProveConfig
CLASS_TASKS_PER_CPU = 16  # class costs are uneven (one class may outweigh the rest): many small tasks balance them


def validate(cfg: ProveConfig, game) -> None:
    from pipeline.config.validation import at_least, enough_secrets, memo_bits, total_only

    total_only(cfg, "a proof closes")
    at_least(cfg, "max_level", 1)
    at_least(cfg, "tree_depth", 1)
    memo_bits(cfg)
    enough_secrets(game, NAME)


def class_batch(jobs, *shared) -> list:
    """`class_task` for each job of a batch (its shared values as class_task's), with this worker's solvers."""
    return [class_task(job, *shared) for job in jobs]


def class_batches(jobs: list, cluster_cpus: int) -> list[list[int]]:
    """Which of the UB opener's classes each task closes: CLASS_TASKS_PER_CPU tasks per cluster CPU (the
    runtime's `batch_count`), so one class each from a cluster of a CPU for every CLASS_TASKS_PER_CPU
    classes on; the classes dealt largest first, so the costliest start first and no task collects two of them.
    Each class's bound is computed alike whatever its batch (every class starts from emptied solvers)."""
    from pipeline.runtime.policy import batch_count, deal

    largest_first = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][0]))
    return deal(largest_first, batch_count(len(jobs), cluster_cpus, per_cpu=CLASS_TASKS_PER_CPU))


def closed_classes(ctx: StageContext, jobs: list, shared: tuple) -> list:
    """(bound, method) of every job of the UB opener's classes, in their order, as `class_batches` tasks."""
    batches = class_batches(jobs, ctx.cluster_cpus()) if jobs else []
    parts = fan_out_tasks(ctx, class_batch, [[jobs[i] for i in b] for b in batches], shared, f"{NAME}-classes")
    results = [None] * len(jobs)
    for batch, part in zip(batches, parts):
        for i, result in zip(batch, part):
            results[i] = result
    return results


def opener_task(classes, matrix: Matrix, memo_bits, left, hard, ub, k_s, level):
    """(bound, method) per class of an opener without a UB subtree: `settle_opener` with this worker's solvers."""
    with task_solvers(matrix) as solvers:
        return settle_opener(solvers, classes, ub=ub, hard=hard, memo_bits=memo_bits, left=left, k_s=k_s,
                             level=level)


def run(ctx: StageContext, cfg: ProveConfig) -> dict:
    game = ctx.game
    write_stored_game(ctx.out.file(STORED_GAME.name), game, NAME, VERSION)  # its check needs nothing else
    codes = load_matrix(ctx.inputs["feedback"], game)
    matrix = Matrix.of_game(codes, game)
    if no_strategy_found(ctx.inputs["upper_bound"]):
        return prove_infeasible.run(ctx, cfg, matrix, game_claims)  # a proof that the guess limit is infeasible
    ub_summary = upper_bound_summary(ctx.inputs["upper_bound"], game)
    funnel = lower_bound_summary(ctx.inputs["lower_bound"], game)
    ub, ub_opener = ub_summary["ub"], ub_summary["opener"]
    if ub_summary.get("objective", "total") != cfg.objective:
        raise PipelineError(f"the upper bound optimises {ub_summary['objective']}, the proof {cfg.objective}: "
                            f"rerun with upstream.upper_bound.objective={cfg.objective}")
    if not funnel["survivors"]:
        raise PipelineError(f"no opener survived the funnel at UB={funnel['ub']}: that UB is below the optimum, "
                            "nothing to prove")
    if funnel["ub"] != ub:
        raise PipelineError(f"the funnel was run against UB={funnel['ub']}, not the upper bound {ub}")
    tree_file = ctx.inputs["upper_bound"].file(TREE.name)
    tree_body = ctx.inputs["upper_bound"].read_json(TREE.name)
    problem = rule_violation(from_json(tree_body["tree"]), game)
    if problem:
        raise PipelineError(f"the upper bound's tree does not keep the game's rules: {problem}")
    targets = subtree_totals(tree_body["tree"])
    k_s = k_of_game(codes, game.n_codes)
    classes = {word: opener_classes(codes, game, game.guess_index[word]) for word in funnel["survivors"]}
    generators = [] if game.hard_mode else funnel.get("symmetry", {}).get("generators", [])
    settings = ClassSettings(k_s=k_s, max_level=cfg.max_level, memo_bits=cfg.memo_bits, left=guesses_left(game),
                             generators=generators)
    shared = shared_args(class_task, matrix=matrix, settings=settings)
    ub_classes = classes.pop(ub_opener, [])
    history = (game.guess_index[ub_opener],) if generators else None
    jobs = [(m, targets.get(colours), state, history) for colours, m, state in ub_classes]
    others = [[(m, state) for _, m, state in cls] for cls in classes.values()]
    ub_results = closed_classes(ctx, jobs, shared)
    shared = shared_args(opener_task, matrix=matrix, memo_bits=cfg.memo_bits, left=guesses_left(game),
                         hard=game.hard_mode, ub=ub, k_s=k_s, level=cfg.max_level)
    other_results = fan_out_tasks(ctx, opener_task, others, shared, f"{NAME}-openers")
    survivors = {}
    if ub_classes:
        survivors[ub_opener] = survivor_entry(ub_opener, ub_classes, ub_results, targets)
    for (word, cls), results in zip(classes.items(), other_results):
        survivors[word] = survivor_entry(word, cls, results, {})
    for entry in survivors.values():
        entry["sum"] = sum(c["bound"] for c in entry["classes"])
        entry["value"] = len(game.secrets) + entry["sum"]
    given = {"ub": ub, "opener": ub_opener}  # the upper bound stage's, recorded beside a better one
    better = better_openers(survivors, ub)
    if better:
        ub, ub_opener = better[0]["value"], better[0]["opener"]
        log.info(f"{NAME}: opener {ub_opener} solves exactly to {ub}, below the upper bound {given['ub']} "
                 f"({given['opener']}): the proof goes on from {ub_opener}'s optimal tree")
        tree_file = write_better_tree(ctx, cfg, matrix, ub_opener, ub, generators)
    else:
        shutil.copy(tree_file, ctx.out.file(TREE.name))
        draw_tree(ctx.out.file, from_json(tree_body["tree"]), game, depth=cfg.tree_depth)
    drop_foreign_targets(survivors, ub_opener)
    certificate = {"objective": cfg.objective} | build_certificate(
        ctx, ub, ub_opener, ctx.out.file(TREE.name), survivors, k_s)
    ctx.out.file(CERTIFICATE.name).write_text(json.dumps(certificate, indent=1) + "\n")
    if not certificate["proven"]:
        say_why_not_proven(certificate)
    # the upper bound stage's result is provenance, not a claim of the proof: the summary keeps it, not the certificate
    return {k: certificate[k] for k in ("proven", "ub", "optimal_openers", "ub_opener")} | {
        "upper_bound_given": given, "secrets": len(game.secrets),
        "funnel": [level["survivors"] for level in funnel["funnel"]] + [len(certificate["optimal_openers"])]}


def eliminated_openers(lower_bound_artifact) -> list[dict]:
    """The funnel's eliminations as the claim the checker verifies, V_level(g, S) > ub: the level and rule, not the
    funnel's value (a number from the prover's own bounds, which the checker's definitions need not reach)."""
    rows = lower_bound_artifact.read_table(FUNNEL.name).to_pylist()
    return [{"opener": r["opener"], "level": r["level"], "rule": r.get("rule") or "normal"}
            for r in rows if r["eliminated"]]


def write_better_tree(ctx: StageContext, cfg: ProveConfig, matrix: Matrix, opener: str, value: int, generators=()):
    """An optimal tree of `opener`, whose classes the opener task solved exactly to `value`, written as this
    artifact's tree.json/.txt/.svg: the proof's upper bound from now on (searched with the history stabiliser of
    the symmetry `generators`, if any)."""
    game = ctx.game
    solver = ExactSolver(matrix, hard_mode=game.hard_mode, max_guesses=game.max_guesses, memo_bits=cfg.memo_bits)
    if generators:
        search = SymmetricExact(solver, HistoryStabiliser(matrix.encoded_guesses, len(game.alphabet), generators))
        nodes = search.tree(None, (), first=game.guess_index[opener])
    else:
        nodes = solver.tree(game.guess_index[opener])
    tree = replayed_exact_tree(nodes, game, matrix.codes, value)
    write_tree(ctx.out.file, tree, game, objective="total", depth=cfg.tree_depth)
    return ctx.out.file(TREE.name)


def drop_foreign_targets(survivors: dict, ub_opener: str) -> None:
    """Class targets stay only on the UB opener's classes: they are subtree totals of tree.json, which the checker
    recomputes; an opener whose targets came from the upper bound's tree, replaced by a better one, loses them."""
    for word, entry in survivors.items():
        if word != ub_opener:
            for c in entry["classes"]:
                c.pop("target", None)


def exact_class(c: dict) -> bool:
    """The class's bound is its exact MinTotal: solved exactly, or a lower bound that meets the UB tree's
    subtree total (so that subtree is optimal)."""
    return c["method"] == "exact" or c["bound"] == c.get("target")


def better_openers(survivors: dict, ub: int) -> list[dict]:
    """Survivors whose class bounds are all exact and sum below ub, best first: each is a better opener than
    the upper bound's tree (the UB opener itself when its tree was not optimal), by its exact value."""
    return sorted(({"opener": w, "value": s["value"]} for w, s in survivors.items()
                   if s["value"] < ub and all(exact_class(c) for c in s["classes"])),
                  key=lambda b: (b["value"], b["opener"]))


def build_certificate(ctx: StageContext, ub, ub_opener, tree_file, survivors, k_s) -> dict:
    """The certificate; `optimal_openers` are named only when the proof closes (an unproven certificate
    claims no optimum)."""
    game = ctx.game
    ub_entry = survivors.get(ub_opener)
    closes = ub_entry is not None and ub_entry["value"] == ub
    proven = bool(closes and all(s["value"] >= ub for s in survivors.values()))
    certificate = {
        **game_claims(game), "k_s": k_s,
        "ub": ub, "ub_opener": ub_opener, "ub_tree_sha256": hashlib.sha256(tree_file.read_bytes()).hexdigest(),
        "eliminated": eliminated_openers(ctx.inputs["lower_bound"]),
        "survivors": list(survivors.values()),
        "optimal_openers": sorted(w for w, s in survivors.items() if s["value"] == ub),
        "proven": proven,
    } | symmetry_claims(ctx.inputs["lower_bound"], survivors, ub)
    return certificate if proven else certificate | {"optimal_openers": []}


def say_why_not_proven(certificate: dict) -> None:
    """One warning line naming the survivors whose class bounds, not all exact, fall short of ub (a lower bound
    that meets a subtree total, or an exact solve, would have settled them)."""
    short = [f"{s['opener']} ({s['value']})" for s in certificate["survivors"] if s["value"] < certificate["ub"]]
    log.warning(f"{NAME}: not proven: the class bounds of {', '.join(short[:5])} do not reach ub={certificate['ub']}"
                f"{f' (and {len(short) - 5} more)' if len(short) > 5 else ''}")


def symmetry_claims(lower_bound_artifact, survivors, ub) -> dict:
    """The certificate's "symmetry" entry (generators, [{opener, representative}]) and its optimal openers
    including those of the optimal representatives' orbits; {} for a game without symmetries."""
    symmetry = lower_bound_artifact.read_json(LB_SUMMARY.name).get("symmetry")
    if not symmetry:
        return {}
    stand_for = sorted(symmetry["represented_by"].items())
    optimal = {w for w, s in survivors.items() if s["value"] == ub}
    return {"symmetry": {"generators": symmetry["generators"],
                         "openers": [{"opener": w, "representative": r} for w, r in stand_for]},
            "optimal_openers": sorted(optimal | {w for w, r in stand_for if r in optimal})}


SHOWN_OPENERS = 5  # optimal openers named in the result line; the certificate lists them all


def named_openers(openers: list[str]) -> str:
    """`salet`, or `1123, 1124, ... and 715 more (720 optimal openers, all in certificate.json)`: one line
    however many openers tie (Mastermind has 720)."""
    if len(openers) <= SHOWN_OPENERS:
        return ", ".join(openers)
    return (f"{', '.join(openers[:SHOWN_OPENERS])} and {len(openers) - SHOWN_OPENERS} more "
            f"({len(openers)} optimal openers, all in certificate.json)")


def headline(summary: dict, folder) -> str:
    """`proven 544 (2.641 per secret) by 4*7=28; funnel 206 → 7 → 7 → 1; check it with: ...` (or why not):
    the prover's claim only, the certificate is checked by verify-certificate."""
    if summary.get("feasible") is False:
        return prove_infeasible.headline(summary, folder)
    ub, n = summary["ub"], summary.get("secrets")
    per = f" ({ub / n:.3f} per secret)" if n else ""
    funnel = " → ".join(str(c) for c in summary.get("funnel", []))
    check = f"check it with: python -m pipeline verify-certificate {folder}"
    if summary["proven"]:
        return f"proven {ub}{per} by {named_openers(summary['optimal_openers'])}; funnel {funnel}; {check}"
    return (f"not proven: the upper bound {ub}{per} by {summary.get('ub_opener', '?')} is not closed by the "
            f"class bounds; funnel {funnel}; {check}")
