"""Exact MinTotal by depth-first search with bounds (ALGORITHMS.md §5), normal or hard mode.

    MinTotal(C) = 1 if |C| = 1, else min over useful g of V*(g, C)
    V*(g, C)    = |C| + sum of MinTotal(C') over the non-win classes of Split(C, g)

The recursion lives in one numba function, `_solve`.  What keeps it fast:
- closed forms: |C| = 1 -> 1, |C| = 2 -> 3, a candidate splitting C into
  singletons -> 2|C| - 1, a non-candidate doing so (and no candidate) -> 2|C|;
- a per-guess lower bound V(g, C) >= 3|C| - k - [g in C] (k classes), since
  every class costs at least 2|C'| - 1;
- alpha-beta: every call gets a budget `beta` and may return any value
  >= beta once it cannot beat it; a class's budget is the caller's best so
  far minus what its siblings are already known to cost;
- classes visited smallest first, guesses in order of sum of squared class
  sizes then lower bound, guesses that do not split C skipped;
- a bounded memo (hash table) of exact values and proven lower bounds per
  candidate set (and, in hard mode, per hard-mode state).

Candidate sets live in one int32 pool: a node's set is pool[lo:lo+n] and its
children's classes are written after `free`.  Sets are hashed by two
independent sums of random 64-bit words (a false match has probability
about 2**-128 per lookup).
"""

import numpy as np
from numba import njit

from pipeline.search.hard_mode import MAX_SYMBOLS, initial_state, is_allowed, symbol_counts, update_state

INF = 1 << 40
IMPOSSIBLE = INF  # the value of a set that cannot be solved within the guesses left
UNLIMITED = 1 << 30
KEY_SHIFT = 24  # ordering key = sum_sq << KEY_SHIFT | lower bound
EMPTY, EXACT, LOWER = 0, 1, 2
STAT_NODES, STAT_HITS, STAT_EVALS = 0, 1, 2
SMALL_SET = 48  # up to this size the pairwise scan over the transposed matrix is faster


@njit(cache=True)
def _set_hash(pool, lo, n, z1, z2):
    h1 = np.uint64(0)
    h2 = np.uint64(0)
    for j in range(lo, lo + n):
        h1 += z1[pool[j]]
        h2 += z2[pool[j]]
    return h1, h2


@njit(cache=True)
def _state_hash(greens, at_least, zg, zm):
    h = np.uint64(0)
    for i in range(greens.shape[0]):
        h += zg[i, greens[i] + 1]
    for x in range(at_least.shape[0]):
        if at_least[x] > 0:
            h += zm[x, at_least[x]]
    return h


@njit(cache=True)
def _node_hash(pool, lo, n, z1, z2, hard, greens, at_least, zg, zm, left, zl):
    """Memo key of a node: its candidate set, plus the hard-mode state in hard mode and the
    guesses left when the number of guesses is limited."""
    h1, h2 = _set_hash(pool, lo, n, z1, z2)
    if hard:
        h1 += _state_hash(greens, at_least, zg, zm)
    if left < zl.shape[0]:
        h2 += zl[left]
    return h1, h2


@njit(cache=True)
def _memo_find(memo_keys, memo_flags, h1, h2):
    base = np.int64(h1 & np.uint64(memo_flags.shape[0] - 1)) & ~np.int64(3)
    for slot in range(base, base + 4):
        if memo_flags[slot] != EMPTY and memo_keys[slot, 0] == h1 and memo_keys[slot, 1] == h2:
            return slot
    return -1


@njit(cache=True)
def _memo_store(memo_keys, memo_flags, memo_vals, h1, h2, n, value, flag, guess):
    """Store an exact value or a lower bound; evict the smallest set of the 4-slot bucket."""
    slot = _memo_find(memo_keys, memo_flags, h1, h2)
    if slot >= 0:
        if memo_flags[slot] == EXACT or (flag == LOWER and memo_vals[slot, 0] >= value):
            return
    else:
        base = np.int64(h1 & np.uint64(memo_flags.shape[0] - 1)) & ~np.int64(3)
        slot = base
        for s in range(base, base + 4):
            if memo_flags[s] == EMPTY:
                slot = s
                break
            if memo_vals[s, 2] < memo_vals[slot, 2]:
                slot = s
    memo_keys[slot, 0] = h1
    memo_keys[slot, 1] = h2
    memo_flags[slot] = flag
    memo_vals[slot, 0] = value
    memo_vals[slot, 1] = guess
    memo_vals[slot, 2] = n


