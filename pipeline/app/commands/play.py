"""`python -m pipeline play`: interactive assistant: type guesses and colours.

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse

from pipeline.app.commands.common import ArgumentParser, assistant_args, command_parser


NAME = 'play'
USAGE = ('play game=<name> [game.hard_mode=true]',  # the form and what it does, in `python -m pipeline --help`
         'interactive assistant: type guesses and colours')


def run(ns: argparse.Namespace) -> int:
    from pipeline.assistant.app import play_command as play

    return play(*assistant_args(ns, ("tree", "budget")))


def parser() -> ArgumentParser:
    parser = command_parser("play", 'Interactive assistant: type guesses and colours, get suggestions.')
    parser.add_argument("--tree", default=None,
                        help="strategy tree file (tree.json, tree.txt or Selby's tree text), or none for greedy "
                             "only (default: the best stored tree)")
    parser.add_argument("--budget", default=None, help="seconds the exact solver may spend per value for "
                        "`analyse` (default 2) and on the whole list for `top` (default 1)")
    return parser
