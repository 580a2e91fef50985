"""Strategy trees built breadth first as flat node arrays: the builder the greedy and ApMinTotal trees share.

A builder makes the root with `new_nodes`, then visits the nodes in order
(head = 0, 1, ... while head < nodes.top[NODES]): it reads the node's
candidate set with `node_set`, picks a guess its own way and calls `expand`,
which splits the set by the guess (`partition.split_classes`: win class
left out, classes by code, members in index order) and appends one child
per class with its response code, hard-mode state and guesses left.  A tree
whose every guess makes progress has fewer than 2|C| nodes, so the node
arrays never grow; the candidate pool doubles when it must.  `node_arrays`
returns (node_guess, node_parent, node_code, node_size) as
`pipeline.search.tree.from_arrays` takes them.
"""

from collections import namedtuple

import numpy as np
from numba import njit

from pipeline.search.hard_mode import update_state
from pipeline.search.partition import split_classes

UNLIMITED = 1 << 30  # guesses left when the game has no limit
NODES, POOL_END = 0, 1  # fields of Nodes.top

Nodes = namedtuple("Nodes", ["start", "size", "parent", "code", "guess", "left", "greens", "at_least", "top",
                             "members", "class_start", "class_code"])
Nodes.__doc__ = """Per node: its set's offset in the pool and size, parent, response code, guess, guesses left and
hard-mode state; `top` = [number of nodes, end of the pool]; then the split scratch."""


@njit(cache=True)
def grow_array(a, size):
    """A copy of `a` with room for at least `size` items (doubling)."""
    out = np.empty(max(size, 2 * a.shape[0]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def new_nodes(root, greens0, at_least0, left0):
    """(nodes, pool) holding only the root: candidate set `root`, hard-mode state, `left0` guesses left."""
    n = root.shape[0]
    cap = 2 * n + 1
    pool = np.empty(4 * n, dtype=np.int64)
    pool[:n] = root
    greens = np.empty((cap, greens0.shape[0]), dtype=np.int8)
    at_least = np.empty((cap, at_least0.shape[0]), dtype=np.int8)
    greens[0], at_least[0] = greens0, at_least0
    nodes = Nodes(np.zeros(cap, dtype=np.int64), np.zeros(cap, dtype=np.int64), np.full(cap, -1, dtype=np.int64),
                  np.full(cap, -1, dtype=np.int64), np.full(cap, -1, dtype=np.int64), np.zeros(cap, dtype=np.int64),
                  greens, at_least, np.array([1, n], dtype=np.int64),
                  np.empty(n, dtype=np.int64), np.empty(n + 1, dtype=np.int64), np.empty(n, dtype=np.int64))
    nodes.size[0], nodes.left[0] = n, left0
    return nodes, pool


@njit(cache=True)
def node_set(nodes, pool, head):
    """The candidate set of node `head` (a view into the pool)."""
    return pool[nodes.start[head]: nodes.start[head] + nodes.size[head]]


@njit(cache=True)
def expand(nodes, pool, head, g, line, win, counts, hard, words):
    """Play guess g (code line `line`) at node `head`: append a child per non-win class of its set.

    Returns (pool, number of children), the count -1 without any child when
    g leaves the set whole (no progress) or the node arrays are full.
    `counts` is a zeroed scratch array of size n_codes; `words` the encoded
    guesses (read in hard mode only).
    """
    cand = node_set(nodes, pool, head)
    nodes.guess[head] = g
    k, _, _ = split_classes(line, cand, counts, win, 1, True, nodes.members, 0, nodes.class_start, nodes.class_code)
    n_nodes, pool_end = nodes.top[NODES], nodes.top[POOL_END]
    used = nodes.class_start[k]
    if (k == 1 and used == cand.shape[0]) or n_nodes + k > nodes.start.shape[0]:
        return pool, -1
    if pool_end + used > pool.shape[0]:
        pool = grow_array(pool, pool_end + used)
    left = nodes.left[head] - 1 if nodes.left[head] < UNLIMITED else UNLIMITED
    for j in range(k):
        child = n_nodes + j
        nodes.start[child] = pool_end + nodes.class_start[j]
        nodes.size[child] = nodes.class_start[j + 1] - nodes.class_start[j]
        nodes.parent[child], nodes.code[child], nodes.left[child] = head, nodes.class_code[j], left
        if hard:
            state = update_state(nodes.greens[head], nodes.at_least[head], words[g], nodes.class_code[j])
            nodes.greens[child], nodes.at_least[child] = state
        else:
            nodes.greens[child], nodes.at_least[child] = nodes.greens[head], nodes.at_least[head]
    pool[pool_end: pool_end + used] = nodes.members[:used]
    nodes.top[NODES], nodes.top[POOL_END] = n_nodes + k, pool_end + used
    return pool, k


@njit(cache=True)
def node_arrays(nodes):
    """(node_guess, node_parent, node_code, node_size) of the nodes built so far."""
    n = nodes.top[NODES]
    return nodes.guess[:n], nodes.parent[:n], nodes.code[:n], nodes.size[:n]
