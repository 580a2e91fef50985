"""`top N` in a play session: the N best next guesses by expected total guesses (exact where solvable).

Exact values and upper bounds are ranked together by value (a guess whose bound is below another's exact value
is surely better); a bound is marked `≤`, and a line under the list says where the bounds come from.

Guesses are visited in the greedy order (most classes, candidates first, smallest sum of squared class
sizes).  Along that order the bound V*(g, C) >= 3|C| - parts(g) - [g in C] (every class C' needs at
least 2|C'| - 1 guesses) never decreases, so the scan stops once it exceeds the N-th best value found:
for sets the exact solver handles in-process the list is the exact top N.  For larger sets each value
gets what is left of `seconds` (counted from the call, the greedy order included), and the scan stops
when they are spent (the list then says how many guesses it covered).  In hard mode only legal guesses
are ranked, and a line says what the best guess ignoring hard mode (a normal-mode solve) would give.

Each listed guess also shows the chance of finishing the game within k guesses, from the depths of the
exact solver's optimal tree opening with it (an optimal tree: others with the same total may spread
their secrets differently) or of the `exact` stage's stored tree; "–" where neither is at hand.
"""

import time
from dataclasses import replace

import numpy as np

from pipeline.search.partition import split_stats

MARGIN = 0.1  # seconds kept back from a child's budget for forking and reaping it
WITHIN_COLUMNS = 3  # chances of finishing within i+2, i+3, ... guesses shown per guess
HARD_SHARE = 0.75  # in hard mode, the share of `seconds` the ranking gets (the normal-mode solve the rest)


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


def _order(valuer, candidates, rows):
    """greedy_order, remembered for the last set (a repeated `top`, or the start after `reset`, pays nothing)."""
    key = (np.asarray(candidates).tobytes(), None if rows is None else np.asarray(rows).tobytes())
    memo = valuer.orders
    if key not in memo:
        game = valuer.game
        memo.clear()  # one set at a time: play moves on
        memo[key] = greedy_order(valuer.codes, candidates, game.secret_of_guess, game.n_codes, rows)
    return memo[key]


def _rank_key(item):
    """By value, exact values and upper bounds together (a bound below an exact value is a better guess for
    sure); at equal values the exact one first (the sort is stable: then in the order found)."""
    return item[1].total, item[1].kind != "exact"


def top_guesses(valuer, candidates, state, left, count: int, start: bool, rows=None, seconds: float = 1.0):
    """[(guess index, Value)] best first, and the number of guesses examined."""
    game = valuer.game
    deadline = time.monotonic() + seconds
    order, bounds = _order(valuer, candidates, rows)
    found = []
    if start:  # what the published figures and stored artifacts say about openers comes first, at no cost
        found = sorted(((game.guess_index[w], v) for w, v in valuer.known.openers().items() if v.known),
                       key=_rank_key)
    seen, examined = {g for g, _ in found}, len(order)
    for i, (g, lb) in enumerate(zip(order, bounds)):
        if len(found) >= count and lb > found[count - 1][1].total:
            examined = i
            break
        if int(g) in seen:
            continue
        remaining = deadline - time.monotonic() - MARGIN
        if remaining <= 0 and not valuer.small(len(candidates)):
            examined = i
            break
        value = valuer.played(int(g), candidates, state, left, start, min(remaining, valuer.budget), upper=False,
                              depths=True)
        if value.known:
            found.append((int(g), value))
            found.sort(key=_rank_key)
    return [(g, _with_depths(valuer, g, v, candidates, state, left)) for g, v in found[:count]], examined


def _with_depths(valuer, g, value, candidates, state, left):
    if value.kind != "exact" or value.depths is not None:
        return value
    return replace(value, depths=valuer.depths(g, candidates, state, left))


def within_chances(value, n: int, played: int, ks: list[int]) -> list[float | None]:
    """Chance of finishing the game within k guesses for each k (None where the depths are unknown), when
    `played` guesses are behind and `value` is the guess's value over n candidates."""
    if value.depths is None:
        return [None] * len(ks)
    cumulative = np.cumsum(value.depths)
    return [float(cumulative[min(k - played, len(cumulative)) - 1]) / n if k > played else 0.0 for k in ks]


