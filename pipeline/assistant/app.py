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

from pipeline.errors import PipelineError

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


def setup(overrides: list[str], options: dict[str, str]) -> Setup:
    """Compose the game config, load the game and its strategy: everything before the first suggestion.

    `overrides` are game/paths overrides, `options` the command's own settings (tree, secret), both as the
    sub-command parser (pipeline.commands) split them."""
    from pipeline.cli import compose, to_config

    config = to_config(compose(overrides))
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
        strategy = Strategy(game, tree)
    user_lists = config.game.source == "lists" and not config.game.secrets.sha256
    return Setup(Session(strategy, allow_unlisted=user_lists), options, use_colour(sys.stdout))


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
            print(f"> {line}")
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
    from pipeline.assistant.parse import InputError, parse_line
    from pipeline.assistant.terminal import render_row

    ready = setup(overrides, options)
    session, colour = ready.session, ready.colour
    say = lambda *lines: print("\n".join(lines), flush=True)  # noqa: E731
    say(*explain.header(session))
    _suggest(session)
    say(explain.suggestion_line(session))
    try:
        for line in _input_lines(sys.stdin.isatty()):
            try:
                entry = parse_line(line, session.game.length, session.game.answering)
                if entry is None:
                    continue
                if entry.command == "quit":
                    break
                if entry.command == "help":
                    say(explain.HELP)
                elif entry.command == "list":
                    words = session.candidate_words()
                    say(f"{len(words)} candidates:", *textwrap.wrap(", ".join(words), 78) or ["(none)"])
                elif entry.command == "reset":
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
                    _suggest(session)
                    say(render_row(row.guess, row.colours, colour), *explain.row_report(session, row))
            except InputError as err:
                say(f"error: {err}")
    except KeyboardInterrupt:
        print()
    return 0


@_quiet_broken_pipe
def solve_command(overrides: list[str], options: dict[str, str]) -> int:
    from pipeline.assistant.terminal import render_row

    if not options.get("secret"):
        raise PipelineError(f"solve needs secret=<word>; {SOLVE_USAGE[len('usage: '):]}")
    ready = setup(overrides, options)
    session, colour = ready.session, ready.colour
    game = session.game
    secret = options["secret"].strip().lower()
    if secret not in game.secret_index:
        also = " (it is an allowed guess, but never the answer)" if secret in game.guess_index else ""
        raise PipelineError(f"{secret!r} is not a possible secret of {game.name}{also}")
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
