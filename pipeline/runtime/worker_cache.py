"""One value per worker process, built once for a set of input arrays and lent to task after task.

Some tasks need an object that costs seconds to build from the fan-out's shared arrays (a solver over a
code matrix) and little to use; a worker process that runs many such tasks keeps the one built for its
last inputs and lends it again while the inputs stay the same.  The cache holds a single entry and
knows nothing of what it holds: the caller gives the builder, the arrays that name the entry, and what
to do with the value after each task (`release`, e.g. emptying memos so every task starts afresh)."""

from collections.abc import Callable, Iterator
from contextlib import contextmanager

import numpy as np

SMALL_ARRAY = 1 << 20  # bytes: an array this small is named by its contents, a bigger one by its buffer
_CACHED: list = []  # [(key, the arrays it names, value)]: this process's value from its last task


def array_key(array) -> tuple | None:
    """What names an input array in the cache.  A small one by its bytes (Ray copies it into every task); a
    big one by where its buffer lies: Ray maps the same immutable object-store buffer into every task of a
    process, the cache holds the array so no other can take that place, and the driver forgets the cache
    after each fan-out (`forget`), so an in-process run's arrays cannot change under it."""
    if array is None:
        return None
    array = np.asarray(array)
    if array.nbytes <= SMALL_ARRAY:
        return array.dtype.str, array.shape, array.tobytes()
    return array.dtype.str, array.shape, array.strides, array.__array_interface__["data"][0]


@contextmanager
def lent(build: Callable[[], object], *, arrays: tuple, extra: object = None,
         release: Callable[[object], None] | None = None) -> Iterator[object]:
    """The value `build()` gave this process's previous task when it named the same `arrays` (and the same
    hashable `extra`), else a new one kept for the next task; `release(value)` runs when the task ends."""
    key = (tuple(array_key(a) for a in arrays), extra)
    if not _CACHED or _CACHED[0][0] != key:
        _CACHED[:] = [(key, arrays, build())]
    value = _CACHED[0][2]
    try:
        yield value
    finally:
        if release is not None:
            release(value)


def cached() -> object | None:
    """The value this process holds (None when it holds none)."""
    return _CACHED[0][2] if _CACHED else None


def forget() -> None:
    """Drop the value and the arrays it holds (the driver, after a fan-out some of whose tasks ran here)."""
    _CACHED.clear()
