"""Cube-and-conquer: can k fixed guesses separate every pair of secrets?

A *cube* is a guess set F fixed and a guess set X excluded: it stands for the k-sets of allowed guesses that
contain F and avoid X.  The root (nothing fixed, nothing excluded) holds every k-set.

*Split* (the rule of `branching.py`): at a cube, take the pool pair that no guess of F separates with the
fewest separators outside X (ties: the first in pool order).  A k-set of the cube that separates every pair
separates this one, so it holds a separator of it outside X; order them s_1, s_2, ... (those separating the
most pool pairs F leaves first: any order is complete).  Child i fixes s_i and excludes s_1 .. s_{i-1}, so
each such k-set falls in exactly one child, that of its first separator in this order; a k-set that leaves
the pair unseparated falls in none, and separates nothing anyway.  The split goes level by level, to `depth`
or until `target` cubes survive a level.

*Bound*: the cube's LP, min sum x_g over the guesses outside F and X, covering the pool pairs F leaves.  A
k-set of the cube that separates every pair covers them with k - |F| guesses, so a cube whose LP exceeds
k - |F| holds none.  The value used is certified, not HiGHS's objective: the row duals y (negatives set to
0) divided by the largest load sum_{p separated by g} y_p over every guess g outside F and X (when it
exceeds 1) are a feasible dual solution, so sum y is at most the LP whatever the solver's tolerances.  A
cube is pruned when that bound exceeds the guesses left by PRUNE_MARGIN (rounding in its sums is far
below), or when a pool pair F leaves has no separator outside X (counted exactly).  With `families` (default
None: the pair rows alone), the LP also has the cluster cuts of those families narrowed by F, its bound certified
by `cluster_cuts.certified_lp_with_cuts` (the same scaling, with the cut and link rows' duals).

*Conquer*: every cube left is a MIP (`model.CoverModel`) with sum x <= k - |F| over the guesses outside F
and X, its rows generated round by round as in the lazy loop: the pool pairs F leaves, then every pair
inside the classes each solution HiGHS reports leaves (with F).  A solution that separates every secret,
checked exactly (`pairs.separates_all`), settles the cube *feasible* with that set; HiGHS proving the rows
*infeasible* closes it (the solver's word); the round or time limit leaves it *open*.  No Ray here: the
caller passes `fan_out` (how a list of tasks runs), so a stage spreads the cubes of a level and the MIPs
over a cluster and keeps each finished cube as a shard."""

from __future__ import annotations

import time
from dataclasses import dataclass

import numpy as np

from pipeline.blindfold import cluster_cuts
from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.blindfold.model import CoverModel

PRUNE_MARGIN = 1e-6  # the certified bound must exceed the guesses left by this much for a cube to be pruned

# what became of a cube
SPLIT, PRUNED, LEAF = "split", "pruned", "leaf"  # in the split
FEASIBLE, INFEASIBLE, OPEN = "feasible", "infeasible", "open"  # a leaf's MIP
# what the search says about k
FOUND, NONE = "found", "none"  # (or OPEN: some cube neither closed nor feasible)


@dataclass(frozen=True)
class Cube:
    """The k-sets containing `fixed` and avoiding `excluded` (guess indices); `path`: child positions from the
    root."""

    path: tuple[int, ...] = ()
    fixed: tuple[int, ...] = ()
    excluded: tuple[int, ...] = ()


@dataclass(frozen=True)
class CubeBound:
    """A cube's LP bound and its branching pair.  `uncoverable`: a pool pair left has no separator outside F
    and X.  `lp_value`: HiGHS's LP objective (None unless optimal); `bound`: the certified dual bound.
    `pair`: the pool pair to branch on (None when F separates every pool pair); `separators`: its separators
    outside F and X, in the order of the children."""

    uncoverable: bool
    lp_value: float | None
    bound: float
    status: str
    uncovered: int
    pair: tuple[int, int] | None
    separators: tuple[int, ...]
    seconds: float


