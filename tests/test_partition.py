"""The partition layer (search/partition.py) against brute force written with Python dicts."""

from collections import Counter

import numpy as np
import pytest

from pipeline.search.partition import (
    class_counts, clear, guess_counts, guess_of_secret, popcount, split, split_classes, split_parts, split_stats,
    tally,
)

N_CODES = 27


@pytest.fixture(scope="module", params=[0, 1, 2])
def game(request):
    """A random (G, S) code matrix with many repeated codes, and random candidate sets (one of size 1)."""
    rng = np.random.default_rng(request.param)
    codes = rng.integers(0, 6 + 7 * request.param, size=(25, 60)).astype(np.uint8)
    codes[:, ::7] = N_CODES - 1  # some win codes
    sets = [np.sort(rng.choice(60, size=n, replace=False)) for n in (1, 2, 5, 17, 60)]
    return codes, sets


def sizes_in_order(row, cand):
    """Class codes in order of first appearance and their sizes."""
    return Counter(int(row[c]) for c in cand)  # a Counter keeps first-insertion order


def test_class_counts_match_the_definition_on_rows_and_columns(game):
    codes, sets = game
    codes_t = np.ascontiguousarray(codes.T)
    table = np.arange(61, dtype=np.int64) ** 3
    counts = np.zeros(N_CODES, dtype=np.int32)
    for cand in sets:
        for g in range(codes.shape[0]):
            sizes = sizes_in_order(codes[g], cand)
            truth = (len(sizes), max(sizes.values()), sum(t * t for t in sizes.values()),
                     sum(int(table[t]) for t in sizes.values()), sizes.get(N_CODES - 1, 0))
            assert class_counts(codes[g], cand, counts, table, N_CODES - 1) == truth
            assert class_counts(codes_t[:, g], cand, counts, table, N_CODES - 1) == truth
            assert not counts.any()


def test_guess_counts_and_split_parts_on_both_layouts(game):
    codes, sets = game
    codes_t = np.ascontiguousarray(codes.T)
    table = np.arange(61, dtype=np.int64) * 7 + 1
    table[0] = 0
    for cand in sets:
        all_sizes = [sizes_in_order(codes[g], cand) for g in range(codes.shape[0])]
        parts = [len(s) for s in all_sizes]
        largest = [max(s.values()) for s in all_sizes]
        sum_sq = [sum(t * t for t in s.values()) for s in all_sizes]
        sums = [sum(int(table[t]) for t in s.values()) for s in all_sizes]
        wins = [s.get(N_CODES - 1, 0) for s in all_sizes]
        for matrix in (codes, codes_t.T):
            out = guess_counts(matrix, cand, N_CODES, table, N_CODES - 1)
            assert [list(x) for x in out] == [parts, largest, sum_sq, sums, wins]
        assert list(split_parts(codes, cand, N_CODES)) == parts
        p, m, q, e = split_stats(codes, cand, N_CODES)
        assert (list(p), list(m), list(q)) == (parts, largest, sum_sq)
        assert np.allclose(e, [sum(t * np.log(t) for t in s.values()) for s in all_sizes])


def test_tally_gives_first_appearance_order_and_clear_zeroes(game):
    codes, sets = game
    counts = np.zeros(N_CODES, dtype=np.int64)
    class_code = np.empty(N_CODES, dtype=np.int64)
    for cand in sets:
        for g in range(codes.shape[0]):
            k = tally(codes[g], cand, counts, class_code)
            sizes = sizes_in_order(codes[g], cand)
            assert list(class_code[:k]) == list(sizes)
            assert [counts[r] for r in class_code[:k]] == list(sizes.values())
            clear(counts, class_code, k)
            assert not counts.any()


@pytest.mark.parametrize("by_code", [True, False])
@pytest.mark.parametrize("min_size", [1, 3])
def test_split_classes_is_a_stable_split(game, by_code, min_size):
    codes, sets = game
    win = N_CODES - 1
    counts = np.zeros(N_CODES, dtype=np.int64)
    for cand in sets:
        for g in range(codes.shape[0]):
            row = codes[g]
            out = np.full(len(cand) + 5, -1, dtype=np.int64)
            starts = np.empty(len(cand) + 1, dtype=np.int64)
            class_code = np.empty(N_CODES, dtype=np.int64)
            k, small, n_small = split_classes(row, cand, counts, win, min_size, by_code, out, 5, starts, class_code)
            sizes = sizes_in_order(row, cand)
            kept = [r for r, t in sizes.items() if r != win and t >= min_size]
            dropped = [t for r, t in sizes.items() if r != win and t < min_size]
            if by_code:
                kept.sort()
            assert list(class_code[:k]) == kept and (small, n_small) == (sum(dropped), len(dropped))
            for j, r in enumerate(kept):
                assert list(out[starts[j]:starts[j + 1]]) == [c for c in cand if row[c] == r]
            assert starts[0] == 5 and not counts.any()


def test_split_keeps_the_win_class_and_orders_by_code(game):
    codes, sets = game
    for cand in sets:
        class_codes, members = split(codes[3], cand.astype(np.int32))
        assert list(class_codes) == sorted(set(int(codes[3, c]) for c in cand))
        for r, m in zip(class_codes, members):
            assert list(m) == [c for c in cand if codes[3, c] == r] and m.dtype == np.int32


def test_popcount():
    rng = np.random.default_rng(5)
    for x in list(rng.integers(0, 2**63, size=200, dtype=np.uint64)) + [np.uint64(0), np.uint64(2**64 - 1)]:
        assert popcount(x) == bin(int(x)).count("1")


def test_guess_of_secret_inverts_secret_of_guess():
    sog = np.array([-1, 2, 0, -1, 1])
    assert list(guess_of_secret(sog, 3)) == [2, 4, 1]
    assert list(guess_of_secret(sog, 4, require_all=False)) == [2, 4, 1, -1]
    with pytest.raises(ValueError, match="every secret must also be an allowed guess"):
        guess_of_secret(sog, 4)
