"""The depth-first search of the exact solver (exact.py): its node steps, one node phase per function.

A node is a candidate set C with a budget `beta` and the guesses left; its
value is MinTotal(C) when that is below beta, else any lower bound >= beta.
    ENTER       closed forms, the memo, perfect splits, one scan of the node's guess list
    NEXT_GUESS  take guesses best-first; bound each guess's classes (closed forms, memo, counting bound)
                and drop it once |C| + the class bounds reach the best total so far
    NEXT_CLASS  search the classes the bounds left open (smallest first; hard mode largest first), each with
                the budget it has left
    AFTER_CHILD replace that class's bound by its value; drop the guess as soon as the total reaches the best
Numba cannot cache recursive functions, so `solve` keeps an explicit stack of frames.
"""

from numba import njit

from pipeline.search.exact.kernels import (BEST, BEST_GUESS, BETA, CAND_CHECK, EXACT, FLOOR, FREE, GUESS, HASHED, IDX,
                                           IMPOSSIBLE, INF, KCAP, KEY_MASK, KEY_SHIFT, KMAX, LEFT, LIST_LEN, LO, LOWER,
                                           N, NODE_LB, N_BIG_CLASSES, N_KEPT, N_OPEN, OPEN_AT, PHASE, SORTED,
                                           STAT_EVALS, STAT_HITS, STAT_NODES, STAT_SCANS, TOTAL, ULEN, candidate_split,
                                           child_state_hash, fill_bound_row, filter_list, load_rule, memo_find,
                                           memo_grown, memo_store, node_key, perfect_in_list, scan, select_smallest,
                                           set_hash, split_guess, state_hash)
from pipeline.search.hard_mode import update_state_into

ENTER, NEXT_GUESS, NEXT_CLASS, AFTER_CHILD = 0, 1, 2, 3
BATCH = 16  # guesses ordered first by partial selection; the rest are sorted once the best total is known
RANK_SHIFT = KEY_SHIFT + 4  # first-batch key: class-bound total << RANK_SHIFT | rank by key << KEY_SHIFT | position
RANK_CAP = (1 << (63 - RANK_SHIFT)) - 1


@njit(cache=True, inline="always")
def _exact(memo, w, d, value, guess):
    """Record an exact value of node d (memo and best guess) and return it."""
    memo_store(memo, w.frame_hashes[d, 0], w.frame_hashes[d, 1], w.frames[d, N], value, EXACT, guess)
    w.frames[d, BEST_GUESS] = guess
    return value


@njit(cache=True)
def enter(tables, memo, w, d):
    """Open node d.  Returns its value, or -1 when its guesses must be searched (NEXT_GUESS is set up)."""
    frames = w.frames
    lo, n, left, beta = frames[d, LO], frames[d, N], frames[d, LEFT], frames[d, BETA]
    frames[d, BEST_GUESS] = -1
    if left <= 0 or (left == 1 and n >= 2):
        return IMPOSSIBLE
    if n <= 2:  # guess a candidate
        frames[d, BEST_GUESS] = tables.guess_of_secret[w.pool[lo]]
        return 2 * n - 1
    w.stats[STAT_NODES] += 1
    if frames[d, HASHED] == 0:
        h1, h2 = set_hash(tables, w.pool, lo, n)
        w.frame_hashes[d, 0], w.frame_hashes[d, 1] = node_key(tables, h1, h2, w.frame_hashes[d, 2], left)
    floor = max(2 * n - 1, w.btab[d, n])
    slot = memo_find(memo, w.frame_hashes[d, 0], w.frame_hashes[d, 1])
    if slot >= 0:
        w.stats[STAT_HITS] += 1
        if memo.flags[slot] == EXACT:
            frames[d, BEST_GUESS] = memo.vals[slot, 1]
            return memo.vals[slot, 0]
        floor = max(floor, memo.vals[slot, 0])
    if floor >= beta:
        return floor
    value = _perfect_forms(tables, memo, w, d)
    if value >= 0:
        return value
    floor = max(floor, 2 * n)  # no candidate splits C into singletons
    if floor >= beta:
        memo_store(memo, w.frame_hashes[d, 0], w.frame_hashes[d, 1], n, floor, LOWER, -1)
        return floor
    return _scan_node(tables, memo, w, d, floor)


