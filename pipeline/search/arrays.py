"""Arrays as the numba kernels take them: one array type per dtype, whoever calls."""

import numpy as np


def kernel_input(array, dtype=None) -> np.ndarray:
    """`array` C-contiguous and read-only (a view when it already is contiguous, else a copy).

    numba compiles a kernel once per argument type, and a read-only array is another type than a writable one:
    arrays shared with Ray tasks (or the in-process executor) arrive read-only, a caller's own are writable.
    Handing every kernel read-only inputs compiles it once per dtype instead of twice (the exact search takes
    about a minute to compile), for the command line and the test suite alike."""
    out = np.ascontiguousarray(array, dtype=dtype)
    if out.flags.writeable:
        out = out.view()
        out.flags.writeable = False
    return out
