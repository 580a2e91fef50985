"""Post-game analysis (`python -m pipeline analyse`, `analyse` in a play session): every guess scored.

Per row i (i guesses already played, candidate set C of size n, played guess g):
- played = i + V*(g, C) / n and best = i + MinTotal(C) / n, the expected total number of guesses
  of the game from there (exact, or an upper bound where the exact solver ran out of time);
- cost  = played - best, the expected guesses the choice gave away (0 for an optimal guess);
- luck  = (V*(g, C) - n) / n - MinTotal(C') / |C'|: the further guesses expected after g before
  its response, minus those expected after the response received (C'; 0 once won).  Positive is
  lucky.  With exact values the game's length decomposes as
      guesses played = best of row 1 + sum of costs - sum of luck;
- under a guess limit, the chance of losing where no strategy finds every candidate in time.
"""

from dataclasses import dataclass

import numpy as np

from pipeline.assistant.values import Valuer, Value, loss_chance
from pipeline import PipelineError
from pipeline.games.answer import colours_to_code, feedback
from pipeline.search.hard_mode import initial_state, update_state


@dataclass(frozen=True)
class RowAnalysis:
    number: int  # 1-based
    guess: str
    colours: str
    before: int  # candidates before the guess
    after: int  # ... and after its response
    played: Value  # V*(g, C)
    best: Value  # MinTotal(C) and its guess
    next_best: Value | None  # MinTotal(C') after the response (None once won or out of guesses)
    lose_played: float  # chance of losing after playing g (0 when every candidate can still be found)
    lose_best: float

    def expected(self, value: Value) -> float | None:
        return (self.number - 1) + value.total / self.before if value.known else None

    @property
    def won(self) -> bool:
        return set(self.colours) == {"2"}

    @property
    def cost(self) -> tuple[float | None, str]:
        """(played - best in expected guesses, "exact" / "at least" / "at most" / "unknown")."""
        p, b = self.played, self.best
        if not (p.known and b.known):
            return None, "unknown"
        kind = {("exact", "exact"): "exact", ("exact", "upper bound"): "at least",
                ("upper bound", "exact"): "at most"}.get((p.kind, b.kind), "unknown")
        return (p.total - b.total) / self.before, kind

    @property
    def luck(self) -> tuple[float | None, str]:
        """(expected further guesses after g minus those after the response received, "exact"/"bound")."""
        if not self.played.known:
            return None, "unknown"
        expected = (self.played.total - self.before) / self.before
        if self.won:
            return expected, "exact" if self.played.kind == "exact" else "approximate"
        nb = self.next_best
        if nb is None or not nb.known:
            return None, "unknown"
        exact = self.played.kind == "exact" and nb.kind == "exact"
        return expected - nb.total / self.after, "exact" if exact else "approximate"


@dataclass(frozen=True)
class Analysis:
    game: object
    rows: list[RowAnalysis]
    secret: str | None

    @property
    def won(self) -> bool:
        return bool(self.rows) and self.rows[-1].won


def rows_from_secret(game, secret: str, guesses: list[str]) -> list[tuple[str, str]]:
    """(guess, colours) rows of a game with a known secret, checking the secret and every guess."""
    secret = secret.strip().lower()
    check_secret(game, secret)
    rows = []
    for word in guesses:
        check_word(game, word)
        rows.append((word, feedback(word, secret)))
        if word == secret:
            break
    if len(rows) < len(guesses):
        raise PipelineError(f"guesses continue after {secret!r} was found: {', '.join(guesses[len(rows):])}")
    return rows


def check_secret(game, secret: str) -> None:
    """PipelineError unless `secret` is a possible secret of the game (saying why not, when it can)."""
    if secret in game.secret_index:
        return
    if secret in game.excluded:
        also = " (game.exclude removes it)"
    else:
        also = " (it is an allowed guess, but never the answer)" if secret in game.guess_index else ""
    raise PipelineError(f"{secret!r} is not a possible secret of {game.name}{also}")


def check_word(game, word: str) -> None:
    if len(word) != game.length:
        raise PipelineError(f"guess {word!r} has {len(word)} symbols; {game.name} uses {game.length}")
    if word not in game.guess_index:
        raise PipelineError(f"{word!r} is not an allowed guess in {game.name}")


def check_rows(game, rows: list[tuple[str, str]]) -> None:
    """Every guess allowed (and legal in hard mode), no guess after a win, at most the game's limit."""
    from pipeline.games.constraints import hard_mode_violation

    for i, (word, colours) in enumerate(rows):
        check_word(game, word)
        if set(colours) == {"2"} and i < len(rows) - 1:
            raise PipelineError(f"row {i + 1} ({word}) already wins; nothing can follow it")
        if game.hard_mode and i:
            problem = hard_mode_violation(word, rows[:i])
            if problem:
                raise PipelineError(f"hard mode does not allow {word!r} in row {i + 1}: {problem}")
    if game.max_guesses is not None and len(rows) > game.max_guesses:
        raise PipelineError(f"{len(rows)} guesses, more than {game.name}'s limit of {game.max_guesses}")


