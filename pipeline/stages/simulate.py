"""Stage simulate: the write-up's baseline strategies played over every secret, fanned out over Ray.

Strategies (rules in `pipeline.search.strategies.simulate`):
- random_candidate:          random remaining candidate, every allowed word may be the secret (C filtered
                             from G); seeded
- random_candidate_answers:  the same knowing the answer list (C filtered from S); seeded; not in the default set
- elimination:               `opener`, then the write-up's elimination guesses (most undecided letters, random
                             ties) from all of G, C filtered from G (answer list unknown); seeded
- elimination_answers:       the same with C filtered from S (answer list known); seeded
- elimination_weighted:      `opener`, then the stronger weighted elimination guesses (deterministic), C from G
- elimination_weighted_answers: the same with C filtered from S
- tree:                      the best finished upper_bound tree of this game in the store (lowest total, then key);
                             skipped with a note when there is none

Candidates over G need the |G| x |G| code matrix: it is built here with the feedback
kernel (`code_matrix(G, G)`, 1-2 s on two idle cores and |G|^2 = 168 MB for Wordle) and shared with the
tasks through the Ray object store, so filtering is always `codes[g, c] == response`.
Candidates over S use the feedback artifact's |G| x |S| matrix.

Random runs draw per (seed, secret) from numpy's PCG64, so the same seeds give the same
artifact whatever the blocking.  Tasks are (strategy, seed, block of secrets).

simulate.parquet: one row per strategy and seed (seed null for deterministic strategies)
plus, for seeded strategies, a pooled row over all seeds with seed null and `runs` = number
of seeds.  mean is over won games; 95% CI over secrets by normal approximation
(mean +- 1.96 s/sqrt(|S|), s the sample sd of per-secret guesses, for pooled rows of each
secret's average over the seeds); failures = games not won within the guess limit: game.max_guesses
(stage.max_guesses may only tighten it; a game without a limit plays up to stage.max_guesses or
UNLIMITED_CAP guesses).
per_secret.parquet: strategy, seed, secret, guesses (0 = failure), path (comma-separated guesses).
"""

import numpy as np
import pyarrow as pa

from pipeline.artifacts.outputs import PER_SECRET, SIMULATE, SIMULATED, write_table
from pipeline.artifacts.find import best_tree
from pipeline.artifacts.trees import load_tree
from pipeline import PipelineError
from pipeline.feedback.parquet import load_matrix
from pipeline.search.strategies import simulate as sim
from pipeline.stages.base import StageContext
from pipeline.config.stages import SimulateConfig

NAME, VERSION, INPUTS = "simulate", 2, ("feedback",)  # the stage contract: stages/base.py
OUTPUTS = SIMULATE  # simulate.parquet, per_secret.parquet: pipeline/artifacts/outputs.py

# strategy -> (rule, candidates over G (True) or S (False), seeded)
STRATEGIES = {
    "random_candidate": (sim.RANDOM, True, True),
    "random_candidate_answers": (sim.RANDOM, False, True),
    "elimination": (sim.ELIMINATION, True, True),
    "elimination_answers": (sim.ELIMINATION, False, True),
    "elimination_weighted": (sim.WEIGHTED, True, False),
    "elimination_weighted_answers": (sim.WEIGHTED, False, False),
    "tree": (None, False, False),
}
OPENING_RULES = (sim.ELIMINATION, sim.WEIGHTED)  # the rules `opener` replaces for the first guess


SCHEMA = SimulateConfig


