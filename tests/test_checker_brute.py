"""The checker's own exact MinTotal (proofs/exact/solver.py), lower bounds (proofs/bounds/lower.py, proofs/bounds/hard.py) and
feasibility search (proofs/solvable/within.py) against a brute force written from the definitions
(tests/helpers/brute.py, which imports neither prover nor checker), on many small random games where the guess
limit binds: normal mode on random code matrices, hard mode on random words answered by Wordle's rule.

Each test counts the queries where the limit changes the value (a larger total, or no strategy at all), so a
batch that stopped binding would fail rather than pass unseen."""

from functools import cache
from itertools import combinations, islice

import numpy as np
import pytest

from pipeline.proofs.bounds.lower import HUGE, LowerBounds
from pipeline.proofs.exact.solver import INFEASIBLE, ExactSolver
from pipeline.proofs.solvable.within import Feasibility
from pipeline.proofs.bounds.hard import HardLowerBounds
from pipeline.proofs.bounds.memo import BoundedMemo
from tests.helpers.budgets import assert_budgeted
from tests.helpers.brute import (NO_STRATEGY, BruteGame, code_table, random_matrix, random_words, sparse_matrix,
                                 wordle_code)

LIMITS = (None, 2, 3, 4, 5)  # guesses left at the queried set; None: no limit
WORDLE_CODES = 27  # 3^3: the random hard-mode words have three symbols


def normal_games(seed: int, count: int):
    """(codes, secret_guess, n_codes) of `count` random matrices: 5-9 secrets, up to 11 guesses, 3-5 codes (few
    codes make deep trees, where the limit binds)."""
    rng = np.random.default_rng(seed)
    for _ in range(count):
        n_secrets = int(rng.integers(5, 10))
        n_codes = int(rng.choice([3, 3, 4, 5]))
        codes, secret_guess = random_matrix(rng, int(rng.integers(n_secrets, 12)), n_secrets, n_codes)
        yield codes, secret_guess, n_codes


def hard_games(seed: int):
    """(words, codes, secret_guess, n_symbols) of random games of three-symbol words answered by Wordle's rule, one
    after another: 5-8 secrets from families sharing their last two symbols (as _IGHT, _ATCH: hard mode keeps the
    green tail, so the limit binds) and up to four other random guesses."""
    rng = np.random.default_rng(seed)
    while True:
        n_symbols = int(rng.integers(6, 9))
        tails = {tuple(int(x) for x in rng.integers(0, n_symbols, 2)) for _ in range(2)}
        family = sorted((first,) + tail for first in range(n_symbols) for tail in tails)
        secrets = [family[i] for i in rng.choice(len(family), min(len(family), int(rng.integers(5, 9))), replace=False)]
        words = sorted(set(secrets) | set(random_words(rng, int(rng.integers(0, 5)), 3, n_symbols)))
        secret_guess = np.array(sorted(words.index(w) for w in secrets))
        codes = code_table(words, [words[g] for g in secret_guess], wordle_code)
        yield np.array(words, dtype=np.uint8), codes, secret_guess, n_symbols


@cache
def raising_hard_games(seed: int, count: int) -> list[tuple]:
    """The first `count` games of hard_games(seed) whose secrets' hard-mode MinTotal a limit of LIMITS raises and
    still meets (one game in ten)."""
    found = []
    for words, codes, secret_guess, n_symbols in hard_games(seed):
        brute = BruteGame(codes, secret_guess, WORDLE_CODES, hard=True, words=words)
        everyone = tuple(range(len(secret_guess)))
        if any(brute.min_total(everyone, None) < brute.min_total(everyone, left) < NO_STRATEGY for left in LIMITS[1:]):
            found.append((words, codes, secret_guess, n_symbols))
            if len(found) == count:
                return found


