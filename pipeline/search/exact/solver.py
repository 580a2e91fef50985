"""Exact MinTotal by depth-first search with bounds (docs/algorithms.md §5), normal or hard mode.

    MinTotal(C) = 1 if |C| = 1, else min over useful g of V*(g, C)
    V*(g, C)    = |C| + sum of MinTotal(C') over the non-win classes of Split(C, g)

The search itself is numba (its node steps in exact_steps.py, kernels in exact_kernels.py).  What keeps it fast:
- closed forms: |C| = 1 -> 1, |C| = 2 -> 3, a candidate splitting C into singletons -> 2|C| - 1 (looked
  for among the candidates before anything else), three candidates -> 5 or 6, a non-candidate splitting
  C into singletons (and no candidate) -> 2|C|;
- every node scans only its list of guesses: the guesses that split its parent's set (a guess that does
  not split a set splits none of its subsets) and, in hard mode, that the node's state allows;
- before recursing into a guess, every class is bounded cheaply (closed forms, memoised values and lower
  bounds, the counting bound Bound(|C'|, k) with k the most classes any guess makes on C) and the guess
  is dropped as soon as |C| + the bounds reach the best total found so far;
- alpha-beta: every node gets a budget and may return any lower bound >= it once it cannot beat it;
  a class's budget is the best total so far minus the bounds of its siblings;
- guesses in order of sum of squared class sizes, the first few by partial selection, the rest sorted
  only once a best total has thinned them out;
- a bounded memo (hash table) of exact values and proven lower bounds per candidate set (and, in hard
  mode, per hard-mode state; under a guess limit, per number of guesses left).
"""

import numpy as np

from pipeline.search.arrays import kernel_input
from pipeline.search.exact.kernels import IMPOSSIBLE, INF, UNLIMITED, ExactTables, make_work, new_memo
from pipeline.search.exact.steps import solve
from pipeline.search.hard_mode import MAX_SYMBOLS, initial_state, symbol_counts, update_state
from pipeline.search.matrix import Matrix
from pipeline.search.partition import guess_of_secret

__all__ = ["ExactSolver", "tree_total", "INF", "IMPOSSIBLE", "UNLIMITED"]


