"""ApMinTotal against a brute-force MinTotal written from the definition (docs/algorithms.md §3)."""

import functools

import numpy as np
import pytest

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import feedback
from pipeline.search.apmintotal.value import ApSearch, apmintotal, rank_openers
from pipeline.search.matrix import Matrix
from pipeline.search.tree import statistics, verify
from tests.helpers.words import brute_min_total, random_word_game


def make_game(guesses, secrets, alphabet):
    guesses, secrets = sorted(set(guesses) | set(secrets)), sorted(set(secrets))
    codes = code_matrix(encode_words(guesses, alphabet), encode_words(secrets, alphabet))
    index = {w: i for i, w in enumerate(secrets)}
    sog = np.array([index.get(w, -1) for w in guesses], dtype=np.int32)
    return guesses, secrets, codes, sog, 3 ** len(secrets[0])


HAND_MADE = [
    # repeated letters everywhere (the classic source of feedback bugs)
    (["salet", "lemon", "plead", "eerie", "geese"],
     ["eerie", "there", "geese", "speed", "abide", "lolly", "hello", "sheep"], "abcdefghijklmnopqrstuvwxyz"),
    ([a + b + c + d for a in "ab" for b in "ab" for c in "ab" for d in "ab"],
     ["aaab", "abab", "baba", "bbaa", "abba", "aabb", "bbbb"], "ab"),
    (["abc", "cab", "bca", "aab", "bbc"], ["aaa", "aab", "aba", "abb", "bab", "bbb", "cca"], "abc"),
]


@pytest.mark.parametrize("game", HAND_MADE + [random_word_game(seed) for seed in range(12)])
def test_full_breadth_equals_brute_force(game):
    guesses, secrets, codes, sog, n_codes = make_game(*game)
    expected = brute_min_total(guesses, secrets)
    result = apmintotal(Matrix(codes, sog, n_codes), breadth=len(guesses))
    assert result.total == expected
    tree = result.tree(guesses, len(secrets[0]))
    assert verify(tree, guesses, secrets) == expected
    assert statistics(tree)["total"] == expected


@pytest.mark.parametrize("game", HAND_MADE)
def test_breadth_monotone_and_openers_consistent(game):
    guesses, secrets, codes, sog, n_codes = make_game(*game)
    matrix = Matrix(codes, sog, n_codes)
    values = [apmintotal(matrix, breadth=n).total for n in range(1, len(guesses) + 1)]
    assert all(a >= b for a, b in zip(values, values[1:]))
    assert values[-1] >= 2 * len(secrets) - 1
    for n in (1, 2, 3):
        openers = rank_openers(matrix, n)
        per_opener = [ApSearch(matrix, n).strategy(None, g) for g in openers]  # V(g, S) per opener
        assert min(r.total for r in per_opener) == values[n - 1]
        best = min(per_opener, key=lambda r: r.total)  # first in ranking order on ties
        assert best.opener == apmintotal(matrix, breadth=n).opener
        for r in per_opener:
            assert verify(r.tree(guesses, len(secrets[0])), guesses, secrets) == r.total


def test_small_sets_and_subsets():
    guesses, secrets, codes, sog, n_codes = make_game(*HAND_MADE[0])
    search = ApSearch(Matrix(codes, sog, n_codes), breadth=3)
    assert search.value([4]) == 1
    assert search.value([2, 5]) == 3
    sub = [0, 2, 5, 7]
    assert search.value(sub) >= 2 * len(sub) - 1
    strategy = search.strategy(sub)
    sub_words = [secrets[i] for i in sub]
    assert verify(strategy.tree(guesses, 5), guesses, sub_words) == strategy.total == search.value(sub)


def test_tiny_memo_gives_same_answer():
    guesses, secrets, codes, sog, n_codes = make_game(*HAND_MADE[1])
    full = apmintotal(Matrix(codes, sog, n_codes), breadth=4)
    tiny = apmintotal(Matrix(codes, sog, n_codes), breadth=4, max_entries=1, max_pool=4)
    assert tiny.total == full.total
    assert tiny.stats["memo_dropped"] > 0
    assert np.array_equal(tiny.node_guess, full.node_guess)


def test_bad_breadth():
    guesses, secrets, codes, sog, n_codes = make_game(*HAND_MADE[2])
    with pytest.raises(ValueError, match="breadth"):
        apmintotal(Matrix(codes, sog, n_codes), breadth=0)


def _wordle():
    from pathlib import Path
    root = Path(__file__).resolve().parents[1] / "data" / "wordle"
    guesses = sorted((root / "original_guesses.txt").read_text().split())
    secrets = sorted((root / "original_answers.txt").read_text().split())
    return make_game(guesses, secrets, "abcdefghijklmnopqrstuvwxyz")


@pytest.mark.slow
def test_wordle_breadth_one_is_7944_trace():
    guesses, secrets, codes, sog, n_codes = _wordle()
    result = apmintotal(Matrix(codes, sog, n_codes), breadth=1)
    assert (result.total, guesses[result.opener]) == (7944, "trace")
    assert verify(result.tree(guesses, 5), guesses, secrets) == 7944


def test_deep_search_grows_its_stack():
    """Guesses that only ever identify themselves: a chain of depth |S|, value 1 + 2 + ... + |S|."""
    letters = "abcdefghijklmnopqrst"
    guesses, secrets, codes, sog, n_codes = make_game([], [c * 4 for c in letters], letters)
    result = apmintotal(Matrix(codes, sog, n_codes), breadth=3)
    assert result.total == len(secrets) * (len(secrets) + 1) // 2
    assert verify(result.tree(guesses, 4), guesses, secrets) == result.total


