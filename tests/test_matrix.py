"""search/matrix.py: a game's code matrix and its tables as one read-only value, the same arrays the solvers read."""

import pickle

import numpy as np
import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.exact.solver import ExactSolver
from pipeline.search.matrix import Matrix


@pytest.fixture(scope="module")
def mini():
    game = builtin_game("mini_nerdle")
    return game, game_matrix(game)


def test_of_game_holds_the_game_arrays_read_only_on_the_callers_buffers(mini):
    game, codes = mini
    matrix = Matrix.of_game(codes, game)
    assert (matrix.n_guesses, matrix.n_secrets) == (len(game.guesses), len(game.secrets)) == codes.shape
    assert matrix.n_codes == game.n_codes and matrix.win == game.n_codes - 1
    assert np.array_equal(matrix.secret_of_guess, game.secret_of_guess)
    assert np.array_equal(matrix.encoded_guesses, game.encoded_guesses())
    assert np.array_equal(matrix.encoded_secrets, game.encoded_secrets())
    assert matrix.codes_t is None
    assert np.shares_memory(matrix.codes, codes) and codes.flags.writeable  # a view: the caller's array untouched
    assert not any(a.flags.writeable for a in matrix.arrays() if a is not None)
    assert matrix.nbytes == sum(a.nbytes for a in matrix.arrays() if a is not None) > codes.nbytes


def test_the_transpose_is_made_once_when_asked_to_hold_it(mini):
    game, codes = mini
    matrix = Matrix.of_game(codes, game)
    assert np.array_equal(matrix.transposed(), codes.T) and matrix.transposed().flags.c_contiguous
    held = matrix.with_transpose()
    assert held is not matrix and held.codes_t is not None and held.with_transpose() is held
    assert held.transposed() is held.codes_t and np.array_equal(held.codes_t, codes.T)
    assert held.codes is matrix.codes  # the other arrays are shared, not copied


def test_inconsistent_arrays_are_refused(mini):
    game, codes = mini
    with pytest.raises(ValueError, match="codes_t must be the transpose of codes"):
        Matrix.of_game(codes, game, codes_t=np.ascontiguousarray(codes[:, :-1].T))
    with pytest.raises(ValueError, match="not one entry per guess"):
        Matrix(codes, game.secret_of_guess[:-1], game.n_codes)


def test_hard_words_only_in_hard_mode(mini):
    game, codes = mini
    matrix = Matrix.of_game(codes, game)
    assert matrix.hard_words(False) is None and matrix.hard_words(True) is matrix.encoded_guesses
    with pytest.raises(ValueError, match="hard mode needs the encoded guesses"):
        ExactSolver(Matrix(codes, game.secret_of_guess, game.n_codes), hard_mode=True)


def test_a_matrix_travels_as_a_task_argument_and_solves_alike(mini):
    """What a fan-out does to a shared value (pickled into a task): the same values, arrays still read-only."""
    game, codes = mini
    matrix = Matrix.of_game(codes, game)
    copy = pickle.loads(pickle.dumps(matrix))
    assert all(np.array_equal(a, b) for a, b in zip(copy.arrays(), matrix.arrays()) if a is not None)
    assert not copy.codes.flags.writeable
    opener = game.guess_index["4*7=28"]
    assert ExactSolver(copy).guess_value(opener) == ExactSolver(matrix).guess_value(opener)