class ExactSolver:
    """Exact MinTotal / V*(g, C) / optimal trees for one game.

    `matrix` is the game's code matrix (search/matrix.py; every secret must be a guess).  Hard mode needs its
    encoded guesses.  `max_guesses` limits every secret to be found within that many guesses (sets that cannot
    be get IMPOSSIBLE).  The memo holds up to 2**memo_bits entries (about 41 bytes each;
    it starts small and grows as it fills) and survives between calls; `reset()` empties it.
    """

    def __init__(self, matrix: Matrix, *, hard_mode=False, max_guesses=None, memo_bits=21, max_depth=48, seed=0):
        codes = matrix.codes
        self.codes = codes
        self.codes_t = matrix.transposed()  # read-only either way: one kernel type
        self.n_secrets = matrix.n_secrets
        self.max_depth = max_depth
        self.max_guesses = UNLIMITED if max_guesses is None else int(max_guesses)
        self.win = matrix.win
        self.hard = bool(hard_mode)
        if self.hard and matrix.encoded_guesses is None:
            raise ValueError("hard mode needs the encoded guesses")
        self.guess_of_secret = guess_of_secret(matrix.secret_of_guess, self.n_secrets,
                                               require_all=False).astype(np.int32)
        self.length = int(round(np.log(matrix.n_codes) / np.log(3)))
        self.words = kernel_input(matrix.encoded_guesses if matrix.encoded_guesses is not None
                                  else np.zeros((0, self.length)), dtype=np.uint8)
        word_counts = symbol_counts(self.words) if self.hard else np.zeros((0, MAX_SYMBOLS), dtype=np.int8)
        rng = np.random.default_rng(seed)

        def draw(*shape):  # random odd 64-bit words for the set and state hashes
            return rng.integers(0, 2**63, size=shape, dtype=np.uint64) * np.uint64(2) + np.uint64(1)

        self.tables = ExactTables(
            codes=self.codes, codes_t=self.codes_t, win=self.win, guess_of_secret=self.guess_of_secret,
            words=self.words, word_counts=word_counts, hard=self.hard, hash_secret_a=draw(self.n_secrets),
            hash_secret_b=draw(self.n_secrets), hash_green=draw(self.length, MAX_SYMBOLS + 1),
            hash_count=draw(MAX_SYMBOLS, self.length + 1), hash_left=draw(max_depth + 1))
        self.memo_bits = memo_bits
        self.memo = new_memo(memo_bits)
        self.work = make_work(codes.shape[0], self.n_secrets, matrix.n_codes, self.length, max_depth, codes.dtype)
        self.work.guess_lists[0] = np.arange(codes.shape[0], dtype=np.int32)  # the lists stay in index order
        self.stats = self.work.stats[:3]  # nodes searched, memo hits, guesses evaluated

    def reset(self):
        """Empty the memo and zero the counters."""
        self.memo = new_memo(self.memo_bits)
        self.work.stats[:] = 0

    def counters(self) -> dict:
        """Search counters since the last reset: nodes searched (past the closed forms), memo hits,
        guesses evaluated (split and bounded) and full scans of a node's guess list."""
        nodes, hits, evals, scans = (int(x) for x in self.work.stats)
        return {"nodes": nodes, "memo_hits": hits, "guess_evaluations": evals, "full_scans": scans}

    def _run(self, candidates, beta, forced, state, left=None):
        """(value, best first guess or -1) of _solve on a candidate set."""
        candidates = np.asarray(candidates, dtype=np.int32)
        n = len(candidates)
        if n == 0:
            raise ValueError("no candidates")
        self.work.pool[:n] = candidates
        greens, at_least = state if state is not None else initial_state(self.length)
        self.work.greens[0], self.work.at_least[0] = greens, at_least
        left = self.max_guesses if left is None else left
        value, guess, self.memo = solve(self.tables, self.memo, self.work, n, beta, forced, left, self.codes.shape[0])
        return int(value), int(guess)

    def _all(self, candidates):
        """The candidates given, or every secret."""
        return np.arange(self.n_secrets, dtype=np.int32) if candidates is None else candidates

    def min_total(self, candidates=None, beta=INF, state=None, left=None):
        """(MinTotal(C), exact): exact when below beta, otherwise only a lower bound >= beta.

        `left`: guesses left under the game's limit (default: the whole limit)."""
        value, _ = self._run(self._all(candidates), beta, -1, state, left)
        return value, value < beta

    def best_guess(self, candidates=None, state=None, left=None):
        """(MinTotal(C), an optimal first guess or -1 when there is none) with `left` guesses left."""
        return self._run(self._all(candidates), INF, -1, state, left)

    def guess_value(self, guess, candidates=None, beta=INF, state=None, left=None):
        """(V*(g, C), exact): the best total over C when g is played first."""
        value, _ = self._run(self._all(candidates), beta, int(guess), state, left)
        return value, value < beta

    def _best_guess(self, candidates, state, left):
        """An optimal first guess (ValueError when no strategy meets the guess limit)."""
        value, guess = self._run(candidates, INF, -1, state, left)
        if value >= IMPOSSIBLE or guess < 0:
            raise ValueError("no strategy solves these candidates within the guess limit")
        return guess

    def tree(self, guess=None, candidates=None, state=None, left=None):
        """An optimal strategy tree: (guess index, {response code: subtree}); a win has no entry.

        With `guess` given, the best tree that opens with it.
        """
        candidates = np.asarray(self._all(candidates), dtype=np.int32)
        if state is None:
            state = initial_state(self.length)
        left = self.max_guesses if left is None else left
        if guess is None:
            guess = self._best_guess(candidates, state, left)
        children = {}
        row = self.codes[guess]
        for code in np.unique(row[candidates]):
            if code == self.win:
                continue
            members = candidates[row[candidates] == code]
            child_state = update_state(state[0], state[1], self.words[guess], int(code)) if self.hard else state
            children[int(code)] = self.tree(None, members, child_state, left - 1)
        return int(guess), children


def tree_total(tree, codes, candidates, win) -> int:
    """Total of a strategy tree over candidate secrets (sum of guesses to find each); checks it solves all."""
    guess, children = tree
    row = codes[guess]
    total = len(candidates)
    for code in np.unique(row[candidates]):
        if code == win:
            continue
        if int(code) not in children:
            raise ValueError(f"tree has no branch for response {code} after guess {guess}")
        total += tree_total(children[int(code)], codes, candidates[row[candidates] == code], win)
    return total
