"""Greedy strategy trees for a (combined) valuation (docs/algorithms.md §2).

At a node with candidate set C: if |C| <= 2 guess the first candidate
alphabetically; otherwise guess the argmin of the combination over all of G
(full ties to the lowest guess index), in the "paper" (float, default) or
"exact" arithmetic of `pipeline.search.strategies.valuations`.  In hard mode the argmin
runs over the guesses the NYT rule allows after the responses that led to
the node (`pipeline.search.hard_mode`).  The whole tree is built in one
numba kernel, breadth first, as flat node arrays (see
`pipeline.search.tree.from_arrays`).  A greedy tree ignores any guess
limit: callers compare its depth with the game's (`GreedyResult.depth`).
"""

from dataclasses import dataclass

import numpy as np
from numba import njit

from pipeline.search.arrays import kernel_input
from pipeline.search.strategies.breadth_first import NODES, UNLIMITED, expand, new_nodes, node_arrays, node_set
from pipeline.search.hard_mode import MAX_SYMBOLS, allowed_into, symbol_counts
from pipeline.search.matrix import Matrix
from pipeline.search.partition import guess_of_secret
from pipeline.search.tree import Tree, from_arrays
from pipeline.search.strategies.valuations import VALUATIONS, arithmetic_of, best_guess, combination_ids


@njit(cache=True)
def _greedy_nodes(codes, codes_t, secret_of_guess, guess_of_secret, n_codes, combo, arith, hard, words,
                  word_counts):
    """Breadth-first greedy tree as node arrays (node_guess, node_parent, node_code, node_size).

    `arith` is the valuations' arithmetic (`valuations.arithmetic_of`);
    `hard` restricts every node's choice to the guesses hard mode allows
    (`words` = the encoded guesses and `word_counts` their symbol counts, used
    only then).  Candidate sets stay in index order (the split is stable),
    which is the order the paper arithmetic sums the classes in.

    A node's guess is -1 if the chosen guess failed to split its set (cannot
    happen when S is a subset of G, kept as a guard).
    """
    n_secrets = codes_t.shape[0]
    greens0, at_least0 = np.full(words.shape[1], -1, dtype=np.int8), np.zeros(MAX_SYMBOLS, dtype=np.int8)
    nodes, pool = new_nodes(np.arange(n_secrets), greens0, at_least0, UNLIMITED)
    in_c = np.zeros(n_secrets, dtype=np.bool_)
    counts = np.zeros(n_codes, dtype=np.int32)
    allowed = np.zeros(codes.shape[0] if hard else 0, dtype=np.bool_)
    head = 0
    while head < nodes.top[NODES]:
        cand = node_set(nodes, pool, head)
        if cand.shape[0] <= 2:
            g = guess_of_secret[cand[0]]
        else:
            in_c[cand] = True
            if hard:
                allowed_into(words, word_counts, nodes.greens[head], nodes.at_least[head], allowed)
            g = best_guess(codes, codes_t, cand, in_c, secret_of_guess, counts, arith, combo, allowed)
            in_c[cand] = False
        pool, k = expand(nodes, pool, head, g, codes[g], n_codes - 1, counts, hard, words)
        if k < 0:
            nodes.guess[head] = -1  # no progress: do not expand
        head += 1
    return node_arrays(nodes)


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


def greedy(matrix: Matrix, combination, *, arithmetic: str = "paper", hard_mode: bool = False) -> GreedyResult:
    """The greedy tree of a valuation combination ("MostParts,InSet" or a list of names).

    With `hard_mode` (which reads the matrix's encoded guesses) the tree plays
    hard mode: every choice is among the guesses the NYT rule allows.

    Give `matrix` its transpose (`Matrix.with_transpose`) when evaluating many
    combinations, to build it once.  `arithmetic` is "paper"
    (float64 as the paper's implementation, reproduces its Table 1) or "exact"
    (see `pipeline.search.strategies.valuations`).
    """
    n_codes = matrix.n_codes
    arith = arithmetic_of(arithmetic, matrix.n_secrets, n_codes)
    ids = combination_ids(combination)
    codes_t = matrix.transposed()
    sog = kernel_input(matrix.secret_of_guess, dtype=np.int32)
    gos = guess_of_secret(sog, codes_t.shape[0])
    if hard_mode and matrix.encoded_guesses is None:
        raise ValueError("hard mode needs the encoded guesses")
    length = int(round(np.log(n_codes) / np.log(3)))
    words = kernel_input(matrix.encoded_guesses if hard_mode else np.zeros((0, length)), dtype=np.uint8)
    g, p, c, s = _greedy_nodes(matrix.codes, codes_t, sog, gos, n_codes, ids, arith, bool(hard_mode), words,
                               symbol_counts(words))
    if (g < 0).any():
        raise ValueError("a greedy guess failed to split its candidate set")
    return GreedyResult(tuple(VALUATIONS[i] for i in ids), int(s.sum()), int(g[0]), g, p, c, s)
