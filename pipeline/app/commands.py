"""Sub-commands beside the Hydra stages: `data`, `verify-tree`, `export-tree`, `verify-certificate`, `bundle`, `play`,
`solve`, `analyse`.

Each has an argparse parser (`python -m pipeline <command> --help`).  Game settings are passed as
overrides — the arguments of the form `game=<name>`, `game.<key>=<value>` or `paths.<key>=<value>` —
and everything else is positional, so a file path containing `=` or `/` stays a path.  The old
`sample=N`, `tree=...` and `secret=...` spellings are still accepted.  Anything that is not a
sub-command is a Hydra stage run (pipeline.app.cli).

This module is the command line's entry point (pipeline/__main__.py calls `main`): it imports pipeline.app.cli
for stage runs, and nothing imports it back.  Configs come from the one composer, pipeline.config.compose.
"""

import argparse
import importlib.util
import os
import re
import sys
from pathlib import Path

from pipeline import PipelineError, echo, error_line, printable
from pipeline.config.suggest import GROUPS, did_you_mean, group_listing

EXIT_BAD_INPUT = 2
OVERRIDE = re.compile(r"^[+~]?(game|paths)(\.[A-Za-z_][\w.]*)?=")  # game=..., game.<key>=..., paths.<key>=...
KEY_VALUE_OPTIONS = ("sample", "tree", "secret", "guesses", "grid", "budget")  # also written `key=value`

USAGE_LINES = [
    ("stage=<stage> game=<game> [key=value ...]", "run a stage (Hydra overrides; -m sweeps them)"),
    ("data {%(actions)s} [dataset]", "check / rebuild%(fetch)s the word lists"),
    ("verify-tree <tree file> game=<name>", "replay every secret through a strategy tree (json, text or Selby's)"),
    ("export-tree <tree file> --format <form>", "write a tree as selby (Selby's text), olson (the leaderboard's "
                                                "JSON), json or text (--out FILE)"),
    ("verify-certificate <dir|bundle> [--sample N]", "re-check a proof of optimality or a leaderboard (all of it)"),
    ("bundle <prove dir> [--out FILE]", "pack a proof folder into one archive (<folder>.tar.gz) that checks anywhere"),
    ("play game=<name> [game.hard_mode=true]", "interactive assistant: type guesses and colours"),
    ("solve game=<name> --secret <word>", "play the strategy against a secret"),
    ("analyse game=<name> secret=<word> guesses=[g1,...]", "score every guess of a game: cost and luck"),
    ("list [stage=<stage>|game|ray|paths]", "the stages, games and experiments; or every setting, its default"),
    ("<command> --help", "a sub-command's own options"),
]


class ArgumentParser(argparse.ArgumentParser):
    """argparse that reports a bad argument as one `error: ...` line (exit 2), like every other bad input."""

    def error(self, message: str):
        print(error_line(f"{self.prog}: {message} (see {self.prog} --help)"), file=sys.stderr)
        sys.exit(EXIT_BAD_INPUT)


def say(line: str) -> None:
    """A result line on stdout; the names in it (files, games, words: anybody's) printed escaped
    (pipeline.printable)."""
    print(printable(line))


def has_fetch() -> bool:
    """Whether the `data fetch <dataset>` command is available (pipeline.games.fetch)."""
    return importlib.util.find_spec("pipeline.games.fetch") is not None


def listed(group: str) -> list[tuple[str, str]]:
    """(option, description) of a config group's options; the stages in their pipeline order."""
    from pipeline.config.stages import SCHEMAS

    return group_listing(group, order=tuple(SCHEMAS) if group == "stage" else ())


def usage() -> str:
    """The top-level usage: one line per form of the command, then the stages, games and experiments."""
    fetch = has_fetch()
    values = {"actions": "verify,rebuild" + (",fetch" if fetch else ""), "fetch": " / fetch" if fetch else ""}
    lines = [(f"python -m pipeline {form % values}", text % values) for form, text in USAGE_LINES]
    width = max(len(form) for form, _ in lines) + 3
    names = "".join(f"\n{group}s: {', '.join(n for n, _ in listed(group))}\n" for group in GROUPS)
    return ("usage:\n" + "".join(f"  {form.ljust(width)}{text}\n" for form, text in lines) + names
            + "\n`python -m pipeline list` describes each one.\n")


