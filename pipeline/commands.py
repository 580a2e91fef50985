"""Sub-commands beside the Hydra stages: `data`, `verify-tree`, `verify-certificate`, `play`, `solve`.

Anything else on the command line is a Hydra stage run.
"""

import sys
from pathlib import Path

from pipeline.config import DATA_DIR

USAGE = """usage:
  python -m pipeline stage=<stage> game=<game> [key=value ...]   run a stage (Hydra overrides)
  python -m pipeline data verify|rebuild                            check / re-download the shipped word lists
  python -m pipeline data fetch ffxivrdle [paths.shared_data=<dir>]  download FFXIVrdle's lists (not shipped)
  python -m pipeline verify-tree <tree.json> game=<name>            replay every secret through a strategy tree
  python -m pipeline verify-certificate <prove dir> [sample=50]     re-check a proof of optimality
  python -m pipeline verify-certificate <prove dir> [sample=50]     re-check a proof of optimality
  python -m pipeline play game=<name> [game.hard_mode=true]         interactive assistant: type guesses and colours
  python -m pipeline solve game=<name> secret=<word>                play the strategy against a secret
"""


def data_fetch_command(args: list[str]) -> int:
    from pipeline.games.fetch import fetch_game

    names, overrides = split_args(args)
    if len(names) != 1:
        print("usage: python -m pipeline data fetch <game> [paths.shared_data=<dir>]", file=sys.stderr)
        return 2
    for path, what in fetch_game(names[0], overrides):
        print(f"{what}: {path} (count and sorted-sha256 checked)")
    return 0


def data_command(args: list[str]) -> int:
    from pipeline.games.sources import rebuild, rebuild_target, verify

    if args[:1] == ["fetch"]:
        return data_fetch_command(args[1:])
    data_dir = DATA_DIR
    if args == ["rebuild"]:
        data_dir = rebuild_target(DATA_DIR)
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


def load_game_from(overrides: list[str]):
    """The game selected by `game=<name>` / `game.*=` overrides (one-line errors)."""
    from pipeline.cli import compose, to_config
    from pipeline.games.catalog import load_game

    return load_game(to_config(compose(overrides)).game)


def split_args(args: list[str]) -> tuple[list[str], list[str]]:
    """Positional arguments and key=value overrides."""
    return [a for a in args if "=" not in a], [a for a in args if "=" in a]


def verify_tree_command(args: list[str]) -> int:
    from pipeline.stages.trees import verify_tree_file

    files, overrides = split_args(args)
    if len(files) != 1:
        print("usage: python -m pipeline verify-tree <tree.json> game=<name>", file=sys.stderr)
        return 2
    stats = verify_tree_file(Path(files[0]), load_game_from(overrides))
    print(f"ok: every secret found; total {stats['total']}, expected {stats['expected']:.4f}, "
          f"max {stats['max_guesses']} guesses, distribution {stats['distribution']}")
    return 0


def play_command(args: list[str]) -> int:
    from pipeline.assistant.app import play_command as play

    return play(args)


def solve_command(args: list[str]) -> int:
    from pipeline.assistant.app import solve_command as solve

    return solve(args)


def verify_certificate_command(args: list[str]) -> int:
    from pipeline.stages.certificate import load_certificate, verify_certificate

    folders, overrides = split_args(args)
    sample = [o for o in overrides if o.startswith("sample=")]
    overrides = [o for o in overrides if not o.startswith("sample=")]
    if len(folders) != 1:
        print("usage: python -m pipeline verify-certificate <prove artifact dir> [sample=50] [game overrides]",
              file=sys.stderr)
        return 2
    cert = load_certificate(Path(folders[0]))
    game = load_game_from([f"game={cert.get('game')}", f"game.hard_mode={cert.get('hard_mode', False)}", *overrides])
    result = verify_certificate(Path(folders[0]), game, int(sample[0].split("=", 1)[1]) if sample else 50)
    print(f"ok: certificate verified — MinTotal = {result['ub']} for {game.name}, optimal opener(s) "
          f"{', '.join(result['optimal_openers'])}; re-derived {result['openers_rederived']} elimination bounds "
          f"and {result['classes_rederived']} closure classes")
    return 0


COMMANDS = {"data": data_command, "verify-tree": verify_tree_command, "verify-certificate": verify_certificate_command,
            "play": play_command, "solve": solve_command}


def main(argv: list[str]) -> int:
    if argv and argv[0] in ("-h", "--help", "help"):
        print(USAGE)
        return 0
    if argv and argv[0] in COMMANDS:
        from pipeline.errors import PipelineError

        try:
            return COMMANDS[argv[0]](argv[1:])
        except PipelineError as err:
            print(f"error: {err}", file=sys.stderr)
            return 2
    from pipeline.cli import hydra_main

    hydra_main(argv)
    return 0
