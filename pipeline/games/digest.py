"""The `sorted-sha256` digest of a word list, independent of its file format."""

import hashlib


def normalise(words) -> list[str]:
    """Lower-cased, de-duplicated, sorted."""
    return sorted({w.strip().lower() for w in words if w.strip()})


def sorted_sha256(words) -> str:
    """sha256 of the normalised list joined by newlines, with a final newline."""
    text = "\n".join(normalise(words)) + "\n"
    return hashlib.sha256(text.encode()).hexdigest()
