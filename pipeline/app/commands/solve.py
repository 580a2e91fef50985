"""`python -m pipeline solve`: play the strategy against a secret.

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse

from pipeline.app.commands.common import ArgumentParser, assistant_args, command_parser


NAME = 'solve'
USAGE = ('solve game=<name> --secret <word>',  # the form and what it does, in `python -m pipeline --help`
         'play the strategy against a secret')


def run(ns: argparse.Namespace) -> int:
    from pipeline.assistant.app import solve_command as solve

    return solve(*assistant_args(ns, ("tree", "secret")))


def parser() -> ArgumentParser:
    parser = command_parser("solve", 'Play the strategy against a secret and print each row.')
    parser.add_argument("--tree", default=None,
                        help="strategy tree file (tree.json, tree.txt or Selby's tree text), or none for greedy "
                             "only (default: the best stored tree)")
    parser.add_argument("--secret", default=None, help="the secret word (secret=<word> also accepted)")
    return parser