def listing() -> str:
    """Every stage, game and experiment with its one-line description (the first line of its conf/ file)."""
    out = []
    for group in GROUPS:
        rows = listed(group)
        width = max(len(name) for name, _ in rows) + 2
        out.append(f"{group}s ({group}=<name>):\n" + "".join(f"  {n.ljust(width)}{d}\n" for n, d in rows))
    return "\n".join(out)


def list_command(ns: argparse.Namespace) -> int:
    """`python -m pipeline list`: the listing, on stdout; `list stage=<name>` (or game, ray, paths): every
    setting of that schema with its default and help line (pipeline.config.suggest.settings_listing)."""
    from pipeline.config.stages import INHERITED_HELP, SCHEMAS
    from pipeline.config.suggest import settings_listing

    if len(ns.rest) > 1:
        raise PipelineError(f"list takes at most one argument (stage=<name>, game, ray or paths); unexpected: "
                            f"{echo(' '.join(ns.rest))}")
    print(settings_listing(ns.rest[0], SCHEMAS, INHERITED_HELP) if ns.rest else listing(), end="")
    return 0


def unknown_command(word: str) -> None:
    """A first argument that is neither a sub-command nor a key=value override: a misspelt command."""
    if word in GROUPS:
        raise PipelineError(f"{word} needs a value: {word}=<name> (python -m pipeline list shows the names)")
    hint = did_you_mean(word, COMMANDS) or did_you_mean(word, GROUPS, suffix="=<name>")
    raise PipelineError(f"unknown command '{echo(word)}'{hint}; commands are {', '.join(COMMANDS)}, and a stage run "
                        "is `stage=<stage> game=<game> [key=value ...]` (see python -m pipeline --help)")


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


# ---- data ----------------------------------------------------------------------------------------------------


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


def data_command(ns: argparse.Namespace) -> int:
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


# ---- verify-tree, verify-certificate --------------------------------------------------------------------------


def one_path(ns: argparse.Namespace, what: str) -> tuple[Path, list[str], dict]:
    """The command's single positional path (kept as given, `=` and `/` included), its overrides, legacy options."""
    positional, overrides, legacy = split_words([ns.path, *ns.rest])
    if len(positional) != 1:
        extra = echo(" ".join(positional[1:])) or "(none)"
        raise PipelineError(f"{ns.command} takes one {what}; unexpected: {extra} "
                            "(game settings are game=<name>, game.<key>=<value>, paths.<key>=<value>)")
    return Path(positional[0]), overrides, legacy


def verify_tree_command(ns: argparse.Namespace) -> int:
    from pipeline.proofs.certificates.tree import verify_tree_file

    path, overrides, legacy = one_path(ns, "tree file")
    if legacy:
        raise PipelineError(f"verify-tree has no option {next(iter(legacy))}=")
    stats = verify_tree_file(path, load_game_from(overrides))
    say(f"ok: every secret found; total {stats['total']}, expected {stats['expected']:.4f}, "
          f"max {stats['max_guesses']} guesses, distribution {stats['distribution']}")
    return 0


def file_game(path: Path) -> list[str]:
    """The game overrides a tree.json records (its name, hard mode, guess limit); none for other files (and for
    what is no readable JSON file: load_tree then names the problem)."""
    from pipeline.runtime.files import read_json

    try:
        body = read_json(path)
    except PipelineError:  # missing, a FIFO or folder, not JSON: never blocks
        return []
    if not isinstance(body, dict) or not isinstance(body.get("game"), str):
        return []
    limit = body.get("game_max_guesses", "absent")
    return [f"game={body['game']}", f"game.hard_mode={bool(body.get('hard_mode', False))}",
            *([] if limit == "absent" else [f"game.max_guesses={'null' if limit is None else limit}"])]


