"""ApMinTotal's search in numba: one node at a time on an explicit stack (numba cannot reliably cache
self-recursive functions), with the exact lower bounds and alpha-beta budgets of pipeline.search.apmintotal.value,
the memo of apmintotal_memo and the ranking of apmintotal_ranking; and the breadth-first extraction of the
strategy tree from the memo.

Candidate sets are sorted int64 arrays of secret indices.
"""

import numpy as np
from numba import njit

from pipeline.search.apmintotal.memo import HITS, SCANS, find_slot, key_hash, store
from pipeline.search.apmintotal.ranking import best_n
from pipeline.search.strategies.breadth_first import NODES, UNLIMITED, expand, new_nodes, node_arrays, node_set
from pipeline.search.hard_mode import allowed_into, is_allowed, update_state
from pipeline.search.partition import split_classes

INF = 1 << 60
IMPOSSIBLE = 1 << 40  # value of a node no strategy within Best_n solves in the guesses left (sums stay < INF)

# fields of a search frame (one row of `frames` per depth)
(OFF, LEN, BETA, BEST, BEST_G, RANK, N_RANKED, TOTAL, CLASS, N_BIG, HASH, SLOT, SEG, END,
 LEFT, KEY, KLEN, ULEN) = range(18)
N_FIELDS = 18
ENTER, NEXT_GUESS, NEXT_CLASS, RETURN = range(4)
KEY_SPACE = 80  # room for a node key's state tokens: at most length + MAX_SYMBOLS + 1 (length <= 11)


@njit(cache=True)
def _perfect_candidate(ctx, cand, greens, at_least):
    """The lowest-index candidate guess (allowed in hard mode) splitting C into singletons, or -1.

    It is first in Best_n (most parts, in C, smallest sizes; ties by index) and its total 2|C| - 1 is the
    least possible, so the ranking scan is not needed."""
    if cand.shape[0] > ctx.counts.shape[0]:
        return -1
    best = -1
    for c in cand:
        g = ctx.guess_of_secret[c]
        if g < 0 or (best >= 0 and g > best):
            continue
        if ctx.hard and not is_allowed(ctx.words[g], ctx.word_counts[g], greens, at_least):
            continue
        line = ctx.codes_t[:, g]
        perfect = True
        for x in cand:
            r = line[x]
            if ctx.counts[r] != 0:
                perfect = False
                break
            ctx.counts[r] = 1
        for x in cand:
            ctx.counts[line[x]] = 0
        if perfect:
            best = g
    return best


@njit(cache=True)
def _largest_first(order, starts):
    """Sort class indices by decreasing class size (stable): big classes raise the bound most."""
    for q in range(1, order.shape[0]):
        j = order[q]
        size = starts[j + 1] - starts[j]
        p = q
        while p > 0 and starts[order[p - 1] + 1] - starts[order[p - 1]] < size:
            order[p] = order[p - 1]
            p -= 1
        order[p] = j


@njit(cache=True)
def _grow_rows(a):
    """A copy of the 2-d array `a` with twice its rows (the first ones copied): room for a deeper search."""
    out = np.empty((2 * a.shape[0], a.shape[1]), dtype=a.dtype)
    out[: a.shape[0]] = a
    return out


@njit(cache=True)
def write_key(cand, out, base, hard, greens, at_least, left):
    """A node's memo key into `out`; returns its length.

    The sorted candidate set, then in hard mode one token per green
    (position, symbol) and per required symbol count, then the guesses
    left when they are limited.  Tokens are >= base (the number of
    secrets), so two keys are equal exactly when set, state and guesses
    left are: values depend on all three.
    """
    m = cand.shape[0]
    out[:m] = cand
    k = m
    if hard:
        for i in range(greens.shape[0]):
            if greens[i] >= 0:
                out[k] = base + 64 + i * 64 + greens[i]
                k += 1
        for x in range(at_least.shape[0]):
            if at_least[x] > 0:
                out[k] = base + 1024 + x * 16 + at_least[x]
                k += 1
    if left < UNLIMITED:
        out[k] = base + 4096 + left
        k += 1
    return k


