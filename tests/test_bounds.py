"""Lower bounds: Bound(n, k), LB_i and V_i against brute-force MinTotal on tiny games."""

from itertools import combinations
from pathlib import Path

import numpy as np
import pytest

from pipeline.games.catalog import builtin_game
from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.feedback.matrix import game_matrix
from pipeline.search.bounds.lower import UNBOUNDED, BoundSolver, bound, k_of_game
from pipeline.search.bounds.max_parts import NEIGHBOUR_SIZES, max_parts, most_parts_above, parts_index
from pipeline.search.partition import split_parts
from tests.helpers.words import ALPHABET, REPEATED_LETTER_GAMES, brute_min_total_and_value, repeated_letter_game

LEVELS = range(1, 8)


def level_fill(n, k):
    """Bound(n, k) written out: list the depth of every node, filling level d with k**(d-1) nodes."""
    depths, depth, width = [], 1, 1
    while len(depths) < n:
        depths += [depth] * width
        depth, width = depth + 1, width * k
    return sum(depths[:n])


def test_bound_against_level_fill():
    for k in range(1, 8):
        for n in range(1, 60):
            assert bound(n, k) == level_fill(n, k), (n, k)
    assert bound(1, 150) == 1 and bound(2, 1) == 3 and bound(2, 150) == 3
    for n in range(2, 40):
        assert bound(n, n - 1) == 2 * n - 1 == bound(n, n + 5)
    assert bound(221, 150) == 1 + 2 * 150 + 3 * 70
    assert bound(10**6, 150) == level_fill(10**6, 150)


@pytest.mark.slow
def test_lb2_against_a_budget_is_exact_within_it_and_a_bound_above_it():
    """LB_2 with a budget: exact (Bound of the true most parts) when within the budget, else a lower bound
    above it; the scan that shows "no guess makes more than k_max parts" must not overshoot by one."""
    game = builtin_game("mini_nerdle")
    codes = game_matrix(game)
    solver = BoundSolver(codes, game.secret_of_guess, game.n_codes, k_of_game(codes, game.n_codes),
                         game.encoded_guesses(), game.encoded_secrets())
    rng = np.random.default_rng(3)
    cut = 0
    for _ in range(60):
        cands = np.sort(rng.choice(codes.shape[1], size=int(rng.integers(4, 120)), replace=False)).astype(np.int32)
        most = max(len(set(codes[g, cands])) for g in range(codes.shape[0]))
        truth = bound(len(cands), min(most, len(cands) - 1))
        for budget in range(len(cands), truth + 3):
            solver.reset()
            value, exact = solver.lb(cands, 2, budget)
            assert (value == truth) if exact else (budget < value <= truth), (len(cands), budget, value, truth)
            assert exact or truth > budget
            cut += not exact
    assert cut  # the budget did stop some scans early


def subsets(n, rng, count):
    out = [tuple(range(n))]
    for size in range(1, n + 1):
        out += [c for c in combinations(range(n), size)][:3]
    out += [tuple(sorted(rng.choice(n, size=rng.integers(2, n + 1), replace=False))) for _ in range(count)]
    return out


SLOW_GAMES = {"aabb"}  # every subset of its secrets: tens of seconds (make check leaves it out)


@pytest.fixture(params=[pytest.param(name, marks=pytest.mark.slow) if name in SLOW_GAMES else name
                        for name in sorted(REPEATED_LETTER_GAMES)])
def game(request):
    secrets, guesses, codes, sog, n_codes = repeated_letter_game(request.param)
    min_total, value = brute_min_total_and_value(tuple(secrets), guesses)
    k_s = k_of_game(codes, n_codes)
    return secrets, guesses, codes, sog, n_codes, k_s, min_total, value


