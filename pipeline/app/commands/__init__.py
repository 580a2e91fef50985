"""Sub-commands beside the Hydra stages: `data`, `verify-tree`, `export-tree`, `verify-certificate`, `bundle`, `play`,
`solve`, `analyse`.

Each has an argparse parser (`python -m pipeline <command> --help`).  Game settings are passed as
overrides — the arguments of the form `game=<name>`, `game.<key>=<value>` or `paths.<key>=<value>` —
and everything else is positional, so a file path containing `=` or `/` stays a path.  The old
`sample=N`, `tree=...` and `secret=...` spellings are still accepted.  Anything that is not a
sub-command is a Hydra stage run (pipeline.app.cli).

This package is the command line's entry point (pipeline/__main__.py calls `main`): it imports pipeline.app.cli
for stage runs, and nothing imports it back.  Configs come from the one composer, pipeline.config.compose.

A sub-command is one module here (NAME, USAGE, parser(), run(ns)) and one entry in COMMANDS below.
"""

import re
import sys

from pipeline import PipelineError, echo, error_line
from pipeline.app.commands.common import EXIT_BAD_INPUT
from pipeline.app.commands.data import has_fetch
from pipeline.app.commands.listing import listed
from pipeline.config.suggest import GROUPS, did_you_mean
from pipeline.processes import signals
from pipeline.app.commands import (data, verify_tree, export_tree, verify_certificate, bundle,
                                   play, solve, analyse, listing)

# every sub-command: a module with NAME, USAGE, parser() and run(ns); the order is --help's
COMMANDS = {module.NAME: module for module in (
    data, verify_tree, export_tree, verify_certificate, bundle, play, solve, analyse, listing)}
USAGE_LINES = [
    ('stage=<stage> game=<game> [key=value ...]', 'run a stage (Hydra overrides; -m sweeps them)'),
    *(module.USAGE for module in COMMANDS.values()),
    ('<command> --help', "a sub-command's own options"),
]


def usage() -> str:
    """The top-level usage: one line per form of the command, then the stages, games and experiments."""
    fetch = has_fetch()
    values = {"actions": "verify,rebuild" + (",fetch" if fetch else ""), "fetch": " / fetch" if fetch else ""}
    lines = [(f"python -m pipeline {form % values}", text % values) for form, text in USAGE_LINES]
    width = max(len(form) for form, _ in lines) + 3
    names = "".join(f"\n{group}s: {', '.join(n for n, _ in listed(group))}\n" for group in GROUPS)
    return ("usage:\n" + "".join(f"  {form.ljust(width)}{text}\n" for form, text in lines) + names
            + "\n`python -m pipeline list` describes each one.\n")


def unknown_command(word: str) -> None:
    """A first argument that is neither a sub-command nor a key=value override: a misspelt command."""
    if word in GROUPS:
        raise PipelineError(f"{word} needs a value: {word}=<name> (python -m pipeline list shows the names)")
    hint = did_you_mean(word, COMMANDS) or did_you_mean(word, GROUPS, suffix="=<name>")
    raise PipelineError(f"unknown command '{echo(word)}'{hint}; commands are {', '.join(COMMANDS)}, and a stage run "
                        "is `stage=<stage> game=<game> [key=value ...]` (see python -m pipeline --help)")


BARE_WORD = re.compile(r"^[A-Za-z][\w-]*$")  # no `=`, `~` or `-`: no override, no flag


HELP = ("-h", "--help")


def main(argv: list[str]) -> int:
    signals.on_stop(None)  # what a stop leaves is said by the command that runs (verify-certificate, a stage run)
    if argv and argv[0] in COMMANDS:
        ns = COMMANDS[argv[0]].parser().parse_intermixed_args(argv[1:])
        ns.command = argv[0]
        try:
            return COMMANDS[argv[0]].run(ns)
        except PipelineError as err:
            if signals.received() is not None:
                raise  # a library turned the signal into an error while it unwound: the signal's line instead
            print(error_line(err), file=sys.stderr)
            return EXIT_BAD_INPUT
    if argv[:1] == ["help"] or any(arg in HELP for arg in argv):  # a stage run's -h too: no flag reaches Hydra
        print(usage(), end="")
        return 0
    if argv and BARE_WORD.match(argv[0]):
        try:
            unknown_command(argv[0])
        except PipelineError as err:
            print(error_line(err), file=sys.stderr)
            return EXIT_BAD_INPUT
    from pipeline.app.cli import hydra_main
    from pipeline.runtime.log import setup_console

    setup_console()  # warnings while the game loads (dropped duplicates) reach stderr as plain lines
    try:
        hydra_main(argv, commands=tuple(COMMANDS))
    except OSError as err:  # a full disk or read-only folder outside an artifact (Hydra's run folder)
        from pipeline.runtime.store import write_problem

        problem = write_problem(err, str(err.filename or "the run's files"))
        if problem is None:
            raise
        print(error_line(problem), file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0