@cache
def raising_games(seed: int, count: int) -> list[tuple]:
    """(codes, secret_guess, n_codes, sets) of the first `count` random matrices (7-8 secrets, 3 codes) where some
    set of 5 or 6 secrets has a MinTotal that a limit of LIMITS raises and still meets (an optimum that needs more
    guesses than a worse strategy: too rare among random sets to turn up unasked), with up to three such sets."""
    rng, found = np.random.default_rng(seed), []
    while len(found) < count:
        n_secrets = int(rng.integers(7, 9))
        codes, secret_guess = random_matrix(rng, int(rng.integers(n_secrets, 10)), n_secrets, 3)
        brute = BruteGame(codes, secret_guess, 3)
        sets = [np.array(key, dtype=np.int32) for size in (5, 6) for key in combinations(range(n_secrets), size)
                if any(brute.min_total(key, None) < brute.min_total(key, left) < NO_STRATEGY for left in LIMITS[1:])]
        if sets:
            found.append((codes, secret_guess, 3, [sets[i] for i in rng.permutation(len(sets))[:3]]))
    return found


def subsets(rng, n_secrets: int, count: int, largest: int = 99) -> list[np.ndarray]:
    """Every secret (when at most `largest`), then `count` random sets of three to `largest`."""
    largest = min(largest, n_secrets)
    picks = [np.arange(n_secrets, dtype=np.int32)] if largest == n_secrets else []
    for _ in range(count):
        size = int(rng.integers(3, largest + 1))
        picks.append(np.sort(rng.choice(n_secrets, size, replace=False)).astype(np.int32))
    return picks


class Binding:
    """Counts of the queries where the guess limit changed the brute-force value."""

    def __init__(self):
        self.raised = self.infeasible = 0

    def note(self, limited: float, unlimited: float) -> None:
        self.raised += unlimited < limited < NO_STRATEGY
        self.infeasible += unlimited < NO_STRATEGY == limited


def agrees(got: int, truth: float, beta: int = INFEASIBLE) -> bool:
    """The checker's answer against beta: exact below it, some value >= beta otherwise (INFEASIBLE: no strategy)."""
    if truth >= beta:
        return got >= beta
    return got == truth


def checker_solver(codes, secret_guess, n_codes, words=None, n_symbols=1, hard=False) -> ExactSolver:
    words = np.zeros((codes.shape[0], 1), dtype=np.uint8) if words is None else words
    return ExactSolver(codes, words, np.asarray(secret_guess, dtype=np.int32), n_codes, n_symbols, hard)


# ---- normal mode: random code matrices --------------------------------------------------------------------------

@pytest.mark.parametrize("seed, states_limit", [(0, None), (1, None), (2, None), (3, None), (0, 3)])
def test_exact_min_total_matches_brute_force_under_every_limit(seed, states_limit):
    """MinTotal of random sets with 2..5 guesses left and with none, asked of one solver in a random order of limits
    (its memo holds every answer before, or, with a states limit, is emptied between searches once it holds that
    many): the brute-force value, or no strategy exactly when the brute force finds none."""
    rng = np.random.default_rng(100 + seed)
    wrong, binding = [], Binding()
    for codes, secret_guess, n_codes in normal_games(seed, 30):
        brute, solver = BruteGame(codes, secret_guess, n_codes), checker_solver(codes, secret_guess, n_codes)
        solver.states_limit = states_limit or solver.states_limit
        for cands in subsets(rng, codes.shape[1], 3):
            key = tuple(cands.tolist())
            for left in rng.permutation(np.array(LIMITS, dtype=object)):
                truth = brute.min_total(key, left)
                binding.note(truth, brute.min_total(key, None))
                got = solver.min_total(cands, left, None)
                if not agrees(got, truth):
                    wrong.append((codes.tolist(), key, left, got, truth))
    assert wrong == []
    assert binding.infeasible >= 40, vars(binding)


def test_exact_min_total_of_one_or_two_secrets_under_every_limit():
    """The smallest sets, asked directly with 0-3 guesses left and with none: one secret costs 1 with a guess
    left, two cost 3 with two left and have no strategy with one (only the guessed secret is found)."""
    wrong, infeasible = [], 0
    for codes, secret_guess, n_codes in normal_games(7, 10):
        brute, solver = BruteGame(codes, secret_guess, n_codes), checker_solver(codes, secret_guess, n_codes)
        for key in [pair for size in (1, 2) for pair in combinations(range(codes.shape[1]), size)]:
            for left in (None, 0, 1, 2, 3):
                truth = brute.min_total(key, left)
                infeasible += truth == NO_STRATEGY and len(key) == 2 and left == 1
                got = solver.min_total(np.array(key, dtype=np.int32), left, None)
                if not agrees(got, truth):
                    wrong.append((codes.tolist(), key, left, got, truth))
    assert wrong == []
    assert infeasible >= 100


