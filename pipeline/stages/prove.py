"""Stage prove: close the gap. For each opener that survived the funnel, raise a lower bound on every
response class (LB_j for growing j, then an exact solve), one Ray task per class, until
|S| + sum of class bounds reaches UB. Writes certificate.json (checked by `verify-certificate`).

The game's rules hold throughout: in hard mode a class is closed by the hard-mode bounds or a
hard-mode exact solve from the state its opener's response leaves, and a class has
game.max_guesses - 1 guesses left (LB_j ignore the limit, which only raises values).
The UB tree itself must keep both rules (upper_bound plays them); a tree that does not is refused."""

import hashlib
import json
import shutil

import numpy as np

from pipeline.artifacts.trees import rule_violation
from pipeline.errors import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.search.bounds import BoundSolver, k_of_game
from pipeline.search.exact import ExactSolver
from pipeline.search.hard_bounds import HardBoundSolver
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.partition import split
from pipeline.search.tree import from_json
from pipeline.stages.base import StageContext
from pipeline.stages.schemas import ProveConfig

NAME = "prove"
VERSION = 2
INPUTS = ("feedback", "upper_bound", "lower_bound")


SCHEMA = ProveConfig


def validate(cfg: ProveConfig, game) -> None:
    from pipeline.validation import at_least, enough_secrets, memo_bits

    at_least(cfg, "max_level", 1)
    memo_bits(cfg)
    enough_secrets(game, NAME)


def class_bound(members, target, codes, secret_of_guess, n_codes, k_s, max_level, memo_bits, hard_state,
                encoded_guesses, left=None):
    """(bound, method) for one response class: the first LB_j reaching `target`, else the exact MinTotal.

    With target None (an opener without a known tree) the exact MinTotal is computed directly.
    In normal mode LB_j are the normal-mode bounds; in hard mode (`hard_state` given) the hard-mode
    bounds from that state ("hard LB_j"), which are stronger.  Neither uses the guess limit, which only
    raises values.  The exact solve plays hard mode from `hard_state` (None = normal mode) with `left`
    guesses left (None = unlimited); a class it cannot solve in time gets a bound >= exact.IMPOSSIBLE.
    """
    members = np.asarray(members, dtype=np.int32)
    hard = hard_state is not None
    if target is not None:
        if hard:
            solver = HardBoundSolver(codes, n_codes, k_s, encoded_guesses, secret_of_guess=secret_of_guess)
            bound_of = lambda level: solver.lb(members, hard_state, level, target)  # noqa: E731
        else:
            solver = BoundSolver(codes, secret_of_guess, n_codes, k_s)
            bound_of = lambda level: solver.lb(members, level, target)  # noqa: E731
        for level in range(1, max_level + 1):
            value, _ = bound_of(level)
            if value >= target:
                return int(value), f"hard LB_{level}" if hard else f"LB_{level}"
    exact_solver = ExactSolver(codes, secret_of_guess, n_codes, hard, encoded_guesses if hard else None,
                               memo_bits=memo_bits, max_guesses=left)
    value, _ = exact_solver.min_total(members, state=hard_state)
    return int(value), "exact"


def _class_task(job, codes, secret_of_guess, n_codes, k_s, max_level, memo_bits, encoded_guesses, left):
    members, target, hard_state = job
    return class_bound(members, target, codes, secret_of_guess, n_codes, k_s, max_level, memo_bits,
                       hard_state, encoded_guesses, left)


def guesses_left(game) -> int | None:
    """Guesses a response class of the opener has left (None = unlimited)."""
    return None if game.max_guesses is None else game.max_guesses - 1


def survivor_classes(codes, game, opener: int):
    """The non-win response classes of an opener: [(colours, members)]."""
    win = game.n_codes - 1
    class_codes, members = split(codes[opener], np.arange(len(game.secrets), dtype=np.int32))
    return [(int(c), m) for c, m in zip(class_codes, members) if c != win]


def subtree_totals(tree_json: dict) -> dict[str, int]:
    """Total of each child subtree of the root, by colour string."""
    tree = from_json(tree_json)
    return {colours: sum(node.candidates for _, node in child.nodes()) for colours, child in tree.children.items()}


