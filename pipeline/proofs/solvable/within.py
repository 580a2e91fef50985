"""Whether a class can be solved within j guesses, from the definitions: the checker's feasibility search.

A strategy solves a class C within j guesses when every secret of C is guessed by its j-th guess.  With at most 3
left shallow.py decides it; with more, some legal guess must leave only non-win classes solved within j - 1 (an
exhaustive search over every legal guess, the most splitting first, largest class first).  Counting refutes a
class at once: no guess makes more than m non-win classes on C or on any part of it, so j guesses find at most
reach(j, m) secrets.  Used for the witnesses of infeasible guess limits (infeasible.py) and for a proof's claim
that an opener's class cannot be solved in the guesses left (certificate.py).
"""

import numpy as np

from pipeline.proofs.bounds.lower import split
from pipeline.proofs.bounds.memo import VALUES_LIMIT, BoundedMemo
from pipeline.proofs.game.hard_mode import Rule, letter_counts
from pipeline.proofs.solvable.shallow import legal_rows, solved_within


def reach(guesses: int, parts: int) -> int:
    """The most secrets `guesses` guesses can find when no guess makes more than `parts` non-win classes."""
    found = 0
    for _ in range(guesses):
        found = 1 + parts * found
    return found


def most_parts(codes: np.ndarray, cands: np.ndarray, win: int) -> np.ndarray:
    """Per guess (row), the number of non-win classes it makes on the candidates."""
    block = np.sort(codes[:, cands], axis=1)
    return 1 + (np.diff(block, axis=1) != 0).sum(axis=1) - (block == win).any(axis=1)


class Feasibility:
    """Whether a candidate set can be solved within a number of guesses, by exhaustive search (memoised)."""

    def __init__(self, codes, words, guess_of_secret, n_codes: int, n_symbols: int, hard_mode: bool):
        self.codes, self.words, self.n_codes, self.win = codes, words, int(n_codes), int(n_codes) - 1
        self.guess_of_secret = np.asarray(guess_of_secret)
        self.counts = letter_counts(words, n_symbols) if hard_mode else None
        self.memo: dict[tuple, bool] = BoundedMemo(VALUES_LIMIT)

    def legal(self, rule: Rule | None) -> np.ndarray:
        return legal_rows(self.codes.shape[0], rule, self.words, self.counts)

    def within(self, cands: np.ndarray, left: int, rule: Rule | None) -> bool:
        """`solvable`, by shallow.py's kernels when at most 3 guesses are left."""
        if left > 3:
            return self.solvable(cands, left, rule)
        guessable = self.guess_of_secret >= 0
        return solved_within(self.codes, cands, left, self.n_codes, guessable, rule, self.words, self.counts)

    def solvable(self, cands: np.ndarray, left: int, rule: Rule | None) -> bool:
        """Some strategy finds every candidate within `left` guesses (hard mode: under `rule`)."""
        if len(cands) == 0:
            return True
        if left < 1:
            return False
        legal = self.legal(rule)
        if left == 1:  # one guess left: only guessing the one candidate wins
            return len(cands) == 1 and self.guess_of_secret[cands[0]] in legal
        if len(cands) == 1 and self.guess_of_secret[cands[0]] in legal:
            return True
        if left == 2 and rule is None and (self.guess_of_secret[cands] >= 0).all():
            # two left (normal mode, every candidate a guess): some guess answers every candidate differently
            block = np.sort(self.codes[legal][:, cands], axis=1)
            return bool((1 + (np.diff(block, axis=1) != 0).sum(axis=1) == len(cands)).any())
        parts = most_parts(self.codes[legal], cands, self.win)
        if len(cands) > reach(left, int(parts.max(initial=0))):
            return False
        key = (cands.tobytes(), left, rule.key() if rule is not None else b"")
        if key not in self.memo:
            order = legal[np.argsort(-parts, kind="stable")]  # the guesses that split the most first
            self.memo[key] = any(self.after(int(g), cands, left, rule) for g in order)
        return self.memo[key]

    def after(self, g: int, cands: np.ndarray, left: int, rule: Rule | None) -> bool:
        """Every non-win class of guess g on the candidates is solvable with one guess fewer."""
        members, starts, sizes = split(self.codes[g], cands, self.n_codes)
        if len(sizes) == 1 and sizes[0] == len(cands):
            return False  # g tells nothing: the same set with fewer guesses (and, in hard mode, no looser rule)
        for c in np.argsort(-sizes, kind="stable"):  # the largest class first: the likeliest to fail
            cls = members[starts[c]:starts[c] + sizes[c]]
            deeper = rule.after(self.words[g], int(self.codes[g, cls[0]])) if rule is not None else None
            if not self.within(cls, left - 1, deeper):
                return False
        return True