@dataclass(frozen=True)
class CubeLimits:
    """How each cube's MIP runs: seconds, HiGHS threads, rounds of row generation, and new rows per round (those
    with the fewest separators: the rows' separator lists, about a thousand guesses each on the real game, are what
    a task holds in memory)."""

    time_limit: float | None = None
    threads: int = 1
    max_rounds: int = 200
    max_new_pairs: int = 20_000


@dataclass(frozen=True)
class CubeResult:
    """A leaf's MIP: `outcome` FEASIBLE (with `chosen`, F and the MIP's guesses, verified to separate every
    secret), INFEASIBLE or OPEN; the last HiGHS status (or why HiGHS did not run), rounds, rows, seconds, and
    HiGHS's last dual bound on the guesses to add (None when it gave no finite one: an open cube's progress)."""

    outcome: str
    status: str
    chosen: tuple[int, ...]
    rounds: int
    pairs: int
    seconds: float
    dual_bound: float | None = None


@dataclass
class CubeNode:
    """One cube of the tree: its bound, what became of it (SPLIT, PRUNED, LEAF) and a leaf's MIP result."""

    cube: Cube
    bound: CubeBound
    outcome: str
    result: CubeResult | None = None


@dataclass
class CubeSearch:
    """The cube tree for k (parents before children, siblings in child order) and what it says: FOUND (a
    verified set `chosen` of at most k guesses), NONE (every cube pruned or infeasible) or OPEN."""

    k: int
    nodes: list[CubeNode]
    status: str
    chosen: tuple[int, ...] = ()

    def counts(self) -> dict:
        """How many cubes ended each way (split, pruned, feasible, infeasible, open)."""
        ends = [n.result.outcome if n.result else n.outcome for n in self.nodes]
        return {end: ends.count(end) for end in (SPLIT, PRUNED, FEASIBLE, INFEASIBLE, OPEN)}

    def root_lower_bound(self) -> int:
        """The fewest guesses any separating set needs by the root's certified LP bound."""
        return int(np.ceil(self.nodes[0].bound.bound - PRUNE_MARGIN))


def run_here(fn, items, shared, label):
    """The default `fan_out`: fn(item, *shared) for every item, in this process."""
    return [fn(item, *shared) for item in items]


def pool_pairs(codes_t: np.ndarray, encoded_secrets, seeds, *, seed_limit: int | None, columns):
    """The pairs every cube is bounded on: secrets of the same letters differing in at most two positions (Poirrier's
    rows) with the `seed_limit` pairs of `seeds` (all of them when None) separated by the fewest of `columns`."""
    hardest = blindfold_pairs.hardest_pairs(codes_t, *seeds, seed_limit or len(seeds[0]), columns)
    return blindfold_pairs.merge_pairs(blindfold_pairs.same_letters_pairs(encoded_secrets), hardest)


def children(cube: Cube, separators) -> list[Cube]:
    """The split: child i fixes separators[i] and excludes separators[:i] (every set holding one falls in the
    child of the first it holds)."""
    return [Cube(cube.path + (i,), cube.fixed + (int(s),), tuple(sorted(cube.excluded + tuple(separators[:i]))))
            for i, s in enumerate(separators)]


def prunes(bound: CubeBound, left: int) -> bool:
    """Whether the bound shows the cube holds no separating set with `left` guesses to add."""
    return bound.uncoverable or bound.bound > left + PRUNE_MARGIN


def available(cube: Cube, columns) -> np.ndarray:
    """The guesses a cube may still add: `columns` without its fixed and excluded guesses (sorted)."""
    return np.setdiff1d(np.asarray(columns, dtype=np.int64), np.array(cube.fixed + cube.excluded, dtype=np.int64))


def uncovered(codes_t: np.ndarray, pool_i, pool_j, fixed) -> tuple[np.ndarray, np.ndarray]:
    """The pool pairs no guess of `fixed` separates."""
    pool_i, pool_j = np.asarray(pool_i), np.asarray(pool_j)
    if not len(fixed) or not len(pool_i):
        return pool_i, pool_j
    guesses = np.asarray(fixed, dtype=np.int64)
    same = (codes_t[pool_i[:, None], guesses[None, :]] == codes_t[pool_j[:, None], guesses[None, :]]).all(axis=1)
    return pool_i[same], pool_j[same]


