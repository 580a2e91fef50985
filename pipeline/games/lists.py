"""Reading and checking word lists: one clear error for each way a list can be wrong."""

import logging
from pathlib import Path

from pipeline.errors import PipelineError
from pipeline.games.digest import sorted_sha256
from pipeline.runtime.files import UnreadableFile, read_text

log = logging.getLogger("pipeline")


def read_words(path: str, what: str, hint: str = "") -> list[str]:
    """The non-empty lines of a list file (any file of one word per line, or whitespace-separated)."""
    file = Path(path)
    if not path or not file.is_file():
        raise PipelineError(f"{what} list not found: {path or '(no path given)'}" + (f" — {hint}" if hint else ""))
    try:
        return read_text(file).split()
    except UnreadableFile as err:  # a FIFO is no regular file either: refused above, never opened
        raise PipelineError(f"{what} list {path} is not UTF-8 text" if err.short == "not UTF-8"
                            else f"{what} list {err}") from None


def clean(words: list[str], length: int, alphabet: str, what: str, keep_matching_only: bool) -> list[str]:
    """Lower-cased, checked, de-duplicated (with a warning) and sorted."""
    words = [w.lower() for w in words]
    if keep_matching_only and words:
        allowed = set(alphabet)
        words = [w for w in words if len(w) == length and set(w) <= allowed]
        if not words:
            raise PipelineError(f"{what} list has no word of {length} symbols from the alphabet {alphabet!r} "
                                "(set game.length to the list's word length)")
    if not words:
        raise PipelineError(f"{what} list is empty")
    for w in words:
        if len(w) != length:
            raise PipelineError(f"{what} list mixes lengths: {w!r} has {len(w)} symbols, the game needs {length}")
        bad = set(w) - set(alphabet)
        if bad:
            raise PipelineError(f"{what} list: {w!r} uses {''.join(sorted(bad))!r}, outside the game's alphabet {alphabet!r}")
    unique = sorted(set(words))
    if len(unique) < len(words):
        log.warning("%s list: dropped %d duplicate word(s)", what, len(words) - len(unique))
    return unique


def check_digest(words: list[str], expected_sha256: str, expected_count: int, what: str) -> None:
    """Raise unless the list has the pinned count and sorted-sha256."""
    if expected_count and len(words) != expected_count:
        raise PipelineError(f"{what} list has {len(words)} words, expected {expected_count} (wrong or edited file?)")
    if expected_sha256 and sorted_sha256(words) != expected_sha256:
        raise PipelineError(f"{what} list digest mismatch: sorted-sha256 {sorted_sha256(words)[:12]}… ≠ pinned {expected_sha256[:12]}…")
