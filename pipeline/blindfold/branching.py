"""Hybrid blindfold decided by branching: an exact search over the sets of k fixed guesses, pruned by obstacles.

The same question as `obstacles.decide` (can k fixed guesses leave every class solvable within d further
guesses?) and the same facts: an *obstacle* is a set of secrets no tree of d guesses solves, a class holding
one is unsolvable (solvability is hereditary), and a class of F is a set no guess of F splits.  So a set F
that works splits every obstacle.  Instead of a MIP, a depth-first search over guesses with bitsets (a bit per
allowed guess: the guesses splitting an obstacle):

1. *Branch on an obstacle.*  At a node with chosen guesses P and excluded guesses X, take an obstacle D no
   guess of P splits (the one with the fewest splitters outside X).  Every set F ⊇ P avoiding X that works
   contains a splitter of D outside X; let s_1 < s_2 < ... be those splitters.  Child i adds s_i and excludes
   s_1 .. s_{i-1}: each such F lies in exactly one child, that of its first splitter of D (complete, and no
   set is visited twice, so any order of the fixed guesses is one set).
2. *The last guess.*  With one guess left it must split every obstacle P does not: the candidates are the AND
   of their splitter bitsets, minus X and P.  Nothing else can complete P.
3. *Fewer guesses already split every obstacle known.*  P is then checked as it is: if every class of P is
   solvable, P padded to k guesses works (more guesses only split the classes further); otherwise its
   unsolvable classes give obstacles that P does not split, and the node goes on with them.
4. *Each candidate set is checked exactly* on every class.  A class that is not solvable gives minimal
   obstacles (`obstacles.new_obstacles`), none split by the candidate; they join the pool at once.  Every
   obstacle of the pool is a true unsolvable set, so pruning with it is sound wherever it is used.

The search ends with a verified set (found), with every branch exhausted (proven: none), or on its time limit
(not settled).  The two last levels run in one numba kernel: for each second-to-last guess, the AND over the
obstacles it leaves unsplit.  Pure numpy and numba; no Ray, Hydra or Arrow."""

from __future__ import annotations

import time

import numba
import numpy as np

from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.blindfold.obstacles import FOUND, NONE, OPEN, ObstacleResult, minimal_obstacle, new_obstacles, solvable

METHOD = "branching search over the sets of fixed guesses, pruned by minimal unsolvable sets of secrets"


class _OutOfTime(Exception):
    """The search's time limit passed: nothing is claimed."""


@numba.njit(cache=True)
def _splitter_bits(codes, members, out):
    """Set bit g of `out` for every row g of `codes` whose codes on the `members` columns are not all equal."""
    for g in range(codes.shape[0]):
        first = codes[g, members[0]]
        for i in range(1, members.shape[0]):
            if codes[g, members[i]] != first:
                out[g >> 6] |= np.uint64(1) << np.uint64(g & 63)
                break


@numba.njit(cache=True)
def _has(bits, g):
    return (bits[g >> 6] >> np.uint64(g & 63)) & np.uint64(1) == 1


@numba.njit(cache=True)
def _next_pair(splitters, unsplit, branch, start, blocked, acc):
    """The first position p >= start of `branch` (the second-to-last guesses, in branching order) for which
    some last guess splits every obstacle of `unsplit` that branch[p] leaves unsplit, with branch[:p] and
    `blocked` excluded from the last guess; -1 if none.  `acc` receives those last guesses as bits."""
    words = blocked.shape[0]
    excluded = blocked.copy()
    for q in range(start):
        excluded[branch[q] >> 6] |= np.uint64(1) << np.uint64(branch[q] & 63)
    for p in range(start, branch.shape[0]):
        g = branch[p]
        for w in range(words):
            acc[w] = ~excluded[w]
        acc[g >> 6] &= ~(np.uint64(1) << np.uint64(g & 63))
        alive = True
        for i in range(unsplit.shape[0]):
            o = unsplit[i]
            if _has(splitters[o], g):
                continue
            left = np.uint64(0)
            for w in range(words):
                acc[w] &= splitters[o, w]
                left |= acc[w]
            if left == 0:
                alive = False
                break
        if alive:
            return p
        excluded[g >> 6] |= np.uint64(1) << np.uint64(g & 63)
    return -1