def test_lower_bounds_never_exceed_min_total(game):
    secrets, guesses, codes, sog, n_codes, k_s, min_total, value = game
    solver = BoundSolver(codes, sog, n_codes, k_s, encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    for subset in subsets(len(secrets), np.random.default_rng(1), 10):
        cands = np.array(subset, dtype=np.int32)
        truth = min_total(tuple(secrets[i] for i in subset), ())
        for level in LEVELS:
            lb, exact = solver.lb(cands, level)
            assert exact and lb <= truth, (subset, level)
        assert solver.lb(cands, 2)[0] >= solver.lb(cands, 1)[0]


def test_v_levels_bound_v_star_and_grow_every_two_levels(game):
    secrets, guesses, codes, sog, n_codes, k_s, min_total, value = game
    solver = BoundSolver(codes, sog, n_codes, k_s)
    everyone = np.arange(len(secrets), dtype=np.int32)
    for g, word in enumerate(guesses):
        if len({codes[g, s] for s in everyone}) < 2:
            continue
        truth = value(word, tuple(secrets), ())
        values = [solver.v(g, everyone, level)[0] for level in LEVELS]
        assert all(v <= truth for v in values), (word, values, truth)
        assert all(values[i] <= values[i + 2] for i in range(len(values) - 2)), (word, values)
        batch, exact = solver.opener_values([g], 2)
        assert exact[0] and batch[0] == values[1]
    # the bounds become exact once deep enough (V_{2|S|+1})
    g = guesses.index(secrets[0])
    assert solver.v(g, everyone, 2 * len(secrets) + 1)[0] == value(secrets[0], tuple(secrets), ())


def test_early_exit_never_overstates(game):
    secrets, guesses, codes, sog, n_codes, k_s, min_total, value = game
    everyone = np.arange(len(secrets), dtype=np.int32)
    openers = np.arange(len(guesses), dtype=np.int32)
    for level in (1, 2, 3, 4, 5):
        truth, exact = BoundSolver(codes, sog, n_codes, k_s).opener_values(openers, level)
        assert exact.all()
        for budget in range(len(secrets), int(truth.max()) + 2, 3):
            cut, cut_exact = BoundSolver(codes, sog, n_codes, k_s).opener_values(openers, level, budget)
            assert (cut <= truth).all()
            assert (cut[cut_exact] == truth[cut_exact]).all()
            assert (cut[~cut_exact] > budget).all()
            assert ((truth <= budget) <= cut_exact).all()  # everything within budget is exact
        lb, lb_exact = BoundSolver(codes, sog, n_codes, k_s).lb(everyone, level, len(secrets))
        full = BoundSolver(codes, sog, n_codes, k_s).lb(everyone, level, UNBOUNDED)[0]
        assert lb <= full and (lb_exact or lb > len(secrets))


def reference_bounds(codes, n_codes, k_s):
    """LB_i(C) and V_i(g, C) read off their definitions in plain Python (Bound by `level_fill`)."""
    win = n_codes - 1

    def classes(g, cands):
        out = {}
        for c in cands:
            out.setdefault(int(codes[g, c]), []).append(c)
        return out

    def v(g, cands, level):
        return len(cands) + sum(lb(tuple(m), level) for code, m in classes(g, cands).items() if code != win)

    def lb(cands, level):
        if level == 1:
            return level_fill(len(cands), k_s)
        if level == 2:
            return level_fill(len(cands), max(len(classes(g, cands)) for g in range(codes.shape[0])))
        useful = [g for g in range(codes.shape[0])
                  if len(classes(g, cands)) >= 2 or (len(cands) == 1 and int(codes[g, cands[0]]) == win)]
        return min(v(g, cands, level - 2) for g in useful)

    return lb


def test_lower_bounds_equal_their_definitions_on_every_subset(game):
    """Every shortcut (LB_3 from part counts, the pruned max-parts scan, lazy minima) gives exactly LB_i."""
    secrets, guesses, codes, sog, n_codes, k_s, *_ = game
    reference = reference_bounds(codes, n_codes, k_s)
    words = encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET)
    solvers = [BoundSolver(codes, sog, n_codes, k_s, *words)] + [BoundSolver(codes, sog, n_codes, k) for k in (k_s, 2)]
    reference_small_k = reference_bounds(codes, n_codes, 2)
    for size in range(3, len(secrets) + 1):
        for subset in combinations(range(len(secrets)), size):
            cands = np.array(subset, dtype=np.int32)
            for level in (2, 3, 4, 5):
                assert solvers[0].lb(cands, level) == (reference(subset, level), True), (subset, level)
                assert solvers[1].lb(cands, level)[0] == reference(subset, level), (subset, level)
            assert solvers[2].lb(cands, 3)[0] == reference_small_k(subset, 3), subset  # |C| > K_S + 1 too


def test_opener_batches_agree_with_one_batch(game):
    secrets, guesses, codes, sog, n_codes, k_s, *_ = game
    openers = np.arange(len(guesses))
    whole = BoundSolver(codes, sog, n_codes, k_s).opener_values(openers, 2)[0]
    halves = np.concatenate([BoundSolver(codes, sog, n_codes, k_s).opener_values(part, 2)[0]
                             for part in np.array_split(openers, 2)])
    assert (whole == halves).all()


@pytest.mark.slow
def test_salet_first_levels_on_original_wordle():
    root = Path(__file__).resolve().parents[1] / "data/wordle"
    guesses = sorted((root / "original_guesses.txt").read_text().split())
    secrets = sorted((root / "original_answers.txt").read_text().split())
    codes, enc_g, enc_s = wordle_matrix()
    index = {w: i for i, w in enumerate(secrets)}
    sog = np.array([index.get(w, -1) for w in guesses], dtype=np.int32)
    assert k_of_game(codes, 243) == 150
    salet = guesses.index("salet")
    solver = BoundSolver(codes, sog, 243, 150, enc_g, enc_s)
    values = [solver.opener_values([salet], level)[0][0] for level in (1, 2, 3)]
    assert values == [6881, 7686, 7812]


def wordle_matrix():
    root = Path(__file__).resolve().parents[1] / "data/wordle"
    guesses = sorted((root / "original_guesses.txt").read_text().split())
    secrets = sorted((root / "original_answers.txt").read_text().split())
    enc_g, enc_s = encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET)
    return code_matrix(enc_g, enc_s), enc_g, enc_s