@njit(cache=True)
def _split_into(row, pool, lo, n, dest, win, counts):
    """Write the non-win classes of Split(C, g) to pool[dest:], smallest class first.

    Returns (class starts, with one extra end entry; class codes; class count).
    `counts` (size n_codes, all zero) is left all zero.
    """
    class_codes = np.empty(n, dtype=np.int64)
    sizes = np.empty(n, dtype=np.int64)
    k = 0
    for j in range(lo, lo + n):
        counts[row[pool[j]]] += 1
    for j in range(lo, lo + n):
        code = row[pool[j]]
        t = counts[code]
        if t > 0:
            if code != win:
                class_codes[k] = code
                sizes[k] = t
                k += 1
            counts[code] = 0
    order = np.argsort(sizes[:k], kind="mergesort")
    starts = np.empty(k + 1, dtype=np.int64)
    ordered_codes = np.empty(k, dtype=np.int64)
    pos = dest
    for i in range(k):
        starts[i] = pos
        ordered_codes[i] = class_codes[order[i]]
        counts[ordered_codes[i]] = pos
        pos += sizes[order[i]]
    starts[k] = pos
    for j in range(lo, lo + n):
        code = row[pool[j]]
        if code != win:
            pool[counts[code]] = pool[j]
            counts[code] += 1
    for i in range(k):
        counts[ordered_codes[i]] = 0
    return starts, ordered_codes, k


@njit(cache=True)
def _scan(codes, pool, lo, n, win, counts, allowed, beta):
    """Useful guesses with their lower bound 3n - k - [g in C] below beta, and any perfect split.

    Returns (guesses, ordering keys, count, perfect candidate or -1, perfect non-candidate or -1).
    """
    n_guesses = codes.shape[0]
    guesses = np.empty(n_guesses, dtype=np.int32)
    keys = np.empty(n_guesses, dtype=np.int64)
    m = 0
    perfect_other = -1
    for g in range(n_guesses):
        if allowed.shape[0] > 0 and not allowed[g]:
            continue
        row = codes[g]
        for j in range(lo, lo + n):
            counts[row[pool[j]]] += 1
        k = 0
        sum_sq = 0
        inside = 0
        for j in range(lo, lo + n):
            code = row[pool[j]]
            t = counts[code]
            if t > 0:
                k += 1
                sum_sq += t * t
                if code == win:
                    inside = 1
                counts[code] = 0
        if k == 1 and inside == 0:
            continue
        if k == n:
            if inside:
                return guesses, keys, 0, g, -1
            if perfect_other < 0:
                perfect_other = g
            continue
        lower = 3 * n - k - inside
        if lower < beta:
            guesses[m] = g
            keys[m] = (sum_sq << KEY_SHIFT) | lower
            m += 1
    return guesses, keys, m, -1, perfect_other


@njit(cache=True)
def _scan_small(codes_t, pool, lo, n, win, allowed, beta):
    """`_scan` for small sets, vectorised over all guesses with the transposed matrix.

    For every pair of candidates, one pass over their two rows of codes_t
    counts equal codes per guess: sum_sq = n + 2 * equal pairs and
    k = n - (candidates that equal an earlier one).
    """
    n_guesses = codes_t.shape[1]
    pairs = np.zeros(n_guesses, dtype=np.int32)
    repeats = np.zeros(n_guesses, dtype=np.int32)
    inside = np.zeros(n_guesses, dtype=np.int32)
    seen = np.empty(n_guesses, dtype=np.int32)
    for j in range(n):
        cj = codes_t[pool[lo + j]]
        for g in range(n_guesses):
            inside[g] += cj[g] == win
        seen[:] = 0
        for i in range(j):
            ci = codes_t[pool[lo + i]]
            for g in range(n_guesses):
                e = np.int32(ci[g] == cj[g])
                pairs[g] += e
                seen[g] |= e
        for g in range(n_guesses):
            repeats[g] += seen[g]
    guesses = np.empty(n_guesses, dtype=np.int32)
    keys = np.empty(n_guesses, dtype=np.int64)
    m = 0
    perfect_other = -1
    for g in range(n_guesses):
        if allowed.shape[0] > 0 and not allowed[g]:
            continue
        k = n - repeats[g]
        if k == 1 and inside[g] == 0:
            continue
        if k == n:
            if inside[g]:
                return guesses, keys, 0, g, -1
            if perfect_other < 0:
                perfect_other = g
            continue
        lower = 3 * n - k - inside[g]
        if lower < beta:
            guesses[m] = g
            keys[m] = (np.int64(n + 2 * pairs[g]) << KEY_SHIFT) | lower
            m += 1
    return guesses, keys, m, -1, perfect_other


