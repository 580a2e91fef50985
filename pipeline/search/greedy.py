"""Greedy strategy trees for a (combined) valuation (docs/algorithms.md §2).

At a node with candidate set C: if |C| <= 2 guess the first candidate
alphabetically; otherwise guess the argmin of the combination over all of G
(full ties to the lowest guess index), in the "paper" (float, default) or
"exact" arithmetic of `pipeline.search.valuations`.  In hard mode the argmin
runs over the guesses the NYT rule allows after the responses that led to
the node (`pipeline.search.hard_mode`).  The whole tree is built in one
numba kernel, breadth first, as flat node arrays (see
`pipeline.search.tree.from_arrays`).  A greedy tree ignores any guess
limit: callers compare its depth with the game's (`GreedyResult.depth`).
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from pipeline.search.hard_mode import MAX_SYMBOLS, allowed_into, symbol_counts, update_state
from pipeline.search.tree import Tree, from_arrays
from pipeline.search.valuations import (
    VALUATIONS, best_guess, best_guess_paper, check_arithmetic, combination_ids, paper_terms, tlogt_table, transposed,
)


@njit(cache=True)
def grow_array(a, size):
    """A copy of `a` with room for at least `size` items (doubling)."""
    out = np.empty(max(size, 2 * a.shape[0]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def grow_rows(a, size):
    """A copy of the 2-D array `a` with room for at least `size` rows (doubling)."""
    out = np.empty((max(size, 2 * a.shape[0]), a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def partition(row, cand, win, counts, out, class_start, class_code):
    """Stable counting sort of `cand` by response code, the win class left out.

    Writes the classes contiguously into `out`; class j is
    out[class_start[j]:class_start[j+1]] with code class_code[j], codes
    ascending.  Returns the number of classes.  `counts` is a zeroed scratch
    array of size n_codes and is left zeroed.
    """
    n_classes = 0
    for c in cand:
        r = row[c]
        if r != win:
            if counts[r] == 0:
                class_code[n_classes] = r
                n_classes += 1
            counts[r] += 1
    class_code[:n_classes].sort()
    pos = 0
    for j in range(n_classes):
        r = class_code[j]
        class_start[j] = pos
        pos += counts[r]
        counts[r] = class_start[j]  # becomes the write cursor of the class
    class_start[n_classes] = pos
    for c in cand:
        r = row[c]
        if r != win:
            out[counts[r]] = c
            counts[r] += 1
    for j in range(n_classes):
        counts[class_code[j]] = 0
    return n_classes


@njit(cache=True)
def _greedy_nodes(codes, codes_t, secret_of_guess, guess_of_secret, n_codes, combo, tlogt, paper, hard, words,
                  word_counts):
    """Breadth-first greedy tree as node arrays (node_guess, node_parent, node_code, node_size).

    `paper` selects the paper arithmetic (then `tlogt` is unused); `hard`
    restricts every node's choice to the guesses hard mode allows (`words`
    = the encoded guesses and `word_counts` their symbol counts, used only
    then).  Candidate
    sets stay in index order (the partition is stable), which is the order the
    paper arithmetic sums the classes in.

    A node's guess is -1 if the chosen guess failed to split its set (cannot
    happen when S is a subset of G, kept as a guard).
    """
    n_secrets = codes_t.shape[0]
    win = n_codes - 1
    pool = np.empty(4 * n_secrets, dtype=np.int64)
    pool[:n_secrets] = np.arange(n_secrets)
    cap = 2 * n_secrets
    start = np.empty(cap, dtype=np.int64)
    size = np.empty(cap, dtype=np.int64)
    parent = np.empty(cap, dtype=np.int64)
    code = np.empty(cap, dtype=np.int64)
    guess = np.empty(cap, dtype=np.int64)
    start[0], size[0], parent[0], code[0] = 0, n_secrets, -1, -1
    n_nodes, pool_end = 1, n_secrets
    in_c = np.zeros(n_secrets, dtype=np.bool_)
    counts = np.zeros(n_codes, dtype=np.int32)
    buf = np.empty(n_secrets, dtype=np.int64)
    class_start = np.empty(n_secrets + 1, dtype=np.int64)
    class_code = np.empty(n_secrets, dtype=np.int64)
    info_term = np.zeros(n_secrets + 1, dtype=np.float64)
    exp_term = np.zeros(n_secrets + 1, dtype=np.float64)
    greens = np.full((cap, words.shape[1]), -1, dtype=np.int8)  # hard-mode state of every node
    at_least = np.zeros((cap, MAX_SYMBOLS), dtype=np.int8)
    allowed = np.zeros(codes.shape[0] if hard else 0, dtype=np.bool_)
    head = 0
    while head < n_nodes:
        cand = pool[start[head]: start[head] + size[head]]
        if cand.shape[0] <= 2:
            g = guess_of_secret[cand[0]]
        else:
            in_c[cand] = True
            if hard:
                allowed_into(words, word_counts, greens[head], at_least[head], allowed)
            if paper:
                paper_terms(cand.shape[0], info_term, exp_term)
                g = best_guess_paper(codes, codes_t, cand, in_c, secret_of_guess, counts, info_term, exp_term, combo,
                                     allowed)
            else:
                g = best_guess(codes, codes_t, cand, in_c, secret_of_guess, counts, tlogt, combo, allowed)
            in_c[cand] = False
        guess[head] = g
        k = partition(codes[g], cand, win, counts, buf, class_start, class_code)
        if k == 1 and class_start[1] == cand.shape[0]:
            guess[head] = -1  # no progress: do not expand
            k = 0
        if n_nodes + k > start.shape[0]:
            need = n_nodes + k
            start, size, parent = grow_array(start, need), grow_array(size, need), grow_array(parent, need)
            code, guess = grow_array(code, need), grow_array(guess, need)
            greens, at_least = grow_rows(greens, need), grow_rows(at_least, need)
        if pool_end + class_start[k] > pool.shape[0]:
            pool = grow_array(pool, pool_end + class_start[k])
        for j in range(k):
            start[n_nodes] = pool_end + class_start[j]
            size[n_nodes] = class_start[j + 1] - class_start[j]
            parent[n_nodes] = head
            code[n_nodes] = class_code[j]
            if hard:
                greens[n_nodes], at_least[n_nodes] = update_state(greens[head], at_least[head], words[g],
                                                                  class_code[j])
            n_nodes += 1
        pool[pool_end: pool_end + class_start[k]] = buf[: class_start[k]]
        pool_end += class_start[k]
        head += 1
    return guess[:n_nodes], parent[:n_nodes], code[:n_nodes], size[:n_nodes]


@dataclass
class GreedyResult:
    """A greedy tree as node arrays (breadth first; node 0 is the root)."""

    combination: tuple[str, ...]
    total: int
    opener: int
    node_guess: np.ndarray
    node_parent: np.ndarray
    node_code: np.ndarray
    node_size: np.ndarray

    def tree(self, guesses, length) -> Tree:
        return from_arrays(guesses, length, self.node_guess, self.node_parent, self.node_code, self.node_size)

    @property
    def depth(self) -> int:
        """The most guesses the tree needs for any secret (parents come before their children)."""
        depth = np.ones(len(self.node_parent), dtype=np.int64)
        for i in range(1, len(depth)):
            depth[i] = depth[self.node_parent[i]] + 1
        return int(depth.max())


def guess_of_secret(secret_of_guess: np.ndarray, n_secrets: int) -> np.ndarray:
    """Inverse of secret_of_guess: the guess index of every secret (S must be a subset of G)."""
    out = np.full(n_secrets, -1, dtype=np.int64)
    idx = np.flatnonzero(secret_of_guess >= 0)
    out[secret_of_guess[idx]] = idx
    if (out < 0).any():
        raise ValueError("every secret must also be an allowed guess")
    return out


def greedy(codes, secret_of_guess, n_codes, combination, codes_t=None, arithmetic: str = "paper",
           encoded_guesses=None) -> GreedyResult:
    """The greedy tree of a valuation combination ("MostParts,InSet" or a list of names).

    With `encoded_guesses` (the guesses as symbol indices) the tree plays
    hard mode: every choice is among the guesses the NYT rule allows.

    `codes` is the (G, S) code matrix; pass its transpose `codes_t` too when
    evaluating many combinations, to build it once.  `arithmetic` is "paper"
    (float64 as the paper's implementation, reproduces its Table 1) or "exact"
    (see `pipeline.search.valuations`).
    """
    check_arithmetic(arithmetic)
    ids = combination_ids(combination)
    if codes_t is None:
        codes_t = transposed(codes)
    sog = np.asarray(secret_of_guess, dtype=np.int32)
    gos = guess_of_secret(sog, codes_t.shape[0])
    paper = arithmetic == "paper"
    tlogt = np.zeros(1, dtype=np.int64) if paper else tlogt_table(codes_t.shape[0])  # unused when paper
    hard = encoded_guesses is not None
    length = int(round(np.log(n_codes) / np.log(3)))
    words = (np.ascontiguousarray(encoded_guesses, dtype=np.uint8) if hard
             else np.zeros((0, length), dtype=np.uint8))
    g, p, c, s = _greedy_nodes(codes, codes_t, sog, gos, int(n_codes), ids, tlogt, paper, hard, words,
                               symbol_counts(words))
    if (g < 0).any():
        raise ValueError("a greedy guess failed to split its candidate set")
    return GreedyResult(tuple(VALUATIONS[i] for i in ids), int(s.sum()), int(g[0]), g, p, c, s)
