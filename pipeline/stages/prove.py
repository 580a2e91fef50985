"""Stage prove: close the gap. For each opener that survived the funnel, raise a lower bound on every
response class (LB_j for growing j, then an exact solve), one Ray task per class, until
|S| + sum of class bounds reaches UB. Writes certificate.json (checked by `verify-certificate`).
A worker process builds its solvers once per matrix and reuses them for every class it is given
(`task_solvers`: a new solver costs seconds on a big game, more than most classes' bounds).

The game's rules hold throughout: in hard mode a class is closed by the hard-mode bounds or a
hard-mode exact solve from the state its opener's response leaves, and a class has
game.max_guesses - 1 guesses left (LB_j ignore the limit, which only raises values).
The UB tree itself must keep both rules (upper_bound plays them); a tree that does not is refused.
When the funnel ran on orbit representatives (a game with symmetries), the certificate's "symmetry"
lists the generators and, for every other opener, its representative: the checker verifies both.
The symmetries fixing the opener also map each of its classes onto itself, so a class's exact solve
tries one first guess per orbit of them (search/symmetry.py root_guesses)."""

import hashlib
import json
import shutil
from contextlib import contextmanager

import numpy as np

from pipeline.artifacts.summaries import lower_bound_summary, upper_bound_summary
from pipeline.artifacts.tree_nodes import replayed_exact_tree
from pipeline.artifacts.trees import draw_tree, rule_violation, write_tree
from pipeline.artifacts.outputs import CERTIFICATE, FUNNEL, LB_SUMMARY, PROVE, TREE
from pipeline.errors import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.runtime.log import log
from pipeline.search.bounds import BoundSolver, k_of_game
from pipeline.search.exact import INF, ExactSolver
from pipeline.search.hard_bounds import HardBoundSolver
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.partition import split
from pipeline.search.symmetry import guess_permutations, root_guesses
from pipeline.search.tree import from_json
from pipeline.stages.base import StageContext
from pipeline.stages.schemas import ProveConfig

NAME = "prove"
VERSION = 3
INPUTS = ("feedback", "upper_bound", "lower_bound")
OUTPUTS = PROVE  # certificate.json, tree.json/.svg (and .txt for a better tree): pipeline/artifacts/outputs.py


SCHEMA = ProveConfig


def validate(cfg: ProveConfig, game) -> None:
    from pipeline.validation import at_least, enough_secrets, memo_bits, total_only

    total_only(cfg, "a proof closes")
    at_least(cfg, "max_level", 1)
    at_least(cfg, "tree_depth", 1)
    memo_bits(cfg)
    enough_secrets(game, NAME)


def class_solver(codes, secret_of_guess, n_codes, hard, encoded_guesses, memo_bits, left) -> ExactSolver:
    """The exact solver for an opener's classes: the game's mode, `left` guesses left (None = unlimited)."""
    return ExactSolver(codes, secret_of_guess, n_codes, hard, encoded_guesses if hard else None,
                       memo_bits=memo_bits, max_guesses=left)


class ClassSolvers:
    """The solvers of one matrix that bound and solve response classes, each built on first use and kept.

    Building one is what costs on a big game (a BoundSolver takes 0.6 s on Midi Nerdle's matrix and 9-15 s
    on Nerdle's, more than most classes' bounds), so a process builds them once and reuses them class
    after class.  `reset()` empties their memos: a reused solver then answers exactly as a new one would.
    """

    def __init__(self, codes, secret_of_guess, n_codes, encoded_guesses):
        self.codes, self.secret_of_guess, self.n_codes = codes, secret_of_guess, n_codes
        self.encoded_guesses = encoded_guesses
        self.built: dict[tuple, object] = {}

    def bounds(self, k_s, hard: bool):
        """The LB_j solver: hard-mode bounds (HardBoundSolver) or normal ones (BoundSolver)."""
        key = ("bounds", k_s, hard)
        if key not in self.built:
            self.built[key] = (HardBoundSolver(self.codes, self.n_codes, k_s, self.encoded_guesses,
                                               secret_of_guess=self.secret_of_guess) if hard else
                               BoundSolver(self.codes, self.secret_of_guess, self.n_codes, k_s))
        return self.built[key]

    def exact(self, hard: bool, memo_bits, left) -> ExactSolver:
        """The exact solver (`class_solver`) for the game's mode with `left` guesses left."""
        key = ("exact", hard, memo_bits, left)
        if key not in self.built:
            self.built[key] = class_solver(self.codes, self.secret_of_guess, self.n_codes, hard,
                                           self.encoded_guesses, memo_bits, left)
        return self.built[key]

    def reset(self) -> None:
        """Empty every built solver's memo (their per-matrix arrays stay)."""
        for solver in self.built.values():
            solver.reset()