def _rows_bits(bits: np.ndarray, n_rows: int) -> np.ndarray:
    """A bitset as one 0/1 entry per row."""
    return np.unpackbits(bits.view(np.uint8), bitorder="little")[:n_rows]


def _rows(bits: np.ndarray) -> np.ndarray:
    """The rows whose bits are set, in increasing order."""
    return np.flatnonzero(np.unpackbits(bits.view(np.uint8), bitorder="little"))


class _Pool:
    """The obstacles found so far and, for each, the bitset of the guesses (rows of `codes`) splitting it."""

    def __init__(self, codes: np.ndarray):
        self.codes, self.obstacles = codes, []
        self.words = (codes.shape[0] + 63) // 64
        self.splitters = np.zeros((64, self.words), np.uint64)

    def add(self, obstacle) -> None:
        n = len(self.obstacles)
        if n == self.splitters.shape[0]:
            self.splitters = np.vstack([self.splitters, np.zeros_like(self.splitters)])
        _splitter_bits(self.codes, np.asarray(obstacle, np.int64), self.splitters[n])
        self.obstacles.append(tuple(obstacle))

    def unsplit(self, chosen, among) -> list[int]:
        """The obstacles of `among` (positions) that no guess of `chosen` splits."""
        return [o for o in among if not any(_has(self.splitters[o], g) for g in chosen)]


class _Search:
    """One exhaustive branching search (module docstring); `run` returns the set found or None."""

    def __init__(self, codes, k, depth, win, memo, deadline, log):
        self.codes, self.k, self.depth, self.win, self.memo = codes, k, depth, win, memo
        self.deadline, self.log, self.pool = deadline, log, _Pool(codes)
        self.checked, self.started = 0, time.perf_counter()
        self.all_rows = np.zeros(self.pool.words, np.uint64)
        for g in range(codes.shape[0]):
            self.all_rows[g >> 6] |= np.uint64(1) << np.uint64(g & 63)

    def bits(self, rows) -> np.ndarray:
        """The bitset of `rows`, with the bits past the last row set (never a guess)."""
        out = ~self.all_rows
        for g in rows:
            out[g >> 6] |= np.uint64(1) << np.uint64(g & 63)
        return out

    def tick(self) -> None:
        if self.deadline is not None and time.perf_counter() > self.deadline:
            raise _OutOfTime

    def check(self, chosen: list[int]) -> bool:
        """Whether every class of `chosen` is solvable; if not, its minimal obstacles join the pool."""
        self.tick()
        self.checked += 1
        found = new_obstacles(self.codes, blindfold_pairs.class_labels(self.codes, chosen), self.depth, self.win,
                              self.memo)
        for obstacle in found:
            self.pool.add(obstacle)
        if self.log:
            self.log({"round": self.checked, "obstacles": len(self.pool.obstacles),
                      "status": "fails" if found else "verified", "chosen": list(chosen), "new": len(found),
                      "seconds": round(time.perf_counter() - self.started, 2)})
        return not found

    def refreshed(self, chosen, unsplit: list[int], seen: int) -> tuple[list[int], int]:
        """`unsplit` with the obstacles added since `seen` that `chosen` does not split."""
        total = len(self.pool.obstacles)
        return unsplit + self.pool.unsplit(chosen, range(seen, total)), total

    def run(self) -> list[int] | None:
        return self.node([], self.bits([]), self.pool.unsplit([], range(len(self.pool.obstacles))))

    def node(self, chosen: list[int], excluded: np.ndarray, unsplit: list[int]) -> list[int] | None:
        """A set of k guesses ⊇ `chosen` avoiding `excluded` that works, or None (rules 1-3 of the module)."""
        seen = len(self.pool.obstacles)
        if not unsplit:  # rule 3
            if self.check(chosen):
                return list(chosen)
            unsplit, seen = self.refreshed(chosen, unsplit, seen)
        if len(chosen) == self.k:
            return None
        if len(chosen) == self.k - 1:
            return self.last_guess(chosen, excluded, unsplit)
        branch = self.splitters_of(self.fewest_splitters(unsplit, excluded), excluded, unsplit)
        if len(chosen) == self.k - 2:
            return self.last_two(chosen, excluded, unsplit, branch)
        excluded = excluded.copy()
        for g in branch:  # rule 1
            unsplit, seen = self.refreshed(chosen, unsplit, seen)
            found = self.node([*chosen, g], excluded, self.pool.unsplit([g], unsplit))
            if found is not None:
                return found
            excluded[g >> 6] |= np.uint64(1) << np.uint64(g & 63)
        return None

    def fewest_splitters(self, unsplit: list[int], excluded: np.ndarray) -> int:
        free = self.pool.splitters[unsplit] & ~excluded
        return unsplit[int(np.argmin(np.bitwise_count(free).sum(axis=1)))]

    def splitters_of(self, obstacle: int, excluded: np.ndarray, unsplit: list[int]) -> list[int]:
        """The splitters of `obstacle` outside `excluded`, those splitting the most of `unsplit` first (any
        order is complete: each child excludes the guesses of the children before it)."""
        rows = _rows(self.pool.splitters[obstacle] & ~excluded)
        split = np.zeros(len(rows), np.int64)
        for o in unsplit:
            split += _rows_bits(self.pool.splitters[o], self.codes.shape[0])[rows]
        return rows[np.argsort(-split, kind="stable")].tolist()

    def last_guess(self, chosen, excluded, unsplit) -> list[int] | None:
        """Rule 2: every guess splitting all of `unsplit`, outside `excluded` and `chosen`, checked in turn."""
        blocked = excluded | self.bits(chosen)
        seen = len(self.pool.obstacles)
        while True:
            candidates = ~blocked
            for o in unsplit:
                candidates &= self.pool.splitters[o]
            rows = _rows(candidates)
            if len(rows) == 0:
                return None
            if self.check([*chosen, int(rows[0])]):
                return [*chosen, int(rows[0])]
            unsplit, seen = self.refreshed(chosen, unsplit, seen)  # the new obstacles rule rows[0] out

    def last_two(self, chosen, excluded, unsplit, branch) -> list[int] | None:
        """Rules 1 and 2 for the two last guesses: the kernel skips every second-to-last guess that no last guess
        completes; the others go to `last_guess`, with the earlier ones of `branch` excluded."""
        branch_rows = np.asarray(branch, np.int64)
        blocked = excluded | self.bits(chosen)
        acc = np.empty_like(blocked)
        start, seen = 0, len(self.pool.obstacles)
        while True:
            self.tick()
            p = _next_pair(self.pool.splitters, np.asarray(unsplit, np.int64), branch_rows, start, blocked, acc)
            if p < 0:
                return None
            g = int(branch_rows[p])
            earlier = blocked | self.bits(branch_rows[:p].tolist())
            found = self.last_guess([*chosen, g], earlier, self.pool.unsplit([g], unsplit))
            if found is not None:
                return found
            start = p + 1
            unsplit, seen = self.refreshed(chosen, unsplit, seen)


