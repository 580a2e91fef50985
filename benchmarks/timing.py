"""Timing helper shared by the benchmark scripts (imported from beside them)."""

import time


def best_of(fn, repeats=3):
    """(fastest wall seconds over `repeats` calls of fn, the last result)."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        result = fn()
        times.append(time.perf_counter() - start)
    return min(times), result
