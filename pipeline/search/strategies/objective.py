"""The objectives a strategy search minimises: the Total, or Knuth's worst case first.

    total           minimise the Total (sum over the secrets of the guesses that find them)
    max_then_total  minimise the most guesses any secret needs, then the Total among the
                    strategies that need no more

max_then_total rides on a search that honours a guess limit (every secret found within d
guesses): the least limit d* under which a strategy exists is the least possible maximum,
and the best Total under limit d* is the best Total among the strategies with that maximum.
Feasibility is monotone in d (a strategy within d is one within d + 1), so d* is found by
trying d upwards from a counting bound.  For the exact search this is exactly the
lexicographic optimum; for ApMinTotal (a search restricted to Best_n at every node) it is
that heuristic's analogue: the least limit under which ApMinTotal finds a strategy, then
ApMinTotal's Total under it.
"""

from pipeline.config.validation import OBJECTIVES  # noqa: F401  (the names, checked where settings are)


def depth_lower_bound(n_secrets: int, n_codes: int) -> int:
    """Fewest guesses that can find each of `n_secrets` secrets when a guess has `n_codes` responses.

    A strategy within d guesses finds at most N(d) secrets: N(1) = 1 (the guess must be the
    secret) and N(d) = 1 + (n_codes - 1) N(d - 1) (the win, and every other response's class
    solved within d - 1)."""
    depth, reach = 1, 1
    while reach < n_secrets:
        depth, reach = depth + 1, 1 + (n_codes - 1) * reach
    return depth


def least_limit(value_within, n_secrets: int, n_codes: int, limit: int | None):
    """(d, value_within(d)) for the least limit d (<= `limit`) at which value_within(d) is not None.

    `value_within(d)` is the search's result under a limit of d guesses, None when it finds no
    strategy.  `limit` None (no limit) stops at n_secrets + 1, a limit under which both searches
    always succeed when every secret is a guess: each useful guess leaves classes at least one
    smaller, and a singleton takes one guess more.  (None, None) when no limit up to there works."""
    stop = n_secrets + 1 if limit is None else int(limit)
    for depth in range(depth_lower_bound(n_secrets, n_codes), stop + 1):
        value = value_within(depth)
        if value is not None:
            return depth, value
    return None, None
