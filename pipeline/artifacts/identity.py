"""What of a game each stage's artifacts depend on: the part of the game's identity they record and are found by.

Most artifacts depend on the whole game (its lists, alphabet, rules: `Game.identity`); the feedback matrix on the
lists only, so one matrix serves hard mode and every guess limit; stage=reproduce on none (every experiment names
its own game), nor does the catalogue (it gathers every game's certificates).  The stages' `game_identity` hooks
(part of the key) and the finder (pipeline/artifacts/find.py) both take it from here, and a test holds each
stage's contract to it."""

from pipeline.games.game import Game

RULES = ("hard_mode", "max_guesses")  # the parts of a game's identity that are rules of play, not its lists


def lists_identity(game: Game) -> dict:
    """The game's identity without its rules of play (hard mode, guess limit): what a code matrix depends on."""
    return {k: v for k, v in game.identity().items() if k not in RULES}


def no_identity(game: Game) -> dict:
    """Nothing of the game: for artifacts whose every row names its own game."""
    return {}


IDENTITIES = {"feedback": lists_identity, "reproduce": no_identity, "catalogue": no_identity}  # other stages: the whole game


def stage_identity(stage: str, game: Game) -> dict:
    """What of `game` the artifacts of `stage` depend on."""
    return IDENTITIES.get(stage, Game.identity)(game)
