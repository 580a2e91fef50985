"""Sub-commands beside the Hydra stages: `data`, `verify-tree`, `verify-certificate`, `play`, `solve`.

Anything else on the command line is a Hydra stage run.
"""

import sys
from pathlib import Path

from pipeline.config import PROJECT_ROOT

USAGE = """usage:
  python -m pipeline stage=<stage> game=<game> [key=value ...]   run a stage (Hydra overrides)
  python -m pipeline data verify|rebuild                            check / re-download the shipped word lists
"""


def data_command(args: list[str]) -> int:
    from pipeline.games.sources import rebuild, verify

    data_dir = PROJECT_ROOT / "data"
    if args == ["rebuild"]:
        provenance = rebuild(data_dir)
        print(f"rebuilt {len(provenance)} lists from the registry into {data_dir}")
    elif args != ["verify"]:
        print(USAGE, file=sys.stderr)
        return 2
    problems = verify(data_dir)
    for problem in problems:
        print(f"error: {problem}", file=sys.stderr)
    if not problems:
        print(f"all lists in {data_dir} match PROVENANCE.json")
    return 1 if problems else 0


COMMANDS = {"data": data_command}


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if argv and argv[0] in COMMANDS:
        return COMMANDS[argv[0]](argv[1:])
    from pipeline.cli import hydra_main

    hydra_main(argv)
    return 0
