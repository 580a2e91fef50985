"""Is a separating guess set F the only one of its size?  One lazy MIP with a no-good cut.

Over the pairs of a relaxation, look for a guess set S with |S| <= |F| and |S & F| <= |F| - 1 (the
no-good cut: S is not F) that separates every pair of the relaxation.  HiGHS answering "infeasible" is a
proof: any other set of |F| guesses separating all secrets separates the relaxation's pairs too (a subset of
all pairs), so none exists.  A set it finds that separates all secrets disproves uniqueness; one that does
not gives the pairs of the classes it leaves, which join the relaxation (the lazy loop of `model`).

This replaces |F| re-solves, each excluding one word of F, by one feasibility problem seeded with the pairs
the main solve generated.  The dominance reductions stay exact because F's guesses are protected (never
dropped, never standing in for a dropped guess), so the cut keeps its meaning.
"""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.blindfold.model import CoverModel


@dataclass
class UniquenessResult:
    """`unique`: True proven (no other set of at most |F| guesses separates all secrets), False (`other` is
    such a set, verified), None undecided (time or round limit: `status` says which)."""

    unique: bool | None
    other: np.ndarray | None
    status: str
    rounds: int
    pairs_i: np.ndarray
    pairs_j: np.ndarray
    seconds: float

    def summary(self) -> dict:
        return {"unique": self.unique, "method": "no-good cut: one lazy MIP over sets other than F",
                "other": None if self.other is None else [int(g) for g in self.other], "status": self.status,
                "rounds": self.rounds, "pairs": int(len(self.pairs_i)), "seconds": round(self.seconds, 3)}


def prove_unique(codes: np.ndarray, found, pairs: tuple[np.ndarray, np.ndarray], *, columns=None,
                 time_limit: float | None = None, threads: int | None = None, max_rounds: int = 200,
                 max_new_pairs: int = 200_000, log=None) -> UniquenessResult:
    """Decide whether `found` (guess indices separating every secret of the |G| x |S| `codes`) is the only
    set of at most len(found) guesses among `columns` (default all) that separates every secret.

    `pairs` seeds the relaxation (e.g. the pairs of the solve that found `found`; any pairs are sound).
    `log` receives one dict per round."""
    found = np.unique(np.asarray(found, dtype=np.int64))
    if not blindfold_pairs.separates_all(codes, found):
        raise ValueError("the given set does not separate every secret")
    cols = np.arange(codes.shape[0], dtype=np.int64) if columns is None else np.unique(np.asarray(columns))
    codes_t = blindfold_pairs.transpose_codes(codes)
    started = time.perf_counter()
    pairs = blindfold_pairs.sort_pairs(*pairs)
    status, rounds = "round limit", 0
    while rounds < max_rounds:
        left = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if left is not None and left <= 0:
            status = "time limit"
            break
        rounds += 1
        out = _solve_round(codes_t, cols, pairs, found, left, threads)
        if log:
            log({"round": rounds, "pairs": len(pairs[0]), "status": out["status"], "seconds": out["seconds"]})
        if out["status"] == "Infeasible":
            return UniquenessResult(True, None, "proven", rounds, *pairs, time.perf_counter() - started)
        solutions = list(out["solutions"]) + ([out["chosen"]] if out["objective"] is not None else [])
        if not solutions:
            status = out["status"]
            break
        other = next((s for s in solutions if blindfold_pairs.separates_all(codes, s)), None)
        if other is not None:
            return UniquenessResult(False, other, "another set", rounds, *pairs, time.perf_counter() - started)
        pairs = _grown(codes, codes_t, cols, pairs, solutions, max_new_pairs)
    return UniquenessResult(None, None, status, rounds, *pairs, time.perf_counter() - started)


def _solve_round(codes_t, cols, pairs, found, time_limit, threads) -> dict:
    """One feasibility MIP: at most |F| guesses, not all of F, separating every pair of the relaxation."""
    model = CoverModel(codes_t, cols, *pairs, protect=found)
    model.add_at_most(found, len(found) - 1)
    model.add_at_most(None, len(found))
    # any solution will do (it is checked against all secrets), so stop at the first (objective <= |F|)
    return model.solve(time_limit=time_limit, threads=threads, stop_at=float(len(found)))


def _grown(codes, codes_t, cols, pairs, solutions, max_new_pairs):
    """The relaxation plus the pairs inside the classes each solution leaves (the hardest, if too many)."""
    new = blindfold_pairs.merge_pairs(*[blindfold_pairs.pairs_within_labels(blindfold_pairs.class_labels(codes, s)) for s in solutions])
    new = blindfold_pairs.difference_pairs(new, pairs, codes.shape[1])
    if len(new[0]) > max_new_pairs:
        new = blindfold_pairs.hardest_pairs(codes_t, *new, max_new_pairs, cols)
    return blindfold_pairs.merge_pairs(pairs, new)