@pytest.mark.parametrize("seed", range(2))
def test_exact_min_total_where_the_limit_raises_the_value(seed):
    """Sets whose optimum needs more guesses than a limit allows, while a worse strategy fits: MinTotal under each
    limit is the brute force's (larger than without the limit, or no strategy), asked in a random order."""
    rng = np.random.default_rng(400 + seed)
    wrong, binding = [], Binding()
    for codes, secret_guess, n_codes, sets in raising_games(seed, 8):
        brute, solver = BruteGame(codes, secret_guess, n_codes), checker_solver(codes, secret_guess, n_codes)
        for cands in sets:
            key = tuple(cands.tolist())
            for left in rng.permutation(np.array(LIMITS, dtype=object)):
                truth = brute.min_total(key, left)
                binding.note(truth, brute.min_total(key, None))
                got = solver.min_total(cands, left, None)
                if not agrees(got, truth):
                    wrong.append((codes.tolist(), key, left, got, truth))
    assert wrong == []
    assert binding.raised >= 8 and binding.infeasible >= 8, vars(binding)


@pytest.mark.parametrize("seed", range(4, 6))
def test_exact_min_total_against_a_budget_is_exact_below_it(seed):
    """With a budget beta the answer is exact when MinTotal < beta and some value >= beta otherwise, whatever was
    asked of the solver before (budgets just below, at and above the value, each limit)."""
    rng = np.random.default_rng(200 + seed)
    wrong = []
    for codes, secret_guess, n_codes in normal_games(seed, 25):
        brute, solver = BruteGame(codes, secret_guess, n_codes), checker_solver(codes, secret_guess, n_codes)
        for cands in subsets(rng, codes.shape[1], 2):
            key = tuple(cands.tolist())
            for left in LIMITS:
                truth = brute.min_total(key, left)
                near = int(min(truth, 4 * len(key)))
                for beta in rng.permutation([near - 1, near, near + 1]):
                    got = solver.min_total(cands, left, None, beta=int(beta))
                    if not agrees(got, truth, int(beta)):
                        wrong.append((codes.tolist(), key, left, int(beta), got, truth))
    assert wrong == []


@pytest.mark.parametrize("seed", range(2))
def test_exact_min_total_after_budgets_below_the_values_is_exact(seed):
    """A solver first asked every set, under each limit, with budgets at or below its value (its memo then holds
    lower bounds of many sets and of their classes, not values) answers each exactly when asked again without one:
    a bound kept for a class is a floor, never taken for its value."""
    rng = np.random.default_rng(600 + seed)
    wrong, asked = [], 0
    for codes, secret_guess, n_codes in normal_games(10 + seed, 20):
        brute, solver = BruteGame(codes, secret_guess, n_codes), checker_solver(codes, secret_guess, n_codes)
        queries = [(cands, left, brute.min_total(tuple(cands.tolist()), left))
                   for cands in subsets(rng, codes.shape[1], 6) for left in LIMITS]
        for cands, left, truth in queries:
            low = 2 * len(cands) - 1
            if low < truth < NO_STRATEGY:
                solver.min_total(cands, left, None, beta=int(rng.integers(low, truth + 1)))
                asked += 1
        for cands, left, truth in queries:
            got = solver.min_total(cands, left, None)
            if not agrees(got, truth):
                wrong.append((codes.tolist(), cands.tolist(), left, got, truth))
    assert wrong == []
    assert asked >= 200


