"""Exact MinTotal with the game's symmetries used below the root: at the top `levels` nodes of a search, one
guess per orbit of the stabiliser of the history played so far (stabiliser.py), the rest by the numba search.

A node here is (C, history, hard-mode state, guesses left).  Every symmetry fixing each history guess maps C
onto itself, so V(sigma g, C) = V(g, C): the node tries only `HistoryStabiliser.representatives(history)`
(those splitting C; in hard mode those the state allows), best lower bound first, with the same alpha-beta
budgets as exact_steps.py:
    floor(g) = |C| + sum over the non-win classes C' of max(2|C'| - 1, Bound(|C'|, k))
(k the most classes any guess makes on C: no guess makes more on a subset), dropped once the floor reaches
the best total so far; a class's budget is the best total minus its siblings' current bounds.  A class one
level down is such a node again while depth < `levels`, else (or when its stabiliser is trivial, it is small
or few guesses are left) the numba search (ExactSolver) solves it, whose memo lives on between calls.
Values and best guesses of these top nodes are kept in a dict keyed by (C, state, guesses left), so an
optimal tree is read back without searching again.
"""

import numpy as np

from pipeline.search.exact.solver import IMPOSSIBLE, INF, ExactSolver
from pipeline.search.exact.kernels import fill_bound_row
from pipeline.search.hard_mode import allowed_into, initial_state, symbol_counts, update_state
from pipeline.search.symmetry.stabiliser import HistoryStabiliser

SMALL = 24  # sets up to this size go straight to the numba search (a symmetric node costs more than it saves)


