"""The one exception type that reaches a user as a single clear line."""


class PipelineError(Exception):
    """A problem with the user's input or environment, reported as one line (no traceback)."""
