"""The checker's reading of the game a proof folder stores (game.json.gz), so a check needs nothing else.

The prover writes the file (pipeline/artifacts/stored_game.py gives its layout); this reader shares none of
its code.  It trusts nothing in it: the gzip stream may not grow past MAX_JSON_BYTES, the JSON is strict
(files.py) and of exactly the expected shape, every word has the game's length and alphabet, each list is
sorted without repeats, the secrets are allowed guesses and none was excluded, and each list's count and
sorted-sha256 (lower-cased, de-duplicated, sorted, joined by newlines with a final newline) are computed here
and compared with the recorded ones.  A fault is a CertificateError: a folder whose lists are not what they
say proves nothing.  The certificate then still has to name these lists' digests (certificate.check_lists).
"""

import hashlib
import zlib
from dataclasses import dataclass, field
from functools import cached_property
from pathlib import Path

import numpy as np

from pipeline.proofs.files.reader import FileRefused, file_bytes, json_of
from pipeline.proofs.certificates.schema import MAX_GUESSES, NAME, CertificateError

GAME_FILE = "game.json.gz"
FORMAT = 1
MAX_GZIP_BYTES = 64 * 2**20
MAX_JSON_BYTES = 256 * 2**20  # Wordle's lists take 0.2 MB; a dictionary's a few MB
ANSWERS = ("wordle", "mastermind", "bulls_and_cows")
LISTS = ("guesses", "secrets", "excluded")


def refused(why: str) -> CertificateError:
    return CertificateError(f"certificate rejected: {GAME_FILE}: {why}")


def sorted_sha256(words) -> str:
    """The sorted-sha256 of a word list, from its definition."""
    text = "\n".join(sorted({w.strip().lower() for w in words if w.strip()})) + "\n"
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True)
class StoredGame:
    """A game as the checker needs it (what a pipeline Game offers the checker), built from stored lists only."""

    name: str
    guesses: tuple[str, ...]
    secrets: tuple[str, ...]
    alphabet: str
    hard_mode: bool
    max_guesses: int | None
    answer: str
    excluded: tuple[str, ...] = ()
    versions: dict = field(default_factory=dict, compare=False)

    @property
    def length(self) -> int:
        return len(self.secrets[0])

    @cached_property
    def guesses_digest(self) -> str:
        return sorted_sha256(self.guesses)

    @cached_property
    def secrets_digest(self) -> str:
        return sorted_sha256(self.secrets)

    @cached_property
    def guess_index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.guesses)}

    @cached_property
    def secret_index(self) -> dict[str, int]:
        return {w: i for i, w in enumerate(self.secrets)}

    @cached_property
    def guess_of_secret(self) -> np.ndarray:
        return np.array([self.guess_index[w] for w in self.secrets], dtype=np.int32)


def gunzipped(data: bytes) -> bytes:
    """One gzip member's content, at most MAX_JSON_BYTES of it, with nothing after it."""
    inflate = zlib.decompressobj(wbits=31)
    try:
        body = inflate.decompress(data, MAX_JSON_BYTES)
    except zlib.error as err:
        raise refused(f"not gzip ({err})") from None
    if inflate.unconsumed_tail:
        raise refused(f"unpacks to more than {MAX_JSON_BYTES} bytes")
    if not inflate.eof or inflate.unused_data:
        raise refused("truncated" if not inflate.eof else "bytes follow its gzip stream")
    return body


def _check(condition: bool, why: str) -> None:
    if not condition:
        raise refused(why)


def _exact_keys(value, keys: set, where: str) -> dict:
    _check(isinstance(value, dict), f"{where} is not an object")
    _check(set(value) == keys, f"{where} has keys {sorted(value)}, expected {sorted(keys)}")
    return value