@njit(cache=True)
def _open(arena, f, d, ctx, memo, info, greens, at_least, top_g, top_key, lists, seeds):
    """ENTER for a set of >= 3 candidates with guesses to spare: memo look-up, a perfectly splitting candidate,
    else rank Best_n(C) over the node's list lists[d] (its useful guesses go to lists[d + 1]; `seeds`, the
    parent's ranking, are ranked first), unless that scan meets a perfect split, worth 2|C|.

    Returns (arena, hit, value, guess); on a miss the frame is ready for NEXT_GUESS.
    """
    m = f[LEN]
    f[KEY] = f[SEG] + 4 * m + 1
    f[END] = f[KEY] + m + KEY_SPACE
    if f[END] > arena.shape[0]:
        bigger = np.empty(2 * f[END], dtype=np.int64)
        bigger[: arena.shape[0]] = arena
        arena = bigger
    cand = arena[f[OFF]: f[OFF] + m]
    f[KLEN] = write_key(cand, arena[f[KEY]: f[END]], ctx.codes.shape[1], ctx.hard, greens[d], at_least[d], f[LEFT])
    key = arena[f[KEY]: f[KEY] + f[KLEN]]
    f[HASH] = key_hash(key)
    f[SLOT] = find_slot(key, f[HASH], memo)
    slot = f[SLOT]
    if slot >= 0 and (memo.exact[slot] or memo.value[slot] >= f[BETA]):
        info[HITS] += 1
        return arena, True, memo.value[slot], (memo.guess[slot] if memo.exact[slot] else np.int64(-1))
    g = _perfect_candidate(ctx, cand, greens[d], at_least[d])
    if g >= 0:
        store(key, f[HASH], f[SLOT], 2 * m - 1, True, g, memo, info)
        return arena, True, np.int64(2 * m - 1), np.int64(g)
    info[SCANS] += 1
    allowed = ctx.allowed[:0]
    if ctx.hard:
        allowed = ctx.allowed
        allowed_into(ctx.words, ctx.word_counts, greens[d], at_least[d], allowed)
    f[N_RANKED], f[ULEN], g = best_n(ctx, cand, top_g[d], top_key[d], allowed, lists[d, :f[ULEN]], lists[d + 1],
                                     seeds, True)
    if g >= 0:
        store(key, f[HASH], f[SLOT], 2 * m, True, g, memo, info)
        return arena, True, np.int64(2 * m), np.int64(g)
    f[RANK], f[BEST], f[BEST_G] = 0, f[BETA], -1
    return arena, False, np.int64(0), np.int64(-1)


@njit(cache=True)
def _closed_form(arena, f, ctx):
    """ENTER's values known without a search, as (value, guess); value -1 when the node must be opened."""
    m = f[LEN]
    if m == 1:
        return np.int64(1), ctx.guess_of_secret[arena[f[OFF]]]
    if f[LEFT] <= 1:
        return np.int64(IMPOSSIBLE), np.int64(-1)
    if m == 2:
        return np.int64(3), ctx.guess_of_secret[arena[f[OFF]]]
    if 2 * m - 1 >= f[BETA]:
        return np.int64(2 * m - 1), np.int64(-1)
    return np.int64(-1), np.int64(-1)


