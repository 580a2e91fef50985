"""`python -m pipeline play ...` (the interactive assistant) and `python -m pipeline solve ...`.

Arguments: `game=<name>` and any `game.<key>=<value>` / `paths.<key>=<value>`
override (composed like a stage run), plus `tree=<tree.json>|none` to choose
or disable the strategy tree (default: the best stored one for the game), and
for `solve` the `secret=<word>`.  On a terminal, rows are coloured tiles and
slow steps show a spinner; with piped input every line is echoed after "> "
and the output is plain and deterministic.
"""

import os
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path

from pipeline import PipelineError, echo, error_line, shown_value

PLAY_USAGE = """usage: python -m pipeline play game=<name> [game.<key>=<value> ...] [tree=<tree.json>|none]
  e.g. python -m pipeline play game=wordle_original game.hard_mode=true
       python -m pipeline play game=words game.length=6 game.secrets.path=words.txt"""
SOLVE_USAGE = ("usage: python -m pipeline solve game=<name> secret=<word> [game.<key>=<value> ...] "
               "[tree=<tree.json>|none]")


@dataclass
class Setup:
    session: object
    options: dict
    colour: bool
    outputs: Path = Path("outputs")


def setup(overrides: list[str], options: dict[str, str]) -> Setup:
    """Compose the game config, load the game and its strategy: everything before the first suggestion.

    `overrides` are game/paths overrides, `options` the command's own settings (tree, secret), both as the
    sub-command parser (pipeline.app.commands) split them."""
    from pipeline.config.compose import compose_config

    config = compose_config(overrides)
    from pipeline.assistant.known import certificate_claiming
    from pipeline.assistant.session import Session
    from pipeline.assistant.strategy import Strategy, find_tree, load_tree_file
    from pipeline.assistant.terminal import Progress, use_colour
    from pipeline.games.catalog import load_game
    with Progress(f"loading {config.game.name}"):
        game = load_game(config.game)
        choice = options.get("tree", "auto")
        if choice in ("none", "off", "false", ""):
            tree = None
        elif choice == "auto":
            tree = find_tree(game, Path(config.paths.outputs))
        else:
            tree = load_tree_file(Path(choice), game)
        strategy = Strategy(game, tree, certificate_claiming(game, config.paths.outputs, tree.total) if tree else None)
    user_lists = config.game.source == "lists" and not config.game.secrets.sha256
    return Setup(Session(strategy, allow_unlisted=user_lists), options, use_colour(sys.stdout),
                 Path(config.paths.outputs))


def _suggest(session) -> None:
    """Work out the current suggestion (memoised by the session) with a progress indicator."""
    from pipeline.assistant.terminal import Progress

    if session.solved or session.inconsistent:
        return
    with Progress("thinking") as progress:
        session.strategy.on_progress = progress.update
        try:
            session.suggestion()
        finally:
            session.strategy.on_progress = None


def _input_lines(interactive: bool):
    if interactive:
        try:
            import readline  # noqa: F401  (line editing for input())
        except ImportError:  # pragma: no cover
            pass
        while True:
            try:
                yield input("> ")
            except EOFError:
                print()
                return
    else:
        for line in sys.stdin:
            line = line.rstrip("\n")
            print(f"> {echo(line)}")
            yield line


def _quiet_broken_pipe(command):
    """A reader that stops early (`| head`) ends the command quietly instead of with a traceback."""

    def run(*args) -> int:
        try:
            return command(*args)
        except BrokenPipeError:
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())  # no second error at exit
            return 0

    run.__name__, run.__doc__ = command.__name__, command.__doc__
    return run


@_quiet_broken_pipe
def play_command(overrides: list[str], options: dict[str, str]) -> int:
    from pipeline.assistant import explain

    budget = budget_of(options)  # refused before anything is loaded or said
    ready = setup(overrides, options)
    session = ready.session
    announce_kernels()
    say = lambda *lines: print("\n".join(lines), flush=True)  # noqa: E731
    coach = {"outputs": ready.outputs, "budget": budget, "colour": ready.colour,
             "top_seconds": budget if options.get("budget") else TOP_SECONDS}
    try:  # Ctrl-C, even while thinking, ends the session quietly (Ctrl-D ends the input: _input_lines)
        say(*explain.header(session))
        _suggest(session)
        say(explain.suggestion_line(session))
        for line in _input_lines(sys.stdin.isatty()):
            if play_line(line, session, coach, say):
                break
    except KeyboardInterrupt:
        print()
    return 0


def announce_kernels() -> None:
    """On stderr, once: kernels are about to compile for the first time (after the settings were accepted)."""
    from pipeline.runtime.progress import announce_compilation

    announce_compilation(emit=lambda line: print(line, file=sys.stderr, flush=True))


