"""Hybrid blindfold decided exactly: can k fixed guesses leave every class solvable within d further guesses?

A set of secrets is *d-solvable* when one adaptive tree of at most d guesses finds each of them (the
`hybrid.class_tree` search); d = 1 means one secret, d = 2 means some guess gives every member its own
response (a member guess wins at once, the others are named by the next guess).  Solvability is hereditary:
a tree for a set also solves every subset.  An *obstacle* is a set that is not d-solvable.

A fixed set F works iff no class of F contains an obstacle.  A class of F is a set that no guess of F
splits (g splits D when its codes on D are not all equal), so F works iff every obstacle, and it suffices
every minimal obstacle, is split by some guess of F.  That is a hitting-set problem, solved like the set
cover of `model` (where the obstacles are the pairs of secrets): binary x_g per allowed guess,

    sum_{g splits D} x_g >= 1 for each obstacle D,   sum x_g = k   (a feasibility problem),

on HiGHS with lazily added obstacles.  Any subset of the obstacles gives a relaxation: if it is infeasible,
no k fixed guesses work (a proof over all C(|G|, k) sets); a solution is checked on every class, and the
classes that are not solvable give new minimal obstacles (none of them split by the solution, so each
round cuts it off).  The loop ends with a verified set, with a proof that none exists, or on its time limit.

Dropping a guess whose split obstacles are a subset of another's keeps the answer (swap it for that guess).
Pure numpy, numba (via `pairs`) and HiGHS; no Ray, Hydra or Arrow."""

from __future__ import annotations

import time
from dataclasses import dataclass, field

import highspy
import numba
import numpy as np

from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.blindfold.hybrid import class_tree
from pipeline.blindfold.model import run_highs

FOUND, NONE, OPEN = "found", "proven: no such set", "not settled"
METHOD = "lazy hitting-set MIP (HiGHS) over minimal unsolvable sets of secrets"


@dataclass
class ObstacleResult:
    """`status`: FOUND (`chosen` works, verified on every class), NONE (proven: no set of at most `k` guesses
    among the columns works) or OPEN (`stop` says why: time or round limit).  `lower_bound`: the fewest guesses
    the last relaxation needs (a lower bound for all secrets; > k when NONE)."""

    status: str
    k: int
    depth: int
    chosen: list[int]
    obstacles: list[tuple[int, ...]]
    rounds: int
    lower_bound: int | None
    seconds: float
    stop: str = ""
    round_log: list[dict] = field(default_factory=list)
    method: str = METHOD  # how the answer was reached (this module's MIP, or `branching`'s search)

    def summary(self) -> dict:
        """JSON-friendly summary (obstacles as secret indices)."""
        return {"status": self.status, "k": self.k, "depth": self.depth, "chosen": [int(g) for g in self.chosen],
                "rounds": self.rounds, "lower_bound": self.lower_bound, "obstacles": len(self.obstacles),
                "largest_obstacle": max((len(o) for o in self.obstacles), default=0),
                "seconds": round(self.seconds, 3), "stop": self.stop, "method": self.method}


def solvable(codes: np.ndarray, members, depth: int, win: int, memo: dict) -> bool:
    """Whether one adaptive tree of at most `depth` guesses (rows of `codes`) finds every secret of `members`."""
    members = tuple(sorted(int(s) for s in members))
    if len(members) <= 1 or depth <= 1:
        return len(members) <= 1
    if depth == 2:  # some guess gives every member its own response (the class_tree rule, with early exits)
        key = (members, 2)
        if key not in memo:
            memo[key] = bool(_tells_apart(codes, np.asarray(members, dtype=np.int64), _code_span(codes)))
        return memo[key]
    return class_tree(codes, members, depth, win, memo) is not None


def _code_span(codes: np.ndarray) -> int:
    """More than the largest code: the dtype's range for small unsigned codes (no scan of the whole matrix, which
    took most of a check's time), else the largest code + 1."""
    if codes.dtype.kind == "u" and codes.dtype.itemsize <= 2:
        return int(np.iinfo(codes.dtype).max) + 1
    return int(codes.max()) + 1


