"""The prove stage when the upper bound found no strategy within game.max_guesses: prove the limit infeasible.

Every opener orbit representative (search/symmetry/generators.py, normal mode; every opener in hard mode) is given a
witness, a response class that cannot be solved within the guesses left (search/solvable/infeasible.py: counting, then
the decision of search/solvable/within.py, over search/solvable/shallow.py's kernels), in batches over Ray.  The
certificate (kind infeasible) names, per opener, the witness's response, size and reason, and the symmetry
generators with each other opener's representative; `verify-certificate` re-derives all of it with the checker's
own code (pipeline/proofs/certificates/infeasible.py).  An opener with no witness has a strategy within the limit that
ApMinTotal missed: the stage then fails with one error.
"""

import json

import numpy as np

from pipeline.artifacts.outputs import CERTIFICATE
from pipeline import PipelineError
from pipeline.runtime.executors import shared_args
from pipeline.runtime.policy import batch_count, deal
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.matrix import Matrix
from pipeline.search.solvable.infeasible import opener_witness, probe_guesses, within_solvable
from pipeline.search.partition import split
from pipeline.search.symmetry.generators import opener_representatives
from pipeline.search.solvable.within import Within
from pipeline.stages.base import StageContext

KIND = "infeasible"


def opener_classes(codes, opener: int, win: int, words) -> list:
    """[(response code, members, hard-mode state or None)] of the opener's non-win classes; `words` are the
    encoded guesses in hard mode, else None."""
    start = initial_state(words.shape[1]) if words is not None else None
    class_codes, members = split(codes[opener], np.arange(codes.shape[1], dtype=np.int32))
    return [(int(c), m, None if start is None else update_state(*start, words[opener], int(c)))
            for c, m in zip(class_codes, members) if c != win]


def witness_batch(openers, matrix: Matrix, hard_mode, max_guesses) -> list:
    """opener_witness of each opener of a batch (response as its code), one Within (search/solvable/within.py) for the
    batch: the shallow kernels with at most 3 guesses left, every legal first guess over them with more."""
    codes, words, left, win = matrix.codes, matrix.hard_words(hard_mode), max_guesses - 1, matrix.win
    solvable = within_solvable(Within.of_matrix(matrix, hard_mode), left)
    probes = probe_guesses(codes, matrix.n_codes)
    return [opener_witness(opener_classes(codes, g, win, words), codes, win, left, solvable, probes)
            for g in openers]


def representatives(game, matrix: Matrix) -> tuple[list[dict], np.ndarray]:
    """(symmetry generators, representative of every opener): the game's symmetries in normal mode, none in
    hard mode (as the funnel does)."""
    if game.hard_mode:
        return [], np.arange(len(game.guesses))
    return opener_representatives(matrix.encoded_guesses, matrix.encoded_secrets, matrix.codes, len(game.alphabet))


def run(ctx: StageContext, cfg, matrix: Matrix, game_claims) -> dict:
    """Prove game.max_guesses infeasible and write the certificate; `game_claims` is prove's game description."""
    game = ctx.game
    if game.max_guesses is None:
        raise PipelineError("internal error: without a guess limit every game has a strategy")
    generators, rep = representatives(game, matrix)
    openers = np.flatnonzero(rep == np.arange(len(game.guesses))).astype(np.int32)
    batches = deal(openers, batch_count(len(openers), ctx.cluster_cpus()))
    shared = shared_args(witness_batch, matrix=matrix, hard_mode=game.hard_mode, max_guesses=game.max_guesses)
    parts = ctx.fan_out(witness_batch, batches, shared, label="prove-infeasible")
    witnesses = {int(g): w for batch, part in zip(batches, parts) for g, w in zip(batch, part)}
    feasible = [game.guesses[g] for g, w in witnesses.items() if w is None]
    if feasible:
        raise PipelineError(f"opener {feasible[0]} solves every class within game.max_guesses={game.max_guesses} "
                            f"guesses (search/solvable/within.py), but ApMinTotal found no strategy: raise "
                            f"upstream.upper_bound.breadth, or give upstream.upper_bound.openers=[{feasible[0]}]")
    entries = [{"opener": game.guesses[g], **w, "response": game.code_text(w["response"])}
               for g, w in ((g, witnesses[int(g)]) for g in openers)]
    certificate = {"kind": KIND, "objective": cfg.objective, **game_claims(game), "feasible": False, "proven": True,
                   "openers": entries}
    if generators:
        certificate["symmetry"] = {"generators": generators, "openers": [
            {"opener": game.guesses[g], "representative": game.guesses[r]} for g, r in enumerate(rep) if r != g]}
    ctx.out.file(CERTIFICATE.name).write_text(json.dumps(certificate, indent=1) + "\n")
    reasons = [e["reason"] for e in entries]
    return {"proven": True, "feasible": False, "max_guesses": game.max_guesses, "hard_mode": game.hard_mode,
            "openers": len(entries), "by_counting": reasons.count("counting"), "by_search": reasons.count("search"),
            "secrets": len(game.secrets)}


def headline(summary: dict, folder) -> str:
    """`no strategy finds every secret within 4 guesses (proven): 5 opener orbits, 5 by counting, 0 by search`."""
    mode = " in hard mode" if summary["hard_mode"] else ""
    return (f"no strategy finds every secret within {summary['max_guesses']} guesses{mode} (proven): every one of "
            f"{summary['openers']} openers has a class that cannot be solved in time ({summary['by_counting']} by "
            f"counting, {summary['by_search']} by search); check it with: python -m pipeline verify-certificate "
            f"{folder}")