def analyse(valuer: Valuer, rows: list[tuple[str, str]], secret: str | None = None) -> Analysis:
    """Score every row of a game (rows of (guess, colours)); PipelineError if the rows contradict each other."""
    game, codes = valuer.game, valuer.codes
    check_rows(game, rows)
    cand = np.arange(len(game.secrets), dtype=np.int32)
    state = initial_state(game.length)
    positions = []
    for i, (word, colours) in enumerate(rows):
        g = game.guess_index[word]
        after = cand[codes[g][cand] == colours_to_code(colours)]
        if len(after) == 0:
            raise PipelineError(f"no secret of {game.name} gives these colours: row {i + 1} ({word} {colours}) "
                                "contradicts the rows before it")
        positions.append((g, cand, state, after))
        if game.hard_mode:
            state = update_state(state[0], state[1], game.encoded_guesses()[g], colours_to_code(colours))
        cand = after
    return Analysis(game, [_score(valuer, rows, positions, i) for i in range(len(rows))], secret)


def _left(game, i: int) -> int | None:
    return None if game.max_guesses is None else game.max_guesses - i


def _score(valuer: Valuer, rows, positions, i: int) -> RowAnalysis:
    game = valuer.game
    g, cand, state, after = positions[i]
    left = _left(game, i)
    played = valuer.played(g, cand, state, left, start=i == 0)
    best = valuer.best(cand, state, left, start=i == 0)
    if played.known and (not best.known or (best.kind != "exact" and played.total < best.total)):
        best = Value(played.total, "upper bound", played.source, g)  # MinTotal(C) <= V*(g, C)
    if played.kind == best.kind == "exact" and played.total == best.total:
        best = Value(best.total, "exact", best.source, g)  # the played guess is (one of) the best
    won = set(rows[i][1]) == {"2"}
    next_best = None
    if not won and (left is None or left > 1):
        next_state = positions[i + 1][2] if i + 1 < len(positions) else _next_state(game, state, g, rows[i][1])
        next_best = valuer.best(after, next_state, None if left is None else left - 1)
    lose_played = lose_best = 0.0
    if left is not None and (played.kind == "infeasible" or best.kind == "infeasible"):
        win = game.n_codes - 1
        lose_best = loss_chance(valuer.codes, cand, left, win)[0]
        row = valuer.codes[g][cand]
        lost = sum(loss_chance(valuer.codes, cand[row == c], left - 1, win)[0] * np.sum(row == c)
                   for c in np.unique(row) if c != win)
        lose_played = float(lost) / len(cand)
    return RowAnalysis(i + 1, rows[i][0], rows[i][1], len(cand), len(after), played, best, next_best,
                       lose_played, lose_best)


def _next_state(game, state, g, colours):
    if not game.hard_mode:
        return state
    return update_state(state[0], state[1], game.encoded_guesses()[g], colours_to_code(colours))


# ---- output ---------------------------------------------------------------------------------------------------


def _value_json(row: RowAnalysis, value: Value, game) -> dict:
    return {"total": value.total if value.known else None, "expected_guesses": row.expected(value),
            "kind": value.kind, "source": value.source,
            "guess": game.guesses[value.guess] if value.guess >= 0 else None}


def to_json(analysis: Analysis) -> dict:
    game = analysis.game
    rows = []
    for r in analysis.rows:
        cost, cost_kind = r.cost
        luck, luck_kind = r.luck
        rows.append({"row": r.number, "guess": r.guess, "colours": r.colours, "candidates_before": r.before,
                     "candidates_after": r.after, "played": _value_json(r, r.played, game),
                     "best": _value_json(r, r.best, game), "cost": cost, "cost_kind": cost_kind,
                     "luck": luck, "luck_kind": luck_kind, "chance_of_losing": r.lose_played,
                     "chance_of_losing_best": r.lose_best})
    return {"game": game.name, "hard_mode": game.hard_mode, "max_guesses": game.max_guesses,
            "secret": analysis.secret, "won": analysis.won, "guesses": len(analysis.rows), "rows": rows,
            "summary": summary(analysis)}