def _rules(body: dict) -> dict:
    """The `game` entry, its types and ranges checked."""
    rules = _exact_keys(body["game"], {"name", "answer", "length", "alphabet", "hard_mode", "max_guesses"}, "game")
    _check(isinstance(rules["name"], str) and NAME.match(rules["name"]) is not None, "game.name is not a name")
    _check(rules["answer"] in ANSWERS, f"game.answer {rules['answer']!r} is none of {', '.join(ANSWERS)}")
    alphabet = rules["alphabet"]
    _check(isinstance(alphabet, str) and 2 <= len(alphabet) == len(set(alphabet)) <= 256,
           "game.alphabet is not 2 to 256 distinct symbols")
    _check(type(rules["length"]) is int and 1 <= rules["length"] <= 64, "game.length is not a length")
    _check(type(rules["hard_mode"]) is bool, "game.hard_mode is not true or false")
    limit = rules["max_guesses"]
    _check(limit is None or (type(limit) is int and 1 <= limit <= MAX_GUESSES),
           f"game.max_guesses is not null or a count from 1 to {MAX_GUESSES}")
    return rules


def _words(body: dict, name: str, rules: dict) -> tuple[str, ...]:
    """A list's words, each of the game's length and alphabet, sorted without repeats, count and digest as stated."""
    entry = _exact_keys(body["lists"][name], {"count", "sorted_sha256", "words"}, f"lists.{name}")
    words = entry["words"]
    _check(isinstance(words, list) and all(isinstance(w, str) for w in words), f"lists.{name}.words is not words")
    symbols, length = set(rules["alphabet"]), rules["length"]
    bad = next((w for w in words if len(w) != length or not set(w) <= symbols or w != w.lower()), None)
    _check(bad is None, f"lists.{name}: {bad!r} is not {length} symbols of the game's alphabet")
    _check(all(a < b for a, b in zip(words, words[1:])), f"lists.{name} is not sorted without repeats")
    _check(entry["count"] == len(words), f"lists.{name} holds {len(words)} words, not its count {entry['count']}")
    digest = sorted_sha256(words)
    _check(entry["sorted_sha256"] == digest,
           f"the {name} list's digest is {digest[:12]}…, not the recorded {str(entry['sorted_sha256'])[:12]}…")
    return tuple(words)


def read_stored_game(path: Path) -> StoredGame:
    """The game stored in the file at `path`, every list checked (CertificateError on any fault)."""
    try:
        body = json_of(gunzipped(file_bytes(path, MAX_GZIP_BYTES)), path)
    except FileRefused as err:
        raise refused(str(err)) from None
    _exact_keys(body, {"format", "game", "lists", "source", "files", "versions"}, "the file")
    _check(body["format"] == FORMAT, f"format {body['format']!r}, this checker reads format {FORMAT}")
    rules = _rules(body)
    _exact_keys(body["lists"], set(LISTS), "lists")
    guesses, secrets, excluded = (_words(body, name, rules) for name in LISTS)
    _check(len(secrets) >= 1, "no secrets")
    allowed = set(guesses)
    _check(all(w in allowed for w in secrets), "a secret is not an allowed guess")
    _check(not set(excluded) & set(secrets), "an excluded word is still a secret")
    versions = body["versions"] if isinstance(body["versions"], dict) else {}
    return StoredGame(rules["name"], guesses, secrets, rules["alphabet"], rules["hard_mode"], rules["max_guesses"],
                      rules["answer"], excluded, versions=versions)


def folder_game(folder: Path) -> StoredGame | None:
    """The game <folder>/game.json.gz stores, checked; None when the folder holds none (older proofs)."""
    path = Path(folder) / GAME_FILE
    if not path.exists() and not path.is_symlink():
        return None
    return read_stored_game(path)


def disagreements(stored: StoredGame, game) -> list[str]:
    """What of `game` (built from overrides) differs from the stored game: lists, alphabet, rules."""
    pairs = {"guesses": (stored.guesses_digest, game.guesses_digest),
             "secrets": (stored.secrets_digest, game.secrets_digest),
             "alphabet": (stored.alphabet, game.alphabet), "hard_mode": (stored.hard_mode, bool(game.hard_mode)),
             "max_guesses": (stored.max_guesses, getattr(game, "max_guesses", None)),
             "answer": (stored.answer, getattr(game, "answer", "wordle"))}
    return [name for name, (a, b) in pairs.items() if a != b]