SMALL_ARRAY = 1 << 20  # bytes: an array this small is named by its contents in the solvers' cache
_CACHED: list = []  # [(key, the arrays it names, ClassSolvers)]: this process's solvers from its last task


def _array_key(array) -> tuple | None:
    """What names an input array in the solvers' cache.  A small one by its bytes (Ray copies it into every
    task); a big one by where its buffer lies: Ray maps the same immutable object-store buffer into every
    task of a process, the cache holds the array so no other can take that place, and the driver forgets the
    cache after each fan-out (`fan_out_tasks`), so an in-process run's arrays cannot change under it."""
    if array is None:
        return None
    array = np.asarray(array)
    if array.nbytes <= SMALL_ARRAY:
        return array.dtype.str, array.shape, array.tobytes()
    return array.dtype.str, array.shape, array.strides, array.__array_interface__["data"][0]


@contextmanager
def task_solvers(codes, secret_of_guess, n_codes, encoded_guesses):
    """The ClassSolvers of these inputs for one task: those of this process's previous task when its inputs
    were the same, else new ones; their memos are emptied when the task ends, so every task starts afresh
    (same results as new solvers) and an idle process keeps no memo."""
    arrays = (codes, secret_of_guess, encoded_guesses)
    key = (tuple(_array_key(a) for a in arrays), int(n_codes))
    if not _CACHED or _CACHED[0][0] != key:
        _CACHED[:] = [(key, arrays, ClassSolvers(codes, secret_of_guess, n_codes, encoded_guesses))]
    solvers = _CACHED[0][2]
    try:
        yield solvers
    finally:
        solvers.reset()


def fan_out_tasks(ctx: StageContext, fn, jobs: list, shared: tuple, label: str) -> list:
    """ctx.fan_out of tasks that take their solvers from `task_solvers`; then the solvers cached in this
    process (by tasks the in-process executor ran here) are dropped with the arrays they hold."""
    if not jobs:
        return []
    try:
        return ctx.fan_out(fn, jobs, shared, label=label)
    finally:
        _CACHED.clear()


def class_bound(members, target, codes, secret_of_guess, n_codes, k_s, max_level, memo_bits, hard_state,
                encoded_guesses, left=None, roots=None):
    """`bound_class` with solvers of its own (what one class costs on its own, set-up included)."""
    solvers = ClassSolvers(codes, secret_of_guess, n_codes, encoded_guesses)
    return bound_class(solvers, members, target, k_s, max_level, memo_bits, hard_state, left, roots)


def bound_class(solvers: ClassSolvers, members, target, k_s, max_level, memo_bits, hard_state, left=None,
                roots=None):
    """(bound, method) for one response class: the first LB_j reaching `target`, else the exact MinTotal.

    With target None (an opener without a known tree) the exact MinTotal is computed directly.
    In normal mode LB_j are the normal-mode bounds; in hard mode (`hard_state` given) the hard-mode
    bounds from that state ("hard LB_j"), which are stronger.  Neither uses the guess limit, which only
    raises values.  The exact solve plays hard mode from `hard_state` (None = normal mode) with `left`
    guesses left (None = unlimited); a class it cannot solve in time gets a bound >= exact.IMPOSSIBLE.
    `roots` (normal mode): first guesses enough for the exact solve, one per orbit of the symmetries
    fixing the opener.  The solvers' memos must be empty (as `task_solvers` hands them over).
    """
    members = np.asarray(members, dtype=np.int32)
    hard = hard_state is not None
    if target is not None:
        solver = solvers.bounds(k_s, hard)
        for level in range(1, max_level + 1):
            value, _ = (solver.lb(members, hard_state, level, target) if hard else
                        solver.lb(members, level, target))
            if value >= target:
                return int(value), f"hard LB_{level}" if hard else f"LB_{level}"
    exact_solver = solvers.exact(hard, memo_bits, left)
    if roots is not None and not hard:
        return symmetric_min_total(exact_solver, solvers.codes, members, roots), "exact"
    value, _ = exact_solver.min_total(members, state=hard_state)
    return int(value), "exact"


