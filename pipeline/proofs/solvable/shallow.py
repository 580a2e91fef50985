"""The checker's own decision of "can this class be solved within 1, 2 or 3 guesses", from the definitions.

A class C (secrets still possible) with j guesses left is solved when some strategy guesses every secret of C by
its j-th guess.  With one guess left only a single secret can be (it is guessed).  With two, the first guess h
must leave every non-win class of Split(C, h) a single secret: h gives each secret of C its own response (h
"separates" C).  With three, the first guess g must leave non-win classes that are solved with two.  In hard mode
every guess must be legal in the state the responses so far leave (pipeline/proofs/game/hard_mode.py's rule); the last
guess, a secret that agrees with every response, is taken to be legal: that can only call more classes solved,
so a class refuted here is refuted under the rule too.  A secret that is no allowed guess is never found.

Speed, without changing the answer: a guess h makes at most r(h) = |classes of Split(C, h)| classes on any subset
of C, so only guesses with r(h) >= |P| can separate a part P: they are scanned in decreasing r, stopping below
|P|; a part larger than max r cannot be separated at all.  The pair of secrets that last shared a response is
compared first for the next guess, which rules most guesses out in one comparison.  In hard mode only the rows of
the guesses legal under the class's rule are read: a later rule only adds to it (Rule.after keeps every fixed and
counted symbol), so no guess a strategy may play below is left out.
"""

import numpy as np
from numba import njit

from pipeline.proofs.game.hard_mode import legal_word, rule_after


@njit(cache=True)
def _class_counts(block, n_codes):
    """r(h): for every row h of block (guesses x members), how many different codes it holds."""
    out = np.zeros(block.shape[0], dtype=np.int64)
    mark = np.full(n_codes, -1, dtype=np.int64)
    for h in range(block.shape[0]):
        for i in range(block.shape[1]):
            code = block[h, i]
            if mark[code] != h:
                mark[code] = h
                out[h] += 1
    return out


@njit(cache=True)
def _separable(block, by_r, r, part, n_codes, hard, words, counts, fixed, least, pair):
    """Whether some guess gives every member of `part` its own code (hard: a guess legal under fixed/least).
    pair[0], pair[1] is the member pair that collided last (set here); it is used only when both are in `part`."""
    size = part.shape[0]
    inside = np.zeros(block.shape[1], dtype=np.bool_)
    inside[part] = True
    a, b = pair[0], pair[1]
    if a < 0 or not (inside[a] and inside[b]):
        a, b = -1, -1
    seen = np.full(n_codes, -1, dtype=np.int64)
    for x in range(by_r.shape[0]):
        h = by_r[x]
        if r[h] < size:
            return False
        if a >= 0 and block[h, a] == block[h, b]:
            continue
        apart = True
        for i in range(size):
            code = block[h, part[i]]
            if seen[code] >= 0 and seen[code] >> 20 == x:
                a, b = part[seen[code] & 0xFFFFF], part[i]
                pair[0], pair[1] = a, b
                apart = False
                break
            seen[code] = (x << 20) | i
        if apart and (not hard or legal_word(words[h], counts[h], fixed, least)):
            return True
    return False


@njit(cache=True)
def _any_first_guess(block, by_r, r, n_codes, win, legal_first, hard, words, counts, fixed, least):
    """Whether some first guess g (legal_first[g]) leaves only classes that one more guess separates."""
    n = block.shape[1]
    most = r.max()
    pair = np.full(2, -1, dtype=np.int64)
    sizes = np.zeros(n_codes, dtype=np.int64)
    distinct = np.empty(n_codes, dtype=np.int64)
    part_fixed, part_least = np.empty_like(fixed), np.empty_like(least)
    for g in range(block.shape[0]):
        if not legal_first[g]:
            continue
        n_here = 0
        for i in range(n):
            code = block[g, i]
            if sizes[code] == 0:
                distinct[n_here] = code
                n_here += 1
            sizes[code] += 1
        codes_here = distinct[:n_here]
        worst = 0
        for code in codes_here:
            if code != win and sizes[code] > worst:
                worst = sizes[code]
        ok = worst <= most
        if ok:
            order = np.argsort(-sizes[codes_here], kind="mergesort")
            for j in order:
                code = codes_here[j]
                if sizes[code] < 2:
                    break
                part = np.flatnonzero(block[g] == code)
                if hard:
                    rule_after(fixed, least, words[g], code, part_fixed, part_least)
                if not _separable(block, by_r, r, part, n_codes, hard, words, counts, part_fixed, part_least,
                                  pair):
                    ok = False
                    break
        for code in codes_here:
            sizes[code] = 0
        if ok:
            return True
    return False


def legal_rows(n_guesses: int, rule=None, words=None, counts=None) -> np.ndarray:
    """The guesses a strategy may play under `rule` and any rule after it (every guess when there is none)."""
    return np.arange(n_guesses) if rule is None else np.flatnonzero(rule.allowed(words, counts))


def solved_within(codes, cls, left: int, n_codes: int, guessable, rule=None, words=None, counts=None) -> bool:
    """Whether the class `cls` (secret indices) can be solved within `left` <= 3 guesses; in hard mode `rule` is
    the Rule the class was reached under, `words` the guesses' symbol rows and `counts` their symbol counts."""
    if left > 3:
        raise ValueError(f"this check decides at most 3 guesses left, not {left}")
    cls = np.asarray(cls, dtype=np.int64)
    if len(cls) == 0:
        return True
    if left < 1 or not np.asarray(guessable)[cls].all():
        return False
    if len(cls) == 1:
        return True
    if left == 1:
        return False
    hard = rule is not None
    fixed = rule.fixed.astype(np.int64) if hard else np.zeros(1, dtype=np.int64)
    least = rule.least.astype(np.int64) if hard else np.zeros(1, dtype=np.int64)
    words = words if hard else np.zeros((1, 1), dtype=np.uint8)
    counts = counts if hard else np.zeros((1, 1), dtype=np.int16)
    rows = legal_rows(codes.shape[0], rule, words, counts)
    block = np.ascontiguousarray(codes[np.ix_(rows, cls)])
    words, counts = (words[rows], counts[rows]) if hard else (words, counts)
    r = _class_counts(block, n_codes)
    by_r = np.argsort(-r, kind="stable")
    if left == 2:
        return bool(_separable(block, by_r, r, np.arange(len(cls)), n_codes, hard, words, counts, fixed, least,
                               np.full(2, -1, dtype=np.int64)))
    legal = np.ones(len(rows), dtype=bool)  # every row is legal under the class's rule
    return bool(_any_first_guess(block, by_r, r, n_codes, n_codes - 1, legal, hard, words, counts, fixed, least))
