"""Secret sets generated from rules rather than shipped: Primel, the Nerdles, Mastermind, Bulls and Cows.

Nerdle rules (docs/data.md): exactly one '=', a non-negative integer without
leading zeros on the right; on the left positive integers without leading
zeros joined by + - * / (at least one operator), usual precedence, exact
rational arithmetic (fractional and negative intermediates allowed).
"""

from itertools import permutations, product
from math import log, perm

import numpy as np

NERDLE_ALPHABET = "0123456789+-*/="
NERDLE_LENGTHS = (5, 10)  # the equation lengths generated (game validation reads this same bound)


def primes(length: int) -> list[str]:
    """All primes with exactly `length` digits, as strings."""
    limit = 10**length
    sieve = np.ones(limit, dtype=bool)
    sieve[:2] = False
    for p in range(2, int(limit**0.5) + 1):
        if sieve[p]:
            sieve[p * p :: p] = False
    return [str(p) for p in np.flatnonzero(sieve[10 ** (length - 1) :]) + 10 ** (length - 1)]


def _compositions(total: int, parts: int):
    """Ordered ways to write `total` as `parts` positive integers."""
    if parts == 1:
        yield (total,)
        return
    for first in range(1, total - parts + 2):
        for rest in _compositions(total - first, parts - 1):
            yield (first, *rest)


def _numbers(n_digits: int) -> np.ndarray:
    """Positive integers with exactly n_digits digits (no leading zero)."""
    return np.arange(10 ** (n_digits - 1), 10**n_digits, dtype=np.int64)


def _evaluate(operands: list[np.ndarray], ops: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
    """Exact value num/den (den > 0) of `x0 op0 x1 op1 ...` with usual precedence."""
    total_num, total_den = np.zeros_like(operands[0]), np.ones_like(operands[0])
    term_num, term_den, sign = operands[0].copy(), np.ones_like(operands[0]), 1
    for op, x in zip(ops, operands[1:]):
        if op == "*":
            term_num = term_num * x
        elif op == "/":
            term_den = term_den * x
        else:
            total_num = total_num * term_den + sign * term_num * total_den
            total_den = total_den * term_den
            term_num, term_den, sign = x.copy(), np.ones_like(x), 1 if op == "+" else -1
    total_num = total_num * term_den + sign * term_num * total_den
    return total_num, total_den * term_den


def nerdle_equations(length: int) -> list[str]:
    """Every valid Nerdle equation with exactly `length` symbols."""
    low, high = NERDLE_LENGTHS
    if not low <= length <= high:
        raise ValueError(f"Nerdle equations are generated for lengths {low} to {high}")
    found = []
    for lhs_len in range(3, length - 1):
        rhs_len = length - 1 - lhs_len
        low, high = (0 if rhs_len == 1 else 10 ** (rhs_len - 1)), 10**rhs_len
        for n_numbers in range(2, (lhs_len + 1) // 2 + 1):
            for sizes in _compositions(lhs_len - (n_numbers - 1), n_numbers):
                grids = np.meshgrid(*[_numbers(k) for k in sizes], indexing="ij")
                operands = [g.ravel() for g in grids]
                for ops in product("+-*/", repeat=n_numbers - 1):
                    num, den = _evaluate(operands, ops)
                    whole = num % den == 0
                    value = np.where(whole, num // den, -1)
                    keep = np.flatnonzero(whole & (value >= low) & (value < high))
                    for row in keep:
                        parts = [str(operands[k][row]) for k in range(n_numbers)]
                        lhs = parts[0] + "".join(op + p for op, p in zip(ops, parts[1:]))
                        found.append(f"{lhs}={value[row]}")
    return sorted(found)


def mastermind_codes(pegs: int, colours: int) -> list[str]:
    """Every Mastermind code: `pegs` symbols, each a colour written as a digit 1..colours (repeats allowed)."""
    return ["".join(p) for p in product("123456789"[:colours], repeat=pegs)]


def distinct_digit_strings(length: int) -> list[str]:
    """Every string of `length` distinct digits 0-9, sorted (Bulls and Cows: 5040 for length 4)."""
    return ["".join(p) for p in permutations("0123456789", length)]


def prime_count_estimate(length: int) -> int:
    """About how many primes have exactly `length` digits (x/ln x at both ends; 7600 for 5 digits, 8363 exactly)."""
    below = lambda x: x / log(x) if x > 2 else 0  # noqa: E731
    return max(1, int(below(10**length) - below(10 ** (length - 1))))


def generated_count(source: str, length: int, pegs: int = 0, colours: int = 0) -> int | None:
    """How many words a generator makes, known (or estimated, for primes) before generating; None for
    Nerdle, whose lengths are bounded by NERDLE_LENGTHS instead."""
    if source == "primes":
        return prime_count_estimate(length)
    if source == "mastermind":
        return colours**pegs
    if source == "bulls_and_cows":
        return perm(10, length)
    return None