@njit(cache=True)
def _enter(codes, codes_t, win, pool, lo, n, beta, counts, memo_keys, memo_flags, memo_vals,
           z1, z2, stats, hard, words, word_counts, greens, at_least, zg, zm, left, zl, guess_row, lower_row):
    """Open a node: closed forms, memo, scan.  Returns (value or -1 if the node must be searched,
    number of guesses to try, floor, h1, h2); the guesses go to guess_row / lower_row in order.
    `left` is the number of guesses still allowed, this one included (IMPOSSIBLE if too few)."""
    if left <= 0:
        return IMPOSSIBLE, 0, IMPOSSIBLE, np.uint64(0), np.uint64(0)
    if n == 1:
        return 1, 0, 1, np.uint64(0), np.uint64(0)
    if left == 1:
        return IMPOSSIBLE, 0, IMPOSSIBLE, np.uint64(0), np.uint64(0)
    if n == 2:
        return 3, 0, 3, np.uint64(0), np.uint64(0)
    stats[STAT_NODES] += 1
    floor = 2 * n - 1
    h1, h2 = _node_hash(pool, lo, n, z1, z2, hard, greens, at_least, zg, zm, left, zl)
    slot = _memo_find(memo_keys, memo_flags, h1, h2)
    if slot >= 0:
        stats[STAT_HITS] += 1
        if memo_flags[slot] == EXACT:
            return memo_vals[slot, 0], 0, floor, h1, h2
        floor = max(floor, memo_vals[slot, 0])
    if floor >= beta:
        return floor, 0, floor, h1, h2
    allowed = np.zeros(0, dtype=np.bool_)
    if hard:
        allowed = np.empty(codes.shape[0], dtype=np.bool_)
        for g in range(codes.shape[0]):
            allowed[g] = is_allowed(words[g], word_counts[g], greens, at_least)
    if n <= SMALL_SET:
        guesses, keys, m, perfect, perfect_other = _scan_small(codes_t, pool, lo, n, win, allowed, beta)
    else:
        guesses, keys, m, perfect, perfect_other = _scan(codes, pool, lo, n, win, counts, allowed, beta)
    if perfect >= 0:
        _memo_store(memo_keys, memo_flags, memo_vals, h1, h2, n, 2 * n - 1, EXACT, perfect)
        return 2 * n - 1, 0, floor, h1, h2
    floor = max(floor, 2 * n)
    if perfect_other >= 0:
        _memo_store(memo_keys, memo_flags, memo_vals, h1, h2, n, 2 * n, EXACT, perfect_other)
        return 2 * n, 0, floor, h1, h2
    if left == 2:  # the next guess must leave only singletons
        _memo_store(memo_keys, memo_flags, memo_vals, h1, h2, n, IMPOSSIBLE, EXACT, -1)
        return IMPOSSIBLE, 0, floor, h1, h2
    if floor >= beta or m == 0:
        value = max(floor, beta)
        _memo_store(memo_keys, memo_flags, memo_vals, h1, h2, n, value, LOWER, -1)
        return value, 0, floor, h1, h2
    order = np.argsort(keys[:m], kind="mergesort")
    mask = (np.int64(1) << KEY_SHIFT) - 1
    for t in range(m):
        guess_row[t] = guesses[order[t]]
        lower_row[t] = keys[order[t]] & mask
    return -1, m, floor, h1, h2