@numba.njit(cache=True)
def _tells_apart(codes, members, n_codes):
    """Whether some row of `codes` gives the `members` columns pairwise different codes."""
    seen = np.zeros(n_codes, np.int64)
    for g in range(codes.shape[0]):
        stamp = g + 1
        apart = True
        for s in members:
            c = codes[g, s]
            if seen[c] == stamp:
                apart = False
                break
            seen[c] = stamp
        if apart:
            return True
    return False


def minimal_obstacle(codes: np.ndarray, members, depth: int, win: int, memo: dict) -> tuple[int, ...]:
    """A minimal unsolvable subset of the unsolvable set `members`: every proper subset is solvable.

    The shortest unsolvable prefix is found by bisection (prefixes only grow harder), then each earlier member
    is dropped if the rest stays unsolvable (its last member is needed: the prefix before it is solvable)."""
    members = [int(s) for s in members]
    low, high = 1, len(members)  # prefix of `high` members is unsolvable, of `low` solvable (one secret)
    while high - low > 1:
        mid = (low + high) // 2
        if solvable(codes, members[:mid], depth, win, memo):
            low = mid
        else:
            high = mid
    kept = members[:high]
    for s in members[:high - 1]:
        rest = [t for t in kept if t != s]
        if not solvable(codes, rest, depth, win, memo):
            kept = rest
    return tuple(sorted(kept))


def splits(codes: np.ndarray, columns: np.ndarray, obstacles) -> np.ndarray:
    """(columns x obstacles) bool: guess columns[c] splits obstacle o (its codes on o are not all equal)."""
    out = np.zeros((len(columns), len(obstacles)), dtype=bool)
    for o, members in enumerate(obstacles):
        sub = codes[np.ix_(columns, list(members))]
        out[:, o] = (sub != sub[:, :1]).any(axis=1)
    return out


def new_obstacles(codes, labels, depth, win, memo, per_class: int = 4) -> list[tuple[int, ...]]:
    """Minimal obstacles inside the classes `labels` (one label per secret, e.g. of some fixed guesses) that are
    not solvable with the guesses of `codes`: up to `per_class` disjoint ones per class (each found among the
    members the earlier ones left)."""
    order = np.argsort(labels, kind="stable")
    bounds = np.flatnonzero(np.diff(labels[order])) + 1
    found = []
    for members in np.split(order, bounds):
        rest = [int(s) for s in members]
        for _ in range(per_class):
            if len(rest) < 2 or solvable(codes, rest, depth, win, memo):
                break
            obstacle = minimal_obstacle(codes, rest, depth, win, memo)
            found.append(obstacle)
            rest = [s for s in rest if s not in obstacle]
    return found


def kept_columns(hits: np.ndarray) -> np.ndarray:
    """Positions of the columns left after dropping those whose split obstacles another column's contain (ties
    keep the earlier); an exact reduction of the hitting set (a solution swaps a dropped column for its keeper)."""
    if hits.shape[1] == 0:
        return np.arange(min(1, hits.shape[0]))
    useful = np.flatnonzero(hits.any(axis=1))
    dominated = blindfold_pairs.column_dominators(blindfold_pairs._pack_rows(np.ascontiguousarray(hits[useful]))) >= 0
    return useful[~dominated]


def hitting_set(hits: np.ndarray, k: int, time_limit: float | None, threads: int | None) -> tuple[str, list[int]]:
    """Find at most k rows of `hits` (rows = guesses, columns = obstacles) hitting every column, on HiGHS:
    ("infeasible" | "optimal" (a set found) | "time limit" | other HiGHS status, chosen row positions)."""
    rows = kept_columns(hits)
    sub = hits[rows]
    n, m = sub.shape
    if m and not sub.any(axis=0).all():
        return "infeasible", []
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    if time_limit is not None:
        h.setOptionValue("time_limit", float(max(time_limit, 0.01)))
    if threads is not None:
        h.setOptionValue("threads", int(threads))
    idx = np.arange(n, dtype=np.int32)
    h.addVars(n, np.zeros(n), np.ones(n))  # cost 0: any set of at most k guesses hitting every obstacle
    h.changeColsIntegrality(n, idx, np.ones(n, dtype=np.uint8))
    for o in range(m):
        members = np.flatnonzero(sub[:, o]).astype(np.int32)
        h.addRow(1.0, highspy.kHighsInf, len(members), members, np.ones(len(members)))
    # the cardinality row: k fixed guesses (at most k is the same question: more guesses only split classes
    # further; exactly k, when there are that many, makes HiGHS return sets whose classes are small)
    size = float(min(k, n))
    h.addRow(size, size, n, idx, np.ones(n))
    run_highs(h)
    status = h.modelStatusToString(h.getModelStatus()).lower()
    if "infeasible" in status:
        return "infeasible", []
    if h.getInfo().primal_solution_status != 2:
        return ("time limit" if "time" in status else status), []
    x = np.asarray(h.getSolution().col_value)
    return ("optimal" if status == "optimal" else status), [int(r) for r in rows[x > 0.5]]


