"""The game a proof is of, written into its folder: rules, word lists, the files they came from, versions.

A prove, leaderboard or blindfold folder holds game.json.gz beside its certificate or solution, so that
`verify-certificate <folder>` (and a bundle of the folder checked on another machine) needs no game
overrides and no list file: the lists are written out word by word with their counts and sorted-sha256
digests (the definition of pipeline/games/digest.py), the rules (answering function, length, alphabet, hard
mode, guess limit) beside them.  The independent checker reads the file with its own code
(pipeline/proofs/game/stored_game.py) and checks every word and digest before it trusts a list.

Layout (format 1), gzip of one strict JSON object:
  format: 1
  game: {name, answer, length, alphabet, hard_mode, max_guesses (null = unlimited)}
  lists: {guesses, secrets, excluded}: each {count, sorted_sha256, words (sorted, the game's order)};
         secrets are the game's secrets after game.exclude, excluded the words it removed
  source: lists | primes | nerdle | mastermind | bulls_and_cows (how the game made its lists)
  files: {secrets, guesses, exclude}: {path, bytes, sha256 of the exact bytes} of each list file read
         (provenance only: the checker never opens them)
  versions: {package, stage, stage_version, checker_version, checker_code}
The gzip header carries no time, so the same game writes the same bytes.
"""

import gzip
import json
from pathlib import Path

from pipeline.games.digest import sorted_sha256

FORMAT = 1


def listed(words) -> dict:
    """A list as the file stores it: count, sorted-sha256 and the words."""
    return {"count": len(words), "sorted_sha256": sorted_sha256(words), "words": list(words)}


def stored_game(game, stage: str, stage_version: int) -> dict:
    """What game.json.gz holds for `game`, written by stage `stage` at its VERSION."""
    from pipeline import __version__
    from pipeline.proofs.certificates.record import CHECKER_VERSION, checker_code

    extra = game.extra or {}
    return {
        "format": FORMAT,
        "game": {"name": game.name, "answer": game.answer, "length": game.length, "alphabet": game.alphabet,
                 "hard_mode": bool(game.hard_mode), "max_guesses": game.max_guesses},
        "lists": {"guesses": listed(game.guesses), "secrets": listed(game.secrets),
                  "excluded": listed(game.excluded)},
        "source": extra.get("source", "lists"),
        "files": extra.get("files", {}),
        "versions": {"package": __version__, "stage": stage, "stage_version": stage_version,
                     "checker_version": CHECKER_VERSION, "checker_code": checker_code()},
    }


def write_stored_game(path: Path, game, stage: str, stage_version: int) -> None:
    """Write game.json.gz (compact JSON, gzip level 9, no time in the header) at `path`."""
    text = json.dumps(stored_game(game, stage, stage_version), separators=(",", ":")) + "\n"
    Path(path).write_bytes(gzip.compress(text.encode(), compresslevel=9, mtime=0))
