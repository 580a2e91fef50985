"""The exact MinTotal search of proofs/exact/solver.py, node by node in numba.

`search` is the whole depth-first search below a node (solver.py's docstring gives its rules); `node_step` and
`class_floors` are the parts of one node that solver.py also runs from Python for the nodes where a game's
symmetries still prune guesses.  `game` is the tuple (codes, words, counts, guess_of_secret, n_codes, costs, hard,
seen) that ExactSolver builds, `memo` memo.py's table; a rule is its arrays (fixed symbol per position or -1, least
count per symbol), all free in normal mode; guesses left is NO_LIMIT when there is no limit.
"""

import numpy as np
from numba import njit
from numba.typed import List

from pipeline.proofs.bounds.lower import split
from pipeline.proofs.exact.memo import find, state_key, store
from pipeline.proofs.exact.nodes import INFEASIBLE, NO_LIMIT, node_options, one_fewer, part_counts, \
    perfect_candidate
from pipeline.proofs.game.hard_mode import rule_after

SMALL_CLASS = 8  # classes up to this size are checked for a splitting candidate before any search


@njit(cache=True)
def legal_mask(words, counts, fixed, least, listed):
    """Which `listed` guesses keep the rule's greens and least counts (reading only the positions and symbols it
    constrains)."""
    places = np.flatnonzero(fixed >= 0)
    symbols = np.flatnonzero(least > 0)
    keep = np.ones(listed.shape[0], dtype=np.bool_)
    for j in range(listed.shape[0]):
        g = listed[j]
        for i in places:
            if words[g, i] != fixed[i]:
                keep[j] = False
                break
        if keep[j]:
            for x in symbols:
                if counts[g, x] < least[x]:
                    keep[j] = False
                    break
    return keep


@njit(cache=True)
def closed_value(game, cands, left, fixed, least, legal):
    """(the value of C when no search is needed, else -1; the `legal` guesses' part counts on C when that is
    known).  |C| >= 3: 2|C| - 1 when a candidate gives every candidate its own answer; else MinTotal(C) >= 2|C|,
    which a guess that does makes, as does one candidate and then the other two of three; else with two guesses
    left some secret needs a third: INFEASIBLE."""
    codes, words, counts, guess_of_secret, n_codes, seen = game[0], game[1], game[2], game[3], game[4], game[7]
    n = cands.shape[0]
    if perfect_candidate(codes, guess_of_secret, words, counts, fixed, least, cands, seen):
        return 2 * n - 1, legal[:0]
    if n == 3 and (left == NO_LIMIT or left >= 3):
        return 2 * n, legal[:0]
    parts, perfect = part_counts(codes, legal, cands, n_codes)
    if perfect:
        return 2 * n, parts
    return (INFEASIBLE if left == 2 else -1), parts


@njit(cache=True)
def node_step(game, memo, cands, left, fixed, least, beta, listed, searched):
    """(value, the legal listed guesses that split C, those to search with floor < beta best first, their floors,
    k): value >= 0 when C needs no search (the guess limit, |C| <= 2, the memo, a closed form; the arrays are then
    empty), else -1.  `searched`: which listed guesses to search (one per orbit of a symmetry; all True without)."""
    codes, words, counts, guess_of_secret, n_codes, costs, hard, seen = game
    none = listed[:0]
    n = cands.shape[0]
    if (left != NO_LIMIT and left < 1) or (left == 1 and n > 1):
        return INFEASIBLE, none, none, none.astype(np.int64), 0
    if n <= 2:
        return 2 * n - 1, none, none, none.astype(np.int64), 0
    h, numbers = state_key(cands, left, fixed, least)
    at = find(memo, h, cands, numbers)
    if at >= 0 and (memo[5][at] == 1 or memo[4][at] >= beta):
        return memo[4][at], none, none, none.astype(np.int64), 0
    keep = legal_mask(words, counts, fixed, least, listed) if hard else np.ones(listed.shape[0], dtype=np.bool_)
    legal = listed[keep]
    value, parts = closed_value(game, cands, left, fixed, least, legal)
    if value >= 0:
        store(memo, h, cands, numbers, value, True)
        return value, none, none, none.astype(np.int64), 0
    useful, options, floors, k = node_options(codes, legal, cands, parts, n_codes, costs, beta, searched[keep])
    return -1, useful, options, floors, k


@njit(cache=True)
def class_floors(game, memo, members, starts, sizes, k, deeper, fixed, least):
    """(floor, settled) of each non-win class of a guess: costs[k, size], raised by the memo; in normal mode (where
    a guess is searched, two or more guesses are left below it: node_step settles every set with two left), a
    class of up to SMALL_CLASS candidates is settled at once when a candidate splits it
    into singletons (2s - 1, the least a class of s can cost) and otherwise starts at 2s."""
    codes, words, counts, guess_of_secret, n_codes, costs, hard, seen = game
    floors = np.empty(sizes.shape[0], dtype=np.int64)
    settled = np.zeros(sizes.shape[0], dtype=np.bool_)
    for c in range(sizes.shape[0]):
        floors[c] = costs[k, sizes[c]]
    if hard:  # a hard-mode class's rule is read only when it is searched: nothing is settled here
        return floors, settled
    for c in range(sizes.shape[0]):
        size = sizes[c]
        cls = members[starts[c]:starts[c] + size]
        h, numbers = state_key(cls, deeper, fixed, least)
        at = find(memo, h, cls, numbers)
        if at >= 0:
            floors[c], settled[c] = max(floors[c], memo[4][at]), memo[5][at] == 1
        elif size <= 2 or (size <= SMALL_CLASS and perfect_candidate(codes, guess_of_secret, words, counts, fixed,
                                                                    least, cls, seen)):
            floors[c], settled[c] = 2 * size - 1, True
        elif size <= SMALL_CLASS:
            floors[c] = max(floors[c], 2 * size)
    return floors, settled


