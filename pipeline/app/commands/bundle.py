"""`python -m pipeline bundle`: pack a proof folder into one archive (<folder>.tar.gz) that checks anywhere.

(Registered in pipeline/app/commands/__init__.py's COMMANDS.)"""

import argparse
from pathlib import Path

from pipeline.app.commands.common import ArgumentParser, say


NAME = 'bundle'
USAGE = ('bundle <prove dir> [--out FILE]',  # the form and what it does, in `python -m pipeline --help`
         'pack a proof folder into one archive (<folder>.tar.gz) that checks anywhere')


def run(ns: argparse.Namespace) -> int:
    from pipeline.artifacts.bundle import write_bundle
    from pipeline.proofs.certificates.record import status

    out, index = write_bundle(Path(ns.folder), Path(ns.out) if ns.out else None)
    size = out.stat().st_size
    say(f"wrote {out}: {len(index['files']) + 2} files, {size:,} bytes ({index['stage']} of {index['game']['name']}; "
          f"here: {status(Path(ns.folder)).label()})")
    say(f"check it anywhere with: python -m pipeline verify-certificate {out}")
    return 0


def parser() -> ArgumentParser:
    parser = ArgumentParser(prog="python -m pipeline bundle", description=(
        "Pack a prove, leaderboard or blindfold artifact folder (certificate or solution, trees, manifest, the "
        "game's lists and versions: game.json.gz) into one .tar.gz with a README.txt and an INDEX.json of "
        "every file's sha256; `verify-certificate <archive>` checks it on any machine with the package."))
    parser.add_argument("folder", help="the artifact folder, e.g. outputs/prove/<key>")
    parser.add_argument("--out", default=None, help="the archive to write (default: <folder>.tar.gz beside it)")
    return parser