def decide(codes: np.ndarray, columns, k: int, depth: int, win: int, *, seeds=(), starts=(),
           time_limit: float | None = None, max_rounds: int = 1000, threads: int | None = None,
           log=None) -> ObstacleResult:
    """Decide whether at most `k` fixed guesses among `columns` (rows of `codes`) leave every class solvable
    within `depth` further guesses (guesses from `columns` too).  `seeds`: sets of secrets to start from (each
    unsolvable one gives a minimal obstacle); `starts`: guess sets (rows of `codes`) whose unsolvable classes
    give obstacles too.  Neither changes the answer, only how fast it comes.  `log` receives one dict a round."""
    started = time.perf_counter()
    columns = np.unique(np.asarray(columns, dtype=np.int64))
    usable = codes[columns]  # class trees guess among the columns too
    memo: dict = {}
    found = {minimal_obstacle(usable, s, depth, win, memo) for s in seeds
             if len(s) > 1 and not solvable(usable, s, depth, win, memo)}
    for start in starts:
        found.update(new_obstacles(usable, blindfold_pairs.class_labels(codes, list(start)), depth, win, memo))
    obstacles = sorted(found)
    hits = splits(usable, np.arange(len(columns)), obstacles)  # grows a column per obstacle
    result = ObstacleResult(OPEN, k, depth, [], obstacles, 0, None, 0.0, "round limit")
    for number in range(1, max_rounds + 1):
        left = None if time_limit is None else time_limit - (time.perf_counter() - started)
        if left is not None and left <= 0:
            result.stop = "time limit"
            break
        solve_started = time.perf_counter()
        status, picked = hitting_set(hits, k, left, threads)
        entry = {"round": number, "obstacles": len(obstacles), "status": status, "chosen": picked,
                 "mip_seconds": round(time.perf_counter() - solve_started, 2)}
        result.rounds = number
        result.round_log.append(entry)
        if status == "infeasible":
            result.status, result.stop, result.lower_bound = NONE, "relaxation infeasible", k + 1
            break
        if status != "optimal":
            result.stop = "time limit" if "time" in status else f"solver stopped: {status}"
            break
        found = new_obstacles(usable, blindfold_pairs.class_labels(usable, picked), depth, win, memo)
        entry.update(new=len(found), seconds=round(time.perf_counter() - started, 2))
        if log:
            log(entry)
        if not found:
            result.status, result.stop, result.chosen = FOUND, "verified", [int(columns[r]) for r in picked]
            break
        obstacles += found  # new: none of them is split by `picked`, which splits every earlier one
        hits = np.hstack([hits, splits(usable, np.arange(len(columns)), found)])
    entry = result.round_log[-1] if result.round_log else None
    if log and entry is not None and "seconds" not in entry:
        entry["seconds"] = round(time.perf_counter() - started, 2)
        log(entry)
    result.obstacles, result.seconds = obstacles, time.perf_counter() - started
    return result


def families(encoded: np.ndarray) -> list[list[int]]:
    """Seeds from the spelling: the groups (3 or more) of secrets equal in all positions but one, e.g. the
    -IGHT words; such groups are the hardest for fixed guesses to split."""
    groups = []
    for p in range(encoded.shape[1]):
        masked = np.delete(encoded, p, axis=1)
        _, labels = np.unique(masked, axis=0, return_inverse=True)
        labels = labels.ravel()
        for label in np.flatnonzero(np.bincount(labels) >= 3):
            groups.append(np.flatnonzero(labels == label).tolist())
    return groups
