"""Reading and checking word lists: one clear error for each way a list can be wrong.

A list loads exactly as a person reading it sees it, or not at all: one leading UTF-8 byte order mark is
dropped (editors write one); a word holding an invisible character (NUL, another control or format
character) is refused, naming its line; so is a word that lower-casing or Unicode normalisation would
change beyond plain ASCII capitals (the Kelvin sign K becoming k, a full-width letter, a decomposed
accent), unless the list keeps matching words only and no form of the word would match (a dictionary's
"Ångström" is skipped as before)."""

import logging
import unicodedata
from collections.abc import Callable
from pathlib import Path

from pipeline import PipelineError
from pipeline.games.digest import sorted_sha256
from pipeline.runtime.files import UnreadableFile, read_text

log = logging.getLogger("pipeline")
BOM = "\ufeff"


def read_words(path: str, what: str, hint: str = "", skipped: Callable[[str], bool] | None = None) -> list[str]:
    """The words of a list file (one word per line, or whitespace-separated), each checked by `check_word`;
    `skipped(word)` says the caller drops a (lower-cased) word anyway (game.keep_matching_only)."""
    file = Path(path)
    if not path or not (file.exists() or file.is_symlink()):
        raise PipelineError(f"{what} list not found: {path or '(no path given)'}" + (f" — {hint}" if hint else ""))
    if not file.is_file():
        raise PipelineError(f"{what} list {path} is {_what_is_there(file)}, not a file of words")
    try:
        text = read_text(file)
    except UnreadableFile as err:  # a FIFO is no regular file either: refused above, never opened
        raise PipelineError(f"{what} list {path} is not UTF-8 text" if err.short == "not UTF-8"
                            else f"{what} list {err}") from None
    text = text[1:] if text.startswith(BOM) else text
    words = []
    for number, line in enumerate(text.split("\n"), 1):
        for word in line.split():
            check_word(word, f"{what} list {path} line {number}", skipped)
            words.append(word)
    return words


def _what_is_there(file: Path) -> str:
    """A path that exists but is no regular file, named for the error line."""
    if file.is_dir():
        return "a folder"
    if file.is_fifo():
        return "a FIFO (never opened: it could wait for ever)"
    return "a link that leads nowhere (broken, or a loop)" if file.is_symlink() else "not a regular file"


def check_word(word: str, where: str, skipped: Callable[[str], bool] | None = None) -> None:
    """Refuse a word a reader would not see as it is stored, or that lower-casing or normalisation would turn
    into another word (one the game would keep, when `skipped` says which words it drops)."""
    for char in word:
        if unicodedata.category(char) in ("Cc", "Cf"):
            raise PipelineError(f"{where}: {word!r} contains the invisible character {describe(char)}; "
                                "write one word per line")
    problem = changed_by_folding(word)
    forms = {word.lower(), word.casefold(), unicodedata.normalize("NFKC", word).lower()}
    if problem and (skipped is None or not all(skipped(form) for form in forms)):
        raise PipelineError(f"{where}: {word!r} {problem}")


def changed_by_folding(word: str) -> str | None:
    """What lower-casing or Unicode normalisation would change in `word` beyond ASCII capitals, or None."""
    for char in word:
        if char.isascii():
            continue
        forms = [form for form in (char.lower(), char.casefold(), unicodedata.normalize("NFKC", char)) if form != char]
        if forms:
            return (f"contains {describe(char)}, which lower-casing or Unicode normalisation turns into "
                    f"{forms[0]!r}; write the plain letter")
    if unicodedata.normalize("NFC", word) != word:
        return "is not in Unicode normal form NFC (a decomposed accent?); write each letter as one character"
    return None


def describe(char: str) -> str:
    """A character as U+XXXX and its Unicode name, e.g. U+212A KELVIN SIGN."""
    name = unicodedata.name(char, "") or ("(a control character)" if unicodedata.category(char) == "Cc" else "")
    return f"U+{ord(char):04X} {name}".strip()


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
