"""pipeline: find and prove optimal strategies for Wordle-like guessing games."""

__version__ = "0.1.0"


# The one exception type that reaches a user as a single clear line, and how user text is printed.
#
# Every line the command line prints that holds text it did not write itself (a file or member name, an
# override, a word, a line read from stdin) goes through `printable`: a control character (an escape
# sequence could repaint the terminal, e.g. into "ok: certificate verified") or a format character (a
# right-to-left override) is shown as its Python escape, `\x1b`.  A whole input quoted in a message is cut to
# its first ECHO_CHARS characters (`echo`), and every error line, whatever it quotes, to LINE_CHARS
# (`error_line`, used by every printer of an `error:` line).

import unicodedata

ECHO_CHARS = 80  # an input quoted in a message: its first 80 characters, then "…"
LINE_CHARS = 1000  # an error line: at most this many characters (far above any message written here)
UNPRINTABLE = ("Cc", "Cf", "Cs")  # control, format (bidirectional overrides, zero widths), lone surrogates


class PipelineError(Exception):
    """A problem with the user's input or environment, reported as one line (no traceback)."""


def printable(text) -> str:
    """`text` with every control or format character written as its escape (`\\x1b`, `\\u202e`)."""
    text = str(text)
    if text.isprintable():
        return text
    return "".join(ch.encode("unicode_escape", "backslashreplace").decode("ascii")
                   if unicodedata.category(ch) in UNPRINTABLE else ch for ch in text)


def cut(text: str, limit: int) -> str:
    """`text`, or its first `limit` characters and "…" when it is longer."""
    return text if len(text) <= limit else text[:limit] + "…"


def echo(text, limit: int = ECHO_CHARS) -> str:
    """An input quoted in a message: printable, at most `limit` characters (then "…")."""
    return printable(cut(str(text), limit))


def one_line(message) -> str:
    """`message` printable, on one line (runs of white space, newlines included, become one space), cut to
    LINE_CHARS."""
    return cut(printable(" ".join(str(message).split())), LINE_CHARS)


def error_line(message) -> str:
    """The `error: ...` line of `message`: one line, printable, at most LINE_CHARS characters."""
    return f"error: {one_line(message)}"


def shown_value(value, limit: int = 40) -> str:
    """A value quoted for an error line: the repr of its text (control characters escaped), cut to `limit`
    characters (an echo of a huge input stays short)."""
    text = str(value)
    return repr(text[:limit]) + ("…" if len(text) > limit else "")
