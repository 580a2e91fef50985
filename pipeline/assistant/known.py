"""What is known about a game before anything is computed here: the published optimum of a shipped game."""

from pipeline import PipelineError
from pipeline.games.game import Game

PUBLISHED_MIN_GUESSES = 6  # the published optima hold within the usual 6 guesses (a tighter limit may change them)


def published_optimum(game: Game) -> tuple[int, str] | None:
    """(MinTotal, optimal opener) as published for this game, or None.

    Only for a shipped game played on its own lists (both digests match its config), in normal mode and with no
    tighter guess limit than the published figure assumed: on other lists or rules the figure says nothing."""
    from pipeline.config.compose import game_config
    from pipeline.report.published import OPTIMUM

    if game.name not in OPTIMUM or game.hard_mode:
        return None
    if game.max_guesses is not None and game.max_guesses < PUBLISHED_MIN_GUESSES:
        return None
    try:
        cfg = game_config(game.name)
    except Exception:  # noqa: BLE001 (not a shipped game: nothing is published about it)
        return None
    if cfg.secrets.sha256 != game.secrets_digest or (cfg.guesses.sha256 or game.guesses_digest) != game.guesses_digest:
        return None
    total, opener = OPTIMUM[game.name]
    return (total, opener) if opener in game.guess_index else None


def certificate_claiming(game: Game, outputs, total: int) -> str | None:
    """`prove/<key>` of a finished proof of this very game whose certificate claims `total` optimal, or None.

    A claim, not a check: `python -m pipeline verify-certificate <folder>` checks it."""
    from pathlib import Path

    from pipeline.runtime.files import read_json

    for folder in sorted(Path(outputs).glob("prove/*/")):
        try:
            manifest, certificate = read_json(folder / "manifest.json"), read_json(folder / "certificate.json")
        except PipelineError:
            continue  # unfinished or unreadable (a FIFO is never opened to wait): no claim
        if not isinstance(manifest, dict) or not isinstance(certificate, dict):
            continue
        identity = manifest.get("game") if isinstance(manifest.get("game"), dict) else {}
        same = all(identity.get(k) == v for k, v in game.identity().items())
        if same and certificate.get("proven") and certificate.get("ub") == total:
            return f"prove/{folder.name}"
    return None
