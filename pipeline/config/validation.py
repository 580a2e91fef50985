"""Small checks the stages' `validate(cfg, game)` functions share: each raises PipelineError with one
line naming the setting (`stage.<field>`), so a bad value fails before any input is computed."""

import os
import tempfile
from pathlib import Path

from pipeline import PipelineError

MEMO_ENTRY_BYTES = 41  # one exact-search memo entry (pipeline.search.exact.solver)
AP_MEMO_ENTRY_BYTES = 100  # one ApMinTotal memo entry: hash slots plus its share of the member pool, rounded up
# ApMinTotal keeps, per search depth (16 rows to start), the `breadth` best guesses and their keys (int64 each),
# plus one such pair of rows for the root: 16 * 2 * 8 + 2 * 8 bytes per unit of breadth (pipeline.search.apmintotal.value)
BREADTH_ENTRY_BYTES = 272
# stage settings whose value is a per-task allocation (widen_breadth: upper_bound's widest search)
SIZED_SETTINGS = {"breadth": BREADTH_ENTRY_BYTES, "widen_breadth": BREADTH_ENTRY_BYTES}

OBJECTIVES = ("total", "max_then_total")  # pipeline.search.strategies.objective


def at_least(cfg, name: str, low: int, allow_none: bool = False) -> None:
    """stage.<name> is an integer >= low (or None when allowed)."""
    value = getattr(cfg, name)
    if value is None and allow_none:
        return
    if isinstance(value, bool) or not isinstance(value, int) or value < low:
        extra = " (or null)" if allow_none else ""
        raise PipelineError(f"stage.{name} must be at least {low}{extra}, got {value!r}")


def one_of(cfg, name: str, choices) -> None:
    """stage.<name> is one of `choices` ("must be a or b" for two, "one of a, b, c" for more)."""
    value = getattr(cfg, name)
    if value not in choices:
        listed = " or ".join(choices) if len(choices) == 2 else "one of " + ", ".join(choices)
        raise PipelineError(f"stage.{name} must be {listed}, not {value!r}")


def total_only(cfg, what: str) -> None:
    """stage.objective is an objective and it is total: lower bounds bound Totals, so `what` ("a proof closes")
    holds for that objective only."""
    one_of(cfg, "objective", OBJECTIVES)
    if cfg.objective != "total":
        raise PipelineError(f"stage.objective={cfg.objective}: {what} the Total objective only (its lower bounds "
                            "bound Totals); stage=exact and stage=upper_bound compute max_then_total values")


def word_list(cfg, name: str, game, index: str = "guess_index", allow_empty: bool = True) -> list[str]:
    """stage.<name> is a list of distinct words of the game (guesses by default); returns them lower-cased."""
    words = getattr(cfg, name)
    if isinstance(words, (str, bytes)) or not isinstance(words, (list, tuple)):
        raise PipelineError(f"stage.{name} must be a list of words, e.g. stage.{name}=[word], not {words!r}")
    if not words and not allow_empty:
        raise PipelineError(f"stage.{name} is empty; give at least one word, e.g. stage.{name}=[word]")
    known = getattr(game, index)
    what = "allowed guess" if index == "guess_index" else "secret"
    lowered = []
    for word in words:
        if isinstance(word, int) and not isinstance(word, bool):
            word = str(word)  # Hydra reads a digit word (a Primel prime) as a number
        if not isinstance(word, str) or word.lower() not in known:
            raise PipelineError(f"stage.{name}: {word!r} is not an {what} of game {game.name}")
        lowered.append(word.lower())
    if len(set(lowered)) != len(lowered):
        twice = next(w for w in lowered if lowered.count(w) > 1)
        raise PipelineError(f"stage.{name} lists {twice!r} twice")
    return lowered


def enough_secrets(game, stage: str, needed: int = 2) -> None:
    """A search over a game with fewer secrets has nothing to decide (and its rankings are empty)."""
    if len(game.secrets) < needed:
        raise PipelineError(f"game {game.name} has {len(game.secrets)} secret(s); {stage} needs at least {needed} "
                            "(give a longer word list)")


def total_memory() -> int | None:
    try:
        import psutil

        return int(psutil.virtual_memory().total)
    except Exception:  # psutil missing: skip the memory check
        return None


def fits_memory(name: str, entries: int, entry_bytes: int) -> None:
    """A per-task table of `entries` entries must fit in this machine's memory."""
    total = total_memory()
    if total and entries * entry_bytes > total:
        raise PipelineError(f"stage.{name} asks for {entries * entry_bytes / 2**30:.1f} GiB per task, more than "
                            f"this machine's {total / 2**30:.1f} GiB")


def check_sizes(cfg) -> None:
    """Every setting of SIZED_SETTINGS the stage has fits, as a per-task allocation, in this machine's memory."""
    for name, entry_bytes in SIZED_SETTINGS.items():
        value = getattr(cfg, name, None)
        if isinstance(value, int) and not isinstance(value, bool):
            fits_memory(name, value, entry_bytes)


def memo_bits(cfg, name: str = "memo_bits", low: int = 10, high: int = 30) -> None:
    """The exact search's memo: 2**memo_bits entries of ~41 bytes, within [low, high] and within memory."""
    value = getattr(cfg, name)
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        raise PipelineError(f"stage.{name} must be an integer between {low} and {high}, got {value!r}")
    fits_memory(name, 1 << value, MEMO_ENTRY_BYTES)


def check_outputs(outputs: str) -> None:
    """paths.outputs must be a folder we can create and write in (Hydra writes its run log there first)."""
    check_folder(outputs, "paths.outputs")


def check_folder(folder: str, setting: str) -> None:
    """`setting` names a folder that exists or can be created: its nearest existing ancestor is a folder in
    which a sub-folder can really be made (tried and removed at once: permissions alone say nothing to root,
    nor about /proc or a read-only mount)."""
    if not str(folder).strip():
        raise PipelineError(f"{setting} is empty; give a folder, e.g. {setting}=./outputs")
    path = Path(folder).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise PipelineError(f"{setting}={folder} is a file, not a folder")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise PipelineError(f"{setting}={folder}: {existing} is a file, not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".pipeline-probe-", dir=existing))
    except OSError as err:
        raise PipelineError(f"{setting}={folder}: cannot create a folder in {existing} "
                            f"({err.strerror or type(err).__name__})") from None


def check_inside(folder: str, setting: str, outputs: str) -> None:
    """`setting` names a folder inside paths.outputs (links and `..` resolved): a run writes nowhere else."""
    inner, outer = Path(os.path.realpath(str(folder))), Path(os.path.realpath(str(outputs)))
    if not inner.is_relative_to(outer):
        raise PipelineError(f"{setting}={folder} is outside paths.outputs={outputs}: a run writes only inside its "
                            f"outputs folder (give a folder inside it, or move paths.outputs)")
