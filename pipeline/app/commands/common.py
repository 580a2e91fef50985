"""What the sub-commands share: the one-line-error argument parser, the split of free arguments into
paths, game overrides and legacy key=value options, and their checks."""

import argparse
import os
import re
import sys
from pathlib import Path

from pipeline import PipelineError, echo, error_line, printable


EXIT_BAD_INPUT = 2


OVERRIDE = re.compile(r"^[+~]?(game|paths)(\.[A-Za-z_][\w.]*)?=")  # game=..., game.<key>=..., paths.<key>=...


KEY_VALUE_OPTIONS = ("sample", "tree", "secret", "guesses", "grid", "budget")  # also written `key=value`


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one `error: ...` line (exit 2), like every other bad input."""

    def error(self, message: str):
        print(error_line(f"{self.prog}: {message} (see {self.prog} --help)"), file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def say(line: str) -> None:
    """A result line on stdout; the names in it (files, games, words: anybody's) printed escaped
    (pipeline.printable)."""
    print(printable(line))


def split_words(words: list[str]) -> tuple[list[str], list[str], dict[str, str]]:
    """(positional arguments, game/paths overrides, legacy key=value options) of a command's free arguments."""
    positional, overrides, legacy = [], [], {}
    for word in words:
        key, eq, value = word.partition("=")
        if OVERRIDE.match(word):
            overrides.append(word)
        elif eq and key in KEY_VALUE_OPTIONS:
            legacy[key] = value
        else:
            positional.append(word)
    return positional, overrides, legacy


def load_game_from(overrides: list[str]):
    """The game selected by `game=<name>` / `game.*=` overrides (one-line errors)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game

    return load_game(compose_config(overrides).game)


def one_path(ns: argparse.Namespace, what: str) -> tuple[Path, list[str], dict]:
    """The command's single positional path (kept as given, `=` and `/` included), its overrides, legacy options."""
    positional, overrides, legacy = split_words([ns.path, *ns.rest])
    if len(positional) != 1:
        extra = echo(" ".join(positional[1:])) or "(none)"
        raise PipelineError(f"{ns.command} takes one {what}; unexpected: {extra} "
                            "(game settings are game=<name>, game.<key>=<value>, paths.<key>=<value>)")
    return Path(positional[0]), overrides, legacy


def positive_whole(option: str):
    """argparse type of `option`: a positive integer."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"{option} must be a whole number, got {text!r}") from None
        if value < 1:
            raise argparse.ArgumentTypeError(f"{option} must be at least 1, got {value}")
        return value
    return parse


sample_size = positive_whole("--sample")


worker_count = positive_whole("--workers")


def capped_workers(workers: int) -> int:
    """--workers, at most one process per CPU of this machine (more would only share the same cores), with a
    warning line when it is lowered."""
    cpus = os.cpu_count() or 1
    if workers > cpus:
        print(f"warning: --workers {workers} is more than this machine's {cpus} CPU(s); using {cpus}",
              file=sys.stderr)
        return cpus
    return workers


def assistant_args(ns: argparse.Namespace, own: tuple[str, ...]) -> tuple[list[str], dict[str, str]]:
    """The assistant's game/paths overrides and its own options (tree, secret; --option or key=value)."""
    positional, overrides, legacy = split_words(ns.rest)
    if positional:
        raise PipelineError(f"unexpected argument '{echo(positional[0])}' for {ns.command} "
                            "(game settings are game=<name>, game.<key>=<value>, paths.<key>=<value>)")
    unknown = set(legacy) - set(own)
    if unknown:
        raise PipelineError(f"{ns.command} has no option {sorted(unknown)[0]}=")
    options = {**legacy, **{k: getattr(ns, k) for k in own if getattr(ns, k) is not None}}
    return overrides, options


FORMS_HELP = "a tree file: tree.json, tree.txt (one line per secret), Selby's tree text or the leaderboard's JSON"


GAME_ARGS = "game=<name>, game.<key>=<value> and paths.<key>=<value> choose and adjust the game"


def command_parser(command: str, description: str, rest_help: str = GAME_ARGS) -> ArgumentParser:
    """A sub-command's parser; free arguments (overrides and paths) may come before or after its options."""
    parser = ArgumentParser(prog=f"python -m pipeline {command}", description=description)
    parser.add_argument("rest", nargs="*", metavar="game=<name>", default=[], help=rest_help)
    return parser


def path_parser(command: str, metavar: str, description: str, path_help: str) -> ArgumentParser:
    parser = ArgumentParser(prog=f"python -m pipeline {command}", description=description)
    parser.add_argument("path", metavar=metavar, help=path_help + " (a path, even with = or / in it)")
    parser.add_argument("rest", nargs="*", metavar="game=<name>", default=[], help=GAME_ARGS)
    return parser
