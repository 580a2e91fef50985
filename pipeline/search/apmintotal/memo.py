"""ApMinTotal's memo: values of candidate sets (with their hard-mode state and guesses left) found so far.

An open-addressing table (linear probing) keyed by the node's key -- the sorted candidate set, then its
state tokens (apmintotal_search.write_key) -- hashed by FNV-1a; the keys themselves are kept in a pool and
compared exactly, so a look-up never mistakes one set for another.  It holds exact values with their guess
and proven lower bounds, bounded by `max_entries` and `max_pool` key members: when either is reached new
nodes are simply not memoised (values stay exact), nothing is evicted.

Not the exact search's memo (exact_kernels.py), although both are hash tables of candidate sets: that one
keys a node by two random 64-bit sums (a probabilistic 128-bit signature that a child's key is computed
from incrementally, no set stored), in 4-slot buckets that evict the smallest set and a table that grows
as it fills.  Sharing one implementation would change which nodes each search remembers, hence its node
counts, so each keeps the memo its search was measured with.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from pipeline.search.arrays import zeroed

# counters in the `info` array
ENTRIES, POOL_USED, SCANS, HITS, DROPPED, MAX_ENTRIES, MAX_POOL = range(7)

ApMemo = namedtuple("ApMemo", ["hash", "offset", "length", "value", "exact", "guess", "pool"])
ApMemo.__doc__ = """The memo: an open-addressing table of slots (key hash, offset and length of the key in `pool`,
value, whether the value is exact or only a lower bound, the guess behind an exact value) and the key pool."""


def new_memo(*, max_entries, max_pool):
    """An empty memo for up to `max_entries` nodes and `max_pool` key members, with its `info` counters
    (a table of at least twice `max_entries` slots, a power of two)."""
    slots = 1 << max(4, int(2 * max_entries - 1).bit_length())
    memo = ApMemo(zeroed(slots, np.int64), zeroed(slots, np.int64), zeroed(slots, np.int32),
                  zeroed(slots, np.int64), zeroed(slots, np.bool_), zeroed(slots, np.int64),
                  zeroed(max_pool, np.int64))
    info = np.zeros(7, dtype=np.int64)
    info[MAX_ENTRIES] = max_entries
    info[MAX_POOL] = max_pool
    return memo, info


def memo_stats(info) -> dict:
    """The memo's counters as a dict: entries, pool used, ranking scans, hits, nodes not memoised."""
    return {"memo_entries": int(info[ENTRIES]), "memo_pool": int(info[POOL_USED]), "scans": int(info[SCANS]),
            "memo_hits": int(info[HITS]), "memo_dropped": int(info[DROPPED])}


@njit(cache=True)
def key_hash(cand):
    """FNV-1a hash of a node key."""
    h = np.int64(-3750763034362895579)  # FNV-1a offset basis (as int64)
    for c in cand:
        h = (h ^ c) * np.int64(1099511628211)
    return h


@njit(cache=True)
def find_slot(cand, h, memo):
    """Slot holding `cand`, or -(empty slot) - 1 where it would go."""
    mask = memo.hash.shape[0] - 1
    slot = h & mask
    m = cand.shape[0]
    while memo.length[slot] != 0:
        if memo.hash[slot] == h and memo.length[slot] == m:
            off = memo.offset[slot]
            same = True
            for i in range(m):
                if memo.pool[off + i] != cand[i]:
                    same = False
                    break
            if same:
                return slot
        slot = (slot + 1) & mask
    return -slot - 1


@njit(cache=True)
def store(cand, h, slot, value, exact, guess, memo, info):
    """Memoise a node key's value (exact, with its guess, or a lower bound; a bound never replaces a higher
    value) at `slot` from `find_slot`, unless the table or the pool is full (counted in info[DROPPED])."""
    if slot < 0:  # look again: the recursion may have filled the empty slot found on entry
        slot = find_slot(cand, h, memo)
    if slot < 0:
        if info[ENTRIES] >= info[MAX_ENTRIES] or info[POOL_USED] + cand.shape[0] > info[MAX_POOL]:
            info[DROPPED] += 1
            return
        slot = -slot - 1
        off = info[POOL_USED]
        memo.pool[off: off + cand.shape[0]] = cand
        info[POOL_USED] += cand.shape[0]
        info[ENTRIES] += 1
        memo.hash[slot], memo.offset[slot], memo.length[slot] = h, off, cand.shape[0]
    elif not exact and value <= memo.value[slot]:
        return
    memo.value[slot], memo.exact[slot], memo.guess[slot] = value, exact, guess