def bound_cube(cube: Cube, codes_t, pool_i, pool_j, columns, k: int, families=None) -> CubeBound:
    """The cube's certified LP bound and its branching pair with the ordered separators (module docstring);
    `families`: secret index arrays whose cluster cuts join the LP (`cluster_cuts.families`; None: none)."""
    started = time.perf_counter()
    avail = available(cube, columns)
    ui, uj = uncovered(codes_t, pool_i, pool_j, cube.fixed)
    if not len(ui):
        return CubeBound(False, 0.0, 0.0, "no pool pair left", 0, None, (), time.perf_counter() - started)
    indptr, indices = blindfold_pairs.separators(codes_t, ui, uj, avail)
    counts = np.diff(indptr)
    hardest = int(np.argmin(counts))
    pair = (int(ui[hardest]), int(uj[hardest]))
    if counts[hardest] == 0:
        return CubeBound(True, None, 0.0, "a pool pair has no separator left", len(ui), pair, (),
                         time.perf_counter() - started)
    if families is None:
        lp_value, bound, status = certified_lp(codes_t, ui, uj, avail, indptr, indices)
    else:
        cuts = cluster_cuts.cut_rows(codes_t, families, avail, cube.fixed)
        lp_value, bound, status = cluster_cuts.certified_lp_with_cuts(codes_t, ui, uj, avail, indptr, indices, cuts)
    load = np.bincount(indices, minlength=len(avail))  # pool pairs left each guess separates
    own = indices[indptr[hardest]:indptr[hardest + 1]].astype(np.int64)
    order = own[np.lexsort((own, -load[own]))]
    return CubeBound(False, lp_value, bound, status, len(ui), pair, tuple(int(g) for g in avail[order]),
                     time.perf_counter() - started)


def certified_lp(codes_t, ui, uj, avail, indptr, indices) -> tuple[float | None, float, str]:
    """(HiGHS's LP value, the certified dual bound, HiGHS's status) of covering pairs (ui, uj) with `avail`;
    (indptr, indices): the pairs' separators among `avail` (`pairs.separators`)."""
    model = CoverModel(codes_t, avail, ui, uj, reduce=True)
    out = model.solve_lp(threads=1)
    duals = np.zeros(len(ui))
    if len(out["row_duals"]):
        duals[model.kept_rows] = np.maximum(out["row_duals"], 0.0)
    load = np.bincount(indices, weights=np.repeat(duals, np.diff(indptr)), minlength=len(avail))
    bound = float(duals.sum() / max(1.0, float(load.max(initial=0.0))))
    return out["objective"], bound, out["status"]


def solve_cube(cube: Cube, codes_t, pool_i, pool_j, columns, k: int, limits: CubeLimits) -> CubeResult:
    """The cube's MIP with rows generated round by round (module docstring): FEASIBLE with a verified set,
    INFEASIBLE, or OPEN."""
    started = time.perf_counter()
    avail, left = available(cube, columns), k - len(cube.fixed)
    codes = codes_t.T
    rows = blindfold_pairs.sort_pairs(*uncovered(codes_t, pool_i, pool_j, cube.fixed))
    status = "round limit"
    for number in range(1, limits.max_rounds + 1):
        remaining = None if limits.time_limit is None else limits.time_limit - (time.perf_counter() - started)
        if remaining is not None and remaining <= 0:
            return _ended(OPEN, "time limit", (), number - 1, rows, started)
        model = CoverModel(codes_t, avail, *rows, reduce=True)
        if model.uncoverable.size:  # counted exactly, no solver involved
            return _ended(INFEASIBLE, "a pair has no separator left", (), number, rows, started)
        model.add_at_most(None, left)
        out = model.solve(time_limit=remaining, threads=limits.threads, stop_at=float(left))
        if out["status"] == "Infeasible":
            return _ended(INFEASIBLE, "Infeasible", (), number, rows, started)
        if out["objective"] is None:
            return _ended(OPEN, out["status"], (), number, rows, started, out["dual_bound"])
        found, new_rows = _sort_solutions(codes, codes_t, cube, k, [*out["solutions"], out["chosen"]], rows, avail,
                                          limits.max_new_pairs)
        if found is not None:
            return _ended(FEASIBLE, "solution", found, number, rows, started)
        if not len(new_rows[0]):
            return _ended(OPEN, "no new rows", (), number, rows, started)
        rows = blindfold_pairs.merge_pairs(rows, new_rows)
    return _ended(OPEN, status, (), limits.max_rounds, rows, started)


