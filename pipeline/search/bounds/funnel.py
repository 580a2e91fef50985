"""One level of the lower-bound funnel: which bounds compute it, and their values for a batch of openers.

In hard mode the hard-mode bounds (hard_bounds.py) compute the levels from `hard_from` on; every other level is
computed by the normal-mode bounds (bounds.py), valid in both modes.  The lower_bound stage computes its levels
this way and the projection benchmark samples them the same way, so both call this module.
"""

import numpy as np

from pipeline.search.bounds.hard import HardBoundSolver
from pipeline.search.bounds.lower import BoundSolver
from pipeline.search.matrix import Matrix


def level_rule(hard_mode: bool, hard_from: int, level: int) -> str:
    """Which bounds compute a level: "hard" (hard mode, from `hard_from` on) or "normal"."""
    return "hard" if hard_mode and level >= hard_from else "normal"


def funnel_levels(max_level: int, skipped) -> list[int]:
    """The levels a funnel computes, in order: 1..max_level without the `skipped` ones.  Every V_i is at most
    V*(g, S), so any level eliminates soundly and a level left out only moves its eliminations to a later one."""
    skipped = set(skipped)
    return [level for level in range(1, max_level + 1) if level not in skipped]


class FunnelSolvers:
    """The bounds of one code matrix that compute funnel levels, each built on first use and kept."""

    def __init__(self, matrix: Matrix, k_s):
        self.matrix, self.k_s = matrix, k_s
        self.built: dict[str, object] = {}

    def solver(self, rule: str):
        """The BoundSolver (rule "normal") or HardBoundSolver (rule "hard") of this matrix."""
        if rule not in self.built:
            m = self.matrix
            self.built[rule] = (
                HardBoundSolver(m.codes, m.n_codes, self.k_s, m.encoded_guesses, secret_of_guess=m.secret_of_guess,
                                encoded_secrets=m.encoded_secrets)
                if rule == "hard" else
                BoundSolver(m.codes, m.secret_of_guess, m.n_codes, self.k_s, m.encoded_guesses, m.encoded_secrets))
        return self.built[rule]

    def values(self, openers: np.ndarray, level: int, budget: int, rule: str) -> tuple[np.ndarray, np.ndarray]:
        """(V_level(g, S), exact) of every opener in `openers` by the `rule` bounds, early exit above `budget`."""
        return self.solver(rule).opener_values(openers, level, budget)