# a frame's numbers (one row of `numbers` per depth): guesses left, k, the next option, the best total so far,
# whether it is exact, the position of the class being valued in the guess's class order (-1: between guesses),
# the guess's running total
LEFT, K, OPTION, BEST, EXACT, CLASS, TOTAL = range(7)


@njit(cache=True)
def put(frames, depth, item):
    """frames[depth] = item, growing the list by one when depth is its length."""
    if depth < len(frames):
        frames[depth] = item
    else:
        frames.append(item)


@njit(cache=True)
def begin_guess(game, memo, node, guesses, row, depth):
    """Split the node's next option and set its guess frame: class floors (class_floors), the classes smallest
    first, the total |C| + the floors."""
    cands, fixed, least, useful, options, floors = node
    codes, n_codes = game[0], game[4]
    members, starts, sizes = split(codes[options[row[OPTION]]], cands, n_codes)
    deeper = one_fewer(row[LEFT])
    class_floor, settled = class_floors(game, memo, members, starts, sizes, row[K], deeper, fixed, least)
    put(guesses, depth, (members, starts, sizes, np.argsort(sizes, kind="mergesort"), class_floor, settled))
    row[CLASS], row[TOTAL] = 0, cands.shape[0] + class_floor.sum()


@njit(cache=True)
def search(game, memo, cands, left, fixed, least, beta, listed):
    """MinTotal(C) with `left` guesses still allowed under the rule fixed / least, exact when below beta (else
    some value >= beta); `listed`: the guesses that split a superset of C (no other splits C).

    Depth first, each class of a guess (smallest first, budget: what the best total leaves it) a node below it.
    numba cannot cache a recursive function, so the nodes under way are frames of an explicit stack: the node's
    arrays in `nodes`, its current guess's in `guesses`, its numbers in a row of `numbers`."""
    codes, words, n_codes, hard = game[0], game[1], game[4], game[6]
    value, useful, options, floors, k = node_step(game, memo, cands, left, fixed, least, beta, listed,
                                                  np.ones(listed.shape[0], dtype=np.bool_))
    if value >= 0:
        return value
    nodes = List([(cands, fixed, least, useful, options, floors)])
    none = floors[:0]
    guesses = List([(cands[:0], none, none, none, none, np.zeros(0, dtype=np.bool_))])  # typed by a placeholder
    numbers = np.zeros((cands.shape[0] + 1, 7), dtype=np.int64)
    numbers[0, LEFT], numbers[0, K], numbers[0, BEST], numbers[0, CLASS] = left, k, beta, -1
    depth = 0
    while True:
        node, row = nodes[depth], numbers[depth]
        if row[CLASS] < 0:  # between guesses: the next option, or the node is done
            if row[OPTION] < node[4].shape[0] and node[5][row[OPTION]] < row[BEST]:
                begin_guess(game, memo, node, guesses, row, depth)
                continue
            h, key = state_key(node[0], row[LEFT], node[1], node[2])
            store(memo, h, node[0], key, row[BEST], row[EXACT] == 1)
            if depth == 0:
                return row[BEST]
            depth -= 1
            parent, up = guesses[depth], numbers[depth]
            up[TOTAL] += row[BEST] - parent[4][parent[3][up[CLASS]]]
            up[CLASS] += 1
            continue
        members, starts, sizes, order, class_floor, settled = guesses[depth]
        if row[CLASS] == order.shape[0] or row[TOTAL] >= row[BEST]:  # the guess is valued, or cannot win
            if row[TOTAL] < row[BEST]:
                row[BEST], row[EXACT] = row[TOTAL], 1
            row[OPTION] += 1
            row[CLASS] = -1
            continue
        c = order[row[CLASS]]
        if settled[c]:
            row[CLASS] += 1
            continue
        cls = members[starts[c]:starts[c] + sizes[c]]
        child_fixed, child_least = node[1], node[2]
        if hard and sizes[c] > 2:  # a class of at most two is valued before any rule is read: none is computed
            child_fixed, child_least = np.empty_like(node[1]), np.empty_like(node[2])
            g = node[4][row[OPTION]]
            rule_after(node[1], node[2], words[g], codes[g, cls[0]], child_fixed, child_least)
        deeper = one_fewer(row[LEFT])
        budget = row[BEST] - row[TOTAL] + class_floor[c]
        value, useful, options, floors, k = node_step(game, memo, cls, deeper, child_fixed, child_least, budget,
                                                      node[3], np.ones(node[3].shape[0], dtype=np.bool_))
        if value >= 0:
            row[TOTAL] += value - class_floor[c]
            row[CLASS] += 1
            continue
        depth += 1
        put(nodes, depth, (cls, child_fixed, child_least, useful, options, floors))
        numbers[depth] = 0
        numbers[depth, LEFT], numbers[depth, K], numbers[depth, BEST], numbers[depth, CLASS] = deeper, k, budget, -1
