"""The summary.json of upper_bound and lower_bound, checked where another stage or the report reads it.

The manifest pins each file's size, not its bytes: an edit of the same length (`"ub": 544` to `"ub": "x"`
or `5e99`) passes that check, so the fields a reader relies on are checked for type and range here, and a
file that fails is a DamagedArtifactError naming it (the command line adds how to rebuild it).  A total
of a strategy for the game's |S| secrets lies between |S| (every secret found at once) and |S| times the
guess limit (or |S|^2 without a limit: a guess that is no candidate splits them at least in two).
"""

from pipeline.artifacts.outputs import LB_SUMMARY, UB_SUMMARY
from pipeline.games.game import Game
from pipeline.runtime.store import Artifact

SUMMARY = UB_SUMMARY.name  # summary.json: the name upper_bound's and lower_bound's (LB_SUMMARY) share


def total_range(game: Game) -> tuple[int, int]:
    """The totals a strategy of `game` can have: (least, greatest)."""
    n = len(game.secrets)
    return n, n * (game.max_guesses if game.max_guesses is not None else max(n, 1))


def _whole(value, low: int, high: int) -> str | None:
    """Why `value` is not a whole number in [low, high] (None if it is)."""
    if type(value) is not int:
        return f"{value!r} is not a whole number"
    if not low <= value <= high:
        return f"{value} is outside {low}..{high}"
    return None


def _problem(body: dict, game: Game, fields: dict) -> str | None:
    """The first field of `body` that is not as `fields` says: key -> 'total', 'guess', 'guesses',
    'totals', 'count' or 'text' (with a trailing ? when the field may be left out)."""
    low, high = total_range(game)
    for key, kind in fields.items():
        if key not in body:
            if kind.endswith("?"):
                continue
            return f"no {key!r}"
        kind = kind.rstrip("?")
        value = body[key]
        if kind == "total":
            why = _whole(value, low, high)
        elif kind == "count":
            why = _whole(value, 0, 2**53)
        elif kind == "totals":
            why = "not a list" if not isinstance(value, list) else next(
                filter(None, (_whole(v, 0, high) for v in value)), None)
        elif kind == "guess":
            why = None if isinstance(value, str) and value in game.guess_index else f"{value!r} is not a guess"
        elif kind == "guesses":
            why = "not a list" if not isinstance(value, list) else next(
                (f"{v!r} is not a guess" for v in value if not isinstance(v, str) or v not in game.guess_index), None)
        else:
            why = None if isinstance(value, str) else f"{value!r} is not text"
        if why:
            return f"{key}: {why}"
    return None


def checked_summary(artifact: Artifact, game: Game, fields: dict, name: str = SUMMARY) -> dict:
    """The artifact's summary file `name`, its `fields` checked (DamagedArtifactError naming the file if not)."""
    body = artifact.read_json(name)
    why = _problem(body, game, fields)
    if why:
        raise artifact.damaged(name, why)
    return body


def no_strategy_found(artifact: Artifact) -> bool:
    """Whether an upper_bound artifact found no strategy within the game's guess limit (`feasible` false, no ub)."""
    return artifact.read_json(UB_SUMMARY.name).get("feasible") is False


def upper_bound_summary(artifact: Artifact, game: Game) -> dict:
    """An upper_bound summary: its total `ub`, its `opener`, the `objective` it minimised and its tree's depth."""
    body = checked_summary(artifact, game, {"ub": "total", "opener": "guess", "objective": "text?",
                                            "max_guesses": "count", "openers_tried": "count?",
                                            "breadth": "count?"}, UB_SUMMARY.name)
    distribution = body.get("distribution")
    if not isinstance(distribution, dict) or not all(k.isdigit() and type(v) is int and v >= 0
                                                     for k, v in distribution.items()) \
            or sum(distribution.values()) != len(game.secrets):
        raise artifact.damaged(UB_SUMMARY.name, f"distribution does not count the {len(game.secrets)} secrets")
    return body


def lower_bound_summary(artifact: Artifact, game: Game) -> dict:
    """A lower_bound (funnel) summary: the `ub` it ran against, its `survivors` and their values, its levels."""
    body = checked_summary(artifact, game, {"ub": "total", "survivors": "guesses", "survivor_values": "totals",
                                            "k_s": "count?", "levels": "count?"}, LB_SUMMARY.name)
    if len(body["survivor_values"]) != len(body["survivors"]):
        raise artifact.damaged(LB_SUMMARY.name, "survivors and survivor_values differ in length")
    funnel = body.get("funnel")
    if not isinstance(funnel, list) or not all(isinstance(f, dict) and _whole(f.get("survivors"), 0, 2**53) is None
                                               and _whole(f.get("level"), 0, 2**53) is None for f in funnel):
        raise artifact.damaged(LB_SUMMARY.name, "funnel is not a list of levels with survivor counts")
    return body