def summary(analysis: Analysis) -> dict:
    """Expected guesses at the start, summed cost and luck (the decomposition holds when all are exact)."""
    rows = analysis.rows
    if not rows:
        return {}
    start = rows[0].expected(rows[0].best)
    costs, lucks = [r.cost for r in rows], [r.luck for r in rows]
    exact = all(k == "exact" for _, k in costs + lucks) and rows[0].best.kind == "exact"
    known = all(v is not None for v, _ in costs + lucks) and start is not None
    return {"expected_at_start": start, "cost": sum(v for v, _ in costs) if known else None,
            "luck": sum(v for v, _ in lucks) if known else None, "exact": exact and known}


GREEN, YELLOW, RED, RESET = "\x1b[32m", "\x1b[33m", "\x1b[31m", "\x1b[0m"


def _shown(row: RowAnalysis, value: Value) -> str:
    if value.kind == "infeasible":
        return "lost?"
    if not value.known:
        return "?"
    return ("≤" if value.kind == "upper bound" else "") + f"{row.expected(value):.3f}"


def _signed(value: float | None, kind: str, colour: bool, good_when_positive: bool) -> str:
    if value is None:
        return "?"
    mark = {"at least": "≥", "at most": "≤", "approximate": "~"}.get(kind, "")
    text = f"{mark}{value:+.3f}" if good_when_positive else f"{mark}{value:.3f}"
    if not colour:
        return text
    if good_when_positive:
        tint = GREEN if value > 1e-9 else RED if value < -1e-9 else ""
    else:
        tint = GREEN if value < 1e-9 else YELLOW if value < 0.1 else RED
    return f"{tint}{text}{RESET}" if tint else text


def table(analysis: Analysis, colour: bool = False) -> list[str]:
    """One row per guess: tiles, candidates before -> after, expected total guesses played / best, cost, luck."""
    from pipeline.assistant.terminal import bold, render_row

    game = analysis.game
    limit = game.max_guesses is not None and any(r.lose_played or r.lose_best for r in analysis.rows)
    width = max(len(r.guess) for r in analysis.rows) + game.length + 1 if analysis.rows else 10
    tiles_width = 4 * game.length + game.length + 1 if colour else width
    head = (f"{'#':>2}  {'guess':<{tiles_width}}  {'candidates':>12}  {'played':>7}  {'best':>7} "
            f"{'(guess)':<{game.length + 2}}  {'cost':>7}  {'luck':>7}" + ("  lose" if limit else ""))
    lines = [bold(head, colour)]
    for r in analysis.rows:
        best_word = game.guesses[r.best.guess] if r.best.guess >= 0 else "?"
        tiles = render_row(r.guess, r.colours, colour)
        line = (f"{r.number:>2}  {tiles:<{tiles_width}}  {r.before:>5} → {r.after:<4}  {_shown(r, r.played):>7}  "
                f"{_shown(r, r.best):>7} ({best_word}){' ' * max(0, game.length - len(best_word))}  "
                f"{_signed(*r.cost, colour, False):>7}  {_signed(*r.luck, colour, True):>7}")
        if limit:
            line += f"  {100 * r.lose_played:.0f}%"
        lines.append(line)
    return lines + footer(analysis)


def decomposition(cost: float, luck: float) -> str:
    """`+ 0.160 cost − 0.419 luck`, each term with one sign: bad luck (negative) is added, `+ 0.419 bad luck`."""
    cost_term = f"+ {abs(cost):.3f} cost" if cost > -5e-4 else f"− {-cost:.3f} cost"
    luck_term = f"− {abs(luck):.3f} luck" if luck > -5e-4 else f"+ {-luck:.3f} bad luck"
    return f"{cost_term} {luck_term}"


def footer(analysis: Analysis) -> list[str]:
    rows, s = analysis.rows, summary(analysis)
    if not rows:
        return ["no guesses to analyse"]
    n = len(rows)
    if analysis.won and s.get("cost") is not None:
        sign = "=" if s["exact"] else "≈"
        outcome = (f"solved in {n}: {n} {sign} {s['expected_at_start']:.3f} expected at the start "
                   f"{decomposition(s['cost'], s['luck'])}")
    elif analysis.won:
        outcome = f"solved in {n}"
    else:
        outcome = f"not solved after {n} guesses; {rows[-1].after} candidates left"
    lines = [outcome, "played / best: expected total guesses of the game from that row (MinTotal / |C|); "
             "cost = played − best; luck = expected further guesses after the guess − after its response"]
    marks = sorted({v.kind for r in rows for v in (r.played, r.best)} - {"exact"})
    if marks:
        lines.append("≤: an upper bound (the exact solver ran out of its time budget, `--budget` gives it more); "
                     "~ ≥ ≤ on cost and luck: bounds or approximations from those; everything else is exact")
    sources = sorted({v.source for r in rows for v in (r.played, r.best)} - {"exact solver"})
    lines += [f"source: {src}" for src in sources]
    return lines