@njit(cache=True, inline="always")
def _perfect_forms(tables, memo, w, d):
    """Values known without a scan: a candidate splitting C into singletons (2n - 1) or, with three guesses
    left, into singletons and one pair (2n, the least a set without the first can cost), a guess splitting C
    into singletons (2n), two guesses left and no such guess (impossible).  Filters the node's guess list
    (w.guess_lists[d + 1]) once the candidates are tried.  Returns the value or -1."""
    frames = w.frames
    lo, n, left = frames[d, LO], frames[d, N], frames[d, LEFT]
    m = load_rule(w.at_least[d], w.req) if tables.hard else -1
    if n - 1 <= frames[d, KCAP]:  # a guess making more classes on C than on its parent's set does not exist
        g, repeats = candidate_split(tables.codes, tables.guess_of_secret, tables.words, tables.word_counts, w.pool,
                                     w.stamp, lo, n, w.greens[d], w.req, m, left >= 3)
        if g >= 0:
            return _exact(memo, w, d, 2 * n - 1 + repeats, g)
    length = filter_list(tables, w, d)
    frames[d, ULEN] = length
    if n <= frames[d, KCAP] and left == 2:  # early exit per guess; otherwise the scan finds perfect splits
        g = perfect_in_list(tables, w, w.guess_lists[d + 1], length, lo, n)
        if g >= 0:
            return _exact(memo, w, d, 2 * n, g)
    if left == 2:  # the next guess would have to split C into singletons
        return _exact(memo, w, d, IMPOSSIBLE, -1)
    return -1


@njit(cache=True, inline="always")
def _scan_node(tables, memo, w, d, floor):
    """Scan node d's guess list; returns the node's value when the scan settles it, else -1 (search)."""
    frames = w.frames
    lo, n, beta = frames[d, LO], frames[d, N], frames[d, BETA]
    w.stats[STAT_SCANS] += 1
    u, m, excluded, kmax, cand, other = scan(tables, w, d, frames[d, ULEN], lo, n, beta)
    if cand >= 0:
        return _exact(memo, w, d, 2 * n - 1, cand)
    if other >= 0:
        return _exact(memo, w, d, 2 * n, other)
    frames[d, ULEN], frames[d, KMAX] = u, kmax
    fill_bound_row(w.btab[d + 1], n, kmax)
    floor = max(floor, w.btab[d + 1, n])
    if floor >= beta or m == 0:
        value = floor if floor >= beta else max(floor, excluded)
        memo_store(memo, w.frame_hashes[d, 0], w.frame_hashes[d, 1], n, value, LOWER, -1)
        return value
    frames[d, N_KEPT], frames[d, IDX], frames[d, SORTED] = m, 0, 0
    frames[d, BEST], frames[d, BEST_GUESS], frames[d, NODE_LB], frames[d, FLOOR] = beta, -1, excluded, floor
    frames[d, PHASE] = NEXT_GUESS
    return -1


@njit(cache=True)
def _order_more(tables, memo, w, d):
    """Put the next guesses of node d in order.  First the BATCH best keys (partial selection), re-ranked by
    |C| + their class bounds (most promising first); then, once a best total is known, the rest whose
    scan bound is still below it, by key."""
    frames = w.frames
    m, idx = frames[d, N_KEPT], frames[d, IDX]
    keys = w.kept_key[d]
    if frames[d, SORTED] == 0:
        b = min(BATCH, m)
        if m > b:
            select_smallest(keys[:m], b)
        keys[:b].sort()
        for r in range(b):
            t = keys[r] & KEY_MASK
            bound = _bound_guess(tables, memo, w, d, w.kept_guess[d, t], INF)
            w.kept_lower[d, t] = max(w.kept_lower[d, t], bound)
            keys[r] = (min(bound, RANK_CAP) << RANK_SHIFT) | (r << KEY_SHIFT) | t
        keys[:b].sort()
        frames[d, SORTED] = b
        return
    best = frames[d, BEST]
    j = idx
    node_lb = frames[d, NODE_LB]
    for t in range(idx, m):
        key = keys[t]
        low = w.kept_lower[d, key & KEY_MASK]
        if low < best:
            keys[j] = key
            j += 1
        else:
            node_lb = min(node_lb, low)
    keys[idx:j].sort()
    frames[d, N_KEPT], frames[d, SORTED], frames[d, NODE_LB] = j, j, node_lb