def top_lines(session, valuer, count: int, seconds: float = 1.0) -> list[str]:
    """The lines answering `top N`: rank, guess, expected total, chances within k guesses, wins-now chance;
    in hard mode (after the first row) what ignoring hard mode would give."""
    game, cand = session.game, session.candidates
    if len(cand) == 0:
        return ["top: no secret fits the rows; `undo` the row that is wrong"]
    i, n = len(session.rows), len(cand)
    left = None if game.max_guesses is None else game.max_guesses - i
    hard = game.hard_mode and i > 0
    state = _state(session) if game.hard_mode else None
    started = time.monotonic()
    rows = session.strategy.allowed_rows(session.history)
    found, examined = top_guesses(valuer, cand, state, left, count, i == 0, rows,
                                  seconds * HARD_SHARE if hard else seconds)
    ks = [k for k in range(i + 2, i + 2 + WITHIN_COLUMNS) if game.max_guesses is None or k <= game.max_guesses]
    lines = [f"top {len(found)}{' legal in hard mode' if hard else ''} of {examined} guesses examined "
             f"({n} candidates); expected total guesses of the game"
             + (f", chance of finishing within {', '.join(map(str, ks))} guesses:" if ks else ":")]
    in_c = set(cand.tolist())
    for rank, (g, value) in enumerate(found, 1):
        mark = "≤" if value.kind == "upper bound" else ""
        chances = "  ".join(f"≤{k} " + ("–" if p is None else f"{100 * p:.1f}%")
                            for k, p in zip(ks, within_chances(value, n, i, ks)))
        wins = f"  wins now 1/{n}" if game.secret_of_guess[g] in in_c else ""
        lines.append(f"{rank:>3}. {game.guesses[g]:<{game.length}}  {mark}{i + value.total / n:.3f}  {chances}{wins}")
    bounds = sorted({value.source for _, value in found if value.kind == "upper bound"})
    if bounds:
        lines.append(f"≤: an upper bound ({'; '.join(bounds)}): the guess does at least that well; ranked by value "
                     "with the exact values, which are the others")
    if len(found) < count and not valuer.small(n):
        lines.append(f"(the exact solver needs more than {seconds:g} s for the others here: `--budget S` gives it "
                     "more; stored exact/upper_bound artifacts give openers at no cost)")
    if hard:
        remaining = max(0.1, seconds - (time.monotonic() - started))
        lines.append(ignoring_hard_mode(valuer, cand, left, i, found[0][1] if found else None, remaining))
    return lines


def _state(session):
    from pipeline.games.answer import colours_to_code
    from pipeline.search.hard_mode import state_after

    game = session.game
    encoded = game.encoded_guesses()
    return state_after([(encoded[game.guess_index[g]], colours_to_code(c)) for g, c in session.history],
                       game.length)


def ignoring_hard_mode(valuer, cand, left, played: int, best_legal, seconds: float) -> str:
    """One line: the best guess and expected total without hard mode's rule (a normal-mode MinTotal of the
    same candidates with the same guesses left), and how much better than the best legal guess it is."""
    game, n = valuer.game, len(cand)
    value = valuer.normal_mode().best(cand, None, left, seconds=seconds)
    if not value.known or value.guess < 0:
        return "best guess ignoring hard mode: not found within the time budget"
    mark = "≤" if value.kind == "upper bound" else ""
    text = f"best guess ignoring hard mode: {game.guesses[value.guess]}, {mark}{played + value.total / n:.3f}"
    if best_legal is None or not best_legal.known:
        return text
    gain = (best_legal.total - value.total) / n
    exact = value.kind == best_legal.kind == "exact"
    if exact and gain == 0:
        return text + " (no better than the best legal guess)"
    return text + f" ({'' if exact else '~'}{gain:.3f} better)"