def test_a_guess_value_is_the_brute_force_value_of_its_classes():
    """V*(g, S) = |S| + the classes' MinTotal one guess deeper, for every useful opener, with the limit binding:
    what the certificate's classes add up to (their guesses left is the game's limit minus the opener)."""
    rng = np.random.default_rng(7)
    wrong, binding = [], Binding()
    for codes, secret_guess, n_codes in normal_games(7, 25):
        brute, solver = BruteGame(codes, secret_guess, n_codes), checker_solver(codes, secret_guess, n_codes)
        everyone = tuple(range(codes.shape[1]))
        for g in rng.choice(codes.shape[0], 3, replace=False):
            if len(set(codes[g].tolist())) < 2:
                continue
            for limit in (3, 4, None):
                left = None if limit is None else limit - 1
                truth = brute.value(int(g), everyone, limit)
                binding.note(truth, brute.value(int(g), everyone, None))
                got = len(everyone) + sum(
                    min(solver.min_total(cls, left, None), INFEASIBLE) for cls in classes_of(codes[g], n_codes))
                if not agrees(min(got, INFEASIBLE), truth):
                    wrong.append((codes.tolist(), int(g), limit, got, truth))
    assert wrong == []
    assert binding.raised + binding.infeasible >= 10, vars(binding)


def classes_of(row, n_codes) -> list[np.ndarray]:
    """The non-win classes of Split(S, g) (row: g's codes), as int32 secret indices."""
    return [np.flatnonzero(row == code).astype(np.int32) for code in np.unique(row) if code != n_codes - 1]


def test_lower_bounds_never_exceed_min_total_and_reach_it_deep_enough():
    """LB_j(C) <= MinTotal(C) and V_j(g, S) <= V*(g, S) at every level; LB_{2|C|+1}(C) = MinTotal(C) (every class
    down the recursion is then of one or two secrets, where the bounds are exact)."""
    rng = np.random.default_rng(11)
    wrong = []
    for codes, secret_guess, n_codes in normal_games(11, 20):
        brute, bounds = BruteGame(codes, secret_guess, n_codes), LowerBounds(codes, secret_guess, n_codes)
        for cands in subsets(rng, codes.shape[1], 3, largest=6):
            truth = brute.min_total(tuple(cands.tolist()), None)
            values = [bounds.lb(cands, level)[0] for level in range(1, 2 * len(cands) + 2)]
            if max(values) > truth or values[-1] != truth:
                wrong.append((codes.tolist(), cands.tolist(), values, truth))
        everyone = np.arange(codes.shape[1], dtype=np.int32)
        for g in range(codes.shape[0]):
            if len(set(codes[g].tolist())) >= 2:
                truth = brute.value(g, tuple(everyone.tolist()), None)
                values = [bounds.v(g, everyone, level)[0] for level in range(1, 6)]
                if max(values) > truth:
                    wrong.append((codes.tolist(), g, values, truth))
    assert wrong == []


@pytest.mark.parametrize("memo_limit", [None, 3])
def test_feasibility_decides_exactly_what_the_brute_force_finds(memo_limit):
    """"Solved within j guesses" (feasibility.py, shallow.py for j <= 3) is true exactly when the brute force finds
    a strategy within j, for j = 1..5 (also with a memo of three entries, emptied inside the search)."""
    rng = np.random.default_rng(13)
    wrong, no, yes = [], 0, 0
    for codes, secret_guess, n_codes in normal_games(13, 20):
        brute = BruteGame(codes, secret_guess, n_codes)
        decide = with_memos_of(memo_limit, Feasibility(codes, np.zeros((codes.shape[0], 1), dtype=np.uint8),
                                                       secret_guess.astype(np.int32), n_codes, 1, False))
        for cands in subsets(rng, codes.shape[1], 3, largest=7):
            for left in range(1, 6):
                truth = brute.solvable(tuple(cands.tolist()), left)
                no, yes = no + (not truth), yes + truth
                if decide.within(cands, left, None) != truth:
                    wrong.append((codes.tolist(), cands.tolist(), left, truth))
    assert wrong == [] and no >= 50 and yes >= 50