@pytest.mark.slow
def test_max_parts_equals_counting_every_guess():
    """The pruned scan (parts on S, letter ceiling, neighbour bound) against a plain count over all
    guesses, on Wordle classes and random sets of every size, with and without the words."""
    codes, enc_g, enc_s = wordle_matrix()
    everyone = np.arange(codes.shape[1], dtype=np.int32)
    global_parts = split_parts(codes, everyone, 243)
    indexes = [parts_index(codes, global_parts, enc_g, enc_s), parts_index(codes, global_parts)]
    rng = np.random.default_rng(7)
    sets = [np.sort(rng.choice(codes.shape[1], size, replace=False)).astype(np.int32)
            for size in (2, 5, 8, 9, 20, 64, 128, 200, 201, 300)]
    for opener in rng.choice(codes.shape[0], 6, replace=False):
        row = codes[opener]
        sets += [np.flatnonzero(row == code).astype(np.int32) for code in np.unique(row)]
    lo, hi = NEIGHBOUR_SIZES
    assert any(lo <= len(s) <= hi for s in sets) and any(len(s) > hi for s in sets)
    for cands in sets:
        truth = min(int(split_parts(codes, cands, 243).max()), len(cands) - 1)
        for index in indexes:
            assert min(max_parts(*index, cands, 243), len(cands) - 1) == truth, len(cands)


@pytest.mark.slow
def test_lb3_from_part_counts_equals_the_minimum_of_v1_on_wordle():
    """LB_3 by the part-count shortcut against min_g V_1(g, C) over every guess, on Wordle classes two
    guesses deep and random sets; and the scan with a floor returns max(floor, the most parts)."""
    codes, enc_g, enc_s = wordle_matrix()
    wins = codes == 242
    sog = np.where(wins.any(axis=1), wins.argmax(axis=1), -1).astype(np.int32)
    solver = BoundSolver(codes, sog, 243, 150, enc_g, enc_s)
    rng = np.random.default_rng(3)
    sets = [np.sort(rng.choice(codes.shape[1], size, replace=False)).astype(np.int32) for size in (3, 7, 40, 151)]
    first, second = codes[rng.choice(codes.shape[0], 2, replace=False)]
    for code in np.unique(first):
        sets += [np.flatnonzero((first == code) & (second == b)).astype(np.int32) for b in np.unique(second)]
    sets = [c for c in sets if len(c) >= 3]
    assert len(sets) > 40
    for cands in sets:
        n = len(cands)
        parts = split_parts(codes, cands, 243)
        wins = (codes[:, cands] == 242).any(axis=1)
        truth = 3 * n - int((parts + wins)[parts >= 2].max())
        assert solver._lb3_by_parts(cands) == truth, n
        for floor in (1, int(parts.max()) - 1, int(parts.max()) + 1):
            assert most_parts_above(*solver.index, cands, 243, floor, n) == max(floor, int(parts.max())), n
    assert solver._lb3_by_parts(np.arange(152, dtype=np.int32)) is None  # larger than K_S + 1: not this way


def two_speed_matrix():
    """20 secrets: guess i < 20 wins on secret i and answers 0 on every other; guess 20 (no secret) answers 0 on
    secrets 0..11 and 1..8 on secrets 12..19.  K_S = 9, but no guess splits secrets 0..11 into more than 2
    parts, so LB_2 of that class (Bound(12, 2)) exceeds its LB_3, and its LB_4 its LB_5."""
    codes = np.zeros((21, 20), dtype=np.uint8)
    codes[np.arange(20), np.arange(20)] = 9
    codes[20, 12:] = np.arange(1, 9)
    secret_of_guess = np.r_[np.arange(20), [-1]].astype(np.int32)
    return codes, secret_of_guess


@pytest.mark.slow
def test_only_lb3_is_a_floor_for_every_level(monkeypatch):
    import pipeline.search.bounds.lower as bounds

    codes, sog = two_speed_matrix()
    k_s = k_of_game(codes, 10)
    first = np.arange(12, dtype=np.int32)
    lbs = [BoundSolver(codes, sog, 10, k_s).lb(first, level)[0] for level in range(1, 8)]
    assert k_s == 9 and lbs == [25, 37, 34, 45, 42, 52, 50]  # LB_3 < LB_2 and LB_5 < LB_4: the levels do not grow

    everyone = np.arange(20, dtype=np.int32)

    def cut_wrongly(level):
        """Budgets at which V_level(guess 20) stops above the budget although its value is within it."""
        truth = BoundSolver(codes, sog, 10, k_s).v(20, everyone, level)[0]
        cuts = [(budget, BoundSolver(codes, sog, 10, k_s).v(20, everyone, level, budget)) for budget in range(20, 90)]
        return [budget for budget, (value, exact) in cuts if truth <= budget and not exact]

    assert all(not cut_wrongly(level) for level in range(1, 9))
    monkeypatch.setattr(bounds, "floor_levels", lambda level: (level - 1, level) if level >= 4 else (level,))
    assert cut_wrongly(5) and cut_wrongly(7)  # LB_{level-1} as a floor: an opener is eliminated below its V_level
