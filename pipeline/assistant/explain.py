"""The assistant's words: what a row taught, what is left, what to play next.  Pure functions returning lines."""

import math

from pipeline.assistant.parse import COLOUR_HELP
from pipeline.assistant.session import Row, Session, hard_mode_note
from pipeline.games.constraints import response_constraints, response_problem

SHOW_ALL_UP_TO = 10  # this many candidates or fewer are all shown ...
SHOW_CANDIDATES = 8  # ... more are shown as this many and "+N more"

HELP = """Type each guess and the colours the game showed:
  salet 02100      digits: 0 grey, 1 yellow, 2 green
  salet bgybb      letters: b (or w, x) grey, y yellow, g green
  salet .!?..      symbols: . (or -) grey, ? yellow, ! green
                   symbols may be mixed; pasted 🟩🟨⬛⬜ squares work too
  02100            colours alone: for the suggested guess
  xyzzy! 02100     word-list games: play a word that is not in the list
Commands:
  top [N]          the N best next guesses by expected guesses (exact where it is fast; default 10)
  analyse          grade every row played so far: cost and luck of each guess
  tree [N]         the strategy tree from here, N levels deep (default 2), when a tree is known
  hard [on|off]    switch hard mode (refused if the rows so far break it)
  practice [SEED]  a new game against a secret the program picks: type guesses only, each one is graded
  list             show every remaining candidate
  undo             take back the last row
  reset            start a new game (and leave practice)
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
    shown = ", ".join(words) if n <= SHOW_ALL_UP_TO else \
        ", ".join(words[:SHOW_CANDIDATES]) + f", … (+{n - SHOW_CANDIDATES} more)"
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
    n = len(session.candidates)
    source = source_label(session, s.source, n)
    if s.candidate:
        chance = "certain to win" if n == 1 else f"chance it wins: 1/{n} = {100 * s.chance:.3g}%"
    else:
        chance = "chance it wins: 0 (not a possible secret; it narrows them down)"
    return f"suggest: {s.word} ({source}); {chance}"


def source_label(session: Session, source: str, n: int) -> str:
    """Why this word is suggested, in the words shown beside it."""
    if source == "published":
        total, _ = session.strategy.published
        return f"published optimum {total}; not computed here"
    if source == "candidate":
        return {1: "the last candidate", 2: "one of the last two"}.get(n, "a candidate: only one can win now")
    return {"tree": "strategy tree", "greedy": "greedy"}[source]


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


TREE_LINES = 60  # `tree` prints at most this many lines


def tree_lines(session: Session, levels: int) -> list[str]:
    """The strategy tree from the current position, `levels` deep: `guess (n candidates)` and, indented, each
    response's next guess; or why there is none to show."""
    strategy = session.strategy
    if strategy.tree is None:
        return [f"no strategy tree is known for {session.game.name} in this mode (a finished "
                f"`python -m pipeline stage=upper_bound game={session.game.name}` stores one)"]
    node = strategy.tree_node(session.history)
    if node is None or node.candidates != len(session.candidates):
        return ["play has left the strategy tree: no tree from here (suggestions are greedy)"]
    lines = []
    walk_tree(node, levels, "", lines)
    if len(lines) > TREE_LINES:
        lines = lines[:TREE_LINES] + [f"… (+{len(lines) - TREE_LINES} more lines; `tree 1` shows fewer levels)"]
    return lines


def walk_tree(node, levels: int, indent: str, lines: list[str], colours: str = "") -> None:
    """Append `node` and its children (depth first, responses in order) down `levels` levels to `lines`."""
    lead = f"{colours} → " if colours else ""
    found = " (found)" if node.candidates == 1 else f" ({node.candidates} candidates)"
    lines.append(f"{indent}{lead}{node.guess}{found}")
    if levels > 1:
        for key in sorted(node.children):
            walk_tree(node.children[key], levels - 1, indent + "  ", lines, key)
