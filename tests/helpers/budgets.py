"""What a bound asked for under a budget may answer (prover and checker alike)."""


def assert_budgeted(result, truth, budget):
    """A bound asked for under `budget` is the true value, or a lower bound on it that is above the budget."""
    value, exact = result
    assert value == truth if exact else budget < value <= truth, (result, truth, budget)
