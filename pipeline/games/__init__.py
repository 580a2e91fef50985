"""What a game is: its word lists, their generators, and the answering function."""

from pipeline.compiled.cache import use_kernel_cache

use_kernel_cache()  # before any kernel of this room is defined
