"""The one exception type that reaches a user as a single clear line."""


class PipelineError(Exception):
    """A problem with the user's input or environment, reported as one line (no traceback)."""


def shown_value(value, limit: int = 40) -> str:
    """A value quoted for an error line: the repr of its text (control characters escaped), cut to `limit`
    characters (an echo of a huge input stays short)."""
    text = str(value)
    return repr(text[:limit]) + ("…" if len(text) > limit else "")
