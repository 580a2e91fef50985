"""Hard-mode lower bounds (prover's search/bounds/hard.py and the checker's proofs/bounds/hard.py).

Both are checked against a brute-force hard-mode MinTotal written from the rules (tests/
test_hard_mode_chain.py), against each other (two implementations from the same definitions), and
against the normal-mode bounds they must dominate.  The games are ones where hard mode binds.
"""

from itertools import combinations

import numpy as np
import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.games.answer import code_to_colours
from pipeline.proofs.game.answer import symbols
from pipeline.proofs.bounds.lower import LowerBounds
from pipeline.proofs.bounds.hard import HardLowerBounds
from pipeline.search.bounds.lower import BoundSolver, k_of_game
from pipeline.games.game import Game
from pipeline.search.bounds.hard import HardBoundSolver, v1_among
from pipeline.search.bounds.hard_scans import LETTERS_FROM, scan_guesses
from pipeline.search.bounds.max_parts import colour_table
from pipeline.search.hard_mode import initial_state
from tests.helpers.budgets import assert_budgeted
from tests.helpers.words import HARD_BINDS, LIMIT_BINDS, binding_game, brute_min_total, random_word_game

GAMES = {"hard_binds": HARD_BINDS, "limit_binds": LIMIT_BINDS}
LEVELS = (1, 2, 3, 4, 5)


def solvers(case):
    game = binding_game(case, True, None)
    codes = game_matrix(game)
    k_s = k_of_game(codes, game.n_codes)
    prover = HardBoundSolver(codes, game.n_codes, k_s, game.encoded_guesses(), secret_of_guess=game.secret_of_guess)
    normal = BoundSolver(codes, game.secret_of_guess, game.n_codes, k_s)
    checker = HardLowerBounds(LowerBounds(codes, game.guess_of_secret, game.n_codes),
                              symbols(game.guesses, game.alphabet), len(game.alphabet))
    return game, codes, prover, normal, checker


def test_the_normal_mode_shortcut_gives_the_same_bounds():
    """Unconstrained states take LB_2 / LB_3 from the normal-mode solver; without it every value is the same."""
    game, codes, prover, _, _ = solvers(HARD_BINDS)
    plain = HardBoundSolver(codes, game.n_codes, k_of_game(codes, game.n_codes),
                            game.encoded_guesses())
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    start = initial_state(game.length)
    for g in range(len(game.guesses)):
        for level in LEVELS:
            assert prover.v(g, everyone, start, level) == plain.v(g, everyone, start, level)


@pytest.mark.parametrize("name", GAMES)
def test_hard_opener_bounds_never_exceed_the_brute_force_value(name):
    game, codes, prover, normal, checker = solvers(GAMES[name])
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    raised = 0
    for g, word in enumerate(game.guesses):
        rows = {}
        for s in game.secrets:
            rows.setdefault(code_to_colours(int(codes[g, game.secrets.index(s)]), game.length), []).append(s)
        win = "2" * game.length
        truth = len(game.secrets) + sum(
            brute_min_total(game.guesses, tuple(p), True, None, ((word, c),)) for c, p in rows.items() if c != win)
        for level in LEVELS:
            value, exact = prover.v(g, everyone, initial_state(game.length), level)
            assert exact
            assert value == checker.opener(g, level), (word, level)
            assert normal.v(g, everyone, level)[0] <= value <= truth, (word, level)
            raised += value > normal.v(g, everyone, level)[0]
    assert raised > 0  # hard mode binds here: some hard bound is above its normal twin


@pytest.mark.parametrize("name", GAMES)
def test_hard_class_bounds_after_one_guess_match_and_bound(name):
    game, codes, prover, normal, checker = solvers(GAMES[name])
    unordered = HardBoundSolver(codes, game.n_codes, k_of_game(codes, game.n_codes), game.encoded_guesses())
    unordered.win_guess = None  # LB_3's scan without candidates' winning guesses first (and its tighter stop)
    for g in range(len(game.guesses)):
        for size in (3, 4):
            for cands in combinations(range(len(game.secrets)), size):
                cands = np.array(cands, dtype=np.int32)
                code = int(codes[g, cands[0]])
                if not (codes[g, cands] == code).all() or code == game.n_codes - 1:
                    continue  # only sets a response of g can leave
                state = prover.after(initial_state(game.length), g, code)
                rule = checker.start().after(checker.words[g], code)
                history = ((game.guesses[g], code_to_colours(code, game.length)),)
                truth = brute_min_total(game.guesses, tuple(game.secrets[i] for i in cands), True, None, history)
                for level in LEVELS:
                    value, _ = prover.lb(cands, state, level)
                    assert value == checker.lb(cands, rule, level)[0] == unordered.lb(cands, state, level)[0]
                    assert normal.lb(cands, level)[0] <= value <= truth


