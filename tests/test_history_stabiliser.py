"""The history stabiliser below the root (issue 30): the prover's (search/symmetry/stabiliser.py, exact_symmetric.py) and
the checker's (proofs/symmetry/stabiliser.py, proofs/exact/solver.py), each against brute force on tiny games where the symmetry
binds -- orbits against every symbol x position map fixing the history, optima against the search without
symmetry, in normal and hard mode, with and without a guess limit -- and planted wrong reductions caught."""

from itertools import permutations

import numpy as np
import pytest

from pipeline.games.catalog import builtin_game
from pipeline.feedback.matrix import game_matrix
from pipeline.proofs.exact import solver as checker_exact
from pipeline.proofs.game.answer import symbols as checker_symbols
from pipeline.proofs.symmetry.stabiliser import NotAProduct, ProductSymmetry
from pipeline.search.exact import symmetric as exact_symmetric
from pipeline.search.symmetry import generators as symmetry
from pipeline.search.bounds.closure import opener_classes
from pipeline.search.exact.solver import ExactSolver, tree_total
from pipeline.search.exact.symmetric import SymmetricExact
from pipeline.search.matrix import Matrix
from pipeline.search.symmetry.stabiliser import HistoryStabiliser

GAMES = {  # name: (shipped game, overrides); each has a symmetry the stabiliser keeps below the root
    "mastermind 3x3": ("mastermind", {"pegs": 3, "colours": 3}),
    "mastermind 2x4": ("mastermind", {"pegs": 2, "colours": 4}),
    "bulls 2": ("bulls_and_cows", {"length": 2}),
    "mastermind 3x3 limit 4": ("mastermind", {"pegs": 3, "colours": 3, "max_guesses": 4}),
    "wordle colours 3x3 hard": ("mastermind", {"pegs": 3, "colours": 3, "answer": "wordle", "hard_mode": True}),
    "wordle colours 3x3 hard limit 4": ("mastermind", {"pegs": 3, "colours": 3, "answer": "wordle",
                                                       "hard_mode": True, "max_guesses": 4}),
}
_built = {}


def setup(name):
    """(game, codes, generators), built once per game."""
    if name not in _built:
        base, overrides = GAMES[name]
        game = builtin_game(base, **overrides)
        codes = game_matrix(game)
        words = game.encoded_guesses()
        _built[name] = game, codes, symmetry.find_generators(words, game.encoded_secrets(), codes, len(game.alphabet))
    return _built[name]


def brute_stabiliser_orbits(game, history, symbols_only):
    """Orbit of every guess under the symbol x position maps that are automorphisms and fix every history word."""
    respond = game.answering.code
    played = [game.guesses[h] for h in history]
    orbit = {w: {w} for w in game.guesses}
    for sym in permutations(range(len(game.alphabet))):
        for pos in permutations(range(game.length)):
            if symbols_only and list(pos) != list(range(game.length)):
                continue
            image = {w: "".join(game.alphabet[sym[game.alphabet.index(w[p])]] for p in pos) for w in game.guesses}
            if set(image.values()) != set(game.guesses) or any(image[h] != h for h in played):
                continue
            if all(respond(image[g], image[s]) == respond(g, s) for g in game.guesses for s in game.secrets):
                for w in game.guesses:
                    orbit[w].add(image[w])
    return {w: min(o) for w, o in orbit.items()}


def histories(game, count, rng):
    return [tuple(rng.choice(len(game.guesses), size=k, replace=False).tolist())
            for k in (1, 1, 2, 2, 3) for _ in range(count)]


@pytest.mark.parametrize("name", ["mastermind 3x3", "mastermind 2x4", "wordle colours 3x3 hard"])
def test_stabiliser_orbits_match_brute_force(name):
    """Both stabilisers give one guess per orbit of exactly the maps fixing every history guess."""
    game, _, generators = setup(name)
    words = game.encoded_guesses()
    prover = HistoryStabiliser(words, len(game.alphabet), generators)
    checker = ProductSymmetry(generators, checker_symbols(game.guesses, game.alphabet), len(game.alphabet))
    for history in histories(game, 3, np.random.default_rng(0)):
        least = brute_stabiliser_orbits(game, history, game.hard_mode)
        expected = sorted({game.guess_index[w] for w in least.values()})
        reps = prover.representatives(history, symbols_only=game.hard_mode)
        assert (list(range(len(game.guesses))) if reps is None else reps.tolist()) == expected
        mask = checker.representatives(history, game.hard_mode)
        assert (list(range(len(game.guesses))) if mask is None else np.flatnonzero(mask).tolist()) == expected


def class_problems(game, codes, openers):
    """(opener, members, hard-mode state) of every class of size >= 3 of some openers, and the guesses left."""
    left = None if game.max_guesses is None else game.max_guesses - 1
    return [(op, m, state) for op in openers for _, m, state in opener_classes(codes, game, op) if len(m) >= 3], left


