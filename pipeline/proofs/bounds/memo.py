"""A memo that cannot outgrow a worker's memory: it empties itself when full.

A checker process keeps its bounds object, and so its memos, for every chunk of openers it is handed; a full check
of a large certificate hands it hundreds.  An unbounded memo grew to 12 GB in one worker of the hard 3158 check
(V_4 of deep chunks) before the kernel killed it.  Emptying the memo costs only recomputation: a value is
re-derived exactly as it was the first time.
"""

VALUES_LIMIT = 2_000_000  # bounds (one small tuple each) a memo keeps at most
RULES_LIMIT = 10_000  # hard-mode rules whose allowed guesses (an array of up to every guess) are kept at most


class BoundedMemo(dict):
    """A dict that is emptied before a new key would take it past `limit` entries."""

    def __init__(self, limit: int):
        super().__init__()
        self.limit = int(limit)

    def __setitem__(self, key, value) -> None:
        if len(self) >= self.limit and key not in self:
            self.clear()
        super().__setitem__(key, value)