def play_line(line: str, session, coach: dict, say) -> bool:
    """Answer one input line of a play session; True when the person quits."""
    from pipeline.assistant import explain
    from pipeline.assistant.parse import InputError, parse_line
    from pipeline.assistant.terminal import render_row

    colour = coach["colour"]
    try:
        answer = coach_line(line, session, coach, colour) or session_command(line, session, coach)
        if answer is not None:
            say(*answer)
            return False
        practised = practice_guess(line, session, coach)
        entry = practised or parse_line(line, session.game.length, session.game.answering)
        if entry is None:
            return False
        if entry.command == "quit":
            return True
        if entry.command == "help":
            say(explain.HELP)
        elif entry.command == "list":
            words = session.candidate_words()
            say(f"{len(words)} candidates:", *textwrap.wrap(", ".join(words), 78) or ["(none)"])
        elif entry.command == "reset":
            coach.pop("secret", None)
            session.reset()
            _suggest(session)
            say("new game", explain.suggestion_line(session))
        elif entry.command == "undo":
            row = session.undo()
            _suggest(session)
            say(f"undone: {render_row(row.guess, row.colours, colour)}",
                explain.candidates_line(session), explain.suggestion_line(session))
        else:
            row = session.play(entry.word, entry.colours, entry.force)
            grade = practice_grade(session, coach) if practised else []
            _suggest(session)
            say(render_row(row.guess, row.colours, colour), *grade, *explain.row_report(session, row))
    except InputError as err:
        say(error_line(err))
    return False


@_quiet_broken_pipe
def solve_command(overrides: list[str], options: dict[str, str]) -> int:
    from pipeline.assistant.analysis import check_secret
    from pipeline.assistant.terminal import render_row

    if not options.get("secret"):
        raise PipelineError(f"solve needs secret=<word>; {SOLVE_USAGE[len('usage: '):]}")
    ready = setup(overrides, options)
    session, colour = ready.session, ready.colour
    game = session.game
    secret = options["secret"].strip().lower()
    check_secret(game, secret)
    announce_kernels()
    print(f"suggestions: {session.strategy.describe()}")
    while not session.solved:
        if len(session.rows) > len(game.secrets):  # cannot happen: every suggestion splits the candidates
            raise PipelineError(f"the strategy did not find {secret!r}")
        _suggest(session)
        word = session.suggestion().word
        row = session.play(word, game.answering.response(word, secret))
        print(render_row(row.guess, row.colours, colour), flush=True)
    n = len(session.rows)
    print(f"solved in {n} {'guess' if n == 1 else 'guesses'}")
    return 0


ANALYSE_USAGE = ("usage: python -m pipeline analyse game=<name> secret=<word> guesses=[g1,g2,...] "
                 "[grid=<share grid file, - for stdin>] [--json] [--budget S]")
THINKING_SPINNER_SECONDS = 2.0  # `top` and `analyse` show a spinner (terminal only) once they take this long
TREE_LEVELS = 2  # `tree` shows this many levels unless told
TOP_SECONDS = 1.0  # what `top` spends on sets the exact solver does not finish in-process (--budget: that)
GRID_SQUARES = "\U0001f7e9\U0001f7e8\u2b1b\u2b1c"  # 🟩 🟨 ⬛ ⬜


def parse_guesses(text: str) -> list[str]:
    """`[salet,crony,cigar]`, `salet,crony,cigar` or `salet crony cigar` -> the words, lower-cased (a word may be
    quoted, 'salet' or "salet").  A list half-written (`[salet,`), an empty word (`salet,,crony`) or a quote not
    closed is one PipelineError line."""
    listed = text.strip()
    if listed.startswith("[") or listed.endswith("]"):
        if not (listed.startswith("[") and listed.endswith("]")) or len(listed) < 2:
            raise PipelineError(f"guesses={shown_value(text)}: a list is [word,word,...], opened and closed")
        listed = listed[1:-1]
    items = [item.strip() for item in listed.split(",")] if "," in listed else listed.split()
    words = [unquoted(item, text) for item in items]
    return [word.lower() for word in words]


def unquoted(item: str, text: str) -> str:
    """One word of guesses=..., its quotes taken off; an empty, half-quoted or bracketed word is refused."""
    if len(item) >= 2 and item[0] == item[-1] and item[0] in "'\"":
        item = item[1:-1]
    if not item or any(ch in item for ch in "[]'\",") or any(ch.isspace() for ch in item):
        raise PipelineError(f"guesses={shown_value(text)}: {shown_value(item)} is not a word (the list is "
                            "[word,word,...] or words separated by spaces)")
    return item