def decide_by_branching(codes: np.ndarray, columns, k: int, depth: int, win: int, *, seeds=(), starts=(),
                        time_limit: float | None = None, log=None) -> ObstacleResult:
    """Decide, like `obstacles.decide`, whether at most `k` fixed guesses among `columns` (rows of `codes`) leave
    every class solvable within `depth` further guesses, by the branching search.  `seeds` (sets of secrets)
    and `starts` (guess sets) give the first obstacles: they change how fast, never the answer.  `rounds`
    counts the candidate sets checked on every class."""
    started = time.perf_counter()
    columns = np.unique(np.asarray(columns, dtype=np.int64))
    usable = codes[columns]
    memo: dict = {}
    deadline = None if time_limit is None else started + time_limit
    search = _Search(usable, k, depth, win, memo, deadline, log)
    first = {minimal_obstacle(usable, s, depth, win, memo) for s in seeds
             if len(s) > 1 and not solvable(usable, s, depth, win, memo)}
    for start in starts:
        first.update(new_obstacles(usable, blindfold_pairs.class_labels(codes, list(start)), depth, win, memo))
    for obstacle in sorted(first):
        search.pool.add(obstacle)
    result = ObstacleResult(OPEN, k, depth, [], [], 0, None, 0.0, "time limit", method=METHOD)
    try:
        found = search.run()
    except _OutOfTime:
        found = None
    else:
        if found is None:
            result.status, result.stop, result.lower_bound = NONE, "every branch exhausted", k + 1
        else:
            result.status, result.stop, result.chosen = FOUND, "verified", [int(columns[r]) for r in found]
    result.obstacles, result.rounds = search.pool.obstacles, search.checked
    result.seconds = time.perf_counter() - started
    return result
