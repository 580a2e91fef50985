"""Sub-commands beside the Hydra stages: `data`, `verify-tree`, `verify-certificate`, `play`, `solve`.

Anything else on the command line is a Hydra stage run.
"""

import sys
from pathlib import Path

from pipeline.config import PROJECT_ROOT

USAGE = """usage:
  python -m pipeline stage=<stage> game=<game> [key=value ...]   run a stage (Hydra overrides)
  python -m pipeline data verify|rebuild                            check / re-download the shipped word lists
  python -m pipeline verify-tree <tree.json> game=<name>            replay every secret through a strategy tree
  python -m pipeline verify-certificate <prove dir> [--sample N]    re-check a proof of optimality (all of it,
                                                                    or N sampled bounds: "partially checked")
  python -m pipeline play game=<name> [game.hard_mode=true]         interactive assistant: type guesses and colours
  python -m pipeline solve game=<name> secret=<word>                play the strategy against a secret
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


def load_game_from(overrides: list[str]):
    """The game selected by `game=<name>` / `game.*=` overrides (one-line errors)."""
    from pipeline.cli import compose, to_config
    from pipeline.games.catalog import load_game

    return load_game(to_config(compose(overrides)).game)


def split_args(args: list[str]) -> tuple[list[str], list[str]]:
    """Positional arguments and key=value overrides."""
    return [a for a in args if "=" not in a], [a for a in args if "=" in a]


def verify_tree_command(args: list[str]) -> int:
    from pipeline.proofs.tree import verify_tree_file

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


def sample_option(args: list[str]) -> tuple[int | None, list[str]]:
    """`--sample N` (or `--sample=N`, or the older `sample=N`) and the other arguments."""
    from pipeline.errors import PipelineError

    rest, sample, i = [], None, 0
    while i < len(args):
        arg = args[i]
        if arg == "--sample" and i + 1 < len(args):
            value, i = args[i + 1], i + 2
        elif arg.startswith(("--sample=", "sample=")):
            value, i = arg.split("=", 1)[1], i + 1
        else:
            rest.append(arg)
            i += 1
            continue
        if not value.isdigit() or int(value) < 1:
            raise PipelineError(f"--sample needs a positive whole number, not {value!r}")
        sample = int(value)
    return sample, rest


def verify_certificate_command(args: list[str]) -> int:
    from pipeline.proofs.certificate import load_certificate, stderr_say, verify_certificate

    sample, args = sample_option(args)
    folders, overrides = split_args(args)
    if len(folders) != 1:
        print("usage: python -m pipeline verify-certificate <prove artifact dir> [--sample N] [game overrides]",
              file=sys.stderr)
        return 2
    cert = load_certificate(Path(folders[0]))
    rules = [f"game.max_guesses={'null' if cert['max_guesses'] is None else cert['max_guesses']}"] \
        if "max_guesses" in cert else []
    game = load_game_from([f"game={cert.get('game')}", f"game.hard_mode={cert.get('hard_mode', False)}", *rules,
                           *overrides])
    result = verify_certificate(Path(folders[0]), game, sample, say=stderr_say)
    checked = (f"re-derived all {result['openers_rederived']} elimination bounds and all "
               f"{result['classes_rederived']} closure class bounds")
    if not result["complete"]:
        checked = (f"re-derived {result['openers_rederived']} of {result['openers_eliminated']} elimination bounds "
                   f"and {result['classes_rederived']} of {result['classes']} closure class bounds")
    limit = "no guess limit" if result["max_guesses"] is None else f"at most {result['max_guesses']} guesses"
    rules = f"{'hard' if result['hard_mode'] else 'normal'} mode, {limit}"
    print(f"{'ok: certificate verified' if result['complete'] else 'partially checked (sample only)'} — "
          f"MinTotal = {result['ub']} for {game.name} ({rules}), optimal opener(s) "
          f"{', '.join(result['optimal_openers'])}; {checked}")
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
