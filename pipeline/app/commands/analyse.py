"""`python -m pipeline analyse`: score every guess of a game: cost and luck.

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse

from pipeline.app.commands.common import ArgumentParser, assistant_args, command_parser


NAME = 'analyse'
USAGE = ('analyse game=<name> secret=<word> guesses=[g1,...]',  # the form and what it does, in `python -m pipeline --help`
         'score every guess of a game: cost and luck')


def run(ns: argparse.Namespace) -> int:
    from pipeline.assistant.app import analyse_command as analyse

    overrides, options = assistant_args(ns, ("secret", "guesses", "grid", "budget", "json"))
    return analyse(overrides, options)


def analyse_parser() -> ArgumentParser:
    parser = command_parser("analyse", "Score every guess of a finished (or unfinished) game: expected total "
                            "guesses of the guess played and of the best guess (exact where the exact solver "
                            "finishes within the budget, else a labelled upper bound), the cost of each choice "
                            "and the luck of each response.")
    parser.add_argument("--secret", default=None, help="the secret word (secret=<word> also accepted)")
    parser.add_argument("--guesses", default=None, help="the guesses played, e.g. [salet,crony,cigar]")
    parser.add_argument("--grid", default=None, help="a share grid file (- reads stdin) giving the colours")
    parser.add_argument("--budget", default=None, help="seconds the exact solver may spend per value (default 2)")
    parser.add_argument("--json", action="store_true", default=None, help="print the analysis as JSON")
    return parser


def parser() -> ArgumentParser:
    return analyse_parser()