def _read_json(artifact, name):
    return artifact.read_json(name)


def run(ctx: StageContext, cfg: ProveConfig) -> dict:
    game = ctx.game
    codes = load_matrix(ctx.inputs["feedback"], game)
    ub_summary, funnel = _read_json(ctx.inputs["upper_bound"], "summary.json"), _read_json(ctx.inputs["lower_bound"], "summary.json")
    ub, ub_opener = ub_summary["ub"], ub_summary["opener"]
    if not funnel["survivors"]:
        raise PipelineError(f"no opener survived the funnel at UB={funnel['ub']}: that UB is below the optimum, "
                            "nothing to prove")
    if funnel["ub"] != ub:
        raise PipelineError(f"the funnel was run against UB={funnel['ub']}, not the upper bound {ub}")
    tree_file = ctx.inputs["upper_bound"].file("tree.json")
    tree_body = ctx.inputs["upper_bound"].read_json("tree.json")
    problem = rule_violation(from_json(tree_body["tree"]), game)
    if problem:
        raise PipelineError(f"the upper bound's tree does not keep the game's rules: {problem}")
    targets = subtree_totals(tree_body["tree"])
    k_s = k_of_game(codes, game.n_codes)
    jobs, owners = [], []
    for word in funnel["survivors"]:
        opener = game.guess_index[word]
        for code, members in survivor_classes(codes, game, opener):
            colours = game.code_text(code)
            target = targets.get(colours) if word == ub_opener else None
            state = (update_state(*initial_state(game.length), game.encoded_guesses()[opener], code)
                     if game.hard_mode else None)
            jobs.append((members, target, state))
            owners.append((word, colours, len(members), target))
    shared = (codes, game.secret_of_guess, game.n_codes, k_s, cfg.max_level, cfg.memo_bits, game.encoded_guesses(),
              guesses_left(game))
    results = ctx.fan_out(_class_task, jobs, shared, label=f"{NAME}-classes")
    survivors = {}
    for (word, colours, size, target), (bound, method) in zip(owners, results):
        entry = survivors.setdefault(word, {"opener": word, "classes": []})
        entry["classes"].append({"response": colours, "size": size, "bound": bound, "method": method,
                                 **({"target": target} if target is not None else {})})
    for entry in survivors.values():
        entry["sum"] = sum(c["bound"] for c in entry["classes"])
        entry["value"] = len(game.secrets) + entry["sum"]
    shutil.copy(tree_file, ctx.out.file("tree.json"))
    certificate = build_certificate(ctx, ub, ub_opener, tree_file, survivors, k_s)
    ctx.out.file("certificate.json").write_text(json.dumps(certificate, indent=1) + "\n")
    return {k: certificate[k] for k in ("proven", "ub", "optimal_openers")}


def eliminated_openers(lower_bound_artifact) -> list[dict]:
    rows = lower_bound_artifact.read_table("funnel.parquet").to_pylist()
    return [{"opener": r["opener"], "level": r["level"], "rule": r.get("rule") or "normal", "bound": r["value"]}
            for r in rows if r["eliminated"]]


def build_certificate(ctx: StageContext, ub, ub_opener, tree_file, survivors, k_s) -> dict:
    game = ctx.game
    ub_entry = survivors.get(ub_opener)
    closes = ub_entry is not None and ub_entry["value"] == ub
    others_not_better = all(s["value"] >= ub for s in survivors.values())
    return {
        "game": game.name, "hard_mode": game.hard_mode, "max_guesses": game.max_guesses,
        **({} if game.answer == "wordle" else {"answer": game.answer, "length": game.length,
                                               "n_symbols": len(game.alphabet)}),
        "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
        "n_guesses": len(game.guesses), "n_secrets": len(game.secrets), "k_s": k_s,
        "ub": ub, "ub_opener": ub_opener, "ub_tree_sha256": hashlib.sha256(tree_file.read_bytes()).hexdigest(),
        "eliminated": eliminated_openers(ctx.inputs["lower_bound"]),
        "survivors": list(survivors.values()),
        "optimal_openers": sorted(w for w, s in survivors.items() if s["value"] == ub),
        "proven": bool(closes and others_not_better),
    }
