"""The answering function: published examples, the code convention, kernel == scalar reference."""

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import code_dtype_name, code_to_colours, colours_to_code, feedback, win_code
from pipeline.games.generators import NERDLE_ALPHABET

EXAMPLES = [
    ("speed", "abide", "00101"),
    ("eerie", "there", "10102"),
    ("lolly", "hello", "01220"),
    ("geese", "eerie", "02102"),
    ("salet", "later", "02121"),
    ("4*7=28", "28/7=4", "101111"),
]
ALPHABET = "abcdefghijklmnopqrstuvwxyz" + NERDLE_ALPHABET


@pytest.mark.parametrize("guess,secret,colours", EXAMPLES)
def test_published_examples_scalar_and_kernel(guess, secret, colours):
    assert feedback(guess, secret) == colours
    matrix = code_matrix(encode_words([guess], ALPHABET), encode_words([secret], ALPHABET))
    assert int(matrix[0, 0]) == colours_to_code(colours)


def test_code_convention_is_base3_with_position_i_weight_3_pow_i():
    assert colours_to_code("20000") == 2
    assert colours_to_code("00001") == 81
    assert colours_to_code("02121") == 0 + 2 * 3 + 1 * 9 + 2 * 27 + 1 * 81
    assert code_to_colours(150, 5) == "02121"
    assert win_code(5) == 242 and colours_to_code("22222") == 242
    assert feedback("crane", "crane") == "22222"


def test_code_dtype_fits_every_length():
    assert [code_dtype_name(n) for n in (4, 5, 6, 8, 10, 11)] == ["uint8", "uint8", "uint16", "uint16", "uint16", "uint32"]


def test_scalar_rejects_different_lengths():
    with pytest.raises(ValueError):
        feedback("abc", "abcd")


def _words(alphabet, length):
    return st.text(alphabet=alphabet, min_size=length, max_size=length)


@settings(max_examples=60, deadline=None)
@given(data=st.data(), length=st.integers(4, 8), alphabet=st.sampled_from(["abc", "abcde", "aeiou" + "rst", NERDLE_ALPHABET]))
def test_kernel_matches_scalar_on_random_words_with_repeats(data, length, alphabet):
    guesses = data.draw(st.lists(_words(alphabet, length), min_size=1, max_size=6))
    secrets = data.draw(st.lists(_words(alphabet, length), min_size=1, max_size=6))
    matrix = code_matrix(encode_words(guesses, alphabet), encode_words(secrets, alphabet))
    assert matrix.dtype == np.dtype(code_dtype_name(length))
    expected = [[colours_to_code(feedback(g, s)) for s in secrets] for g in guesses]
    assert matrix.tolist() == expected