def parse_grid(text: str, length: int) -> list[str]:
    """The colour rows of a pasted share grid (lines of 🟩🟨⬛⬜; title lines such as `Wordle 1,234 3/6` are
    skipped), as digit strings."""
    from pipeline.assistant.parse import InputError, parse_colours

    rows = []
    for line in text.splitlines():
        squares = "".join(ch for ch in line if ch in GRID_SQUARES)
        if squares:
            try:
                rows.append(parse_colours(squares, length))
            except InputError as err:
                raise PipelineError(f"share grid row {len(rows) + 1}: {err}") from None
    if not rows:
        raise PipelineError("the share grid has no rows of 🟩🟨⬛ squares")
    return rows


def grid_rows(game, grid: list[str], guesses: list[str], secret: str | None) -> list[tuple[str, str]]:
    """(guess, colours) rows from a share grid and the words, checked against the secret when one is given."""
    from pipeline.games.answer import feedback

    if len(grid) != len(guesses):
        raise PipelineError(f"the share grid has {len(grid)} rows but {len(guesses)} guesses were given")
    rows = list(zip(guesses, grid))
    for i, (word, colours) in enumerate(rows):
        if secret and word in game.guess_index and feedback(word, secret) != colours:
            raise PipelineError(f"share grid row {i + 1} ({colours}) does not match {word!r} against secret "
                                f"{secret!r}, which gives {feedback(word, secret)}")
    return rows


def game_rows(game, options: dict) -> tuple[list[tuple[str, str]], str | None]:
    """The rows to analyse from the options secret / guesses / grid."""
    from pipeline.assistant.analysis import check_secret, check_word, rows_from_secret

    guesses = parse_guesses(options.get("guesses") or "")
    secret = (options.get("secret") or "").strip().lower() or None
    if not guesses:
        raise PipelineError(f"analyse needs guesses=[...]; {ANALYSE_USAGE[len('usage: '):]}")
    if options.get("grid"):
        source = options["grid"]
        text = sys.stdin.read() if source == "-" else _read_text(Path(source))
        if secret:
            check_secret(game, secret)
        for word in guesses:
            check_word(game, word)
        return grid_rows(game, parse_grid(text, game.length), guesses, secret), secret
    if not secret:
        raise PipelineError("analyse needs secret=<word> (or a share grid: grid=<file>)")
    return rows_from_secret(game, secret, guesses), secret


GRID_BYTES = 2**20  # a share grid is a few hundred bytes


def _read_text(path: Path) -> str:
    """The share grid file's text (one error line for a missing, special, huge or non-UTF-8 file)."""
    from pipeline.runtime.files import MissingFile, UnreadableFile, read_text

    try:
        return read_text(path, GRID_BYTES)
    except MissingFile:
        raise PipelineError(f"cannot read the share grid {path}: No such file or directory") from None
    except UnreadableFile as err:
        raise PipelineError(f"cannot read the share grid: {err}") from None


def make_valuer(game, outputs: Path, budget: float):
    """The coach's value engine: the game's code matrix and exact solver (built once per command/session)."""
    from pipeline.assistant.values import Valuer
    from pipeline.feedback.matrix import game_matrix

    return Valuer(game, game_matrix(game), budget, outputs)


MAX_BUDGET = 86_400.0  # seconds: a day per value is more than any position needs (and a timeout select accepts)


def budget_of(options: dict) -> float:
    """--budget: a number of seconds from 0 to MAX_BUDGET (nan and inf are refused, as any other non-number)."""
    text = options.get("budget") or "2"
    try:
        value = float(text)
    except ValueError:
        raise PipelineError(f"budget must be a number of seconds, got {shown_value(text)}") from None
    if not 0 <= value <= MAX_BUDGET:  # False for nan
        raise PipelineError(f"budget must be a number of seconds from 0 to {MAX_BUDGET:g}, got {shown_value(text)}")
    return value


@_quiet_broken_pipe
def analyse_command(overrides: list[str], options: dict) -> int:
    import json

    from pipeline.assistant.analysis import analyse, table, to_json
    from pipeline.assistant.terminal import Progress, use_colour
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game

    budget = budget_of(options)
    config = compose_config(overrides)
    with Progress(f"loading {config.game.name}"):
        game = load_game(config.game)
        rows, secret = game_rows(game, options)
        valuer = make_valuer(game, Path(config.paths.outputs), budget)
    with Progress("analysing"):
        result = analyse(valuer, rows, secret)
    if options.get("json"):
        print(json.dumps(to_json(result), indent=2, ensure_ascii=False))
    else:
        print("\n".join(table(result, use_colour(sys.stdout))))
    return 0


