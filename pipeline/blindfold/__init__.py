"""Blindfold (offline) Wordle: the fewest fixed guesses identifying every secret."""
