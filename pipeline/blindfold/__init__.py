"""Blindfold (offline) Wordle: the fewest fixed guesses identifying every secret.

`pairs`: pair generation (seeds, classes a guess set leaves), separators as
sparse rows, dominance reductions.  `model`: the set-cover MIP on HiGHS and
the lazy loop (`solve_blindfold`).  No Ray, Hydra or Arrow here.

The package imports none of its modules: its modules import each other
(`from pipeline.blindfold import pairs`), so an import here would close a
circle; callers import what they use from the module that defines it.
"""

from pipeline.compiled.cache import use_kernel_cache

use_kernel_cache()  # before any kernel of this room is defined