class SymmetricExact:
    """MinTotal / optimal trees through `solver` (an ExactSolver of the game and mode), with the history
    stabiliser of `group` (None: no symmetry, everything goes to the solver) at the top `levels` levels."""

    def __init__(self, solver: ExactSolver, group: HistoryStabiliser | None, levels: int = 2):
        self.solver, self.group, self.levels = solver, group, levels
        self.codes, self.win, self.hard = solver.codes, solver.win, solver.hard
        self.n_codes = self.win + 1
        self.counts = symbol_counts(solver.words) if self.hard else None
        self.memo: dict[tuple, tuple[int, bool, int]] = {}  # key -> (value or lower bound, exact, best guess)
        self.stats = {"nodes": 0, "guesses": 0}

    def reset(self):
        self.memo.clear()
        self.solver.reset()
        self.stats = {"nodes": 0, "guesses": 0}

    def _left(self, left):
        return self.solver.max_guesses if left is None else left

    def _state(self, state):
        return state if state is not None or not self.hard else initial_state(self.solver.length)

    def _reps(self, history, members, depth, left):
        """The guesses to try at this node (one per orbit), or None when the node goes to the numba search."""
        if self.group is None or depth >= self.levels or len(members) <= SMALL or left <= 3:
            return None
        return self.group.representatives(history, symbols_only=self.hard)

    def min_total(self, members, history, beta=INF, state=None, left=None, depth=0) -> tuple[int, bool]:
        """(MinTotal(C), exact) with `history` (guess indices) played: exact when below beta, otherwise a lower
        bound >= beta."""
        value = self._solve(np.asarray(members, dtype=np.int32), tuple(history), beta, self._state(state),
                            self._left(left), depth)
        return int(value), value < beta

    def _key(self, members, state, left):
        return members.tobytes(), b"" if state is None else state[0].tobytes() + state[1].tobytes(), left

    def _solve(self, members, history, beta, state, left, depth) -> int:
        n = len(members)
        if left <= 0 or (left == 1 and n >= 2):
            return IMPOSSIBLE
        if n <= 2:
            return 2 * n - 1
        reps = self._reps(history, members, depth, left)
        if reps is None:
            value, _ = self.solver.min_total(members, beta=beta, state=state, left=left)
            return value
        key = self._key(members, state, left)
        known = self.memo.get(key)
        if known is not None and (known[1] or known[0] >= beta):
            return known[0]
        self.stats["nodes"] += 1
        value, guess = self._search(members, history, beta, state, left, depth, reps)
        self.memo[key] = (value, guess >= 0, guess)
        return value

    def _floors(self, members, reps, state):
        """(guesses worth trying, their floors, their class sizes per code, cost[t] = the floor of a class of t)
        at a node."""
        if self.hard:
            ok = np.zeros(len(self.solver.words), dtype=np.bool_)
            allowed_into(self.solver.words, self.counts, state[0], state[1], ok)
            reps = reps[ok[reps]]
        block = self.codes[reps][:, members].astype(np.int64)
        sizes = np.zeros((len(reps), self.n_codes), dtype=np.int64)
        np.add.at(sizes, (np.repeat(np.arange(len(reps)), len(members)), block.ravel()), 1)
        parts = (sizes > 0).sum(axis=1)
        useful = (parts >= 2) | (sizes[:, self.win] > 0)
        reps, sizes, parts = reps[useful], sizes[useful], parts[useful]
        bound = np.zeros(len(members) + 1, dtype=np.int64)
        fill_bound_row(bound, len(members), int(parts.max(initial=2)))
        cost = np.maximum(bound, 2 * np.arange(len(members) + 1) - 1)
        cost[0] = 0
        open_sizes = sizes.copy()
        open_sizes[:, self.win] = 0
        floors = len(members) + cost[open_sizes].sum(axis=1)
        return reps, floors, sizes, cost

    def _search(self, members, history, beta, state, left, depth, reps) -> tuple[int, int]:
        """(value, best guess) of a symmetric node: exact with its guess when below beta, else (a lower bound
        >= beta, -1)."""
        reps, floors, sizes, cost = self._floors(members, reps, state)
        squares = (sizes ** 2).sum(axis=1)
        order = np.lexsort((squares, floors))
        best, best_guess, node_lb = beta, -1, INF
        for t in order:
            if floors[t] >= best:
                node_lb = min(node_lb, int(floors[t]))
                break
            g = int(reps[t])
            self.stats["guesses"] += 1
            total = self._guess_total(g, members, history, best, state, left, depth, cost)
            if total < best:
                best, best_guess = total, g
            else:
                node_lb = min(node_lb, total)
        if best_guess >= 0:
            return best, best_guess
        return max(node_lb, beta) if node_lb < INF else beta, -1

    def _classes(self, g, members):
        """The non-win classes of Split(C, g), smallest first (as exact_steps.py orders them in normal mode)."""
        row = self.codes[g, members]
        order = np.argsort(row, kind="stable")
        cuts = np.flatnonzero(np.diff(row[order])) + 1
        classes = [c for c in np.split(members[order], cuts) if self.codes[g, c[0]] != self.win]
        return sorted(classes, key=len, reverse=self.hard)

    def _guess_total(self, g, members, history, best, state, left, depth, cost) -> int:
        """V(g, C) when below `best`, else some lower bound >= best (`cost`: the floors of classes by size)."""
        classes = self._classes(g, members)
        floors = [int(cost[len(c)]) for c in classes]
        total = len(members) + sum(floors)
        for c, floor in zip(classes, floors):
            if total >= best:
                return total
            if len(c) <= 2:
                continue  # its floor 2|c| - 1 is its value (left >= 3 here)
            child_state = (update_state(state[0], state[1], self.solver.words[g], int(self.codes[g, c[0]]))
                           if self.hard else None)
            value = self._solve(c, history + (g,), best - total + floor, child_state, left - 1, depth + 1)
            total += value - floor
        return total

    def _all(self, members):
        return np.arange(self.codes.shape[1], dtype=np.int32) if members is None else np.asarray(members, np.int32)

    def guess_value(self, guess, members=None, history=(), beta=INF, state=None, left=None) -> tuple[int, bool]:
        """(V(g, C), exact): |C| + the MinTotal of each non-win class of g, each with g appended to `history`
        (their stabilisers searched at the top levels); exact when below beta, else a lower bound >= beta.
        `members` None: every secret."""
        members, state, left = self._all(members), self._state(state), self._left(left)
        if left <= 0:
            return IMPOSSIBLE, False
        cost = np.zeros(len(members) + 1, dtype=np.int64)
        fill_bound_row(cost, len(members), self.n_codes)
        cost = np.maximum(cost, 2 * np.arange(len(members) + 1) - 1)
        cost[0] = 0
        value = self._guess_total(int(guess), members, tuple(history), beta, state, left, -1, cost)
        return int(value), value < beta

    def tree(self, members, history, state=None, left=None, depth=0, first=None):
        """An optimal strategy tree (guess, {code: subtree}) of C (None: every secret) with `history` played;
        with `first` given, the best tree that opens with that guess."""
        members, state, left = self._all(members), self._state(state), self._left(left)
        history = tuple(history)
        if first is not None:
            guess, depth = int(first), depth - 1
        else:
            reps = self._reps(history, members, depth, left) if len(members) > 2 else None
            if reps is None:
                return self.solver.tree(None, members, state if self.hard else None, left)
            if self._solve(members, history, INF, state, left, depth) >= IMPOSSIBLE:
                raise ValueError("no strategy solves these candidates within the guess limit")
            guess = self.memo[self._key(members, state, left)][2]
        children = {}
        for c in self._classes(guess, members):
            code = int(self.codes[guess, c[0]])
            child_state = update_state(state[0], state[1], self.solver.words[guess], code) if self.hard else None
            children[code] = self.tree(c, history + (guess,), child_state, left - 1, depth + 1)
        return guess, children
