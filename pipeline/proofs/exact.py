"""A plain exact MinTotal for small candidate sets, with the hard-mode rule and a guess limit.

    MinTotal(C) = 1 if |C| = 1, else min over useful legal g of |C| + sum of MinTotal(C')
                  over the classes C' of Split(C, g) other than {g}, each one guess deeper.

Depth-first with one budget: `min_total(C, ..., beta)` returns the exact value when it is
below `beta`, else some lower bound >= beta (which is all a caller comparing against beta
needs).  Guesses are tried in order of the floor 3|C| - parts - [g in C] (every class C'
costs at least 2|C'| - 1); a guess is dropped once its floor reaches the best value found.
Memo per (candidate set, guesses left, hard-mode rule).
"""

import numpy as np

from pipeline.proofs.hard_mode import Rule, letter_counts

INFEASIBLE = 1 << 40


class ExactSolver:
    """MinTotal over a code matrix (guesses x secrets) for one game."""

    def __init__(self, codes, guess_symbols, guess_of_secret, n_codes, n_symbols, hard_mode: bool):
        self.codes = codes
        self.words = guess_symbols
        self.counts = letter_counts(guess_symbols, n_symbols) if hard_mode else None
        self.guess_of_secret = np.asarray(guess_of_secret)
        self.n_codes, self.n_symbols, self.hard_mode = int(n_codes), int(n_symbols), hard_mode
        self.memo: dict[tuple, tuple[int, bool]] = {}
        self.length = guess_symbols.shape[1]

    def start_rule(self) -> Rule | None:
        return Rule(self.length, self.n_symbols) if self.hard_mode else None

    def _options(self, cands, rule):
        """Useful legal guesses with their floors, best floor first."""
        legal = np.flatnonzero(rule.allowed(self.words, self.counts)) if rule is not None else None
        block = self.codes[:, cands] if legal is None else self.codes[legal][:, cands]
        ordered = np.sort(block, axis=1)
        parts = 1 + (ordered[:, 1:] != ordered[:, :-1]).sum(axis=1)
        guesses = np.arange(len(self.codes)) if legal is None else legal
        inside = np.isin(guesses, self.guess_of_secret[cands])
        floors = 3 * len(cands) - parts - inside
        keep = parts >= 2
        order = np.lexsort((guesses[keep], floors[keep]))
        return guesses[keep][order], floors[keep][order]

    def min_total(self, cands: np.ndarray, left: int | None, rule: Rule | None, beta: int = INFEASIBLE) -> int:
        """MinTotal(C) with `left` guesses still allowed (None = no limit), exact when below beta."""
        n = len(cands)
        if left is not None and left < 1 or left == 1 and n > 1:
            return INFEASIBLE
        if n <= 2:
            return 2 * n - 1
        key = (cands.tobytes(), left, rule.key() if rule is not None else b"")
        known = self.memo.get(key)
        if known is not None and (known[1] or known[0] >= beta):
            return known[0]
        best, exact = beta, False
        guesses, floors = self._options(cands, rule)
        for g, floor in zip(guesses, floors):
            if floor >= best:
                break
            value = self._after(int(g), cands, left, rule, best)
            if value < best:
                best, exact = value, True
        self.memo[key] = (best, exact)
        return best

    def _after(self, g, cands, left, rule, beta):
        """|C| + sum of the classes' MinTotal after guess g, or some value >= beta once it cannot beat beta."""
        row = self.codes[g, cands]
        win = self.n_codes - 1
        classes = [(code, cands[row == code]) for code in np.unique(row) if code != win]
        total = len(cands) + sum(2 * len(m) - 1 for _, m in classes)
        for code, members in sorted(classes, key=lambda cm: -len(cm[1])):
            if total >= beta:
                return total
            floor = 2 * len(members) - 1
            after = rule.after(self.words[g], int(code)) if rule is not None else None
            deeper = None if left is None else left - 1
            total += self.min_total(members, deeper, after, beta - total + floor) - floor
        return total