def symmetric_min_total(solver: ExactSolver, codes, members, roots) -> int:
    """MinTotal(C) as the least V*(h, C) over the guesses h in `roots` (one per orbit of symmetries mapping C
    onto itself), those splitting C into the most parts first, each solved against the best so far."""
    if len(members) <= 2:
        return 2 * len(members) - 1
    block = np.sort(codes[roots][:, members], axis=1)
    parts = 1 + (block[:, 1:] != block[:, :-1]).sum(axis=1)
    order = np.argsort(-parts, kind="stable")
    best = None
    for h in roots[order[parts[order] >= 2]]:
        value, exact = solver.guess_value(int(h), members, beta=INF if best is None else best)
        if exact:
            best = int(value)
    return best


def _class_task(job, codes, secret_of_guess, n_codes, k_s, max_level, memo_bits, encoded_guesses, left):
    members, target, hard_state, roots = job
    with task_solvers(codes, secret_of_guess, n_codes, encoded_guesses) as solvers:
        return bound_class(solvers, members, target, k_s, max_level, memo_bits, hard_state, left, roots)


def symmetry_permutations(game, codes, funnel: dict) -> list[np.ndarray]:
    """The funnel's symmetry generators as permutations of guess indices ([] for a game without any)."""
    generators = funnel.get("symmetry", {}).get("generators", [])
    if not generators:
        return []
    return guess_permutations(game.encoded_guesses(), game.encoded_secrets(), codes, len(game.alphabet), generators)


def close_opener(classes, n_secrets, ub, exact_solver) -> list[tuple[int, str]]:
    """(bound, method) per class of an opener without a UB subtree, enough to settle it against ub.

    Classes start at their floor 2|C| - 1 (exact for |C| <= 2) and are solved exactly, largest first, each
    with the budget that would lift the opener past ub on its own: a solve that reaches its budget ends
    the work (the opener is worse than ub; that class's bound is then only a lower bound).  An opener
    whose sum ends at ub therefore has every class exact: it is optimal too."""
    bounds = [(2 * len(m) - 1, "exact" if len(m) <= 2 else "LB_1") for m, _ in classes]
    for c in sorted(range(len(classes)), key=lambda i: -len(classes[i][0])):
        members, state = classes[c]
        if len(members) <= 2:
            break
        deficit = ub + 1 - n_secrets - sum(b for b, _ in bounds)
        if deficit <= 0:
            break
        value, _ = exact_solver.min_total(members, beta=bounds[c][0] + deficit, state=state)
        bounds[c] = (int(value), "exact")
    return bounds


def _opener_task(classes, codes, secret_of_guess, n_codes, memo_bits, encoded_guesses, left, hard, n_secrets, ub):
    with task_solvers(codes, secret_of_guess, n_codes, encoded_guesses) as solvers:
        return close_opener(classes, n_secrets, ub, solvers.exact(hard, memo_bits, left))


def guesses_left(game) -> int | None:
    """Guesses a response class of the opener has left (None = unlimited)."""
    return None if game.max_guesses is None else game.max_guesses - 1


def survivor_classes(codes, game, opener: int):
    """The non-win response classes of an opener: [(colours, members)]."""
    win = game.n_codes - 1
    class_codes, members = split(codes[opener], np.arange(len(game.secrets), dtype=np.int32))
    return [(int(c), m) for c, m in zip(class_codes, members) if c != win]


