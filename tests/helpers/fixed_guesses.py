"""Fixed guesses (the blindfold stage) by brute force on tiny word games, with the scalar answering function:
can a tree of `depth` guesses find every candidate, do `fixed` guesses leave only such classes, does a set of k
exist.  A word game (SECRETS, GUESSES) and random two-letter games to run them on."""

import itertools
import random

import numpy as np

from pipeline.games.answer import feedback

SECRETS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]
GUESSES = sorted(SECRETS + ["chimp", "blowy", "whelk"])


def code_matrix(guesses, secrets) -> np.ndarray:
    """codes[g, s] from the scalar answering function (colour strings read as base-3 numbers, digit i weight 3^i)."""
    return np.array([[sum(int(c) * 3 ** i for i, c in enumerate(feedback(g, s))) for s in secrets] for g in guesses],
                    dtype=np.uint8)


def solvable_bf(candidates: tuple[str, ...], depth: int, guesses) -> bool:
    """Whether some adaptive tree of at most `depth` guesses finds every candidate (every guess tried)."""
    if len(candidates) <= 1:
        return True
    if depth <= 1:
        return False
    for g in guesses:
        parts = {}
        for s in candidates:
            if s != g:
                parts.setdefault(feedback(g, s), []).append(s)
        if len(parts) > 1 or g in candidates:
            if all(solvable_bf(tuple(p), depth - 1, guesses) for p in parts.values()):
                return True
    return False


def works_bf(fixed, depth, guesses, secrets) -> bool:
    """Whether every class the fixed guesses leave is solvable within `depth` further guesses."""
    classes = {}
    for s in secrets:
        classes.setdefault(tuple(feedback(g, s) for g in fixed), []).append(s)
    return all(solvable_bf(tuple(c), depth, guesses) for c in classes.values())


def exists_bf(k, depth, guesses, secrets) -> bool:
    return any(works_bf(f, depth, guesses, secrets) for f in itertools.combinations(guesses, k))


def random_two_letter_game(seed: int):
    """A tiny random game: 2-letter words over 6 letters (9 responses), 14-24 secrets, up to 3 more guesses."""
    rng = random.Random(seed)
    every = ["".join(w) for w in itertools.product("abcdef", repeat=2)]
    secrets = sorted(rng.sample(every, rng.randint(14, 24)))
    guesses = sorted(set(secrets) | set(rng.sample(every, rng.randint(0, 3))))
    return guesses, secrets