def export_tree_command(ns: argparse.Namespace) -> int:
    from pipeline.artifacts.trees import exported, load_tree

    path, overrides, legacy = one_path(ns, "tree file")
    if legacy:
        raise PipelineError(f"export-tree has no option {next(iter(legacy))}=")
    chosen = any(o.lstrip("+~").startswith("game=") for o in overrides)
    game = load_game_from(overrides if chosen else [*file_game(path), *overrides])
    loaded = load_tree(path, game)
    text = exported(loaded.tree, game, ns.format)
    if ns.out is None:
        sys.stdout.write(text)
        return 0
    try:
        Path(ns.out).write_text(text)
    except OSError as err:
        raise PipelineError(f"cannot write {ns.out}: {err.strerror or err}") from None
    say(f"wrote {ns.out}: the {ns.format} tree of {loaded.tree.guess} for {game.name}, total {loaded.total}")
    return 0


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


def print_verdict(result: dict) -> None:
    """`ok: certificate verified` only when everything was re-derived; a sample says `partially checked`.  The game
    is named as the checker named it (pipeline/proofs/certificates/naming.py), never by what a file calls it."""
    mode = "hard" if result["hard_mode"] else "normal"
    limit = "no guess limit" if result["max_guesses"] is None else f"at most {result['max_guesses']} guesses"
    rules = f"{mode} mode, {limit}"
    verdict = 'ok: certificate verified' if result['complete'] else 'partially checked (sample only)'
    if result.get("kind") == "infeasible":  # pipeline/proofs/certificates/infeasible.py
        checked = (f"re-derived {'all ' if result['complete'] else ''}{result['openers_rederived']} of "
                   f"{result['openers']} witnesses ({result['by_counting']} by counting, {result['by_search']} by "
                   f"search), {result['represented']} more openers by symmetry (its generators checked)")
        say(f"{verdict} — no strategy finds every secret within {result['max_guesses']} guesses for "
              f"{result['game']} ({mode} mode); {checked}")
        return
    checked = (f"re-derived all {result['openers_rederived']} elimination bounds and all "
               f"{result['classes_rederived']} closure class bounds")
    if not result["complete"]:
        checked = (f"re-derived {result['openers_rederived']} of {result['openers_eliminated']} elimination bounds "
                   f"and {result['classes_rederived']} of {result['classes']} closure class bounds")
    if "leaders" in result:  # a leaderboard (pipeline/proofs/certificates/leaderboard.py)
        ties = f"; every opener tied at {result['threshold']} is listed" if result["ties"] else ""
        listed = ", ".join(f"{w} {v}" for w, v in result["leaders"])
        say(f"{verdict} — the {result['k']} best openers of {result['game']} ({rules}), exact: {listed}; every "
              f"other opener is worth more than {result['threshold']}{ties}; {checked}")
        return
    optimal = result["optimal_openers"]  # whole orbits in a game with symmetries (720 for Mastermind)
    named = ", ".join(optimal[:12]) + (f", … ({len(optimal)} in all)" if len(optimal) > 12 else "")
    say(f"{verdict} — MinTotal = {result['ub']} for {result['game']} ({rules}), optimal opener(s) {named}; "
          f"{checked}")


def shape_overrides(cert: dict) -> list[str]:
    """The size a peg game's certificate was proven for: game.pegs/colours (Mastermind), game.length (Bulls and Cows)."""
    if cert.get("answer") == "mastermind":
        return [f"game.pegs={cert['length']}", f"game.colours={cert['n_symbols']}"]
    if cert.get("answer") == "bulls_and_cows":
        return [f"game.length={cert['length']}"]
    return []


def verify_certificate_command(ns: argparse.Namespace) -> int:
    """A proof folder is checked in place (and its check recorded); a bundle archive is unpacked into a temporary
    folder (pipeline/proofs/files/archive.py: no traversal, no link, size limits) and checked there."""
    from pipeline.proofs.files.archive import unpacked

    path, overrides, legacy = one_path(ns, "prove artifact folder")
    workers = capped_workers(ns.workers)
    if set(legacy) - {"sample"}:
        raise PipelineError(f"verify-certificate has no option {sorted(set(legacy) - {'sample'})[0]}=")
    sample = ns.sample
    if "sample" in legacy:
        try:
            sample = sample_size(legacy["sample"])
        except argparse.ArgumentTypeError as err:
            raise PipelineError(str(err).replace("--sample", "sample")) from None
    if path.is_dir():
        return verify_folder(path, overrides, sample, workers)
    if not path.exists():
        raise PipelineError(f"{path} is not a folder, nor an archive: nothing is there (give a prove artifact "
                            "folder, outputs/prove/<key>, or an archive `python -m pipeline bundle` wrote)")
    with unpacked(path) as folder:
        return verify_folder(folder, overrides, sample, workers, archive=path)


