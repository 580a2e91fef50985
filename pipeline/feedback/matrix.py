"""The code matrix of a whole game, built in-process or in row blocks, with the game's answering kernel."""

import numpy as np

from pipeline.feedback import kernel, pegs
from pipeline.games.game import Game

KERNELS = {"wordle": kernel.code_matrix, "mastermind": pegs.code_matrix, "bulls_and_cows": pegs.code_matrix}


def answer_matrix(guesses: np.ndarray, secrets: np.ndarray, answer: str = "wordle") -> np.ndarray:
    """M[g, s] = a(g, s) for encoded guesses and secrets, with the answering function `answer` (game.answer)."""
    return KERNELS[answer](guesses, secrets)


def game_matrix(game: Game) -> np.ndarray:
    """M[g, s] = a(guess g, secret s) for every allowed guess and secret of `game`."""
    return answer_matrix(game.encoded_guesses(), game.encoded_secrets(), game.answer)
