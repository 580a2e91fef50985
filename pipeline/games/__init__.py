"""What a game is: its word lists, their generators, and the answering function."""
