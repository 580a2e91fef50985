"""The assistant's words: what a row taught, what is left, what to play next.  Pure functions returning lines."""

import math

from pipeline.assistant.parse import COLOUR_HELP
from pipeline.assistant.session import Row, Session, hard_mode_note
from pipeline.games.constraints import response_constraints, response_problem

SHOW_CANDIDATES = 8

HELP = """Type each guess and the colours the game showed:
  salet 02100      digits: 0 grey, 1 yellow, 2 green
  salet bgybb      letters: b (or w, x) grey, y yellow, g green
  salet .!?..      symbols: . (or -) grey, ? yellow, ! green
                   symbols may be mixed; pasted 🟩🟨⬛⬜ squares work too
  02100            colours alone: for the suggested guess
  xyzzy! 02100     word-list games: play a word that is not in the list
Commands:
  undo             take back the last row
  reset            start a new game
  list             show every remaining candidate
  help             this text
  quit             leave (end of input does too)"""


def header(session: Session) -> list[str]:
    game = session.game
    same = game.guesses == game.secrets
    lists = f"{len(game.secrets)} possible secrets" + ("" if same else f", {len(game.guesses)} allowed guesses")
    mode = ", hard mode" if game.hard_mode else ""
    how = (f"type a guess and its colours ({COLOUR_HELP}), e.g. `salet 02100`" if game.answer == "wordle" else
           f"type a guess and its answer, e.g. `{game.guesses[0]} {game.code_text(game.length + 2)}`")
    return [f"{game.name}: {game.length} symbols, {lists}{mode}",
            f"suggestions: {session.strategy.describe()}", f"{how}; `help` for more"]


def candidates_line(session: Session, row: Row | None = None) -> str:
    words = session.candidate_words()
    n, total = len(words), len(session.game.secrets)
    shown = ", ".join(words[:SHOW_CANDIDATES]) + (f", … (+{n - SHOW_CANDIDATES} more)" if n > SHOW_CANDIDATES else "")
    if row is None:
        return f"candidates: {n} of {total}: {shown}"
    gained = f"{row.bits:.2f} bits gained"
    so_far = math.log2(total / n)
    if len(session.rows) > 1:
        gained += f", {so_far:.2f} in all"
    return f"candidates: {n} of {total} left ({gained}): {shown}"


def suggestion_line(session: Session) -> str:
    s = session.suggestion()
    if s.word is None:
        return "suggest: nothing — no secret fits; `undo` the row that is wrong"
    source = {"tree": "strategy tree", "greedy": "greedy", "candidate": "one of the last two"}[s.source]
    n = len(session.candidates)
    if s.candidate:
        chance = "certain to win" if n == 1 else f"chance it wins: 1/{n} = {100 * s.chance:.3g}%"
    else:
        chance = "chance it wins: 0 (not a possible secret; it narrows them down)"
    return f"suggest: {s.word} ({source}); {chance}"


def row_report(session: Session, row: Row) -> list[str]:
    """Everything said after a row was added (the row itself is printed by the caller)."""
    if session.solved:
        n = len(session.rows)
        return [f"solved in {n} {'guess' if n == 1 else 'guesses'}! (`reset` for a new game, `quit` to leave)"]
    wordle = session.game.answer == "wordle"  # the constraint view reads Wordle colours
    lines = [f"learned: {response_constraints(row.guess, row.colours).describe()}"] if wordle else []
    if wordle and len(session.rows) > 1:
        known = session.constraints()
        if known.conflicts:
            lines.append(f"known: nothing consistent — the rows contradict each other: {known.conflicts[0]}")
        else:
            lines.append(f"known: {known.describe()}")
    if session.inconsistent:
        if len(row.before):
            lines.append(f"candidates: none — no secret of {session.game.name} fits all these colours; "
                         "check what you typed (`undo` takes the last row back)")
        else:
            lines.append("candidates: still none (`undo` the row that is wrong)")
        problem = response_problem(row.guess, row.colours) if wordle else None
        if problem:
            lines.append(f"note: {problem}")
        return lines
    lines.append(candidates_line(session, row))
    note = hard_mode_note(session)
    if note:
        lines.append(f"hard mode: {note}")
    lines.append(suggestion_line(session))
    return lines