# phases of a search frame
ENTER, NEXT_GUESS, NEXT_CLASS, AFTER_CHILD = 0, 1, 2, 3


@njit(cache=True)
def _solve(codes, codes_t, win, pool, n, beta, forced, counts, memo_keys, memo_flags, memo_vals,
           z1, z2, stats, hard, words, word_counts, greens0, at_least0, zg, zm, left, zl, max_depth):
    """MinTotal(pool[:n]) if it is < beta (exact), else some value >= beta.

    With forced >= 0, V*(forced, C) instead.  In hard mode only guesses allowed
    by the state (greens, at_least) are tried.  The depth-first search keeps
    an explicit stack of frames (numba cannot cache recursive functions).
    """
    n_guesses, n_codes = codes.shape[0], counts.shape[0]
    f_lo = np.zeros(max_depth, dtype=np.int64)
    f_n = np.zeros(max_depth, dtype=np.int64)
    f_free = np.zeros(max_depth, dtype=np.int64)
    f_beta = np.zeros(max_depth, dtype=np.int64)
    f_floor = np.zeros(max_depth, dtype=np.int64)
    f_m = np.zeros(max_depth, dtype=np.int64)
    f_idx = np.zeros(max_depth, dtype=np.int64)
    f_best = np.zeros(max_depth, dtype=np.int64)
    f_best_guess = np.zeros(max_depth, dtype=np.int64)
    f_k = np.zeros(max_depth, dtype=np.int64)
    f_i = np.zeros(max_depth, dtype=np.int64)
    f_total = np.zeros(max_depth, dtype=np.int64)
    f_phase = np.zeros(max_depth, dtype=np.int64)
    f_left = np.zeros(max_depth, dtype=np.int64)
    f_h = np.zeros((max_depth, 2), dtype=np.uint64)
    guess_rows = np.empty((max_depth, n_guesses), dtype=np.int32)
    lower_rows = np.empty((max_depth, n_guesses), dtype=np.int64)
    starts_rows = np.empty((max_depth, n_codes + 1), dtype=np.int64)
    class_rows = np.empty((max_depth, n_codes), dtype=np.int64)
    greens = np.empty((max_depth, greens0.shape[0]), dtype=greens0.dtype)
    at_least = np.empty((max_depth, at_least0.shape[0]), dtype=at_least0.dtype)
    greens[0] = greens0
    at_least[0] = at_least0

    d = 0
    f_lo[0], f_n[0], f_free[0], f_beta[0], f_left[0] = 0, n, n, beta, left
    if forced >= 0:
        stats[STAT_NODES] += 1
        guess_rows[0, 0] = forced
        lower_rows[0, 0] = 0
        f_m[0], f_floor[0], f_best[0], f_best_guess[0], f_idx[0] = 1, 0, beta, -1, 0
        f_phase[0] = NEXT_GUESS
    returned = 0
    while True:
        phase = f_phase[d]
        lo, size, best = f_lo[d], f_n[d], f_best[d]
        if phase == ENTER:
            value, m, floor, h1, h2 = _enter(codes, codes_t, win, pool, lo, size, f_beta[d], counts, memo_keys,
                                             memo_flags, memo_vals, z1, z2, stats, hard, words, word_counts,
                                             greens[d], at_least[d], zg, zm, f_left[d], zl, guess_rows[d],
                                             lower_rows[d])
            if value >= 0:
                returned = value
                d -= 1
                if d < 0:
                    return returned
                continue
            f_m[d], f_floor[d], f_h[d, 0], f_h[d, 1] = m, floor, h1, h2
            f_best[d], f_best_guess[d], f_idx[d] = f_beta[d], -1, 0
            f_phase[d] = NEXT_GUESS
        elif phase == NEXT_GUESS:
            idx = f_idx[d]
            while idx < f_m[d] and lower_rows[d, idx] >= best:
                idx += 1
            if idx == f_m[d] or (f_best_guess[d] >= 0 and best <= f_floor[d]):
                if d == 0 and forced >= 0:
                    return best
                flag = EXACT if f_best_guess[d] >= 0 else LOWER
                _memo_store(memo_keys, memo_flags, memo_vals, f_h[d, 0], f_h[d, 1], size, best, flag,
                            f_best_guess[d])
                if d == 0:
                    return best
                returned = best
                d -= 1
                continue
            f_idx[d] = idx + 1
            g = guess_rows[d, idx]
            stats[STAT_EVALS] += 1
            free = f_free[d]
            if free + size > pool.shape[0]:
                raise RuntimeError("candidate pool exhausted (search too deep)")
            starts, class_codes, k = _split_into(codes[g], pool, lo, size, free, win, counts)
            starts_rows[d, :k + 1] = starts
            class_rows[d, :k] = class_codes
            total = size
            for i in range(k):
                total += 2 * (starts[i + 1] - starts[i]) - 1
            f_k[d], f_i[d], f_total[d] = k, 0, total
            f_phase[d] = NEXT_CLASS
        elif phase == NEXT_CLASS:
            i, k = f_i[d], f_k[d]
            while i < k and starts_rows[d, i + 1] - starts_rows[d, i] <= 2 and f_left[d] >= 3:
                i += 1
            f_i[d] = i
            if i == k:
                if f_total[d] < best:
                    f_best[d] = f_total[d]
                    f_best_guess[d] = guess_rows[d, f_idx[d] - 1]
                f_phase[d] = NEXT_GUESS
                continue
            if d + 1 == max_depth:
                raise RuntimeError("search deeper than max_depth")
            child_size = starts_rows[d, i + 1] - starts_rows[d, i]
            c = d + 1
            f_lo[c], f_n[c] = starts_rows[d, i], child_size
            f_free[c] = starts_rows[d, k]
            f_beta[c] = best - (f_total[d] - (2 * child_size - 1))
            f_phase[c] = ENTER
            f_left[c] = f_left[d] - 1
            if hard:
                g = guess_rows[d, f_idx[d] - 1]
                greens[c], at_least[c] = update_state(greens[d], at_least[d], words[g], class_rows[d, i])
            f_phase[d] = AFTER_CHILD
            d = c
        else:  # AFTER_CHILD
            i = f_i[d]
            child_size = starts_rows[d, i + 1] - starts_rows[d, i]
            f_total[d] += returned - (2 * child_size - 1)
            f_i[d] = i + 1
            f_phase[d] = NEXT_GUESS if f_total[d] >= best else NEXT_CLASS


