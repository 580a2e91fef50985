"""Uniqueness of an optimal blindfold set (one lazy MIP with a no-good cut) against brute force on tiny games."""

import itertools

import numpy as np
import pytest

from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.blindfold.model import CoverModel, solve_blindfold
from pipeline.blindfold.unique import prove_unique
from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import colours_to_code, feedback


def random_three_letter_game(seed, n_secrets=9, n_extra=4, letters="abcd"):
    """Random 3-letter words; codes from the scalar feedback (independent of the kernel)."""
    rng = np.random.default_rng(seed)
    words = set()
    while len(words) < n_secrets + n_extra:
        words.add("".join(rng.choice(list(letters), size=3)))
    guesses = sorted(words)
    secrets = sorted(rng.choice(guesses, size=n_secrets, replace=False).tolist())
    codes = np.array([[colours_to_code(feedback(g, s)) for s in secrets] for g in guesses], dtype=np.uint8)
    assert (codes == code_matrix(encode_words(guesses, letters), encode_words(secrets, letters))).all()
    return guesses, secrets, codes


def separating_sets(codes, size, allowed):
    """Every set of `size` allowed guesses telling all secrets apart (brute force)."""
    return [set(s) for s in itertools.combinations(allowed, size)
            if len({tuple(int(codes[g, t]) for g in s) for t in range(codes.shape[1])}) == codes.shape[1]]


@pytest.mark.parametrize("seeded", [True, False])
def test_unique_matches_brute_force(seeded):
    """Over 15 games: `unique` is True iff brute force finds exactly one optimal set; a found `other` is
    another optimal set.  Both outcomes must occur, so the test can fail either way."""
    outcomes = set()
    for seed in range(15):
        guesses, secrets, codes = random_three_letter_game(seed)
        allowed = list(range(0, len(guesses), 1 + seed % 2))
        best = solve_blindfold(codes, enc_secrets=encode_words(secrets, "abcd"), columns=allowed)
        if not best.proven_optimal:
            continue
        optimal = separating_sets(codes, best.f_star, allowed)
        pairs = (best.pairs_i, best.pairs_j) if seeded else (np.empty(0, np.int32), np.empty(0, np.int32))
        got = prove_unique(codes, best.chosen, pairs, columns=allowed)
        assert got.unique == (len(optimal) == 1), seed
        if got.unique is False:
            other = set(got.other.tolist())
            assert other in optimal and other != set(best.chosen.tolist()) and other <= set(allowed)
        outcomes.add(got.unique)
    assert outcomes == {True, False}


def test_protected_guesses_stay_in_the_model_and_keep_the_cut_exact():
    """Guesses a, b, c separate the same pairs of three secrets; without protection the reduction keeps one of
    them, and 'not the set {a}' would wrongly exclude the others.  Protected, {b} is still found."""
    codes = np.array([[0, 1, 2], [0, 1, 2], [0, 1, 2], [0, 0, 1]], dtype=np.uint8)
    pairs = blindfold_pairs.pairs_within_labels(np.zeros(3, dtype=np.int64))
    codes_t = blindfold_pairs.transpose_codes(codes)
    model = CoverModel(codes_t, np.arange(4), *pairs, protect=[0])
    assert model.n_cols == 2 and len(model.map_to_model([0])) == 1  # guess 0 kept beside one stand-in
    got = prove_unique(codes, [0], pairs)
    assert got.unique is False and len(got.other) == 1 and int(got.other[0]) in (1, 2)
    assert prove_unique(codes, [0], pairs, columns=[0, 3]).unique is True


def test_time_limit_leaves_it_undecided_and_bad_sets_are_refused():
    guesses, secrets, codes = random_three_letter_game(3)
    best = solve_blindfold(codes, enc_secrets=encode_words(secrets, "abcd"))
    got = prove_unique(codes, best.chosen, (best.pairs_i, best.pairs_j), time_limit=0.0)
    assert got.unique is None and got.status == "time limit" and got.rounds == 0
    assert got.summary()["unique"] is None
    with pytest.raises(ValueError, match="does not separate"):
        prove_unique(codes, best.chosen[:-1], (best.pairs_i, best.pairs_j))
