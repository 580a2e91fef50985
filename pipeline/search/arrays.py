"""Arrays as the numba kernels take them: one array type per dtype, whoever calls."""

import mmap

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


def zeroed(shape, dtype) -> np.ndarray:
    """A writable zero-filled array in its own anonymous memory map (pages appear zeroed on first touch).

    np.zeros of a large array asks the kernel for transparent huge pages; on a machine whose memory is
    fragmented, the first touch of each one may stall for a compaction (measured: up to 1 s of system time
    for an exact search's memo, about 40 ms with ordinary pages).  A search touches its memo and scratch
    sparsely, so it has no use for huge pages."""
    shape = (shape,) if np.isscalar(shape) else tuple(shape)
    count = int(np.prod(shape))
    buffer = mmap.mmap(-1, max(1, count * np.dtype(dtype).itemsize))
    return np.frombuffer(buffer, dtype=dtype, count=count).reshape(shape)