def validate(cfg: SimulateConfig, game) -> None:
    from pipeline.config.validation import at_least

    if not cfg.strategies:
        raise PipelineError(f"stage.strategies is empty; choose from {', '.join(STRATEGIES)}")
    unknown = [s for s in cfg.strategies if s not in STRATEGIES]
    if unknown:
        raise PipelineError(f"unknown strategy {unknown[0]!r}; strategies: {', '.join(STRATEGIES)}")
    if len(set(cfg.strategies)) != len(cfg.strategies):
        raise PipelineError("stage.strategies lists a strategy twice")
    if not cfg.seeds:
        raise PipelineError("stage.seeds is empty; give at least one seed, e.g. stage.seeds=[0]")
    if any(s < 0 for s in cfg.seeds) or len(set(cfg.seeds)) != len(cfg.seeds):
        raise PipelineError(f"stage.seeds must be distinct non-negative integers, got {list(cfg.seeds)}")
    at_least(cfg, "max_guesses", 1, allow_none=True)
    at_least(cfg, "block_secrets", 1)
    if cfg.max_guesses is not None and game.max_guesses is not None and cfg.max_guesses > game.max_guesses:
        raise PipelineError(f"stage.max_guesses={cfg.max_guesses} exceeds the game's limit game.max_guesses="
                            f"{game.max_guesses}; it may only tighten it (or set game.max_guesses)")
    if game.hard_mode:
        raise PipelineError("simulate plays normal-mode baselines; game.hard_mode=true is not supported")
    if game.answer != "wordle":
        raise PipelineError(f"simulate's baselines play Wordle colours; game.answer={game.answer} is not supported")
    uses_opener = any(STRATEGIES[s][0] in OPENING_RULES for s in cfg.strategies)
    if uses_opener and cfg.opener is not None and str(cfg.opener).lower() not in game.guess_index:
        raise PipelineError(f"opener {cfg.opener!r} is not an allowed guess of game {game.name} "
                            "(give stage.opener=<word>, or stage.opener=null to let the rule choose)")


UNLIMITED_CAP = 20  # guesses played in a game without a limit before a run counts as a failure


def guess_cap(cfg: SimulateConfig, game) -> int:
    """Guesses a run may take: the stage's (tighter) limit, else the game's, else UNLIMITED_CAP."""
    if cfg.max_guesses is not None:
        return cfg.max_guesses
    return UNLIMITED_CAP if game.max_guesses is None else game.max_guesses


def key_material(cfg: SimulateConfig, game, store) -> dict:
    """Playing the store's tree: the result changes when a better tree appears."""
    if "tree" not in cfg.strategies:
        return {}
    tree = best_tree(store, game)
    return {"tree": tree.key if tree else None}


def _play_block(item, codes_gg, codes_gs, guess_of_secret, enc, first, n_symbols, opener, cap):
    strategy, seed, start, stop = item
    rule, over_g, seeded = STRATEGIES[strategy]
    secrets = np.arange(start, stop)
    if over_g:
        codes, u_to_g, targets = codes_gg, np.arange(codes_gg.shape[0]), guess_of_secret[start:stop]
    else:
        codes, u_to_g, targets = codes_gs, guess_of_secret, secrets
    uniforms = sim.seeded_uniforms(seed, secrets, cap) if seeded else np.zeros((0, 0))
    return sim.play(codes, u_to_g.astype(np.int64), targets.astype(np.int64), rule, opener, uniforms,
                    enc, first, n_symbols, cap)


def _row(strategy, seed, runs, cfg, n_secrets, stats) -> dict:
    rule, over_g, _ = STRATEGIES[strategy]
    return {"strategy": strategy, "seed": seed, "runs": runs,
            "candidates": "tree" if rule is None else ("G" if over_g else "S"),
            "opener": cfg.opener if rule in OPENING_RULES else None,
            "secrets": n_secrets, **stats}


