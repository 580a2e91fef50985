"""Blindfold (offline) Wordle: the fewest fixed guesses identifying every secret.

`pairs`: pair generation (seeds, classes a guess set leaves), separators as
sparse rows, dominance reductions.  `model`: the set-cover MIP on HiGHS and
the lazy loop (`solve_blindfold`).  No Ray, Hydra or Arrow here.
"""

from pipeline.blindfold.model import (
    BlindfoldResult,
    CoverModel,
    RoundInfo,
    check,
    greedy_complete,
    solve_blindfold,
)

__all__ = [
    "BlindfoldResult",
    "CoverModel",
    "RoundInfo",
    "check",
    "greedy_complete",
    "solve_blindfold",
]
