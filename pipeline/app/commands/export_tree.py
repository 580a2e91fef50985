"""`python -m pipeline export-tree`: write a tree as selby (Selby's text), olson (the leaderboard's JSON), json or text
(--out FILE).

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse
import sys
from pathlib import Path

from pipeline import PipelineError
from pipeline.app.commands.common import ArgumentParser, FORMS_HELP, load_game_from, one_path, path_parser, say


NAME = 'export-tree'
USAGE = ('export-tree <tree file> --format <form>',  # the form and what it does, in `python -m pipeline --help`
         "write a tree as selby (Selby's text), olson (the leaderboard's JSON), json or text (--out FILE)")


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


def run(ns: argparse.Namespace) -> int:
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


def parser() -> ArgumentParser:
    parser = path_parser("export-tree", "tree_file", "Check a strategy tree against its game and write it in "
                         "another form: selby (Alex Selby's solver's tree text), olson (Jonathan Olson's leaderboard "
                         "JSON), json (tree.json) or text (tree.txt). The game defaults to the one a tree.json records.", FORMS_HELP)
    parser.add_argument("--format", required=True, choices=["selby", "olson", "json", "text"],
                        help="the form to write")
    parser.add_argument("--out", default=None, help="the file to write (default: standard output)")
    return parser
