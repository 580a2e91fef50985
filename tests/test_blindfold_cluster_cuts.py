"""Cluster cuts (pipeline/blindfold/cluster_cuts.py) against brute force over every k-set on tiny games.

Validity: every set of guesses separating every secret leaves at most one word of any family unseen, for the letter
families and for random sets of secrets (where ties for the largest class occur, and do: checked).  The families
read from the letters are exactly those of a brute-force definition.  The LP with cuts is at least the LP without,
never above the brute-force f* (at the root) nor above the fewest guesses to add in a cube fixing one guess, and
strictly above it on a game where it lifts the rounded bound to f*; cube-and-conquer with the cuts still finds f*
and proves f* - 1 impossible.  Planted slips (by hand, see the report): the cut's right side |S| instead of
|S| - 1, "sees" meaning outside every largest class (ties), a word dropped from each family."""

import itertools
import json
import random
from functools import cache

import numpy as np
import pytest

from pipeline.blindfold import cluster_cuts as K
from pipeline.blindfold import cubes as C
from pipeline.blindfold.pairs import pairs_within_labels, seed_pairs, transpose_codes
from tests.helpers.fixed_guesses import GUESSES, SECRETS, code_matrix, random_two_letter_game
from tests.test_blindfold_cubes import brute_f_star, encoded, k_sets, separating_mask

GAMES = [("words", (GUESSES, SECRETS)), *((f"two-letter-{seed}", random_two_letter_game(seed)) for seed in range(6))]
LIFTED = "two-letter-1"  # the pair-row LP is 2.0 there, f* = 3, and the cuts reach 3


@cache
def game(name: str):
    """(guesses, secrets, codes, f*) of a named tiny game."""
    guesses, secrets = dict(GAMES)[name]
    codes = code_matrix(guesses, secrets)
    return guesses, secrets, codes, brute_f_star(codes)


def brute_families(secrets) -> set:
    """Sets of at least 3 secrets equal but in one given position, or with the same letters (maximal groups)."""
    groups = {}
    for w, word in enumerate(secrets):
        for position in range(len(word)):
            groups.setdefault(("position", position, word[:position] + word[position + 1:]), []).append(w)
        groups.setdefault(("anagram", "".join(sorted(word))), []).append(w)
    return {tuple(members) for members in groups.values() if len(members) >= 3}


def random_sets(n_secrets: int, seed: int, count: int = 60) -> list[np.ndarray]:
    rng = random.Random(seed)
    return [np.array(sorted(rng.sample(range(n_secrets), rng.randint(2, min(6, n_secrets)))))
            for _ in range(count)]


def separating_sets(codes, f_star: int) -> np.ndarray:
    """Every separating set of f* or f* + 1 guesses (padded: the f*-sets with their first guess repeated)."""
    sets = [k_sets(codes.shape[0], k) for k in (f_star, f_star + 1)]
    found = [s[separating_mask(codes, s)] for s in sets]
    return np.vstack([np.hstack([found[0], found[0][:, :1]]), found[1]])


@pytest.mark.parametrize("name", [name for name, _ in GAMES])
def test_letter_families_are_the_brute_force_ones(name):
    _, secrets, _, _ = game(name)
    found = K.families(encoded(secrets))
    assert {tuple(int(w) for w in f) for f in found} == brute_families(secrets)
    assert len(found) == len(brute_families(secrets))  # no repeats
    assert [len(f) for f in found] == sorted((len(f) for f in found), reverse=True)
    assert [tuple(f) for f in K.families(encoded(secrets), max_families=2)] == [tuple(f) for f in found[:2]]


@pytest.mark.parametrize("name", [name for name, _ in GAMES])
def test_every_separating_set_leaves_at_most_one_word_unseen(name):
    _, secrets, codes, f_star = game(name)
    codes_t = transpose_codes(codes)
    sets = separating_sets(codes, f_star)
    assert len(sets)
    every = np.arange(codes.shape[0])
    for family in K.families(encoded(secrets)) + random_sets(len(secrets), seed=len(name)):
        seen = K.sees(codes_t, family, every)  # [word, guess]
        unseen = ~seen[:, sets].any(axis=2)  # [word, set]
        assert (unseen.sum(axis=0) <= 1).all(), (family, sets[unseen.sum(axis=0) > 1][:1])


def test_ties_for_the_largest_class_occur_and_pick_the_smallest_code():
    """The validity test above meets ties: some (set, guess) has two largest classes; the chosen one is the
    smallest code, and exactly the words outside it are seen."""
    ties = 0
    for name, _ in GAMES:
        _, secrets, codes, _ = game(name)
        codes_t = transpose_codes(codes)
        for family in random_sets(len(secrets), seed=len(name)):
            for guess in range(codes.shape[0]):
                values, counts = np.unique(codes_t[family, guess], return_counts=True)
                largest = values[counts == counts.max()]
                if len(largest) > 1:
                    ties += 1
                    assert K.chosen_codes(codes_t, family, [guess])[0] == largest.min()
                    seen = K.sees(codes_t, family, [guess])[:, 0]
                    assert (seen == (codes_t[family, guess] != largest.min())).all()
    assert ties > 50


def test_narrow_leaves_one_class_under_each_fixed_guess():
    _, secrets, codes, _ = game("words")
    codes_t = transpose_codes(codes)
    family = K.families(encoded(secrets))[0]
    for fixed in itertools.combinations(range(codes.shape[0]), 2):
        left = K.narrow(codes_t, family, fixed)
        assert len(left) >= 1 and set(left) <= set(family)
        for guess in fixed:
            assert len(set(codes_t[left, guess])) == 1
            assert not K.sees(codes_t, left, [guess]).any()


