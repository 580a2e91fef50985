"""benchmarks/blindfold_cube_mip.py on tiny games, every word a guess and a secret: the cubes are the stage's (the
root's children, each fixing its separator and excluding those before it), and a cube's MIP bound against time never
exceeds, and with a generous limit reaches, the fewest guesses that complete the cube's fixed ones to a cover of the
pool pairs they leave (brute force over every set of the allowed guesses)."""

import itertools

import numpy as np
import pytest
from benchmark_module import load_benchmark

from pipeline.blindfold import cubes as C
from pipeline.blindfold import pairs as P
from tests.helpers.fixed_guesses import GUESSES, code_matrix, random_two_letter_game
from tests.test_blindfold_cubes import encoded

cube_mip = load_benchmark("blindfold_cube_mip")
GAMES = {"word game": GUESSES, "two letters 8": random_two_letter_game(8)[0]}


def fewest_to_add(codes, pool, cube: C.Cube) -> int | None:
    """Brute force: the fewest guesses outside the cube's fixed and excluded ones that, with the fixed ones,
    separate every pool pair (None: no set does)."""
    free = [g for g in range(codes.shape[0]) if g not in cube.fixed and g not in cube.excluded]
    for size in range(len(free) + 1):
        for extra in itertools.combinations(free, size):
            chosen = [*cube.fixed, *extra]
            if all((codes[chosen, i] != codes[chosen, j]).any() for i, j in zip(*pool)):
                return size
    return None


def tiny_game(name: str):
    """(codes, encoded words, codes transposed, every guess's column, the stage's pool) of GAMES[name], every word a
    guess and a secret."""
    words = GAMES[name]
    codes = code_matrix(words, words)
    enc, codes_t = encoded(words), P.transpose_codes(codes)
    columns = np.arange(codes.shape[0], dtype=np.int64)
    return codes, enc, codes_t, columns, cube_mip.stage_pool(codes_t, enc, columns)


@pytest.mark.parametrize("name", list(GAMES))
@pytest.mark.parametrize("k", [2, 3])  # every child closes for 2 guesses, none for 3
def test_every_child_bound_reaches_brute_force_and_never_passes_it(name, k):
    codes, enc, codes_t, columns, pool = tiny_game(name)
    root = C.bound_cube(C.Cube(), codes_t, *pool, columns, k, None)
    children = C.children(C.Cube(), root.separators)
    assert len(children) >= 2
    closed = []
    for child, cube in enumerate(children):
        record = cube_mip.measure(codes, enc, k=k, path=(child,), time_limit=60.0)
        assert (record["cube"]["fixed"], record["cube"]["excluded"]) == (list(cube.fixed), len(cube.excluded))
        truth = fewest_to_add(codes, pool, cube)
        mip = record["mip"]
        lowers = [point["lower_bound"] for point in mip["curve"]]
        assert lowers == sorted(lowers) and max(lowers, default=0.0) <= truth + 1e-6
        assert mip["proven_guesses_to_add_at_least"] == truth
        assert record["cube"]["guesses_left"] == k - 1 and mip["closed"] == (truth > k - 1)
        assert record["cube"]["bound"] <= truth + 1e-6
        closed.append(mip["closed"])
    assert closed == [k == 2] * len(children)


@pytest.mark.parametrize("name", list(GAMES))
def test_children_bounds_are_the_cubes_of_the_split_and_never_pass_brute_force(name):
    codes, enc, codes_t, columns, pool = tiny_game(name)
    k = 3
    root = C.bound_cube(C.Cube(), codes_t, *pool, columns, k, None)
    parent = C.children(C.Cube(), root.separators)[1]
    split = C.children(parent, C.bound_cube(parent, codes_t, *pool, columns, k, None).separators)
    record = cube_mip.measure(codes, enc, k=k, path=(1,), children=len(split) + 3)
    assert "mip" not in record and [a["fixed"] for a in record["ancestors"]] == [[]]
    assert [(c["fixed"], c["excluded"]) for c in record["children"]] == [(list(c.fixed), len(c.excluded)) for c in split]
    for child, cube in zip(record["children"], split):
        truth = fewest_to_add(codes, pool, cube)
        assert child["guesses_left"] == k - 2 and child["bound"] <= (truth if truth is not None else 99) + 1e-6
        assert child["pruned"] <= (truth is None or truth > k - 2)
    assert any(child["pruned"] for child in record["children"])
