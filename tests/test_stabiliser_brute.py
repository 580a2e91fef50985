"""Both history stabilisers -- the checker's (proofs/symmetry/stabiliser.py) and the prover's (search/symmetry/stabiliser.py) --
against brute-force orbits (tests/helpers/brute.py: the group listed element by element, then the elements
fixing every history word), on groups of several symbol blocks and position blocks, with histories whose swapped
positions hold different symbols (of one block, of two blocks) and the same symbol; in hard mode only the symbol
maps count.  Then the checker's exact search and the prover's, restricted by the stabiliser below the opener,
against the brute-force MinTotal on a game such a group leaves unchanged, the guess limit binding."""

from itertools import pairwise

import numpy as np
import pytest

from pipeline.search.matrix import Matrix
from pipeline.proofs.exact.solver import INFEASIBLE
from pipeline.proofs.exact.solver import ExactSolver as CheckerExact
from pipeline.proofs.symmetry.stabiliser import ProductSymmetry
from pipeline.search.exact import symmetric as exact_symmetric
from pipeline.search.exact.solver import IMPOSSIBLE
from pipeline.search.exact.solver import ExactSolver as ProverExact
from pipeline.search.exact.symmetric import SymmetricExact
from pipeline.search.symmetry.stabiliser import HistoryStabiliser
from tests.helpers.brute import (
    NO_STRATEGY,
    BruteGame,
    act,
    closure_of,
    code_table,
    group_elements,
    pegs_code,
    pegs_n_codes,
    random_words,
    stabiliser_orbits,
)

# name: (symbols, length, symbol blocks, position blocks, words whose swapped positions hold symbols of two
# blocks / of one block / the same symbol); symbols in no block and positions in no block stay fixed
GROUPS = {
    "three-and-two-symbols-two-positions": (6, 3, [[0, 1, 2], [3, 4]], [[0, 1]], [(0, 3, 5), (1, 0, 3), (2, 2, 4)]),
    "two-pairs-of-symbols-three-positions": (5, 3, [[0, 1], [2, 3]], [[0, 1, 2]], [(0, 2, 4), (0, 1, 2), (4, 4, 1)]),
    "two-pairs-of-symbols-two-pairs-of-positions": (4, 4, [[0, 1], [2, 3]], [[0, 1], [2, 3]],
                                                     [(0, 2, 1, 3), (0, 1, 2, 3), (0, 0, 3, 3)]),
}


def transpositions(size: int, blocks) -> list[list[int]]:
    """The swaps of neighbours within each block, as permutations of range(size)."""
    swaps = []
    for block in blocks:
        for a, b in pairwise(block):
            perm = list(range(size))
            perm[a], perm[b] = b, a
            swaps.append(perm)
    return swaps


def generators(n_symbols: int, length: int, symbol_blocks, position_blocks) -> list[dict]:
    """The certificate's form of the group: one transposition of symbols or of positions per generator."""
    same_symbols, same_positions = list(range(n_symbols)), list(range(length))
    return ([{"symbols": p, "positions": same_positions} for p in transpositions(n_symbols, symbol_blocks)]
            + [{"symbols": same_symbols, "positions": p} for p in transpositions(length, position_blocks)])


def group(name: str):
    """(generators, elements, words): the words are the designed ones and a few random ones, closed under the group."""
    n_symbols, length, symbol_blocks, position_blocks, designed = GROUPS[name]
    gens = generators(n_symbols, length, symbol_blocks, position_blocks)
    elements = group_elements([(g["symbols"], g["positions"]) for g in gens], n_symbols, length)
    seeds = designed + random_words(np.random.default_rng(list(GROUPS).index(name)), 3, length, n_symbols)
    return gens, elements, closure_of(seeds, elements)


def histories(words, designed, rng) -> list[tuple[int, ...]]:
    """Each designed word alone, each two of them, and random histories of one to three words (guess indices)."""
    index = {w: i for i, w in enumerate(words)}
    mine = [index[w] for w in designed]
    chosen = [(h,) for h in mine] + [(a, b) for a in mine for b in mine if a < b]
    chosen += [tuple(rng.choice(len(words), int(rng.integers(1, 4)), replace=False).tolist()) for _ in range(12)]
    return chosen


def expected_representatives(elements, words, history, symbols_only) -> list[int]:
    return sorted(set(stabiliser_orbits(elements, words, history, symbols_only)))


@pytest.mark.parametrize("hard", [False, True], ids=["normal", "hard"])
@pytest.mark.parametrize("name", list(GROUPS))
def test_both_stabilisers_give_the_brute_force_orbits(name, hard):
    """One guess per orbit (the least index) of exactly the group elements fixing every history word; in hard mode
    of the symbol maps among them only."""
    gens, elements, words = group(name)
    n_symbols, designed = GROUPS[name][0], GROUPS[name][4]
    array = np.array(words, dtype=np.uint8)
    checker = ProductSymmetry(gens, array, n_symbols)
    prover = HistoryStabiliser(array, n_symbols, gens)
    wrong = []
    for history in histories(words, designed, np.random.default_rng(1)):
        expected = expected_representatives(elements, words, history, symbols_only=hard)
        mask = checker.representatives(history, hard)
        reps = prover.representatives(history, symbols_only=hard)
        got = (list(range(len(words))) if mask is None else np.flatnonzero(mask).tolist(),
               list(range(len(words))) if reps is None else reps.tolist())
        if got != (expected, expected):
            wrong.append(([words[h] for h in history], len(expected), len(got[0]), len(got[1])))
    assert wrong == []


