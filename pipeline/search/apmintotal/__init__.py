"""ApMinTotal, the paper's upper bound: its value, its numba search, its memo and its ranking of guesses."""
