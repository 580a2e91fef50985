"""The checker's view of a game: its answering function, the hard-mode rule, the stored game."""