LIST_SETTINGS = ("secrets", "guesses", "exclude", "source", "length", "alphabet", "keep_matching_only",
                 "secrets_are_guesses", "pegs", "colours")  # game settings that change a game's lists


def certificate_game(cert: dict, stored, overrides: list[str], where: str):
    """The game a certificate is checked against: the one its folder stores (game.json.gz, every list checked by
    the checker's own reader), which overrides may restate but not change; a folder without one (made before
    folders stored their game): the game the overrides compose on the certificate's game and rules."""
    from pipeline.config.compose import compose_config
    from pipeline.proofs.game.stored_game import GAME_FILE, disagreements

    if stored is not None and not overrides:
        return stored
    rules = [f"game.max_guesses={'null' if cert['max_guesses'] is None else cert['max_guesses']}"] \
        if "max_guesses" in cert else []
    rules += shape_overrides(cert)
    hard_mode = "true" if cert["hard_mode"] else "false"
    chosen = [f"game={cert['game']}", f"game.hard_mode={hard_mode}", *rules, *overrides]
    if stored is None:
        return load_game_from(chosen)
    if any(changes_lists(o) for o in overrides):
        differ = disagreements(stored, load_game_from(chosen))
    else:  # the rules only: the lists need not be where the game's config says (they are in the folder)
        cfg = compose_config(chosen).game
        differ = [name for name, a, b in (("hard_mode", stored.hard_mode, cfg.hard_mode),
                                          ("max_guesses", stored.max_guesses, cfg.max_guesses),
                                          ("answer", stored.answer, cfg.answer)) if a != b]
    if differ:
        raise PipelineError(f"the game overrides {echo(' '.join(overrides))} disagree with the game {where} stores in "
                            f"{GAME_FILE} ({', '.join(differ)} differ); give no game overrides: the folder holds "
                            "its game")
    return stored


def changes_lists(override: str) -> bool:
    """Whether an override (game=<name>, game.<key>=..., paths.<key>=...) can change the game's lists."""
    key = override.lstrip("+~").split("=", 1)[0].split(".")
    return key[0] == "paths" or len(key) == 1 or key[1] in LIST_SETTINGS


def lists_line(game, stored, where: str) -> str:
    """Which lists the check used: those the folder stores (no list file read), or the game's config."""
    counts = (f"{len(game.secrets)} secrets (sorted-sha256 {game.secrets_digest[:12]}…), {len(game.guesses)} "
              f"guesses (sorted-sha256 {game.guesses_digest[:12]}…)")
    if stored is None:
        return f"lists: {counts}, from the game's config ({where} stores none: made before proofs stored their lists)"
    return f"lists: {counts}, {len(stored.excluded)} excluded, stored in {where} (no list file read)"


def verify_folder(folder: Path, overrides: list[str], sample, workers: int, archive: Path | None = None) -> int:
    from pipeline.proofs.certificates.optimal import load_certificate, stderr_say
    from pipeline.proofs.certificates.record import verify_and_record
    from pipeline.proofs.game.stored_game import folder_game

    where = str(archive or folder)
    if not (folder / "certificate.json").exists() and (folder / "solution.json").exists():
        raise PipelineError(f"{where} holds a blindfold solution, not a certificate: verify-certificate checks prove "
                            "and leaderboard certificates (a blindfold set is checked by stage=blindfold "
                            "stage.check=[<guesses>]; it has no independent checker yet)")
    cert = load_certificate(folder)  # strict schema and size limit, before any game is built
    stored = folder_game(folder)  # its lists checked word by word against their digests
    game = certificate_game(cert, stored, overrides, where)
    result, record = verify_and_record(folder, game, sample, say=stderr_say, workers=workers,
                                       keep_record=archive is None)
    print_verdict(result)
    say(lists_line(game, stored, where))
    if archive is not None:
        say(f"checked from the archive {archive}, unpacked into a temporary folder now removed: no record kept")
    else:
        say(f"recorded: {record} ({'a complete check' if result['complete'] else 'a sample: not a verification'})")
    return 0


