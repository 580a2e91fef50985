"""The code matrix of a whole game, built in-process or in row blocks."""

import numpy as np

from pipeline.feedback.kernel import code_matrix
from pipeline.games.game import Game


def game_matrix(game: Game) -> np.ndarray:
    """M[g, s] = a(guess g, secret s) for every allowed guess and secret of `game`."""
    return code_matrix(game.encoded_guesses(), game.encoded_secrets())


def row_blocks(n_rows: int, block_rows: int) -> list[tuple[int, int]]:
    """Half-open row ranges covering 0..n_rows in blocks of at most block_rows."""
    return [(start, min(n_rows, start + block_rows)) for start in range(0, n_rows, block_rows)]
