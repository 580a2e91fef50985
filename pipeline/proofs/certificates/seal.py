"""This machine's checker key: what binds a verification record to the checker that wrote it.

A verification record (record.py) is a file, and anyone can write a file: a record naming a certificate's
sha256 and the checker's public code digest proves nothing by itself.  So the checker seals each record with
an HMAC-SHA256 of its whole content under a secret key that only this user's checker reads, and a reader
trusts a record only when the seal is the one this key makes.  A record written by hand, copied from another
machine or from another key folder, or edited after the check, has no valid seal: "not verified here".

The key is 32 random bytes (64 hex digits) in <config folder>/checker.key.  The config folder is
$PIPELINE_CONFIG_DIR when set (tests use it), else $XDG_CONFIG_HOME/pipeline, else ~/.config/pipeline: the
user's, never the outputs folder, so no key is written into the outputs or packed into a bundle.  The first
check on a machine creates it (folder mode 0700, file mode 0600, linked into place atomically so two first
checks agree on one key); readers never create it.  A key file that is not a regular file of this user, that
other users may read or write, or that does not hold 64 hex digits is refused (KeyUnusable), never used.
"""

import hashlib
import hmac
import json
import os
import secrets
import stat
import tempfile
from pathlib import Path

CONFIG_ENV = "PIPELINE_CONFIG_DIR"
KEY_FILE = "checker.key"
KEY_BYTES = 32
SEAL_FIELD = "mac"  # the record's field holding the seal of the others


class KeyUnusable(Exception):
    """This machine's key file exists but cannot be trusted or read; the message says why."""


def config_folder() -> Path:
    """$PIPELINE_CONFIG_DIR, else $XDG_CONFIG_HOME/pipeline, else ~/.config/pipeline."""
    if os.environ.get(CONFIG_ENV):
        return Path(os.environ[CONFIG_ENV]).expanduser()
    base = os.environ.get("XDG_CONFIG_HOME") or Path.home() / ".config"
    return Path(base) / "pipeline"


def key_path() -> Path:
    return config_folder() / KEY_FILE


def read_key(path: Path) -> bytes:
    """The key in `path` (FileNotFoundError when there is none; KeyUnusable when it cannot be trusted).  Its
    kind is looked at before it is opened (no link followed, no device or FIFO opened) and again once open."""
    if not stat.S_ISREG(os.lstat(path).st_mode):
        raise KeyUnusable(f"the checker key {path} is not a regular file")
    try:
        handle = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        raise
    except OSError as err:
        raise KeyUnusable(f"the checker key {path} cannot be opened ({err.strerror})") from None
    with os.fdopen(handle, "rb") as f:
        info = os.fstat(f.fileno())
        if not stat.S_ISREG(info.st_mode):
            raise KeyUnusable(f"the checker key {path} is not a regular file")
        if info.st_uid != os.getuid():
            raise KeyUnusable(f"the checker key {path} belongs to another user")
        if info.st_mode & 0o077:
            raise KeyUnusable(f"the checker key {path} is open to other users (mode {stat.S_IMODE(info.st_mode):o}; "
                              "chmod 600 it, or remove it so that the next check makes a new one)")
        text = f.read(4 * KEY_BYTES).strip()
    try:
        key = bytes.fromhex(text.decode("ascii"))
    except (UnicodeDecodeError, ValueError):
        key = b""
    if len(key) != KEY_BYTES:
        raise KeyUnusable(f"the checker key {path} does not hold {2 * KEY_BYTES} hex digits")
    return key


def created_key(path: Path) -> bytes:
    """Make the key at `path` unless another check made it first; then read it."""
    path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
    handle, temporary = tempfile.mkstemp(prefix=".checker-", suffix=".key", dir=path.parent)  # mode 0600
    try:
        with os.fdopen(handle, "w") as f:
            f.write(secrets.token_hex(KEY_BYTES) + "\n")
            f.flush()
            os.fsync(f.fileno())
        try:
            os.link(temporary, path)  # never replaces a key: a record sealed with it would no longer read
        except FileExistsError:
            pass
    finally:
        Path(temporary).unlink(missing_ok=True)
    return read_key(path)


def this_machine_key(create: bool) -> bytes | None:
    """This machine's key; None when there is none and `create` is false (nothing was ever checked here)."""
    path = key_path()
    try:
        return read_key(path)
    except FileNotFoundError:
        return created_key(path) if create else None


def canonical(body: dict) -> bytes:
    """The record's content as the seal covers it: its fields but the seal, as sorted compact JSON."""
    fields = {name: value for name, value in body.items() if name != SEAL_FIELD}
    return json.dumps(fields, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode()


def seal(key: bytes, body: dict) -> str:
    """The HMAC-SHA256 (hex) of the record's content under `key`."""
    return hmac.new(key, canonical(body), hashlib.sha256).hexdigest()


def sealed_here(key: bytes, body: dict) -> bool:
    """Whether the record carries the seal `key` makes of its content (compared in constant time)."""
    given = body.get(SEAL_FIELD)
    return isinstance(given, str) and hmac.compare_digest(given, seal(key, body))