def reference_apmintotal(guesses, secrets, breadth, hard):
    """(ApMinTotal(S, n), its first guess) from the definition: Best_n by (MostParts, InSet, ExpSizeSplit, index),
    the first ranked guess reaching the minimum; in hard mode only guesses the scalar rule allows are ranked."""
    from test_hard_mode_chain import hard_ok

    win = "2" * len(secrets[0])

    @functools.lru_cache(maxsize=None)
    def ap(cand, rows):
        if len(cand) <= 2:
            return 2 * len(cand) - 1, cand[0]
        ranked = []
        for index, g in enumerate(guesses):
            if hard and not hard_ok(g, rows):
                continue
            parts = {}
            for s in cand:
                parts.setdefault(feedback(g, s), []).append(s)
            if len(parts) >= 2:
                key = (-len(parts), g not in cand, sum(len(p) ** 2 for p in parts.values()), index)
                ranked.append((key, g, parts))
        best = None
        for _, g, parts in sorted(ranked)[:breadth]:
            total = len(cand) + sum(ap(tuple(p), tuple(sorted(rows + ((g, c),))) if hard else ())[0]
                                    for c, p in parts.items() if c != win)
            if best is None or total < best[0]:
                best = (total, g)
        return best

    return ap(tuple(secrets), ())


HARD_BINDS = (["swith", "bunts", "noily", "dumas", "ikans", "bored"],  # hard mode changes its value
              ["eight", "hatch", "might", "night", "right", "watch", "wight"], "abcdefghijklmnopqrstuvwxyz")


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("game", HAND_MADE + [HARD_BINDS] + [random_word_game(seed) for seed in range(12)])
def test_narrow_breadth_matches_the_definition(game, hard):
    """Small breadths, where the ranking and the guess lists carried down the search decide the value."""
    from pipeline.feedback.kernel import encode_words

    guesses, secrets, codes, sog, n_codes = make_game(*game)
    encoded = encode_words(guesses, game[2])
    for breadth in (1, 2, 3):
        result = ApSearch(Matrix(codes, sog, n_codes, encoded_guesses=encoded), breadth, hard_mode=hard).strategy()
        total, opener = reference_apmintotal(guesses, secrets, breadth, hard)
        assert (result.total, guesses[result.opener]) == (total, opener)


def test_both_rankings_of_best_n_agree_with_a_scalar_split():
    """Best_n from pairwise code comparisons (small sets) and from bounded class counting with seeds (large
    sets) give the same ranking, useful list and perfect split, checked against classes counted in Python."""
    from pipeline.search.apmintotal.ranking import LOST, MOST, PAIRS, _pair_stats, _rank_by_counting, _rank_from_stats

    rng = np.random.default_rng(7)
    game = random_word_game(3)
    guesses, secrets, codes, sog, n_codes = make_game(*game)
    search = ApSearch(Matrix(codes, sog, n_codes), breadth=3)
    ctx = search.ctx
    for _ in range(20):
        cand = np.sort(rng.choice(len(secrets), rng.integers(3, len(secrets) + 1), replace=False)).astype(np.int64)
        _pair_stats(ctx.codes_t, cand, ctx.split_stats, ctx.equal)
        for g in range(len(guesses)):
            sizes = np.unique(codes[g, cand], return_counts=True)[1]
            assert ctx.split_stats[LOST, g] == len(cand) - len(sizes)
            assert ctx.split_stats[PAIRS, g] == (sizes * (sizes - 1) // 2).sum()
            assert ctx.split_stats[MOST, g] == sizes.max() - 1
        listed = np.arange(len(guesses), dtype=np.int32)
        ctx.in_c[cand] = True
        results = []
        for by_stats, seeds in ((True, None), (False, np.zeros(0, dtype=np.int64)),
                                (False, rng.choice(len(guesses), 3).astype(np.int64))):
            top_g, top_key, useful = np.zeros(3, np.int64), np.zeros(3, np.int64), np.zeros_like(listed)
            if by_stats:
                n, u, perfect = _rank_from_stats(ctx, cand, top_g, top_key, ctx.allowed[:0], listed, useful, True)
            else:
                n, u, perfect = _rank_by_counting(ctx, cand, top_g, top_key, ctx.allowed[:0], listed, useful, seeds,
                                                  True)
            results.append((perfect, list(useful[:u]), list(top_g[:n]) if perfect < 0 else None))
        ctx.in_c[cand] = False
        assert results[0] == results[1] == results[2]  # a scan stopped at a perfect split leaves no ranking
        ranked = []
        for g in range(len(guesses)):
            sizes = np.unique(codes[g, cand], return_counts=True)[1]
            if len(sizes) >= 2:
                out = int(sog[g] < 0 or sog[g] not in cand)
                ranked.append(((len(cand) - len(sizes)) * 2 + out, int((sizes ** 2).sum()), g))
        perfect = next((g for rank, _, g in ranked if rank == 1), -1)
        stop = len(ranked) if perfect < 0 else [g for _, _, g in ranked].index(perfect) + 1
        assert results[0][:2] == (perfect, [g for _, _, g in ranked[:stop]])
        if perfect < 0:
            assert results[0][2] == [g for _, _, g in sorted(ranked)[:3]]