def bundle_command(ns: argparse.Namespace) -> int:
    from pipeline.artifacts.bundle import write_bundle
    from pipeline.proofs.certificates.record import status

    out, index = write_bundle(Path(ns.folder), Path(ns.out) if ns.out else None)
    size = out.stat().st_size
    say(f"wrote {out}: {len(index['files']) + 2} files, {size:,} bytes ({index['stage']} of {index['game']['name']}; "
          f"here: {status(Path(ns.folder)).label()})")
    say(f"check it anywhere with: python -m pipeline verify-certificate {out}")
    return 0


# ---- play, solve ------------------------------------------------------------------------------------------------


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


def play_command(ns: argparse.Namespace) -> int:
    from pipeline.assistant.app import play_command as play

    return play(*assistant_args(ns, ("tree", "budget")))


def solve_command(ns: argparse.Namespace) -> int:
    from pipeline.assistant.app import solve_command as solve

    return solve(*assistant_args(ns, ("tree", "secret")))


def analyse_command(ns: argparse.Namespace) -> int:
    from pipeline.assistant.app import analyse_command as analyse

    overrides, options = assistant_args(ns, ("secret", "guesses", "grid", "budget", "json"))
    return analyse(overrides, options)


# ---- the parsers ------------------------------------------------------------------------------------------------


FORMS_HELP = "a tree file: tree.json, tree.txt (one line per secret), Selby's tree text or the leaderboard's JSON"
GAME_ARGS = "game=<name>, game.<key>=<value> and paths.<key>=<value> choose and adjust the game"


def command_parser(command: str, description: str, rest_help: str = GAME_ARGS) -> ArgumentParser:
    """A sub-command's parser; free arguments (overrides and paths) may come before or after its options."""
    parser = ArgumentParser(prog=f"python -m pipeline {command}", description=description)
    parser.add_argument("rest", nargs="*", metavar="game=<name>", default=[], help=rest_help)
    return parser


def data_parser() -> ArgumentParser:
    fetch = has_fetch()
    parser = ArgumentParser(prog="python -m pipeline data", description=(
        "verify: check the shipped lists against PROVENANCE.json; rebuild: re-derive them from the pinned source "
        "packages" + ("; fetch <dataset>: download lists that are not shipped (e.g. ffxivrdle)" if fetch else "")))
    parser.add_argument("action", choices=["verify", "rebuild", *(["fetch"] if fetch else [])])
    parser.add_argument("dataset", nargs="?", help="the dataset to fetch, e.g. ffxivrdle")
    parser.add_argument("rest", nargs="*", metavar="paths.<key>=<value>", default=[], help="path overrides (fetch)")
    return parser


def path_parser(command: str, metavar: str, description: str, path_help: str) -> ArgumentParser:
    parser = ArgumentParser(prog=f"python -m pipeline {command}", description=description)
    parser.add_argument("path", metavar=metavar, help=path_help + " (a path, even with = or / in it)")
    parser.add_argument("rest", nargs="*", metavar="game=<name>", default=[], help=GAME_ARGS)
    return parser


