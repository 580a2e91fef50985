"""Numba kernels of search/solvable/shallow.py: can a class be solved within two or three guesses.

Everything works on `sub`, the class's columns of the code matrix (G x n, one row per guess, the class's secrets
as local indices 0..n-1).  A set P of class members is *separated* by a guess h when h gives every member of P a
different code; P is solved within two guesses exactly when some (legal) h separates it (h, then the one
candidate left).  `separated` scans the guesses for one, checking first the member pairs that collided for
earlier guesses (`pair_a`, `pair_b`, most recent first: a few such "killer" pairs rule out most guesses of a part
that cannot be separated), and `within_three` tries every first guess g, its parts largest first, stopping at
the first part that cannot be separated; a memo of separation per part (exact member lists) is kept for the
class, since many first guesses leave the same part.

Hard mode: g must be legal in the class's state (`legal_g`), and h in the state g's response leaves.  A part no
guess at all separates is separated by no legal one, so the memo (normal mode) refutes in both modes; a part
some guess separates is scanned again for a legal separator.  The last guess, the secret itself, is always
legal: it agrees with every response so far (its greens, and at least as many copies of each letter as any
response revealed).
"""

import numpy as np
from numba import njit

from pipeline.search.hard_mode import MAX_SYMBOLS, is_allowed, update_state_into

KILLERS = 64  # member pairs remembered per class
MEMO_SLOTS = 1 << 15  # parts remembered per class (open addressing, at most half full)
MEMO_MEMBERS = 1 << 21  # their members, in one pool


@njit(cache=True)
def profile(sub, n_codes, win):
    """(classes, largest): per guess, how many classes it makes on the class (the win included) and the size of
    its largest non-win class."""
    n_guesses, n = sub.shape
    counts = np.zeros(n_codes, dtype=np.int32)
    classes = np.zeros(n_guesses, dtype=np.int32)
    largest = np.zeros(n_guesses, dtype=np.int32)
    for g in range(n_guesses):
        k, big = 0, 0
        for i in range(n):
            c = sub[g, i]
            if counts[c] == 0:
                k += 1
            counts[c] += 1
            if c != win and counts[c] > big:
                big = counts[c]
        for i in range(n):
            counts[sub[g, i]] = 0
        classes[g], largest[g] = k, big
    return classes, largest


@njit(cache=True)
def _separates(sub, h, part, size, stamp, who, gen):
    """-1 when h gives every member of part[:size] its own code, else the position of a member whose code an
    earlier member (at who[code]) already had; `stamp` marks the codes seen under this `gen`."""
    for i in range(size):
        c = sub[h, part[i]]
        if stamp[c] == gen:
            return i
        stamp[c], who[c] = gen, i
    return -1


@njit(cache=True)
def separated(sub, order, reach, part, size, killers, n_killers, scratch, hard, words, counts, greens, at_least):
    """Whether a guess of `order` separates part[:size] (hard: a guess legal in (greens, at_least)).

    reach[h] is the number of classes h makes on the whole class, and `order` lists the guesses by it, most
    first: h separates no part larger than reach[h], so the scan stops at the first h with reach[h] < size.

    `killers` (2, KILLERS) holds member pairs that collided before, most recent first, n_killers[0] of them;
    pairs found here are added at the front.  scratch = (stamp, who, inside, gen): `inside` marks this part's
    members, `gen` is a one-element counter."""
    stamp, who, inside, gen = scratch
    gen[0] += 1
    for i in range(size):
        inside[part[i]] = gen[0]
    local = np.empty((2, KILLERS), dtype=np.int64)  # the remembered pairs that lie inside this part
    n_local = 0
    for q in range(n_killers[0]):
        if inside[killers[0, q]] == gen[0] and inside[killers[1, q]] == gen[0]:
            local[0, n_local], local[1, n_local] = killers[0, q], killers[1, q]
            n_local += 1
    for x in range(order.shape[0]):
        h = order[x]
        if reach[h] < size:
            return False
        hit = -1
        for q in range(n_local):
            if sub[h, local[0, q]] == sub[h, local[1, q]]:
                hit = q
                break
        if hit > 0:  # move the pair that ruled h out one step to the front
            a, b = local[0, hit], local[1, hit]
            local[0, hit], local[1, hit] = local[0, hit - 1], local[1, hit - 1]
            local[0, hit - 1], local[1, hit - 1] = a, b
        if hit >= 0:
            continue
        gen[0] += 1
        j = _separates(sub, h, part, size, stamp, who, gen[0])
        if j >= 0:
            a, b = part[who[sub[h, part[j]]]], part[j]
            _remember(local, n_local, a, b)
            n_local = min(n_local + 1, KILLERS)
            _remember(killers, n_killers[0], a, b)
            n_killers[0] = min(n_killers[0] + 1, KILLERS)
            continue
        if not hard or is_allowed(words[h], counts[h], greens, at_least):
            return True
    return False