def test_the_designed_histories_bind():
    """The designed words are where the rules matter: a position map fixes a word whose swapped positions hold the
    same symbol (so hard mode, symbol maps only, has more orbits); a word whose swapped positions hold symbols of
    two blocks is fixed by the map exchanging those symbols and the positions, no element of the group, which would
    merge two of its orbits."""
    _, elements, words = group("three-and-two-symbols-two-positions")
    index = {w: i for i, w in enumerate(words)}
    same = (index[(2, 2, 4)],)
    assert (len(expected_representatives(elements, words, same, False))
            < len(expected_representatives(elements, words, same, True)))
    history = (0, 3, 5)
    crossing = ((3, 1, 2, 0, 4, 5), (1, 0, 2))  # symbols 0 <-> 3 (blocks {0, 1, 2} and {3, 4}), positions 0 <-> 1
    assert act(crossing, history) == history and crossing not in elements
    least = stabiliser_orbits(elements, words, (index[history],))
    merged = [w for w in words if act(crossing, w) in index and least[index[w]] != least[index[act(crossing, w)]]]
    assert merged


# ---- exact search with the stabiliser against brute force --------------------------------------------------------

@pytest.fixture(scope="module")
def peg_game():
    """A Mastermind-answered game (pegs are unchanged by any symbol or position map) on words closed under the
    group "three-and-two-symbols-two-positions": guesses the closure of the designed and random words, secrets the
    closure of two of them (14 secrets)."""
    gens, elements, words = group("three-and-two-symbols-two-positions")
    secrets = closure_of([(0, 3, 5), (0, 1, 3)], elements)
    codes = code_table(words, secrets, pegs_code)
    secret_guess = np.array([words.index(s) for s in secrets])
    return gens, np.array(words, dtype=np.uint8), codes, secret_guess, pegs_n_codes(3)


def opener_class_problems(codes, n_codes, rng, count):
    """(opener, class) pairs of classes of at least three, for `count` random openers."""
    problems = []
    for g in rng.choice(codes.shape[0], count, replace=False):
        for code in np.unique(codes[g]):
            members = np.flatnonzero(codes[g] == code).astype(np.int32)
            if code != n_codes - 1 and len(members) >= 3:
                problems.append((int(g), members))
    return problems


def test_checker_exact_with_the_stabiliser_matches_brute_force(peg_game):
    """The checker's class MinTotal with the opener as history (one guess per stabiliser orbit at the top three
    levels) is the brute force's, with 2..4 guesses left and without a limit; the limit binds on some classes."""
    gens, words, codes, secret_guess, n_codes = peg_game
    brute = BruteGame(codes, secret_guess, n_codes)
    group_ = ProductSymmetry(gens, words, 6)
    wrong, binding = [], 0
    for opener, members in opener_class_problems(codes, n_codes, np.random.default_rng(3), 12):
        solver = CheckerExact(codes, words, secret_guess.astype(np.int32), n_codes, 6, False, group_)
        for left in (4, None, 2, 3):
            truth = brute.min_total(tuple(members.tolist()), left)
            binding += truth != brute.min_total(tuple(members.tolist()), None)
            got = solver.min_total(members, left, None, history=(opener,))
            if (got >= INFEASIBLE) != (truth == NO_STRATEGY) or (truth < NO_STRATEGY and got != truth):
                wrong.append((words[opener].tolist(), len(members), left, got, truth))
    assert wrong == [] and binding >= 5


def test_prover_exact_with_the_stabiliser_matches_brute_force(peg_game, monkeypatch):
    """The prover's symmetric search (every set through the stabiliser) is the brute force's, without a limit and
    with 4 or 5 guesses left (with 3 or fewer it does not use the stabiliser)."""
    monkeypatch.setattr(exact_symmetric, "SMALL", 2)
    gens, words, codes, secret_guess, n_codes = peg_game
    brute = BruteGame(codes, secret_guess, n_codes)
    secret_of_guess = np.full(len(words), -1, dtype=np.int32)
    secret_of_guess[secret_guess] = np.arange(len(secret_guess))
    wrong = []
    for opener, members in opener_class_problems(codes, n_codes, np.random.default_rng(4), 12):
        for left in (None, 4, 5):
            solver = ProverExact(Matrix(codes, secret_of_guess, n_codes), max_guesses=left, memo_bits=10)
            search = SymmetricExact(solver, HistoryStabiliser(words, 6, gens), levels=3)
            truth = brute.min_total(tuple(members.tolist()), left)
            got, exact = search.min_total(members, (opener,))
            if (got >= IMPOSSIBLE) != (truth == NO_STRATEGY) or (truth < NO_STRATEGY and (got, exact) != (truth, True)):
                wrong.append((words[opener].tolist(), len(members), left, got, truth))
    assert wrong == []
