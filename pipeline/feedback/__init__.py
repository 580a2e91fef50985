"""The guess x secret code matrix: numba kernel and Parquet I/O."""

from pipeline.compiled.cache import use_kernel_cache

use_kernel_cache()  # before any kernel of this room is defined
