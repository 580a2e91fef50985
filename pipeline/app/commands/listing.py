"""`python -m pipeline list`: the stages, games and experiments; or every setting, its default.

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse

from pipeline import PipelineError, echo
from pipeline.app.commands.common import ArgumentParser, command_parser
from pipeline.config.suggest import GROUPS, group_listing


NAME = 'list'
USAGE = ('list [stage=<stage>|game|ray|paths]',  # the form and what it does, in `python -m pipeline --help`
         'the stages, games and experiments; or every setting, its default')


def listed(group: str) -> list[tuple[str, str]]:
    """(option, description) of a config group's options; the stages in their pipeline order."""
    from pipeline.config.stages import SCHEMAS

    return group_listing(group, order=tuple(SCHEMAS) if group == "stage" else ())


def listing() -> str:
    """Every stage, game and experiment with its one-line description (the first line of its conf/ file)."""
    out = []
    for group in GROUPS:
        rows = listed(group)
        width = max(len(name) for name, _ in rows) + 2
        out.append(f"{group}s ({group}=<name>):\n" + "".join(f"  {n.ljust(width)}{d}\n" for n, d in rows))
    return "\n".join(out)


def run(ns: argparse.Namespace) -> int:
    """`python -m pipeline list`: the listing, on stdout; `list stage=<name>` (or game, ray, paths): every
    setting of that schema with its default and help line (pipeline.config.suggest.settings_listing)."""
    from pipeline.config.stages import INHERITED_HELP, SCHEMAS
    from pipeline.config.suggest import settings_listing

    if len(ns.rest) > 1:
        raise PipelineError(f"list takes at most one argument (stage=<name>, game, ray or paths); unexpected: "
                            f"{echo(' '.join(ns.rest))}")
    print(settings_listing(ns.rest[0], SCHEMAS, INHERITED_HELP) if ns.rest else listing(), end="")
    return 0


def parser() -> ArgumentParser:
    return command_parser("list", "Print every stage, game and experiment with a one-line description; "
                          "with stage=<name> (or game, ray, paths), every setting of that schema with its "
                          "default and help line.", rest_help="stage=<name>, game, ray or paths (optional)")