def _sort_solutions(codes, codes_t, cube, k, solutions, rows, avail, max_new_pairs):
    """(the first solution that with F is at most k guesses separating every secret, or None; the pairs the
    others leave that are not rows yet, at most `max_new_pairs` of them, those with the fewest separators)."""
    labelled = []
    for solution in solutions:
        chosen = np.union1d(np.array(cube.fixed, dtype=np.int64), solution)
        if len(chosen) <= k and blindfold_pairs.separates_all(codes, chosen):
            return tuple(int(g) for g in chosen), None
        labelled.append(blindfold_pairs.class_labels(codes, chosen))
    new = blindfold_pairs.merge_pairs(*[blindfold_pairs.pairs_within_labels(labels) for labels in labelled])
    new = blindfold_pairs.difference_pairs(new, rows, codes.shape[1])
    if len(new[0]) > max_new_pairs:
        new = blindfold_pairs.hardest_pairs(codes_t, *new, max_new_pairs, avail)
    return None, new


def _ended(outcome, status, chosen, rounds, rows, started, dual_bound=None) -> CubeResult:
    dual = float(dual_bound) if dual_bound is not None and np.isfinite(dual_bound) else None
    return CubeResult(outcome, status, tuple(chosen), rounds, len(rows[0]), time.perf_counter() - started, dual)


def split(codes_t, columns, pool, k: int, *, depth: int, target: int, fan_out=run_here, families=None
          ) -> list[CubeNode]:
    """The cube tree down to `depth` levels below the root, or until `target` cubes survive a level: every cube
    bounded (level by level, through `fan_out`; with the cluster cuts of `families` unless None), pruned, split
    or kept as a leaf."""
    nodes, level_cubes = [], [Cube()]
    for level in range(depth + 1):
        bounds = fan_out(bound_cube, level_cubes, (codes_t, pool[0], pool[1], columns, k, families), f"lp{level}")
        alive = sum(not prunes(b, k - len(c.fixed)) for c, b in zip(level_cubes, bounds))
        deeper = level < depth and alive < target
        next_cubes = []
        for cube, bound in zip(level_cubes, bounds):
            if prunes(bound, k - len(cube.fixed)):
                nodes.append(CubeNode(cube, bound, PRUNED))
            elif deeper and bound.separators and len(cube.fixed) < k:
                nodes.append(CubeNode(cube, bound, SPLIT))
                next_cubes += children(cube, bound.separators)
            else:
                nodes.append(CubeNode(cube, bound, LEAF))
        if not next_cubes:
            break
        level_cubes = next_cubes
    return nodes


def search_cubes(codes_t, columns, pool, k: int, *, depth: int, target: int, limits: CubeLimits = CubeLimits(),
                 fan_out=run_here, families=None) -> CubeSearch:
    """Whether k guesses among `columns` separate every secret, by cube-and-conquer (module docstring).
    codes_t: the secret-major code matrix (`pairs.transpose_codes`); pool: the pairs (i, j) the split and the
    bounds read; fan_out(fn, items, shared, label) -> [fn(item, *shared) ...] runs the tasks; families: those
    whose cluster cuts join the bounds (None: the pair rows alone)."""
    nodes = split(codes_t, columns, pool, k, depth=depth, target=target, fan_out=fan_out, families=families)
    leaves = [node for node in nodes if node.outcome == LEAF]
    results = fan_out(solve_cube, [node.cube for node in leaves], (codes_t, pool[0], pool[1], columns, k, limits),
                      "mip")
    for node, result in zip(leaves, results):
        node.result = result
    found = [r.chosen for r in results if r.outcome == FEASIBLE]
    if found:
        return CubeSearch(k, nodes, FOUND, min(found, key=len))
    return CubeSearch(k, nodes, OPEN if any(r.outcome == OPEN for r in results) else NONE)
