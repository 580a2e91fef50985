"""Infeasible guess limits: a witness that no strategy finds every secret within L guesses.

A strategy opening with g finds every secret within L guesses only if every non-win class C of Split(S, g)
is solved within L - 1 more guesses (under the game's rules; in hard mode from the state g's response leaves).
So a limit is infeasible once every opener has a witness: one class that cannot be.  Two ways to show it:

counting: let m(C) be the most non-win classes any guess (of all guesses, legal or not) makes on C.  Within j
guesses at most reach(j, m) = 1 + m * reach(j - 1, m) secrets of C can be found, reach(0, m) = 0.  Proof by
induction on j: the first guess h finds at most one secret (h itself), every other secret lies in one of the
at most m non-win classes C' of Split(C, h), each found within j - 1 guesses by the subtree under it, and
m(C') <= m(C) (each non-win class of Split(C', x) lies in a distinct non-win class of Split(C, x) with the
same code), so |C'| <= reach(j - 1, m).  Hence |C| > reach(L - 1, m(C)) means C cannot be solved in time.
In hard mode fewer guesses are legal, which only lowers what can be found: the bound holds in both modes.

search: with at most 3 guesses left, search/solvable/shallow.py decides it directly (one secret; a guess separating the
class; a guess leaving only parts that one more guess separates); with more, search/solvable/within.py tries every legal
first guess over those kernels (a decision: the first guess that works ends it, no total is computed).

`opener_witness` tries every class by counting first (cheap), then the classes by search (within.py), largest
first, and returns the first witness, or None when every class is solvable (the opener is feasible).
"""

import numpy as np

from pipeline.search.solvable.kernels import profile

COUNTING, SEARCH = "counting", "search"


def reach(guesses: int, parts: int) -> int:
    """The most secrets a strategy can find within `guesses` guesses when no guess makes more than `parts`
    non-win classes: reach(j, m) = 1 + m * reach(j - 1, m), reach(0, m) = 0."""
    found = 0
    for _ in range(guesses):
        found = 1 + parts * found
    return found


def most_parts(codes: np.ndarray, members: np.ndarray, win: int) -> int:
    """m(C): the most non-win classes any guess (row of `codes`) makes on the secrets `members`."""
    block = np.sort(codes[:, members], axis=1)
    distinct = 1 + (np.diff(block, axis=1) != 0).sum(axis=1)
    return int((distinct - (block == win).any(axis=1)).max())


def counted_out(codes: np.ndarray, members: np.ndarray, win: int, left: int, probes=None) -> bool:
    """Whether counting shows the class cannot be solved within `left` guesses.  With `probes` (a few guess
    indices), m(C) is first bounded from below by theirs: a class no larger than reach(left, that) is let through
    without computing m over every guess."""
    if probes is not None and len(members) <= reach(left, most_parts(codes[probes], members, win)):
        return False
    return len(members) > reach(left, most_parts(codes, members, win))


def probe_guesses(codes: np.ndarray, n_codes: int, count: int = 16) -> np.ndarray:
    """The `count` guesses that make the most classes on all secrets: counted_out's probes."""
    classes, _ = profile(codes, n_codes, n_codes - 1)
    return np.argsort(-classes, kind="stable")[:count]


def opener_witness(classes: list, codes: np.ndarray, win: int, left: int, solvable, probes=None) -> dict | None:
    """The first witness among an opener's non-win classes [(response, members, state)], or None.

    `solvable(members, state)` says whether some strategy solves a class within `left` guesses.  A witness
    is {"response", "size", "reason"}: counting tried on every class first, then search, largest first; `probes`
    as for counted_out."""
    by_size = sorted(classes, key=lambda c: -len(c[1]))
    for response, members, _ in by_size:
        if counted_out(codes, members, win, left, probes):
            return {"response": response, "size": len(members), "reason": COUNTING}
    for response, members, state in by_size:
        if not solvable(members, state):
            return {"response": response, "size": len(members), "reason": SEARCH}
    return None


def within_solvable(within, left: int):
    """`solvable` for opener_witness from a search/solvable/within.py Within: solved within `left` guesses."""
    def solvable(members, state) -> bool:
        return within.solvable(members, left, state)
    return solvable
