"""Closing the gap opener by opener: lower bounds on an opener's response classes that add up to a proof.

An opener g splits the secrets S into response classes; a strategy opening with g costs |S| plus the sum
of the classes' MinTotals.  To show that g reaches the upper bound UB, or is worse than it, every class
needs a lower bound, from the cheapest that suffices:
- `bound_class`: the first LB_j (search/bounds/lower.py; hard-mode LB_j in hard mode, which are stronger)
  reaching the class's target (its subtree total in the UB tree), else the exact MinTotal;
- `close_opener`: an opener without a UB subtree starts every class at a lower bound (its LB_j at the proof's
  deepest level, `settle_opener`; 2|C| - 1 when none is given) and solves the largest classes exactly, each
  against the budget that would lift the opener past UB on its own; under a guess limit it first looks for a class
  no strategy solves in time (within.py), which settles the opener alone;
- with the game's symmetries, a class's exact MinTotal searches one guess per orbit of the symmetries fixing
  the guesses played so far (the opener, then the class's first guess: exact_symmetric.py).
The game's rules hold throughout: a class has game.max_guesses - 1 guesses left (`guesses_left`; LB_j
ignore the limit, which only raises values), and in hard mode each class is played from the state its
opener's response leaves (`opener_classes`).

Building a solver is what costs on a big game (seconds, more than most classes' bounds), so the solvers
of one matrix are kept together (`ClassSolvers`) and reused class after class; whoever runs the classes
decides how long they live (the prove stage keeps one per worker process)."""

from dataclasses import dataclass, field

import numpy as np

from pipeline.search.bounds.lower import BoundSolver
from pipeline.search.exact.solver import IMPOSSIBLE, ExactSolver
from pipeline.search.exact.symmetric import SymmetricExact
from pipeline.search.bounds.hard import HardBoundSolver
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.matrix import Matrix
from pipeline.search.partition import split
from pipeline.search.symmetry.stabiliser import HistoryStabiliser
from pipeline.search.tree import from_json
from pipeline.search.solvable.within import Within


def class_solver(matrix: Matrix, hard: bool, memo_bits, left) -> ExactSolver:
    """The exact solver for an opener's classes: the game's mode, `left` guesses left (None = unlimited)."""
    return ExactSolver(matrix, hard_mode=hard, memo_bits=memo_bits, max_guesses=left)


@dataclass(frozen=True)
class ClassSettings:
    """What every response class of one proof is bounded with (`bound_class`): K_S for the counting bound, LB_j up
    to `max_level`, the exact solver's memo of 2**memo_bits entries, the guesses a class has left (None =
    unlimited) and the game's symmetry `generators` (none: every guess is tried)."""

    k_s: int
    max_level: int
    memo_bits: int
    left: int | None = None
    generators: list = field(default_factory=list)


class ClassSolvers:
    """The solvers of one matrix that bound and solve response classes, each built on first use and kept.

    Building one is what costs on a big game (a BoundSolver takes 0.6 s on Midi Nerdle's matrix and 9-15 s
    on Nerdle's, more than most classes' bounds), so a process builds them once and reuses them class
    after class.  `reset()` empties their memos: a reused solver then answers exactly as a new one would.
    """

    def __init__(self, matrix: Matrix):
        self.matrix = matrix
        self.built: dict[tuple, object] = {}

    def bounds(self, k_s, hard: bool):
        """The LB_j solver: hard-mode bounds (HardBoundSolver) or normal ones (BoundSolver)."""
        key = ("bounds", k_s, hard)
        if key not in self.built:
            m = self.matrix
            self.built[key] = (HardBoundSolver(m.codes, m.n_codes, k_s, m.encoded_guesses,
                                               secret_of_guess=m.secret_of_guess) if hard else
                               BoundSolver(m.codes, m.secret_of_guess, m.n_codes, k_s))
        return self.built[key]

    def exact(self, hard: bool, memo_bits, left) -> ExactSolver:
        """The exact solver (`class_solver`) for the game's mode with `left` guesses left."""
        key = ("exact", hard, memo_bits, left)
        if key not in self.built:
            self.built[key] = class_solver(self.matrix, hard, memo_bits, left)
        return self.built[key]

    def symmetric(self, hard: bool, memo_bits, left, generators: list[dict]) -> SymmetricExact:
        """The exact solver (`exact`) with the history stabiliser of the symmetry `generators` on top."""
        key = ("symmetric", hard, memo_bits, left, repr(generators))
        if key not in self.built:
            n_symbols = len(generators[0]["symbols"])
            self.built[key] = SymmetricExact(self.exact(hard, memo_bits, left),
                                             HistoryStabiliser(self.matrix.encoded_guesses, n_symbols, generators))
        return self.built[key]

    def within(self, hard: bool) -> Within:
        """The decision "is this class solved within j guesses" (search/solvable/within.py) in the game's mode."""
        key = ("within", hard)
        if key not in self.built:
            self.built[key] = Within.of_matrix(self.matrix, hard)
        return self.built[key]

    def reset(self) -> None:
        """Empty every built solver's memo (their per-matrix arrays stay)."""
        for solver in self.built.values():
            solver.reset()


