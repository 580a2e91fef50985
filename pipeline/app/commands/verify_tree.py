"""`python -m pipeline verify-tree`: replay every secret through a strategy tree (json, text or Selby's).

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse

from pipeline import PipelineError
from pipeline.app.commands.common import ArgumentParser, FORMS_HELP, load_game_from, one_path, path_parser, say


NAME = 'verify-tree'
USAGE = ('verify-tree <tree file> game=<name>',  # the form and what it does, in `python -m pipeline --help`
         "replay every secret through a strategy tree (json, text or Selby's)")


def run(ns: argparse.Namespace) -> int:
    from pipeline.proofs.certificates.tree import verify_tree_file

    path, overrides, legacy = one_path(ns, "tree file")
    if legacy:
        raise PipelineError(f"verify-tree has no option {next(iter(legacy))}=")
    stats = verify_tree_file(path, load_game_from(overrides))
    say(f"ok: every secret found; total {stats['total']}, expected {stats['expected']:.4f}, "
          f"max {stats['max_guesses']} guesses, distribution {stats['distribution']}")
    return 0


def parser() -> ArgumentParser:
    return path_parser("verify-tree", "tree_file", "Replay every secret of the game through a strategy tree "
                       "and print its statistics.", FORMS_HELP)
