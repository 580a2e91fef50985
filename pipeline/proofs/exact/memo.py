"""The exact search's memo in numba: a search state (candidate set, guesses left, hard-mode rule) -> (value, exact).

A state is looked up by a 63-bit hash of its numbers, and a hit counts only when every number of the stored state
equals the asked one (the hash only picks the chain of states to compare): two states sharing a hash never share
an answer.  Kept in numba's typed containers so that a search running in numba reads and writes it without
returning to Python.  A solver lives as long as a check's worker, through hundreds of closure classes: its memo is
emptied between searches once it holds STATES_LIMIT states (solver.py), which costs only recomputation.
"""

import numpy as np
from numba import njit, types
from numba.typed import Dict, List

STATES_LIMIT = 1_000_000  # search states a solver's memo holds before it is emptied (between two searches)
HASH_START = np.uint64(14695981039346656037)  # FNV-1a's offset basis and prime
HASH_STEP = np.uint64(1099511628211)


def new_memo() -> tuple:
    """(chain head of each hash, next state of each state, their candidate sets, their other numbers, their values,
    1 where a value is exact)."""
    return (Dict.empty(types.int64, types.int64), List.empty_list(types.int64), List.empty_list(types.int32[::1]),
            List.empty_list(types.int64[::1]), List.empty_list(types.int64), List.empty_list(types.int64))


def states(memo) -> int:
    """How many search states `memo` holds."""
    return len(memo[4])


@njit(cache=True)
def state_key(cands, left, fixed, least):
    """(hash, the state's numbers besides its candidates: left, then the rule's fixed symbols and least counts)."""
    numbers = np.empty(1 + fixed.shape[0] + least.shape[0], dtype=np.int64)
    numbers[0] = left
    numbers[1:1 + fixed.shape[0]] = fixed
    numbers[1 + fixed.shape[0]:] = least
    h = HASH_START
    for c in cands:
        h = (h ^ np.uint64(c)) * HASH_STEP
    h = (h ^ np.uint64(cands.shape[0])) * HASH_STEP
    for x in numbers:
        h = (h ^ np.uint64(x + 2)) * HASH_STEP
    return np.int64(h >> np.uint64(1)), numbers


@njit(cache=True)
def same(a, b) -> bool:
    if a.shape[0] != b.shape[0]:
        return False
    for i in range(a.shape[0]):
        if a[i] != b[i]:
            return False
    return True


@njit(cache=True)
def find(memo, h, cands, numbers) -> int:
    """The index of the stored state equal to (cands, numbers), or -1."""
    heads, following, stored_cands, stored_numbers = memo[0], memo[1], memo[2], memo[3]
    at = heads[h] if h in heads else -1
    while at >= 0:
        if same(stored_cands[at], cands) and same(stored_numbers[at], numbers):
            return at
        at = following[at]
    return -1


@njit(cache=True)
def store(memo, h, cands, numbers, value, exact) -> None:
    """Record (value, exact) for the state, over what was known of it."""
    heads, following, stored_cands, stored_numbers, values, exacts = memo
    at = find(memo, h, cands, numbers)
    if at < 0:
        at = len(values)
        following.append(heads[h] if h in heads else -1)
        heads[h] = at
        stored_cands.append(cands.copy())
        stored_numbers.append(numbers)
        values.append(0)
        exacts.append(0)
    values[at] = value
    exacts[at] = 1 if exact else 0
