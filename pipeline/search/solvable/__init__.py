"""Can a candidate set be solved within j guesses: shallow kernels (j <= 3), any j, and infeasibility witnesses."""
