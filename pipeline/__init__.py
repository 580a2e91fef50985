"""pipeline: find and prove optimal strategies for Wordle-like guessing games."""

__version__ = "0.1.0"