class ExactSolver:
    """Exact MinTotal / V*(g, C) / optimal trees for one game.

    `codes` is the |G| x |S| code matrix, `secret_of_guess` maps guesses to
    secrets (-1 if not a secret).  Hard mode needs the encoded guesses
    (`encode_words`).  `max_guesses` limits every secret to be found within
    that many guesses (sets that cannot be get IMPOSSIBLE).  The memo holds 2**memo_bits entries (about 41 bytes
    each) and survives between calls.
    """

    def __init__(self, codes, secret_of_guess, n_codes, hard_mode=False, encoded_guesses=None,
                 max_guesses=None, memo_bits=21, max_depth=48, seed=0):
        self.codes = np.ascontiguousarray(codes)
        self.max_depth = max_depth
        self.max_guesses = UNLIMITED if max_guesses is None else int(max_guesses)
        self.codes_t = np.ascontiguousarray(codes.T)
        self.n_secrets = codes.shape[1]
        self.win = int(n_codes) - 1
        self.hard = bool(hard_mode)
        secret_of_guess = np.asarray(secret_of_guess)
        self.guess_of_secret = np.empty(self.n_secrets, dtype=np.int32)
        present = secret_of_guess >= 0
        self.guess_of_secret[secret_of_guess[present]] = np.flatnonzero(present)
        if self.hard and encoded_guesses is None:
            raise ValueError("hard mode needs the encoded guesses")
        length = int(round(np.log(n_codes) / np.log(3)))
        self.words = (np.ascontiguousarray(encoded_guesses, dtype=np.uint8) if encoded_guesses is not None
                      else np.zeros((0, length), dtype=np.uint8))
        self.word_counts = symbol_counts(self.words) if self.hard else np.zeros((0, MAX_SYMBOLS), dtype=np.int8)
        self.length = length
        rng = np.random.default_rng(seed)

        def draw(*shape):  # random odd 64-bit words for the set and state hashes
            return rng.integers(0, 2**63, size=shape, dtype=np.uint64) * np.uint64(2) + np.uint64(1)

        self.z1, self.z2 = draw(self.n_secrets), draw(self.n_secrets)
        self.zg, self.zm = draw(length, MAX_SYMBOLS + 1), draw(MAX_SYMBOLS, length + 1)
        self.zl = draw(max_depth + 1)
        size = 1 << memo_bits
        self.memo_keys = np.zeros((size, 2), dtype=np.uint64)
        self.memo_flags = np.zeros(size, dtype=np.int8)
        self.memo_vals = np.zeros((size, 3), dtype=np.int64)
        self.counts = np.zeros(int(n_codes), dtype=np.int64)
        self.stats = np.zeros(3, dtype=np.int64)

    def _run(self, candidates, beta, forced, state, left=None):
        candidates = np.asarray(candidates, dtype=np.int32)
        n = len(candidates)
        pool = np.empty(self.n_secrets * self.max_depth + n, dtype=np.int32)
        pool[:n] = candidates
        greens, at_least = state if state is not None else initial_state(self.length)
        return int(_solve(self.codes, self.codes_t, self.win, pool, n, beta, forced, self.counts, self.memo_keys,
                          self.memo_flags, self.memo_vals, self.z1, self.z2, self.stats, self.hard, self.words,
                          self.word_counts, greens, at_least, self.zg, self.zm,
                          self.max_guesses if left is None else left, self.zl, self.max_depth))

    def _all(self, candidates):
        return np.arange(self.n_secrets, dtype=np.int32) if candidates is None else candidates

    def min_total(self, candidates=None, beta=INF, state=None):
        """(MinTotal(C), exact): exact when below beta, otherwise only a lower bound >= beta."""
        value = self._run(self._all(candidates), beta, -1, state)
        return value, value < beta

    def guess_value(self, guess, candidates=None, beta=INF, state=None):
        """(V*(g, C), exact): the best total over C when g is played first."""
        value = self._run(self._all(candidates), beta, int(guess), state)
        return value, value < beta

    def _best_guess(self, candidates, state, left):
        n = len(candidates)
        if n <= 2:
            return int(self.guess_of_secret[candidates[0]])
        if self._run(candidates, INF, -1, state, left) >= IMPOSSIBLE:
            raise ValueError("no strategy solves these candidates within the guess limit")
        pool = np.asarray(candidates, dtype=np.int32)
        h1, h2 = _node_hash(pool, 0, n, self.z1, self.z2, self.hard, state[0], state[1], self.zg, self.zm,
                            left, self.zl)
        h1, h2 = np.uint64(h1), np.uint64(h2)  # keep numba from typing a small key as int64
        return int(self.memo_vals[_memo_find(self.memo_keys, self.memo_flags, h1, h2), 1])

    def tree(self, guess=None, candidates=None, state=None, left=None):
        """An optimal strategy tree: (guess index, {response code: subtree}); a win has no entry.

        With `guess` given, the best tree that opens with it.
        """
        candidates = self._all(candidates)
        if state is None:
            state = initial_state(self.length)
        left = self.max_guesses if left is None else left
        if guess is None:
            guess = self._best_guess(candidates, state, left)
        children = {}
        row = self.codes[guess]
        for code in np.unique(row[candidates]):
            if code == self.win:
                continue
            members = candidates[row[candidates] == code]
            child_state = update_state(state[0], state[1], self.words[guess], int(code)) if self.hard else state
            children[int(code)] = self.tree(None, members, child_state, left - 1)
        return int(guess), children


def tree_total(tree, codes, candidates, win) -> int:
    """Total of a strategy tree over candidate secrets (sum of guesses to find each); checks it solves all."""
    guess, children = tree
    row = codes[guess]
    total = len(candidates)
    for code in np.unique(row[candidates]):
        if code == win:
            continue
        if int(code) not in children:
            raise ValueError(f"tree has no branch for response {code} after guess {guess}")
        total += tree_total(children[int(code)], codes, candidates[row[candidates] == code], win)
    return total