@pytest.mark.parametrize("name", GAMES)
def test_checker_class_scans_inside_their_parent_give_the_same_bounds(name):
    """The checker's LB_2 / LB_3 of a class D of C, skipping guesses whose part count on C cannot beat the best
    (proofs/bounds/hard.py `_caps_on`), against the same scans capped by all secrets only: V_4..V_6 of every
    opener are equal."""
    game, _, _, _, checker = solvers(GAMES[name])
    plain = solvers(GAMES[name])[4]
    plain._caps_on = lambda guesses, parts: plain.parts_on_s
    for g in range(len(game.guesses)):
        for level in (4, 5, 6):
            assert checker.opener(g, level) == plain.opener(g, level), (game.guesses[g], level)


def test_budget_early_exit_stays_a_lower_bound():
    game, codes, prover, _, checker = solvers(HARD_BINDS)
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    start = initial_state(game.length)
    for g in range(len(game.guesses)):
        full, _ = prover.v(g, everyone, start, 5)
        for budget in (full - 3, full - 1):
            value, exact = prover.v(g, everyone, start, 5, budget)
            assert value <= full and (exact or value > budget)
            assert checker.opener(g, 5, budget) <= full


def parts_lb3(solver, cands, state):
    """The part-count LB_3 without a budget (always exact), or None where it does not apply."""
    result = solver._lb3_by_parts(cands, state)
    assert result is None or result[1]
    return None if result is None else result[0]