def class_bound(matrix: Matrix, settings: ClassSettings, members, target, hard_state=None, history=None):
    """`bound_class` with solvers of its own (what one class costs on its own, set-up included)."""
    return bound_class(ClassSolvers(matrix), settings, members, target, hard_state=hard_state, history=history)


def bound_class(solvers: ClassSolvers, settings: ClassSettings, members, target, hard_state=None, history=None):
    """(bound, method) for one response class: the first LB_j reaching `target`, else the exact MinTotal.

    With target None (an opener without a known tree) the exact MinTotal is computed directly.
    In normal mode LB_j are the normal-mode bounds; in hard mode (`hard_state` given) the hard-mode
    bounds from that state ("hard LB_j"), which are stronger.  Neither uses the guess limit, which only
    raises values.  The exact solve plays hard mode from `hard_state` (None = normal mode) with the
    settings' guesses left; a class it cannot solve in time gets a bound >= exact.IMPOSSIBLE.
    `history` (the opener, as a tuple of guess indices) and the settings' symmetry generators (both given or
    neither): the exact solve tries one guess per orbit of the symmetries fixing the guesses played so far, at
    the class's root and one level below (exact_symmetric.py).  The solvers' memos must be empty (new solvers,
    or reset ones).
    """
    members = np.array(members, dtype=np.int32)  # a writable copy: one kernel signature, in-process or a Ray task's
    hard = hard_state is not None
    memo_bits, left = settings.memo_bits, settings.left
    if target is not None:
        solver = solvers.bounds(settings.k_s, hard)
        for level in range(1, settings.max_level + 1):
            value, _ = (solver.lb(members, hard_state, level, target) if hard else
                        solver.lb(members, level, target))
            if value >= target:
                return int(value), f"hard LB_{level}" if hard else f"LB_{level}"
    if history is not None and settings.generators:
        search = solvers.symmetric(hard, memo_bits, left, settings.generators)
        value, _ = search.min_total(members, history, state=hard_state)
        return int(value), "exact"
    value, _ = solvers.exact(hard, memo_bits=memo_bits, left=left).min_total(members, state=hard_state)
    return int(value), "exact"


def close_opener(classes, n_secrets, ub, exact_solver, within=None, left=None, floor=None) -> list[tuple[int, str]]:
    """(bound, method) per class of an opener without a UB subtree, enough to settle it against ub.

    `classes` are (members, hard-mode state or None).  Classes start at their floor 2|C| - 1 (exact for
    |C| <= 2), raised by `floor(members, state)` -> (bound, method) where given (a lower bound such as LB_j: the
    more of the gap to ub the floors close, the fewer and cheaper the exact solves, here and in the check).  Under a
    guess limit (`within`, a Within, and the `left` guesses a class has), a class no strategy solves in time
    settles the opener on its own (bound IMPOSSIBLE; the others stay at their floors), so that is asked first,
    largest class first: far cheaper than solving the classes before it exactly.  Otherwise classes are solved
    exactly, largest first, each with the budget that would lift the opener past ub on its own: a
    solve that reaches its budget ends the work (the opener is worse than ub; that class's bound is then only a
    lower bound).  An opener whose sum ends at ub therefore has every class exact: it is optimal too."""
    bounds = [(2 * len(m) - 1, "exact" if len(m) <= 2 else "LB_1") for m, _ in classes]
    if within is not None:
        for c in sorted(range(len(classes)), key=lambda i: -len(classes[i][0])):
            if not within.solvable(classes[c][0], left, classes[c][1]):
                bounds[c] = (IMPOSSIBLE, "exact")
                return bounds
    if floor is not None:
        bounds = [max(b, floor(m, state), key=lambda bound: bound[0]) if len(m) > 2 else b
                  for b, (m, state) in zip(bounds, classes)]
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


def settle_opener(solvers: ClassSolvers, classes, *, ub, hard: bool, memo_bits, left, k_s,
                  level) -> list[tuple[int, str]]:
    """`close_opener` with the solvers of `solvers` for the game's mode and its `left` guesses (None = no limit),
    every class starting at its LB_level (hard-mode LB_level in hard mode)."""
    return close_opener(classes, n_secrets=solvers.matrix.n_secrets, ub=ub,
                        exact_solver=solvers.exact(hard, memo_bits=memo_bits, left=left),
                        within=None if left is None else solvers.within(hard), left=left,
                        floor=level_floor(solvers.bounds(k_s, hard), hard=hard, level=level))


def level_floor(solver, *, hard: bool, level: int):
    """floor(members, state) -> (LB_level of the class, its method name) with an LB_j solver of the game's mode."""
    def floor(members, state):
        members = np.array(members, dtype=np.int32)
        value, _ = solver.lb(members, state, level) if hard else solver.lb(members, level)
        return int(value), f"hard LB_{level}" if hard else f"LB_{level}"
    return floor


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
    word = game.encoded_guesses()[opener] if start is not None else None  # encoded once: it encodes every guess
    return [(game.code_text(code), members, update_state(*start, word, code) if start is not None else None)
            for code, members in survivor_classes(codes, game, opener)]


def subtree_totals(tree_json: dict) -> dict[str, int]:
    """Total of each child subtree of the root, by colour string: the targets of the opener's classes."""
    tree = from_json(tree_json)
    return {colours: sum(node.candidates for _, node in child.nodes()) for colours, child in tree.children.items()}