@njit(cache=True, inline="always")
def _class_bound(tables, memo, w, d, i, g, left):
    """(lower bound, exact) for class i of guess g at node d: the memo, the counting bound, 2s - 1,
    and for small classes candidate_split (2s - 1 for a perfect candidate, else >= 2s; = 2s for a candidate
    leaving one pair, with three guesses left)."""
    lo = w.starts[d, i]
    s = w.starts[d, i + 1] - lo
    h1, h2 = set_hash(tables, w.pool, lo, s)
    sh = child_state_hash(tables, w.greens[d], w.at_least[d], w.frame_hashes[d, 2], g, w.ccode[d, i], w.revealed)
    h1, h2 = node_key(tables, h1, h2, sh, left)
    w.chash[d, i, 0], w.chash[d, i, 1] = h1, h2
    bound = max(2 * s - 1, w.btab[d + 1, s])
    slot = memo_find(memo, h1, h2)
    if slot >= 0:
        if memo.flags[slot] == EXACT:
            return memo.vals[slot, 0], True
        bound = max(bound, memo.vals[slot, 0])
    if s <= CAND_CHECK and bound <= 2 * s - 1:
        splitter, repeats = candidate_split(tables.codes, tables.guess_of_secret, tables.words, tables.word_counts,
                                            w.pool, w.stamp, lo, s, w.greens[d], w.req, -1, left >= 3)
        if splitter >= 0:
            return 2 * s - 1 + repeats, True
        bound = 2 * s
    return bound, False


@njit(cache=True, inline="always")
def _bound_guess(tables, memo, w, d, g, best):
    """|C| + lower bounds of the classes of guess g at node d, stopping once it reaches `best`."""
    frames = w.frames
    n, left = frames[d, N], frames[d, LEFT] - 1
    k, small, multi = split_guess(tables, w, d, g)
    frames[d, N_BIG_CLASSES] = k
    if (left <= 0 and (k > 0 or small > 0)) or (left == 1 and multi > 0):
        return INF
    total = n + small
    for i in range(k):
        if total >= best:
            return total
        w.cbound[d, i], w.cexact[d, i] = _class_bound(tables, memo, w, d, i, g, left)
        total += w.cbound[d, i]
    return total


@njit(cache=True)
def _order_classes(w, d, largest_first):
    """The classes of the current guess still to search (bound not exact), smallest or largest first.

    Largest first gives a losing guess away sooner (SALET: 1984 -> 920 nodes) but spends it on large sets;
    measured, that pays in hard mode (short guess lists: 3.7 -> 2.5 s) and not in normal mode (0.66 -> 1.06 s).
    """
    q = 0
    order = w.corder[d]
    sign = -1 if largest_first else 1
    for i in range(w.frames[d, N_BIG_CLASSES]):
        if w.cexact[d, i]:
            continue
        size = sign * (w.starts[d, i + 1] - w.starts[d, i])
        j = q
        while j > 0 and sign * (w.starts[d, order[j - 1] + 1] - w.starts[d, order[j - 1]]) > size:
            order[j] = order[j - 1]
            j -= 1
        order[j] = i
        q += 1
    w.frames[d, N_OPEN], w.frames[d, OPEN_AT] = q, 0


@njit(cache=True)
def next_guess(tables, memo, w, d, store):
    """Bound guesses in order until one may beat the best total (returns -1, NEXT_CLASS set up) or none is
    left (returns the node's value: exact below its budget, else a lower bound)."""
    frames = w.frames
    while True:
        best = frames[d, BEST]
        if frames[d, BEST_GUESS] >= 0 and best <= frames[d, FLOOR]:
            break
        if frames[d, IDX] == frames[d, SORTED]:
            if frames[d, IDX] == frames[d, N_KEPT]:
                break
            _order_more(tables, memo, w, d)
            continue
        t = w.kept_key[d, frames[d, IDX]] & KEY_MASK
        frames[d, IDX] += 1
        lower = w.kept_lower[d, t]
        if lower < best:
            g = w.kept_guess[d, t]
            w.stats[STAT_EVALS] += 1
            lower = _bound_guess(tables, memo, w, d, g, best)
            if lower < best:
                frames[d, GUESS], frames[d, TOTAL] = g, lower
                _order_classes(w, d, tables.hard)
                frames[d, PHASE] = NEXT_CLASS
                return -1
        frames[d, NODE_LB] = min(frames[d, NODE_LB], lower)
    if frames[d, BEST_GUESS] >= 0:
        value, flag = frames[d, BEST], EXACT
    else:
        value, flag = max(frames[d, NODE_LB], frames[d, FLOOR]), LOWER
    if store:
        memo_store(memo, w.frame_hashes[d, 0], w.frame_hashes[d, 1], frames[d, N], value, flag, frames[d, BEST_GUESS])
    return value


