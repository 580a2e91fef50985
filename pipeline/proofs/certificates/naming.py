"""The name a check gives the game it checked: only what the checker itself established.

A certificate names its game (`game`), and so does the game it is checked against (the folder's game.json.gz,
or the game composed from that name).  A name alone proves nothing: a true proof on a 10-word list, relabelled
wordle_original, is still a proof on 10 words.  So, after the certificate's lists are found to be the game's
(certificate.check_lists):
- the certificate's name and the game's name must be the same;
- a shipped game (this package's conf/game/<name>.yaml) is named only when the lists are that game's:
  - a game whose lists are pinned (secrets.sha256 and guesses.sha256 in its yaml): the guesses are the pinned
    guesses, and the secrets with the words game.exclude removed (the game lists them) are the pinned secrets,
    or every guess (game.secrets_are_guesses: "<name> (secrets = guesses)");
  - a game defined by its size (source mastermind or bulls_and_cows, nothing pinned): every code of that size
    and alphabet is a guess and a secret, named with the size ("mastermind (4 pegs, 6 colours)");
  other lists are refused, naming the pinned digests and the lists' own; answers other than the shipped
  game's are said ("…, answered as wordle (not as the shipped mastermind)"), as hard mode and the guess limit
  are beside the name;
- any other game (words, or a name no yaml ships) is custom, always named with its lists' digests:
  "custom game words (secrets sha256 abcd…, guesses sha256 …)".
The pins are read from the yaml with yaml.safe_load (no tag runs code); no prover code is used.
"""

import math
from importlib import resources
from pathlib import Path

import yaml

from pipeline.proofs.certificates.schema import NAME, CertificateError
from pipeline.proofs.game.stored_game import sorted_sha256
from pipeline.proofs.certificates.tree import answer_of

MASTERMIND_COLOURS = "123456789"  # the digits a Mastermind code is written in, one per colour
DIGITS = "0123456789"
SIZED = ("mastermind", "bulls_and_cows")  # shipped games defined by their size, their lists not pinned
SHOWN = 12  # hex digits of a digest shown in a name


def shipped_conf() -> Path:
    """The shipped conf/ folder: inside an installed package (package data), else beside it in a checkout (the
    checker finds it itself, importing nothing of the settings)."""
    installed = Path(str(resources.files("pipeline"))) / "conf"
    return installed if installed.is_dir() else Path(__file__).resolve().parents[3] / "conf"


def rejected(why: str) -> CertificateError:
    return CertificateError(f"certificate rejected: {why}")


def shown(digest: str) -> str:
    return f"{digest[:SHOWN]}…"


def shipped(name: str, games: Path | None = None) -> dict | None:
    """The yaml of the shipped game `name` (conf/game/<name>.yaml of this package), or None."""
    path = Path(games or shipped_conf() / "game") / f"{name}.yaml"
    if not NAME.match(name) or not path.is_file():
        return None
    body = yaml.safe_load(path.read_text())
    return body if isinstance(body, dict) else None


def pins(config: dict) -> tuple[str, str] | None:
    """(secrets sha256, guesses sha256) a shipped game's yaml pins, or None when it does not pin both."""
    found = tuple(config[role].get("sha256") if isinstance(config.get(role), dict) else None
                  for role in ("secrets", "guesses"))
    return found if all(isinstance(digest, str) for digest in found) else None


def checked_name(cert: dict, game) -> str:
    """The name under which the check reports `game` (CertificateError when the names or the lists disagree)."""
    name = cert["game"]
    if name != game.name:
        raise rejected(f"it names game {name!r}, but the game it is checked against is named {game.name!r}")
    config = shipped(name)
    if config is None or (pins(config) is None and config.get("source") not in SIZED):
        return f"custom game {name} (secrets sha256 {shown(game.secrets_digest)}, guesses sha256 " \
               f"{shown(game.guesses_digest)})"
    named = pinned_name(name, pins(config), game) if pins(config) else sized_name(name, config["source"], game)
    excluded = len(getattr(game, "excluded", ()))
    named += f" without {excluded} excluded secret{'s' if excluded != 1 else ''}" if excluded else ""
    shipped_answer = config.get("answer", "wordle")
    return named if answer_of(game) == shipped_answer else \
        f"{named}, answered as {answer_of(game)} (not as the shipped {shipped_answer})"


def every_secret(game) -> set[str]:
    """The secrets before game.exclude removed any (the game lists the excluded words)."""
    return set(game.secrets) | set(getattr(game, "excluded", ()))


def pinned_name(name: str, pinned: tuple[str, str], game) -> str:
    """`name` (or `name (secrets = guesses)`) when the lists are the pinned ones; else a rejection naming both."""
    secrets, guesses = pinned
    if game.guesses_digest == guesses:
        if sorted_sha256(every_secret(game)) == secrets:
            return name
        if every_secret(game) == set(game.guesses):
            return f"{name} (secrets = guesses)"
    raise rejected(f"it names the shipped game {name}, whose lists are pinned (secrets sha256 {shown(secrets)}, "
                   f"guesses sha256 {shown(guesses)}), but its lists are secrets sha256 "
                   f"{shown(game.secrets_digest)}, guesses sha256 {shown(game.guesses_digest)}")


def sized_name(name: str, source: str, game) -> str:
    """`name (<size>)` when every code of the game's size is a guess and a secret; else a rejection."""
    length, alphabet, guesses = game.length, game.alphabet, set(game.guesses)
    if source == "mastermind":
        size, codes = f"{length} pegs, {len(alphabet)} colours", len(alphabet) ** length
        shaped = 2 <= len(alphabet) and alphabet == MASTERMIND_COLOURS[:len(alphabet)]
        valid = lambda word: len(word) == length and set(word) <= set(alphabet)  # noqa: E731
    else:
        size, codes = f"{length} digits", math.perm(len(DIGITS), length)
        shaped = alphabet == DIGITS
        valid = lambda word: len(word) == length == len(set(word)) and set(word) <= set(DIGITS)  # noqa: E731
    if shaped and len(guesses) == codes and all(valid(w) for w in guesses) and every_secret(game) == guesses:
        return f"{name} ({size})"
    raise rejected(f"it names the shipped game {name}, whose guesses and secrets are every code of its size, but "
                   f"its lists are secrets sha256 {shown(game.secrets_digest)}, guesses sha256 "
                   f"{shown(game.guesses_digest)} ({len(game.secrets)} secrets, {len(game.guesses)} guesses, "
                   f"alphabet {alphabet!r})")