@njit(cache=True)
def _split_next(arena, f, d, ctx, top_g, top_key):
    """NEXT_GUESS: split C by the next ranked guess and order the classes to search, largest first (True);
    False when no guess is left whose lower bound is below the best total so far."""
    m = f[LEN]
    i = f[RANK]
    lower = f[BEST]
    if i < f[N_RANKED]:
        rank = top_key[d, i] // (m * m + 1)  # (m - parts) * 2 + 1 - inset
        lower = 3 * m - (m - rank // 2) - (1 - rank % 2)  # 3|C| - parts - [g in C]
    if lower >= f[BEST]:  # the bound never decreases along the ranking
        return False
    seg = f[SEG]
    starts = arena[seg + m: seg + 2 * m + 1]
    order = arena[seg + 3 * m + 1: seg + 4 * m + 1]
    k, _, _ = split_classes(ctx.codes[top_g[d, i]], arena[f[OFF]: f[OFF] + m], ctx.counts, ctx.win, 1, True,
                            arena[seg: seg + m], 0, starts, arena[seg + 2 * m + 1: seg + 3 * m + 1])
    smallest = 2 if f[LEFT] == 2 else 3  # with one guess left after this, a pair is a failure
    n_big = 0
    for j in range(k):
        if starts[j + 1] - starts[j] >= smallest:
            order[n_big] = j
            n_big += 1
    _largest_first(order[:n_big], starts)
    f[N_BIG], f[CLASS], f[TOTAL] = n_big, 0, lower
    return True


@njit(cache=True)
def _push_class(arena, frames, d, ctx, top_g, greens, at_least):
    """NEXT_CLASS: frame d + 1 searches the next class of frame d's guess with the budget it has left."""
    f, child = frames[d], frames[d + 1]
    m, seg = f[LEN], f[SEG]
    j = arena[seg + 3 * m + 1 + f[CLASS]]
    lo, hi = arena[seg + m + j], arena[seg + m + j + 1]
    child[OFF], child[LEN] = seg + lo, hi - lo
    child[BETA] = f[BEST] - f[TOTAL] + 2 * (hi - lo) - 1
    child[SEG] = f[END]
    child[LEFT] = f[LEFT] - 1 if f[LEFT] < UNLIMITED else UNLIMITED
    child[ULEN] = f[ULEN]
    if ctx.hard:
        greens[d + 1], at_least[d + 1] = update_state(greens[d], at_least[d], ctx.words[top_g[d, f[RANK]]],
                                                      arena[seg + 2 * m + 1 + j])


@njit(cache=True)
def solve(root, beta, ctx, memo, info, greens0, at_least0, left0):
    """(value, guess): ApMinTotal(root) and its guess if the value is < beta, else (some value >= beta, -1).

    The search starts in hard-mode state (greens0, at_least0) with left0
    guesses left (UNLIMITED: no limit); a value >= IMPOSSIBLE means no
    strategy within Best_n finds every candidate in time.  The recursion of
    the module docstring, run on an explicit stack (numba cannot reliably
    cache self-recursive functions).  Frame d's candidate set and its
    workspace live in one int64 arena: the set at [OFF, OFF+LEN), then at
    SEG the current guess's classes (m), class starts (m+1), class codes (m),
    the order of the classes still to search (m) and the memo key.  A
    child's set is a class of its parent, so it is never copied.
    """
    arena = np.empty(8 * root.shape[0] + 64 + KEY_SPACE, dtype=np.int64)
    arena[: root.shape[0]] = root
    frames = np.zeros((16, N_FIELDS), dtype=np.int64)
    top_g = np.zeros((16, ctx.breadth), dtype=np.int64)
    top_key = np.zeros((16, ctx.breadth), dtype=np.int64)
    greens = np.empty((16, greens0.shape[0]), dtype=np.int8)
    at_least = np.empty((16, at_least0.shape[0]), dtype=np.int8)
    greens[0], at_least[0] = greens0, at_least0
    lists = ctx.lists
    n_guesses = ctx.codes.shape[0]
    lists[0, :n_guesses] = np.arange(n_guesses)
    d = 0
    frames[0, OFF], frames[0, LEN], frames[0, BETA] = 0, root.shape[0], beta
    frames[0, SEG], frames[0, LEFT], frames[0, ULEN] = root.shape[0], left0, n_guesses
    ret_v, ret_g = np.int64(0), np.int64(-1)
    mode = ENTER
    while True:
        f = frames[d]
        if mode == ENTER:
            mode = RETURN
            ret_v, ret_g = _closed_form(arena, f, ctx)
            if ret_v < 0:
                seeds = top_g[d - 1, :frames[d - 1, N_RANKED]] if d > 0 else top_g[0, :0]
                arena, hit, ret_v, ret_g = _open(arena, f, d, ctx, memo, info, greens, at_least, top_g, top_key,
                                                 lists, seeds)
                mode = RETURN if hit else NEXT_GUESS
        if mode == NEXT_GUESS:
            if _split_next(arena, f, d, ctx, top_g, top_key):
                mode = NEXT_CLASS
            else:
                mode = RETURN
                ret_v, ret_g = (f[BEST], f[BEST_G]) if f[BEST_G] >= 0 else (f[BETA], np.int64(-1))
                store(arena[f[KEY]: f[KEY] + f[KLEN]], f[HASH], f[SLOT], ret_v, ret_g >= 0, ret_g, memo, info)
        if mode == NEXT_CLASS:
            if f[CLASS] < f[N_BIG] and f[TOTAL] < f[BEST]:
                if d + 1 == frames.shape[0]:
                    frames, top_g, top_key = _grow_rows(frames), _grow_rows(top_g), _grow_rows(top_key)
                    greens, at_least = _grow_rows(greens), _grow_rows(at_least)
                if d + 2 >= lists.shape[0]:
                    lists = _grow_rows(lists)
                _push_class(arena, frames, d, ctx, top_g, greens, at_least)
                d += 1
                mode = ENTER
                continue
            if f[TOTAL] < f[BEST]:
                f[BEST], f[BEST_G] = f[TOTAL], top_g[d, f[RANK]]
            f[RANK] += 1
            mode = NEXT_GUESS
            continue
        if mode == RETURN:
            if d == 0:
                return ret_v, ret_g
            d -= 1
            f = frames[d]
            f[TOTAL] += ret_v - (2 * frames[d + 1, LEN] - 1)
            f[CLASS] += 1
            mode = NEXT_CLASS


@njit(cache=True)
def extract_tree(root, root_guess, ctx, memo, info, greens0, at_least0, left0):
    """Breadth-first strategy tree from `root`: (node_guess, node_parent, node_code, node_size, total).

    Node 0 plays `root_guess` (or the ApMinTotal guess if -1); every other
    node the ApMinTotal guess of its set, in its hard-mode state with its
    guesses left, mostly read back from the memo.  total = -2 if no strategy
    within Best_n meets the guess limit, -1 on an internal failure.
    """
    nodes, pool = new_nodes(root, greens0, at_least0, left0)
    head, total = 0, 0
    while head < nodes.top[NODES]:
        cand = node_set(nodes, pool, head)
        left = nodes.left[head]
        total += cand.shape[0]
        if left < 1 or (cand.shape[0] >= 2 and left == 1):
            return nodes.guess[:0], nodes.parent[:0], nodes.code[:0], nodes.size[:0], np.int64(-2)
        if head == 0 and root_guess >= 0:
            g = root_guess
        elif cand.shape[0] <= 2:
            g = ctx.guess_of_secret[cand[0]]
        else:
            value, g = solve(cand, INF, ctx, memo, info, nodes.greens[head], nodes.at_least[head], left)
            if value >= IMPOSSIBLE or g < 0:
                return nodes.guess[:0], nodes.parent[:0], nodes.code[:0], nodes.size[:0], np.int64(-2)
        pool, k = expand(nodes, pool, head, g, ctx.codes[g], ctx.win, ctx.counts, ctx.hard, ctx.words)
        if k < 0:
            return nodes.guess[:0], nodes.parent[:0], nodes.code[:0], nodes.size[:0], np.int64(-1)
        head += 1
    guess, parent, code, size = node_arrays(nodes)
    return guess, parent, code, size, np.int64(total)