@pytest.mark.parametrize("memo_limit", [None, 3])
def test_feasibility_where_sets_need_five_guesses_or_more(memo_limit):
    """Within j guesses, asked for j = 1..7 in a random order of one search (its memo holds every answer before,
    or three entries emptied inside the search): exactly when the brute force's fewest guesses for the set are at
    most j, in games whose guesses rarely tell secrets apart, where sets need 5 guesses and more and the search
    below shallow.py's three guesses decides."""
    rng = np.random.default_rng(29)
    wrong, deep = [], 0
    for _ in range(60):
        n_secrets = int(rng.integers(6, 11))
        codes, secret_guess = sparse_matrix(rng, n_secrets + int(rng.integers(0, 3)), n_secrets, 0.2)
        brute = BruteGame(codes, secret_guess, 3)
        decide = with_memos_of(memo_limit, Feasibility(codes, np.zeros((codes.shape[0], 1), dtype=np.uint8),
                                                       secret_guess.astype(np.int32), 3, 1, False))
        for cands in subsets(rng, n_secrets, 6):
            key = tuple(cands.tolist())
            fewest = next(j for j in range(1, len(key) + 1) if brute.solvable(key, j))  # each guessed in turn
            deep += fewest >= 5
            for left in rng.permutation(np.arange(1, 8)).tolist():
                if decide.within(cands, left, None) != (left >= fewest):
                    wrong.append((codes.tolist(), key, left, fewest))
    assert wrong == [] and deep >= 10, (wrong[:3], deep)


# ---- hard mode: random words, Wordle's answers ------------------------------------------------------------------

@pytest.mark.slow
@pytest.mark.parametrize("seed", range(3))
def test_hard_mode_min_total_matches_brute_force_from_the_start_and_after_an_opener(seed):
    """Hard mode with 2..5 guesses left and none: MinTotal of random sets from the start, and of every class an
    opener leaves under the rule its response makes, is the brute force's (NYT rule read from its statement)."""
    rng = np.random.default_rng(300 + seed)
    wrong, binding = [], Binding()
    for words, codes, secret_guess, n_symbols in raising_hard_games(seed, 4) + list(islice(hard_games(50 + seed), 6)):
        brute = BruteGame(codes, secret_guess, WORDLE_CODES, hard=True, words=words)
        solver = checker_solver(codes, secret_guess, WORDLE_CODES, words, n_symbols, hard=True)
        start = solver.start_rule()
        asked = [(cands, start, ()) for cands in subsets(rng, codes.shape[1], 2)]
        for g in rng.choice(codes.shape[0], 2, replace=False):
            for cls in classes_of(codes[g], WORDLE_CODES):
                code = int(codes[g, cls[0]])
                asked.append((cls, start.after(words[g], code), ((int(g), code),)))
        for cands, rule, history in asked:
            key = tuple(cands.tolist())
            for left in rng.permutation(np.array(LIMITS, dtype=object)):
                truth = brute.min_total(key, left, history)
                binding.note(truth, brute.min_total(key, None, history))
                got = solver.min_total(cands, left, rule)
                if not agrees(got, truth):
                    wrong.append((words.tolist(), secret_guess.tolist(), key, history, left, got, truth))
    assert wrong == []
    assert binding.raised >= 4 and binding.infeasible >= 20, vars(binding)


def test_hard_lower_bounds_and_feasibility_match_brute_force():
    """Hard-mode LB_j(C, R) <= hard MinTotal(C, R), equal at level 2|C| + 1, for random sets from the start and the
    classes an opener leaves; hard-mode feasibility within 1..4 guesses is the brute force's."""
    rng = np.random.default_rng(17)
    wrong = []
    for words, codes, secret_guess, n_symbols in islice(hard_games(17), 10):
        brute = BruteGame(codes, secret_guess, WORDLE_CODES, hard=True, words=words)
        normal = LowerBounds(codes, secret_guess, WORDLE_CODES)
        hard = HardLowerBounds(normal, words, n_symbols)
        decide = Feasibility(codes, words, secret_guess.astype(np.int32), WORDLE_CODES, n_symbols, True)
        start = hard.start()
        asked = [(cands, start, ()) for cands in subsets(rng, codes.shape[1], 2)]
        g = int(rng.integers(codes.shape[0]))
        for cls in classes_of(codes[g], WORDLE_CODES):
            code = int(codes[g, cls[0]])
            asked.append((cls, start.after(words[g], code), ((g, code),)))
        for cands, rule, history in asked:
            key = tuple(cands.tolist())
            truth = brute.min_total(key, None, history)
            values = [hard.lb(cands, rule, level)[0] for level in range(1, 2 * len(cands) + 2)]
            if max(values) > truth or values[-1] != truth:
                wrong.append(("lb", words.tolist(), key, history, values, truth))
            for left in range(1, 5):
                if decide.within(cands, left, rule) != brute.solvable(key, left, history):
                    wrong.append(("within", words.tolist(), key, history, left))
    assert wrong == []


