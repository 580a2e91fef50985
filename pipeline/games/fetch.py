"""Download the lists a game may not ship (FFXIVrdle) into the user's data folder, checked before kept.

`python -m pipeline data fetch ffxivrdle` reads each list's `url`, `count` and `sha256` from the game's
config (conf/game/ffxivrdle.yaml) and its destination from `path` (under paths.shared_data). Nothing is
written unless every list of the game downloads and matches its pinned count and sorted-sha256.  The
command composes the game's config and hands it here (this module imports nothing above games/).
"""

import urllib.error
import urllib.request
from pathlib import Path

from pipeline.config.settings import GameConfig, WordListConfig
from pipeline import PipelineError
from pipeline.games.digest import normalise
from pipeline.games.lists import check_digest

TIMEOUT_SECONDS = 20


def download_words(url: str, dest: Path) -> list[str]:
    """The whitespace-separated words at `url` (https or file), or one clear error when unreachable."""
    try:
        with urllib.request.urlopen(url, timeout=TIMEOUT_SECONDS) as response:
            return response.read().decode("utf-8").split()
    except (urllib.error.URLError, OSError, ValueError) as err:
        reason = getattr(err, "reason", None) or err
        raise PipelineError(f"could not download {url}: {reason} — no internet connection? (or put the file "
                            f"there by hand: {dest})") from None
    except UnicodeDecodeError:
        raise PipelineError(f"{url} is not UTF-8 text") from None


def already_fetched(words: WordListConfig, what: str) -> bool:
    """True when the list is already in place with the pinned count and digest."""
    path = Path(words.path)
    if not path.is_file():
        return False
    try:
        check_digest(normalise(path.read_text(encoding="utf-8").split()), words.sha256, words.count, what)
    except (PipelineError, UnicodeDecodeError):
        return False
    return True


def _write(path: Path, words: list[str]) -> None:
    """Write one word per line, atomically (a temp file renamed into place)."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        tmp = path.with_name(f".{path.name}.part")
        tmp.write_text("\n".join(words) + "\n", encoding="utf-8")
        tmp.replace(path)
    except OSError as err:
        raise PipelineError(f"cannot write {path}: {err.strerror or err}") from None


def fetch_lists(cfg: GameConfig) -> list[tuple[Path, str]]:
    """Download and check every list of `cfg` that has a url; returns (path, "fetched" | "already there")."""
    lists = [(f"{cfg.name} {what}", wl) for what, wl in (("secrets", cfg.secrets), ("guesses", cfg.guesses))
             if wl.url]
    if not lists:
        raise PipelineError(f"game {cfg.name} has no lists to fetch (its lists are shipped or generated)")
    results, downloaded = [], []
    for what, wl in lists:
        if already_fetched(wl, what):
            results.append((Path(wl.path), "already there"))
            continue
        words = normalise(download_words(wl.url, Path(wl.path)))
        check_digest(words, wl.sha256, wl.count, f"{what} downloaded from {wl.url}")
        downloaded.append((Path(wl.path), words))
        results.append((Path(wl.path), "fetched"))
    for path, words in downloaded:  # only once every list has checked out
        _write(path, words)
    return results