def coach_line(line: str, session, coach: dict, colour: bool) -> list[str] | None:
    """The lines answering `top [N]` or `analyse` in a play session (None: not such a command)."""
    words = line.strip().lower().split()
    if not words or words[0] not in ("top", "analyse", "analyze"):
        return None
    from pipeline.assistant.parse import InputError

    from pipeline.assistant.terminal import Progress

    if words[0] != "top":
        from pipeline.assistant.analysis import analyse, table

        if not session.rows:
            raise InputError("nothing to analyse yet: play a row first")
        try:
            with Progress("analysing", delay=THINKING_SPINNER_SECONDS):
                return table(analyse(valuer_of(session, coach), session.history), colour)
        except PipelineError as err:
            raise InputError(str(err)) from None
    if len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
        raise InputError("type `top` or `top N` (N a whole number)")
    from pipeline.assistant.ranking import top_lines

    with Progress("ranking guesses", delay=THINKING_SPINNER_SECONDS):
        return top_lines(session, valuer_of(session, coach), int(words[1]) if len(words) == 2 else 10,
                         coach["top_seconds"])


def valuer_of(session, coach: dict):
    """The session's value engine, built on first use and again when the game's mode changed."""
    if "valuer" not in coach or coach["valuer"].game is not session.game:
        coach["valuer"] = make_valuer(session.game, coach["outputs"], coach["budget"])
    return coach["valuer"]


def session_command(line: str, session, coach: dict) -> list[str] | None:
    """The lines answering `tree [N]`, `hard [on|off]` or `practice [SEED]` (None: not such a command)."""
    from pipeline.assistant import explain
    from pipeline.assistant.parse import InputError

    words = line.strip().lower().split()
    if not words or words[0] not in ("tree", "hard", "practice"):
        return None
    if words[0] == "tree":
        if len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
            raise InputError("type `tree` or `tree N` (N levels, a whole number)")
        return explain.tree_lines(session, int(words[1]) if len(words) == 2 else TREE_LEVELS)
    if words[0] == "hard":
        return hard_command(words[1:], session)
    if len(words) > 2 or (len(words) == 2 and not words[1].isdigit()):
        raise InputError("type `practice` or `practice SEED` (SEED a whole number)")
    return start_practice(session, coach, int(words[1]) if len(words) == 2 else None)


def hard_command(args: list[str], session) -> list[str]:
    """`hard` toggles hard mode, `hard on` / `hard off` sets it; the new suggestion follows."""
    from pipeline.assistant import explain
    from pipeline.assistant.parse import InputError

    if len(args) > 1 or (args and args[0] not in ("on", "off")):
        raise InputError("type `hard`, `hard on` or `hard off`")
    on = (not session.game.hard_mode) if not args else args[0] == "on"
    session.set_hard_mode(on)
    _suggest(session)
    return [f"hard mode {'on' if on else 'off'}", explain.suggestion_line(session)]


def start_practice(session, coach: dict, seed: int | None) -> list[str]:
    """A new game against a secret picked by `random.Random(seed)` (a fresh seed, shown, when none is given)."""
    import random

    from pipeline.assistant import explain

    seed = random.randrange(10**6) if seed is None else seed
    coach["secret"] = random.Random(seed).choice(session.game.secrets)
    session.reset()
    _suggest(session)
    return [f"practice (seed {seed}): the program picked one of the {len(session.game.secrets)} secrets; type "
            "guesses only, each is answered and graded (`reset` leaves practice)", explain.suggestion_line(session)]


def practice_guess(line: str, session, coach: dict):
    """In practice, a line holding one word is that guess answered against the secret (else None)."""
    from pipeline.assistant.parse import COMMANDS, Entry

    words = line.strip().split()
    if "secret" not in coach or len(words) != 1 or words[0].lower() in COMMANDS:
        return None
    word = words[0].lower()
    session.check_guess(word)  # InputError for a word that cannot be played, before it is answered
    return Entry(word=word, colours=session.game.answering.response(word, coach["secret"]))


def practice_grade(session, coach: dict) -> list[str]:
    """The practice grade of the last guess: its cost in expected guesses, exact when the exact solver finished
    within the budget, else labelled an estimate."""
    from pipeline.assistant.analysis import analyse

    last = analyse(valuer_of(session, coach), session.history, coach["secret"]).rows[-1]
    value, kind = last.cost
    if value is None:
        return ["grade: cost unknown (no value within the time budget)"]
    verdict = "an optimal guess" if kind == "exact" and abs(value) < 1e-9 else f"cost {value:.3f} guesses"
    label = "exact" if kind == "exact" else f"estimate, {kind}"
    return [f"grade: {verdict} ({label})"]