def opener_classes(codes, game, opener: int):
    """[(colours, members, hard-mode state or None)] of the opener's non-win response classes."""
    start = initial_state(game.length) if game.hard_mode else None
    return [(game.code_text(code), members,
             update_state(*start, game.encoded_guesses()[opener], code) if start is not None else None)
            for code, members in survivor_classes(codes, game, opener)]


def survivor_entry(word, classes, results, targets) -> dict:
    """A survivor's certificate entry: its classes with their bounds, their sum and the opener's value."""
    return {"opener": word, "classes": [
        {"response": colours, "size": len(m), "bound": bound, "method": method,
         **({"target": targets[colours]} if colours in targets else {})}
        for (colours, m, _), (bound, method) in zip(classes, results)]}


def subtree_totals(tree_json: dict) -> dict[str, int]:
    """Total of each child subtree of the root, by colour string."""
    tree = from_json(tree_json)
    return {colours: sum(node.candidates for _, node in child.nodes()) for colours, child in tree.children.items()}


def run(ctx: StageContext, cfg: ProveConfig) -> dict:
    game = ctx.game
    codes = load_matrix(ctx.inputs["feedback"], game)
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
    perms = symmetry_permutations(game, codes, funnel)
    roots = root_guesses(perms, game.guess_index[ub_opener]) if not game.hard_mode else None
    shared = (codes, game.secret_of_guess, game.n_codes, k_s, cfg.max_level, cfg.memo_bits, game.encoded_guesses(),
              guesses_left(game))
    ub_classes = classes.pop(ub_opener, [])
    jobs = [(m, targets.get(colours), state, roots) for colours, m, state in ub_classes]
    others = [[(m, state) for _, m, state in cls] for cls in classes.values()]
    ub_results = fan_out_tasks(ctx, _class_task, jobs, shared, f"{NAME}-classes")
    shared = (codes, game.secret_of_guess, game.n_codes, cfg.memo_bits, game.encoded_guesses(), guesses_left(game),
              game.hard_mode, len(game.secrets), ub)
    other_results = fan_out_tasks(ctx, _opener_task, others, shared, f"{NAME}-openers")
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
        tree_file = write_better_tree(ctx, cfg, codes, ub_opener, ub)
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


def write_better_tree(ctx: StageContext, cfg: ProveConfig, codes, opener: str, value: int):
    """An optimal tree of `opener`, whose classes the opener task solved exactly to `value`, written as this
    artifact's tree.json/.txt/.svg: the proof's upper bound from now on."""
    game = ctx.game
    solver = ExactSolver(codes, game.secret_of_guess, game.n_codes, game.hard_mode, game.encoded_guesses(),
                         max_guesses=game.max_guesses, memo_bits=cfg.memo_bits)
    tree = replayed_exact_tree(solver.tree(game.guess_index[opener]), game, codes, value)
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


def game_claims(game) -> dict:
    """What a certificate says of its game: rules, answering function and shape, list digests and sizes."""
    return {
        "game": game.name, "hard_mode": game.hard_mode, "max_guesses": game.max_guesses,
        **({} if game.answer == "wordle" else {"answer": game.answer, "length": game.length,
                                               "n_symbols": len(game.alphabet)}),
        "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
        "n_guesses": len(game.guesses), "n_secrets": len(game.secrets)}


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


def headline(summary: dict, folder) -> str:
    """`proven 544 (2.641 per secret) by 4*7=28; funnel 206 → 7 → 7 → 1; check it with: ...` (or why not):
    the prover's claim only, the certificate is checked by verify-certificate."""
    ub, n = summary["ub"], summary.get("secrets")
    per = f" ({ub / n:.3f} per secret)" if n else ""
    funnel = " → ".join(str(c) for c in summary.get("funnel", []))
    check = f"check it with: python -m pipeline verify-certificate {folder}"
    if summary["proven"]:
        return f"proven {ub}{per} by {', '.join(summary['optimal_openers'])}; funnel {funnel}; {check}"
    return (f"not proven: the upper bound {ub}{per} by {summary.get('ub_opener', '?')} is not closed by the "
            f"class bounds; funnel {funnel}; {check}")