def prover_mismatches(name, levels=3):
    """[(opener, class size, with stabiliser, without)] where the prover's class MinTotal differs."""
    game, codes, generators = setup(name)
    words = game.encoded_guesses()

    def solver():
        return ExactSolver(Matrix.of_game(codes, game), hard_mode=game.hard_mode,
                           max_guesses=None if game.max_guesses is None else game.max_guesses - 1)

    group = HistoryStabiliser(words, len(game.alphabet), generators)
    openers = range(0, len(game.guesses), max(1, len(game.guesses) // 12))
    problems, left = class_problems(game, codes, openers)
    wrong = []
    for opener, members, state in problems:
        search, plain = SymmetricExact(solver(), group, levels=levels), solver()
        a = search.min_total(members, (opener,), state=state)
        b = plain.min_total(members, state=state)
        if a != b:
            wrong.append((opener, len(members), a, b))
    return wrong


@pytest.mark.parametrize("name", list(GAMES))
def test_prover_optimum_with_stabiliser_equals_full_search(name, monkeypatch):
    monkeypatch.setattr(exact_symmetric, "SMALL", 2)  # every node of the top levels goes through the stabiliser
    assert prover_mismatches(name) == []


def test_prover_optimal_tree_replays_to_its_value(monkeypatch):
    monkeypatch.setattr(exact_symmetric, "SMALL", 2)
    game, codes, generators = setup("bulls 2")
    group = HistoryStabiliser(game.encoded_guesses(), len(game.alphabet), generators)
    search = SymmetricExact(ExactSolver(Matrix.of_game(codes, game)), group, levels=3)
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    value, exact = search.guess_value(0)
    assert exact and tree_total(search.tree(None, (), first=0), codes, everyone, game.n_codes - 1) == value
    assert value == ExactSolver(Matrix.of_game(codes, game)).guess_value(0)[0]


_plain_checker = {}  # (game, class) -> the checker's MinTotal without the stabiliser, computed once (7 s on bulls 2)


def checker_mismatches(name):
    """[(opener, class size, with stabiliser, without)] where the checker's class MinTotal differs."""
    game, codes, generators = setup(name)
    words = checker_symbols(game.guesses, game.alphabet)
    symmetry_group = ProductSymmetry(generators, words, len(game.alphabet))

    def solver(group):
        return checker_exact.ExactSolver(codes, words, game.guess_of_secret, game.n_codes, len(game.alphabet),
                                         game.hard_mode, group)

    openers = range(0, len(game.guesses), max(1, len(game.guesses) // 12))
    problems, left = class_problems(game, codes, openers)
    wrong = []
    for i, (opener, members, _) in enumerate(problems):
        with_group = solver(symmetry_group)
        rule = with_group.start_rule()
        if rule is not None:
            rule = rule.after(words[opener], int(codes[opener, members[0]]))
        a = with_group.min_total(members, left, rule, history=(opener,))
        if (name, i) not in _plain_checker:  # no stabiliser: what a planted reduction changes is not used
            _plain_checker[name, i] = solver(None).min_total(members, left, rule)
        b = _plain_checker[name, i]
        if a != b:
            wrong.append((opener, len(members), a, b))
    return wrong


@pytest.mark.slow
@pytest.mark.parametrize("name", list(GAMES))
def test_checker_optimum_with_stabiliser_equals_full_search(name):
    assert checker_mismatches(name) == []


def drop_last_guess(original):
    """A planted error: the orbits of the stabiliser of the history without its last guess (a group that need
    not fix the last guess, so it need not map the node's candidates onto themselves)."""
    def wrong(self, history, *args, **kwargs):
        history = tuple(history)
        return original(self, history[:-1] if len(history) > 1 else history, *args, **kwargs)
    return wrong


def drop_an_orbit(original, checker):
    """A planted error: one orbit left out (its representative, the last guess of the list)."""
    def wrong(self, history, *args, **kwargs):
        reps = original(self, history, *args, **kwargs)
        if reps is None:
            return None
        if checker:
            reps = reps.copy()
            reps[np.flatnonzero(reps)[-1]] = False
            return reps
        return reps[:-1]
    return wrong


@pytest.mark.parametrize("plant", ["drop the last guess", "drop an orbit"])
def test_a_wrong_reduction_in_the_prover_is_caught(plant, monkeypatch):
    monkeypatch.setattr(exact_symmetric, "SMALL", 2)
    original = HistoryStabiliser.representatives
    monkeypatch.setattr(HistoryStabiliser, "representatives",
                        drop_last_guess(original) if plant == "drop the last guess" else drop_an_orbit(original, False))
    assert prover_mismatches("bulls 2" if plant == "drop the last guess" else "mastermind 3x3") != []


@pytest.mark.slow
@pytest.mark.parametrize("plant", ["drop the last guess", "drop an orbit"])
def test_a_wrong_reduction_in_the_checker_is_caught(plant, monkeypatch):
    original = ProductSymmetry.representatives
    monkeypatch.setattr(ProductSymmetry, "representatives",
                        drop_last_guess(original) if plant == "drop the last guess" else drop_an_orbit(original, True))
    assert checker_mismatches("bulls 2" if plant == "drop the last guess" else "mastermind 3x3") != []


def test_generators_of_another_shape_are_refused():
    """A group not known to be a product of symmetric groups is refused in one line, by both."""
    game, _, _ = setup("mastermind 3x3")
    cycle = [{"symbols": [1, 2, 0], "positions": [0, 1, 2]}]
    with pytest.raises(ValueError, match="not a transposition"):
        HistoryStabiliser(game.encoded_guesses(), 3, cycle)
    with pytest.raises(NotAProduct, match="not a transposition"):
        ProductSymmetry(cycle, checker_symbols(game.guesses, game.alphabet), 3)
    both = [{"symbols": [1, 0, 2], "positions": [1, 0, 2]}]
    with pytest.raises(NotAProduct):
        ProductSymmetry(both, checker_symbols(game.guesses, game.alphabet), 3)
