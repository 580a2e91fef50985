"""The mathematics: pure functions over a code matrix (no Ray, Hydra or pyarrow)."""

from pipeline.compiled.cache import use_kernel_cache

use_kernel_cache()  # before any kernel of this room is defined