# ---- budgets: the value, or a bound above the budget -------------------------------------------------------------

def budgets_near(rng, truth: int) -> list[int]:
    """Every budget from six below `truth` to one above it, in a random order (one solver: its memo sees them all)."""
    return [int(b) for b in rng.permutation(np.arange(truth - 6, truth + 2))]


def with_memos_of(limit: int | None, bounds):
    """`bounds` with memos of at most `limit` entries (None: as built), emptied as they fill (memo.py)."""
    if limit is not None:
        for name in ("memo", "allowed_memo"):
            if hasattr(bounds, name):
                setattr(bounds, name, BoundedMemo(limit))
    return bounds


@pytest.mark.parametrize("memo_limit", [None, 3])
def test_budgeted_bounds_are_the_value_or_a_bound_above_the_budget(memo_limit):
    """LB_2..LB_6 of random sets (and of the classes an opener leaves, under its hard-mode rule) and V_1..V_6 of
    every opener, normal and hard mode, under every budget near the value: the value asked without a budget, or a
    lower bound on it above the budget.  LB_2 and LB_3 then only show that no guess scores enough to come in under
    the budget, and from level 4 on such budgets are passed down to the classes.  The same with memos of three
    entries, emptied as they fill, in the middle of a recursion too: what a worker's memory limit does."""
    rng = np.random.default_rng(19)
    stopped = [0, 0]  # answers that were bounds above the budget: normal, hard
    for codes, secret_guess, n_codes in normal_games(19, 10):
        truth_of = LowerBounds(codes, secret_guess, n_codes)
        asked = with_memos_of(memo_limit, LowerBounds(codes, secret_guess, n_codes))
        everyone = np.arange(codes.shape[1], dtype=np.int32)
        queries = [(asked.lb, truth_of.lb, (cands,), level) for cands in subsets(rng, codes.shape[1], 4)
                   for level in range(2, 7)]
        queries += [(asked.v, truth_of.v, (g, everyone), level) for g in range(codes.shape[0]) for level in range(1, 7)]
        stopped[0] += ask_under_budgets(rng, queries)
    for words, codes, secret_guess, n_symbols in islice(hard_games(19), 8):
        truth_of, asked = (HardLowerBounds(with_memos_of(limit, LowerBounds(codes, secret_guess, WORDLE_CODES)),
                                           words, n_symbols) for limit in (None, memo_limit))
        with_memos_of(memo_limit, asked)
        start, everyone = asked.start(), np.arange(codes.shape[1], dtype=np.int32)
        sets = [(cands, start) for cands in subsets(rng, codes.shape[1], 3)]
        for g in rng.choice(codes.shape[0], 2, replace=False):
            sets += [(cls, start.after(words[g], int(codes[g, cls[0]]))) for cls in classes_of(codes[g], WORDLE_CODES)]
        queries = [(asked.lb, truth_of.lb, (cands, rule), level) for cands, rule in sets for level in range(2, 7)]
        queries += [(asked.v, truth_of.v, (g, everyone, start), level) for g in range(codes.shape[0])
                    for level in range(1, 7)]
        stopped[1] += ask_under_budgets(rng, queries)
    assert min(stopped) >= 100, stopped


def ask_under_budgets(rng, queries) -> int:
    """Each (ask, truth_of, args, level) asked under every budget near its value (truth_of(*args, level) without one);
    how many answers were bounds above the budget."""
    stopped = 0
    for ask, truth_of, args, level in queries:
        truth = truth_of(*args, level)[0]
        if truth >= HUGE:  # no useful guess: nothing to stop early
            continue
        for budget in budgets_near(rng, truth):
            answer = ask(*args, level, budget)
            assert_budgeted(answer, truth, budget)
            stopped += not answer[1]
    return stopped