def build_parser(command: str) -> ArgumentParser:
    if command == "data":
        return data_parser()
    if command == "verify-tree":
        return path_parser(command, "tree_file", "Replay every secret of the game through a strategy tree "
                           "and print its statistics.", FORMS_HELP)
    if command == "export-tree":
        parser = path_parser(command, "tree_file", "Check a strategy tree against its game and write it in "
                             "another form: selby (Alex Selby's solver's tree text), olson (Jonathan Olson's leaderboard "
                             "JSON), json (tree.json) or text (tree.txt). The game defaults to the one a tree.json records.", FORMS_HELP)
        parser.add_argument("--format", required=True, choices=["selby", "olson", "json", "text"],
                            help="the form to write")
        parser.add_argument("--out", default=None, help="the file to write (default: standard output)")
        return parser
    if command == "verify-certificate":
        parser = path_parser(command, "prove_dir", "Re-check a prove artifact with the independent checker "
                             "(pipeline/proofs): the UB tree, every sum, every elimination bound and every closure "
                             "class, from the word lists the folder stores (game.json.gz; game settings, when "
                             "given, must agree with it; a folder without one: the certificate's game).",
                             "the prove or leaderboard artifact folder, or a bundle archive")
        parser.add_argument("--sample", type=sample_size, default=None,
                            help="quick mode: re-derive only N elimination bounds and N closure classes at random "
                                 "(reported as partially checked); default: everything (sample=N also accepted)")
        parser.add_argument("--workers", type=worker_count, default=os.cpu_count() or 1,
                            help="processes re-deriving the deep elimination bounds or the infeasibility witnesses "
                                 "(default: one per core)")
        return parser
    if command == "bundle":
        parser = ArgumentParser(prog="python -m pipeline bundle", description=(
            "Pack a prove, leaderboard or blindfold artifact folder (certificate or solution, trees, manifest, the "
            "game's lists and versions: game.json.gz) into one .tar.gz with a README.txt and an INDEX.json of "
            "every file's sha256; `verify-certificate <archive>` checks it on any machine with the package."))
        parser.add_argument("folder", help="the artifact folder, e.g. outputs/prove/<key>")
        parser.add_argument("--out", default=None, help="the archive to write (default: <folder>.tar.gz beside it)")
        return parser
    if command == "analyse":
        return analyse_parser()
    if command == "list":
        return command_parser("list", "Print every stage, game and experiment with a one-line description; "
                              "with stage=<name> (or game, ray, paths), every setting of that schema with its "
                              "default and help line.", rest_help="stage=<name>, game, ray or paths (optional)")
    text = {"play": "Interactive assistant: type guesses and colours, get suggestions.",
            "solve": "Play the strategy against a secret and print each row."}[command]
    parser = command_parser(command, text)
    parser.add_argument("--tree", default=None,
                        help="strategy tree file (tree.json, tree.txt or Selby's tree text), or none for greedy "
                             "only (default: the best stored tree)")
    if command == "play":
        parser.add_argument("--budget", default=None, help="seconds the exact solver may spend per value for "
                            "`analyse` (default 2) and on the whole list for `top` (default 1)")
    if command == "solve":
        parser.add_argument("--secret", default=None, help="the secret word (secret=<word> also accepted)")
    return parser


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


COMMANDS = {"data": data_command, "verify-tree": verify_tree_command, "export-tree": export_tree_command,
            "verify-certificate": verify_certificate_command, "bundle": bundle_command, "play": play_command,
            "solve": solve_command, "analyse": analyse_command, "list": list_command}
BARE_WORD = re.compile(r"^[A-Za-z][\w-]*$")  # no `=`, `~` or `-`: no override, no flag


HELP = ("-h", "--help")


def main(argv: list[str]) -> int:
    if argv and argv[0] in COMMANDS:
        ns = build_parser(argv[0]).parse_intermixed_args(argv[1:])
        ns.command = argv[0]
        try:
            return COMMANDS[argv[0]](ns)
        except PipelineError as err:
            print(error_line(err), file=sys.stderr)
            return EXIT_BAD_INPUT
    if argv[:1] == ["help"] or any(arg in HELP for arg in argv):  # a stage run's -h too: no flag reaches Hydra
        print(usage(), end="")
        return 0
    if argv and BARE_WORD.match(argv[0]):
        try:
            unknown_command(argv[0])
        except PipelineError as err:
            print(error_line(err), file=sys.stderr)
            return EXIT_BAD_INPUT
    from pipeline.app.cli import hydra_main
    from pipeline.runtime.log import setup_console

    setup_console()  # warnings while the game loads (dropped duplicates) reach stderr as plain lines
    try:
        hydra_main(argv, commands=tuple(COMMANDS))
    except OSError as err:  # a full disk or read-only folder outside an artifact (Hydra's run folder)
        from pipeline.runtime.store import write_problem

        problem = write_problem(err, str(err.filename or "the run's files"))
        if problem is None:
            raise
        print(error_line(problem), file=sys.stderr)
        return EXIT_BAD_INPUT
    return 0