def run(ctx: StageContext, cfg: SimulateConfig) -> dict:
    from pipeline.feedback.kernel import code_matrix

    game = ctx.game
    codes_gs = load_matrix(ctx.inputs["feedback"], game)
    n_secrets = len(game.secrets)
    cap = guess_cap(cfg, game)
    enc = game.encoded_guesses()
    notes = []
    played = [s for s in cfg.strategies if s != "tree"]
    runs = [(s, seed) for s in played for seed in (cfg.seeds if STRATEGIES[s][2] else [None])]
    items = [(s, 0 if seed is None else seed, a, min(a + cfg.block_secrets, n_secrets))
             for s, seed in runs for a in range(0, n_secrets, cfg.block_secrets)]
    need_gg = any(STRATEGIES[s][1] for s in played)
    codes_gg = code_matrix(enc, enc) if need_gg else np.zeros((0, 0), dtype=codes_gs.dtype)
    opener = game.guess_index[str(cfg.opener).lower()] if cfg.opener is not None and \
        str(cfg.opener).lower() in game.guess_index else -1
    shared = (codes_gg, codes_gs, game.guess_of_secret, enc, sim.first_occurrences(enc), len(game.alphabet),
              opener, cap)
    results = ctx.fan_out(_play_block, items, shared, label=NAME) if items else []
    del codes_gg

    outcomes = {}  # (strategy, seed) -> (counts over secrets, paths as guess indices or None)
    blocks_per_run = len(range(0, n_secrets, cfg.block_secrets))
    for r, (s, seed) in enumerate(runs):
        part = results[r * blocks_per_run:(r + 1) * blocks_per_run]
        outcomes[(s, seed)] = (np.concatenate([p[0] for p in part]), np.concatenate([p[1] for p in part]))
    if "tree" in cfg.strategies:
        found = best_tree(ctx.store, game)
        if found is None:
            notes.append(f"tree skipped: no finished upper_bound artifact for game {game.name} in {ctx.store.root} "
                         f"(run: python -m pipeline stage=upper_bound game={game.name})")
        else:
            tree = load_tree(found.path, game).tree
            counts = sim.play_tree(tree, codes_gs, game.guess_index, game.length, cap)
            outcomes[("tree", None)] = (counts, None)
            notes.append(f"tree: upper_bound {found.key} (total {found.total})")
            if int(counts[counts > 0].sum()) != found.total or (counts == 0).any():
                notes.append(f"tree replay total {int(counts.sum())} differs from its recorded total {found.total}")

    rows, per_secret = [], []
    words = np.array(game.guesses, dtype=object)
    for (s, seed), (counts, paths) in outcomes.items():
        rows.append(_row(s, seed, 1, cfg, n_secrets, sim.summarize(counts)))
        for k in range(n_secrets):
            route = "" if paths is None else ",".join(words[paths[k][paths[k] >= 0]])
            per_secret.append({"strategy": s, "seed": seed, "secret": game.secrets[k], "guesses": int(counts[k]),
                               "path": route})
    for s in played:
        if STRATEGIES[s][2] and len(cfg.seeds) > 1:
            stack = np.stack([outcomes[(s, seed)][0] for seed in cfg.seeds]).astype(np.float64)
            wins = (stack > 0).sum(axis=0)  # a secret no seed found has no mean, not a NaN one
            per_secret_means = np.where(stack > 0, stack, 0).sum(axis=0)[wins > 0] / wins[wins > 0]
            rows.append(_row(s, None, len(cfg.seeds), cfg, n_secrets,
                             sim.summarize(stack.ravel().astype(np.int64), per_secret_means)))
    write_table(ctx.out.file(SIMULATED.name), pa.Table.from_pylist(rows))
    write_table(ctx.out.file(PER_SECRET.name), pa.Table.from_pylist(per_secret))

    summary = {"secrets": n_secrets, "max_guesses": cap, "seeds": list(cfg.seeds), "opener": cfg.opener,
               "ci": "95% normal approximation over secrets", "strategies": {}, "notes": notes}
    for row in rows:
        if row["seed"] is None:  # deterministic strategies, or the pooled row of a seeded one
            summary["strategies"][row["strategy"]] = {
                "mean": None if row["mean"] is None else round(row["mean"], 4),
                "ci": None if row["mean"] is None else [round(row["ci_low"], 4), round(row["ci_high"], 4)],
                "max": row["max"], "failures": row["failures"], "runs": row["runs"]}
    for s in played:
        if STRATEGIES[s][2] and len(cfg.seeds) == 1:
            row = next(r for r in rows if r["strategy"] == s)
            summary["strategies"][s] = {"mean": round(row["mean"], 4), "ci": [round(row["ci_low"], 4),
                                        round(row["ci_high"], 4)], "max": row["max"], "failures": row["failures"],
                                        "runs": 1}
    if any(r["failures"] for r in rows):
        notes.append("some games were not won within max_guesses (see the failures column)")
    return summary


def headline(summary: dict, folder) -> str:
    """Each strategy's mean guesses per game (and its worst), e.g. `tree 2.641 (max 4); elimination ...`."""
    parts = []
    for name, s in summary["strategies"].items():
        if s["mean"] is None:
            parts.append(f"{name} not run")
        else:
            failed = f", {s['failures']} failed" if s["failures"] else ""
            parts.append(f"{name} {s['mean']:.3f} (max {s['max']}{failed})")
    return f"mean guesses over {summary['secrets']} secrets: " + "; ".join(parts)