def bounds(name: str, fixed=()) -> tuple:
    """(the pair-row bound, the bound with cuts) of the cube fixing `fixed`, every pair a row (the cube's
    CubeBounds)."""
    guesses, secrets, codes, f_star = game(name)
    codes_t = transpose_codes(codes)
    pool = pairs_within_labels(np.zeros(len(secrets)))
    cube = C.Cube(fixed=tuple(fixed))
    columns = np.arange(len(guesses))
    return (C.bound_cube(cube, codes_t, *pool, columns, f_star),
            C.bound_cube(cube, codes_t, *pool, columns, f_star, K.families(encoded(secrets))))


@pytest.mark.parametrize("name", [name for name, _ in GAMES])
def test_cuts_raise_the_root_bound_but_never_above_f_star(name):
    _, _, _, f_star = game(name)
    plain, cut = bounds(name)
    assert cut.bound >= plain.bound - 1e-9
    assert cut.lp_value >= plain.lp_value - 1e-9
    assert cut.bound <= cut.lp_value + 1e-9
    assert cut.bound <= f_star + 1e-9


@pytest.mark.parametrize("name", [name for name, _ in GAMES[:4]])
def test_cube_bounds_never_exceed_the_fewest_guesses_to_add(name):
    """Each cube fixing one guess: the bound with cuts is at most the fewest guesses to add to it for a
    separating set (brute force), and at least the pair-row bound."""
    guesses, _, codes, f_star = game(name)
    sets = separating_sets(codes, f_star)
    sizes = np.array([len(set(s)) for s in sets])
    for guess in range(len(guesses)):
        holding = (sets == guess).any(axis=1)
        fewest = sizes[holding].min() - 1
        plain, cut = bounds(name, (guess,))
        assert plain.bound - 1e-9 <= cut.bound <= fewest + 1e-9, (guess, cut.bound, fewest)


def test_cuts_strictly_raise_the_bound_to_f_star():
    _, _, _, f_star = game(LIFTED)
    plain, cut = bounds(LIFTED)
    assert C.prunes(cut, f_star - 1) and not C.prunes(plain, f_star - 1)
    assert np.ceil(plain.bound - C.PRUNE_MARGIN) < f_star == np.ceil(cut.bound - C.PRUNE_MARGIN)


@pytest.mark.parametrize("name", [name for name, _ in GAMES[:4]])
def test_cube_and_conquer_with_cuts_finds_f_star(name):
    guesses, secrets, codes, f_star = game(name)
    codes_t = transpose_codes(codes)
    pool = seed_pairs(encoded(secrets))
    columns = np.arange(len(guesses))
    found = {k: C.search_cubes(codes_t, columns, pool, k, depth=2, target=10**6,
                               families=K.families(encoded(secrets))) for k in (f_star - 1, f_star)}
    assert found[f_star - 1].status == C.NONE
    assert found[f_star].status == C.FOUND and len(found[f_star].chosen) == f_star
    assert separating_mask(codes, np.array([found[f_star].chosen])).all()


def test_certificate_is_a_dual_solution():
    """The certified bound equals HiGHS's LP value on the tiny games (the clipped duals lose nothing), so the
    certificate's arithmetic is checked where it binds."""
    for name, _ in GAMES:
        _, cut = bounds(name)
        assert cut.bound == pytest.approx(cut.lp_value, abs=1e-7)


def test_stage_with_cluster_cuts_proves_f_star_and_records_its_rows(run_pipeline, word_list_game):
    from tests.test_blindfold_cubes import CUBES

    game_args = word_list_game(SECRETS, GUESSES)
    plain, cut = (run_pipeline(*CUBES, *extra, *game_args) for extra in ((), ("stage.cube_cluster_cuts=true",)))
    _, _, _, f_star = game("words")
    solution = json.loads(cut.file("solution.json").read_text())
    assert (solution["f_star"], solution["lower_bound"], solution["proven_optimal"]) == (f_star, f_star, True)
    trees = [json.loads(a.file(f"cubes-k{f_star - 1}.json").read_text()) for a in (plain, cut)]
    assert "lp_rows" not in trees[0]["solver"] and "cluster cuts" in trees[1]["solver"]["lp_rows"]
    roots = [tree["cubes"][0]["lp"]["certified_bound"] for tree in trees]
    assert roots[1] > roots[0] + 0.1  # the cuts lift the root of the stage's pool


def test_stage_with_the_largest_families_only_records_how_many(run_pipeline, word_list_game):
    """stage.cube_max_families keeps the largest families' cuts: the record says how many, and the root's bound
    lies between the pair rows' and that of every family's cuts."""
    from tests.test_blindfold_cubes import CUBES

    game_args = word_list_game(SECRETS, GUESSES)
    _, _, _, f_star = game("words")
    runs = [run_pipeline(*CUBES, *extra, *game_args) for extra in
            ((), ("stage.cube_cluster_cuts=true",), ("stage.cube_cluster_cuts=true", "stage.cube_max_families=1"))]
    trees = [json.loads(a.file(f"cubes-k{f_star - 1}.json").read_text()) for a in runs]
    assert "cluster cuts of all of" in trees[1]["solver"]["lp_rows"]
    assert "cluster cuts of the 1 largest of" in trees[2]["solver"]["lp_rows"]
    plain, every, largest = (tree["cubes"][0]["lp"]["certified_bound"] for tree in trees)
    assert plain - 1e-9 <= largest <= every + 1e-9
    every_family = trees[1]["solver"]["families"]
    assert (every_family, trees[2]["solver"]["families"]) == (len(K.families(encoded(SECRETS))), 1)
    assert every_family > 1