def test_parts_above_is_the_largest_part_count_whose_bound_exceeds_the_budget():
    from pipeline.search.bounds.lower import bound
    from pipeline.search.bounds.lower import parts_above

    for n in range(3, 60):
        for budget in range(2 * n - 3, n * (n + 1) // 2 + 2):
            above = [k for k in range(1, n - 1) if bound(n, k) > budget]
            expected = 0 if bound(n, n - 1) > budget or not above else max(above)
            assert parts_above(n, budget) == expected, (n, budget)


@pytest.mark.parametrize("name", GAMES)
def test_every_budget_gives_the_value_or_a_bound_above_the_budget(name):
    """Class bounds LB_2..LB_6 after each first guess, and V_1..V_6 of each opener, under every budget
    near the value: the independent checker's value, or a lower bound on it above the budget (levels from 4
    on raise every class to LB_3 first; LB_2 and LB_3 then only show a bound is above the budget)."""
    game, codes, prover, _, checker = solvers(GAMES[name])
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    start = initial_state(game.length)
    rng = np.random.default_rng(3)
    for g in range(len(game.guesses)):
        for level in range(1, 7):
            truth = checker.opener(g, level)
            for budget in rng.permutation(np.arange(truth - 6, truth + 2)):  # one solver: its memo sees all orders
                assert_budgeted(prover.v(g, everyone, start, level, int(budget)), truth, budget)
        for code in np.unique(codes[g]):
            cands = np.flatnonzero(codes[g] == code).astype(np.int32)
            if code == game.n_codes - 1 or len(cands) < 3:
                continue
            state, rule = prover.after(start, g, int(code)), checker.start().after(checker.words[g], int(code))
            for level in range(2, 7):
                truth = checker.lb(cands, rule, level)[0]
                for budget in rng.permutation(np.arange(truth - 6, truth + 2)):
                    assert_budgeted(prover.lb(cands, state, level, int(budget)), truth, budget)


@pytest.mark.slow
def test_lb3_from_part_counts_equals_the_minimum_of_v1_on_wordle_states():
    """Hard LB_3 by the part-count scan (winning guesses first and letter ceilings, or neither) against min V_1 over every allowed
    guess, and hard LB_2 against Bound of the most parts they make, on Wordle classes and the states that
    two guesses leave."""
    from pipeline.games.catalog import builtin_game
    from pipeline.search.bounds.lower import UNBOUNDED, bound
    from pipeline.search.bounds.hard import v1_among

    game = builtin_game("wordle_original")
    codes = game_matrix(game)
    prover = HardBoundSolver(codes, game.n_codes, 150, game.encoded_guesses(), encoded_secrets=game.encoded_secrets())
    unordered = HardBoundSolver(codes, game.n_codes, 150, game.encoded_guesses())  # no letter ceilings either
    unordered.win_guess = None
    rng = np.random.default_rng(5)
    checked = 0
    for first, second in rng.choice(len(game.guesses), (6, 2), replace=False):
        for c1 in np.unique(codes[first]):
            state = prover.after(initial_state(game.length), first, int(c1))
            for c2 in np.unique(codes[second]):
                cands = np.flatnonzero((codes[first] == c1) & (codes[second] == c2)).astype(np.int32)
                if len(cands) < 3:
                    continue
                after = prover.after(state, second, int(c2))
                keys, parts = v1_among(codes, prover.codes_t, cands, prover.allowed(after), game.n_codes, 242,
                                       prover.btab)
                truth = int(keys[keys < UNBOUNDED].min()) if (keys < UNBOUNDED).any() else None
                assert parts_lb3(prover, cands, after) == truth == parts_lb3(unordered, cands, after)
                lb2 = bound(len(cands), int(parts.max(initial=1)))
                assert prover.lb(cands, after, 2)[0] == lb2 == unordered.lb(cands, after, 2)[0]
                for below in (9, 1, 0):  # the scans that only show a bound is above a budget
                    assert_budgeted(prover._lb2(cands, after, lb2 - below), lb2, lb2 - below)
                    if truth is not None:
                        assert_budgeted(prover._lb3_by_parts(cands, after, truth - below), truth, truth - below)
                checked += 1
    assert checked > 30


def plain_solver(game, codes):
    """A hard solver whose scans never use a superset's capping: the plain scans of every allowed guess."""
    solver = HardBoundSolver(codes, game.n_codes, k_of_game(codes, game.n_codes), game.encoded_guesses(),
                             secret_of_guess=game.secret_of_guess, encoded_secrets=game.encoded_secrets())
    solver.capping = lambda cands, guesses, parts: None
    return solver


def capped_solver(game, codes):
    return HardBoundSolver(codes, game.n_codes, k_of_game(codes, game.n_codes), game.encoded_guesses(),
                           secret_of_guess=game.secret_of_guess, encoded_secrets=game.encoded_secrets())


@pytest.mark.parametrize("name", GAMES)
def test_capped_scans_give_every_value_of_the_plain_scans_under_every_budget(name):
    """V_2..V_6 of every opener under budgets around the value, asked of one solver in the same order as of a
    solver without cappings: every (value, exact) pair is the same (inexact ones included, which depend on
    what the memo holds), and the capped scans did run."""
    game = binding_game(GAMES[name], True, None)
    codes = game_matrix(game)
    fast, plain = capped_solver(game, codes), plain_solver(game, codes)
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    start = initial_state(game.length)
    rng = np.random.default_rng(11)
    scans = []
    for name in ("_lb2", "_lb3_by_parts"):  # count the scans given a superset's capping
        scan = getattr(fast, name)
        setattr(fast, name, lambda cands, state, budget, capped=None, scan=scan: (scans.append(capped is not None)
                                                                                  or scan(cands, state, budget, capped)))
    for g in range(len(game.guesses)):
        for level in range(2, 7):
            truth = plain.v(g, everyone, start, level)[0]
            assert fast.v(g, everyone, start, level) == (truth, True)
            for budget in rng.permutation(np.arange(truth - 8, truth + 2)):
                assert fast.v(g, everyone, start, level, int(budget)) == plain.v(g, everyone, start, level,
                                                                                  int(budget)), (g, level, budget)
    assert sum(scans) > 20  # LB_2 / LB_3 calls with a capping (29 when written)


def most_split_brute(codes, cands, guesses, win, bonus):
    """max over the guesses of |Split(C, g)| + bonus * [g wins on a candidate], from the definition."""
    return max((len(set(codes[g, cands])) + bonus * int((codes[g, cands] == win).any()) for g in guesses),
               default=0)


@pytest.mark.parametrize("seed", range(6))
def test_capped_scan_of_a_subset_is_the_most_parts_of_its_guesses(seed):
    """`scan_guesses` of subsets D of a set C, with C's capping, against the definition: the exact maximum
    from any floor when the stop is out of reach, and the same side of a stop as the plain scan otherwise;
    guesses outside the capping (no cap, no local row) counted too."""
    extra, secrets, alphabet = random_word_game(seed, letters="abcdef", lengths=(3, 4), draws=200,
                                                n_secrets=(30, 40), n_extra=(20, 30))
    game = Game("tiny", tuple(sorted(set(secrets + extra))), tuple(sorted(secrets)), alphabet, True, None)
    codes = game_matrix(game)
    solver = capped_solver(game, codes)
    win = game.n_codes - 1
    rng = np.random.default_rng(seed)
    checked = 0
    for _ in range(40):
        cands = np.sort(rng.choice(len(game.secrets), rng.integers(3, len(game.secrets) + 1), replace=False))
        cands = cands.astype(np.int32)
        known = np.sort(rng.choice(len(game.guesses), len(game.guesses) * 3 // 4, replace=False)).astype(np.int32)
        _, parts = v1_among(codes, solver.codes_t, cands, known, game.n_codes, win, solver.btab)
        capped = solver.capping(cands, known, parts)
        for _ in range(5):
            subset = np.sort(rng.choice(cands, rng.integers(3, len(cands) + 1), replace=False)).astype(np.int32)
            guesses = np.sort(rng.choice(len(game.guesses), len(game.guesses) // 2, replace=False)).astype(np.int32)
            keys = solver.letter_keys if len(subset) > LETTERS_FROM else solver.letter_keys[:0]
            table = colour_table(subset, solver.secret_letters)
            for bonus in (0, 1):
                truth = most_split_brute(codes, subset, guesses, win, bonus)
                for floor in (0, truth - 1, truth, truth + 1):
                    scan = scan_guesses(capped, subset, guesses, floor, len(subset) + 2, bonus, keys, table)
                    assert scan == max(floor, truth), (seed, floor, bonus)
                    stop = max(1, truth - 1)  # reached: some value >= stop, as the plain scan says
                    plain = scan_guesses(solver.plain, subset, guesses, floor, stop, bonus, keys, table)
                    assert (scan_guesses(capped, subset, guesses, floor, stop, bonus, keys, table) >= stop) \
                        == (plain >= stop) == (max(floor, truth) >= stop)
                checked += 1
    assert checked == 40 * 5 * 2