@njit(cache=True)
def _remember(pairs, n, a, b):
    """Put the pair (a, b) at the front of pairs[:, :n], dropping the last when full."""
    for q in range(min(n, pairs.shape[1] - 1), 0, -1):
        pairs[0, q], pairs[1, q] = pairs[0, q - 1], pairs[1, q - 1]
    pairs[0, 0], pairs[1, 0] = a, b


@njit(cache=True)
def _memo_find(memo, pool, members, start, size):
    """(slot, value): the slot of the part members[start:start+size] in the memo, and its remembered value
    (-1: not there; the slot is then where it would go)."""
    keys, begin, length, value = memo
    h = np.int64(size)
    for i in range(start, start + size):
        h = h * np.int64(1000003) + members[i] + 1
    slot = h & (keys.shape[0] - 1)
    while begin[slot] >= 0:
        if keys[slot] == h and length[slot] == size:
            same = True
            for i in range(size):
                if pool[begin[slot] + i] != members[start + i]:
                    same = False
                    break
            if same:
                return slot, value[slot]
        slot = (slot + 1) & (keys.shape[0] - 1)
    keys[slot] = h
    return slot, -1


@njit(cache=True)
def within_three(sub, g_order, h_order, classes, largest, cap, n_codes, win, legal_g, hard, words, counts, greens,
                 at_least):
    """Whether some first guess g (of g_order; hard: legal_g[g]) leaves only parts that some guess separates,
    i.e. the class is solved within three guesses.  A guess whose largest non-win part exceeds `cap` (the most
    classes any guess makes on the class: no guess separates more members than that) is skipped unsplit."""
    n = sub.shape[1]
    size_of = np.zeros(n_codes, dtype=np.int32)
    place = np.zeros(n_codes, dtype=np.int32)
    seen = np.empty(n_codes, dtype=np.int64)
    members = np.empty(n, dtype=np.int64)
    scratch = (np.zeros(n_codes, dtype=np.int64), np.zeros(n_codes, dtype=np.int64), np.zeros(n, dtype=np.int64),
               np.zeros(1, dtype=np.int64))
    killers = np.empty((2, KILLERS), dtype=np.int64)
    n_killers = np.zeros(1, dtype=np.int64)
    memo = (np.empty(MEMO_SLOTS, dtype=np.int64), np.full(MEMO_SLOTS, -1, dtype=np.int64),
            np.zeros(MEMO_SLOTS, dtype=np.int64), np.zeros(MEMO_SLOTS, dtype=np.int8))
    pool = np.empty(MEMO_MEMBERS, dtype=np.int64)
    used, top = 0, 0
    part_greens = np.empty_like(greens)
    part_least = np.empty_like(at_least)
    revealed = np.zeros(MAX_SYMBOLS, dtype=np.int8)
    for x in range(g_order.shape[0]):
        g = g_order[x]
        if largest[g] > cap or (hard and not legal_g[g]):
            continue
        k = 0
        for i in range(n):
            c = sub[g, i]
            if size_of[c] == 0:
                seen[k] = c
                k += 1
            size_of[c] += 1
        sizes = np.empty(k, dtype=np.int64)
        for j in range(k):
            sizes[j] = size_of[seen[j]]
        by_size = np.argsort(-sizes, kind="mergesort")
        starts = np.empty(k, dtype=np.int64)
        at = 0
        for j in range(k):
            starts[j] = at
            place[seen[by_size[j]]] = at
            at += sizes[by_size[j]]
        for i in range(n):
            c = sub[g, i]
            members[place[c]] = i
            place[c] += 1
        ok = True
        for j in range(k):
            c, size, start = seen[by_size[j]], sizes[by_size[j]], starts[j]
            if size < 2:
                break  # the rest are single members: solved by guessing them
            if c == win:
                continue
            slot, known = _memo_find(memo, pool, members, start, size)
            if known < 0:
                known = 1 if separated(sub, h_order, classes, members[start:], size, killers, n_killers, scratch, False,
                                       words, counts, greens, at_least) else 0
                if used < MEMO_SLOTS // 2 and top + size <= MEMO_MEMBERS:
                    memo[1][slot], memo[2][slot], memo[3][slot] = top, size, known
                    pool[top:top + size] = members[start:start + size]
                    top += size
                    used += 1
            if known == 1 and hard:
                update_state_into(greens, at_least, words[g], c, part_greens, part_least, revealed)
                known = 1 if separated(sub, h_order, classes, members[start:], size, killers, n_killers, scratch, True,
                                       words, counts, part_greens, part_least) else 0
            if known == 0:
                ok = False
                break
        for j in range(k):
            size_of[seen[j]] = 0
        if ok:
            return True
    return False
