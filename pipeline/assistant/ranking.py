"""`top N` in a play session: the N best next guesses by expected total guesses (exact where solvable).

Guesses are visited in the greedy order (most classes, candidates first, smallest sum of squared class
sizes).  Along that order the bound V*(g, C) >= 3|C| - parts(g) - [g in C] (every class C' needs at
least 2|C'| - 1 guesses) never decreases, so the scan stops once it exceeds the N-th best value found:
for sets the exact solver handles in-process the list is the exact top N.  For larger sets each value
gets what is left of `seconds`, and the scan stops when they are spent (the list then
says how many guesses it covered).  In hard mode only legal guesses are ranked.
"""

import time

import numpy as np

from pipeline.search.partition import split_stats


def greedy_order(codes, candidates, secret_of_guess, n_codes, rows=None):
    """(guess indices in greedy order, their trivial lower bounds 3n - parts - [g in C])."""
    rows = np.arange(codes.shape[0]) if rows is None else np.asarray(rows)
    parts, _, sum_sq, _ = split_stats(codes[rows] if len(rows) < codes.shape[0] else codes,
                                      np.asarray(candidates, dtype=np.int32), n_codes)
    in_c = np.isin(secret_of_guess[rows], candidates)
    order = np.lexsort([rows, sum_sq, -in_c.astype(np.int64), -parts.astype(np.int64)])
    n = len(candidates)
    useful = (parts[order] > 1) | in_c[order]
    order = order[useful]
    return rows[order], 3 * n - parts[order].astype(np.int64) - in_c[order]


def top_guesses(valuer, candidates, state, left, count: int, start: bool, rows=None, seconds: float = 1.0):
    """[(guess index, Value)] best first, and the number of guesses examined."""
    game = valuer.game
    order, bounds = greedy_order(valuer.codes, candidates, game.secret_of_guess, game.n_codes, rows)
    found, deadline = [], time.monotonic() + seconds
    if start:  # what the published figures and stored artifacts say about openers comes first, at no cost
        found = sorted(((game.guess_index[w], v) for w, v in valuer.known.openers().items() if v.known),
                       key=lambda item: (item[1].kind != "exact", item[1].total))
    seen = {g for g, _ in found}
    for examined, (g, lb) in enumerate(zip(order, bounds)):
        if len(found) >= count and lb > found[count - 1][1].total:
            return found[:count], examined
        if int(g) in seen:
            continue
        remaining = deadline - time.monotonic()
        if remaining <= 0 and not valuer.small(len(candidates)):
            return found[:count], examined
        value = valuer.played(int(g), candidates, state, left, start, min(remaining, valuer.budget), upper=False)
        if value.known:
            found.append((int(g), value))
            found.sort(key=lambda item: (item[1].kind != "exact", item[1].total))
    return found[:count], len(order)