@njit(cache=True)
def next_class(tables, w, d):
    """Push the next open class of the current guess (returns True), or record the guess as the best so far."""
    frames = w.frames
    i = frames[d, OPEN_AT]
    if i == frames[d, N_OPEN]:
        frames[d, BEST], frames[d, BEST_GUESS] = frames[d, TOTAL], frames[d, GUESS]
        frames[d, PHASE] = NEXT_GUESS
        return False
    c = d + 1
    if c == frames.shape[0]:
        raise RuntimeError("search deeper than max_depth")
    slot = w.corder[d, i]
    g = frames[d, GUESS]
    frames[c, LO] = w.starts[d, slot]
    frames[c, N] = w.starts[d, slot + 1] - frames[c, LO]
    frames[c, FREE] = w.starts[d, frames[d, N_BIG_CLASSES]]
    frames[c, BETA] = frames[d, BEST] - (frames[d, TOTAL] - w.cbound[d, slot])
    frames[c, LEFT] = frames[d, LEFT] - 1
    frames[c, LIST_LEN], frames[c, KCAP] = frames[d, ULEN], frames[d, KMAX]
    frames[c, HASHED], frames[c, PHASE] = 1, ENTER
    w.frame_hashes[c, 0], w.frame_hashes[c, 1] = w.chash[d, slot, 0], w.chash[d, slot, 1]
    if tables.hard:
        update_state_into(w.greens[d], w.at_least[d], tables.words[g], w.ccode[d, slot], w.greens[c], w.at_least[c],
                          w.revealed)
        w.frame_hashes[c, 2] = state_hash(tables, w.greens[c], w.at_least[c])
    frames[d, PHASE] = AFTER_CHILD
    return True


@njit(cache=True)
def after_child(w, d, value):
    """Replace the searched class's bound by its value; drop the guess once the total reaches the best."""
    frames = w.frames
    frames[d, TOTAL] += value - w.cbound[d, w.corder[d, frames[d, OPEN_AT]]]
    frames[d, OPEN_AT] += 1
    if frames[d, TOTAL] >= frames[d, BEST]:
        frames[d, NODE_LB] = min(frames[d, NODE_LB], frames[d, TOTAL])
        frames[d, PHASE] = NEXT_GUESS
    else:
        frames[d, PHASE] = NEXT_CLASS


@njit(cache=True)
def _root(tables, w, n, beta, forced, left, n_guesses):
    """Set up frame 0 for pool[:n] (w.guess_lists[0] holds every guess, w.greens[0] / w.at_least[0] the state)."""
    frames = w.frames
    n_codes = w.counts.shape[0]
    frames[0, LO], frames[0, N], frames[0, FREE], frames[0, BETA], frames[0, LEFT] = 0, n, n, beta, left
    frames[0, LIST_LEN], frames[0, KCAP], frames[0, HASHED], frames[0, PHASE] = n_guesses, n_codes, 0, ENTER
    w.frame_hashes[0, 2] = state_hash(tables, w.greens[0], w.at_least[0])
    fill_bound_row(w.btab[0], n, n_codes)
    if forced < 0:
        return
    w.stats[STAT_NODES] += 1
    w.kept_guess[0, 0], w.kept_lower[0, 0], w.kept_key[0, 0] = forced, 0, 0
    frames[0, N_KEPT], frames[0, IDX], frames[0, SORTED] = 1, 0, 1
    frames[0, BEST], frames[0, BEST_GUESS], frames[0, NODE_LB], frames[0, FLOOR] = beta, -1, INF, 0
    w.guess_lists[1, :n_guesses] = w.guess_lists[0, :n_guesses]
    frames[0, ULEN], frames[0, KMAX] = n_guesses, n_codes
    fill_bound_row(w.btab[1], n, n_codes)
    frames[0, PHASE] = NEXT_GUESS


@njit(cache=True)
def solve(tables, memo, w, n, beta, forced, left, n_guesses):
    """(MinTotal(pool[:n]) if it is < beta, else some lower bound >= beta; the best first guess or -1; the memo,
    which may have grown into new arrays).

    With forced >= 0, V*(forced, C) instead.  `left` is the number of guesses allowed.
    """
    _root(tables, w, n, beta, forced, left, n_guesses)
    d = 0
    returned = 0
    while True:
        phase = w.frames[d, PHASE]
        if phase == ENTER or phase == NEXT_GUESS:
            if phase == ENTER:
                memo = memo_grown(memo)
                returned = enter(tables, memo, w, d)
            else:
                returned = next_guess(tables, memo, w, d, d > 0 or forced < 0)
            if returned < 0:
                continue
            if d == 0:
                return returned, w.frames[0, BEST_GUESS], memo
            d -= 1
        elif phase == NEXT_CLASS:
            if next_class(tables, w, d):
                d += 1
        else:
            after_child(w, d, returned)
