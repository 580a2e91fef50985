"""Blindfold Wordle: pair generation, separation checks and the set-cover MIP.

The MIP runs on the real HiGHS solver (no mocks); optima on tiny games are
checked against a brute force over all guess subsets written here.
"""

import itertools
from pathlib import Path

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from pipeline.blindfold import pairs as blindfold_pairs
from pipeline.blindfold.model import CoverModel, check, greedy_complete, solve_blindfold
from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import colours_to_code, feedback

ALPHABET = "abcdefghijklmnopqrstuvwxyz"
DATA = Path(__file__).resolve().parents[1] / "data" / "wordle"


# ---------------------------------------------------------------------------
# helpers written independently of the package


def scalar_codes(guesses, secrets):
    return np.array([[colours_to_code(feedback(g, s)) for s in secrets] for g in guesses], dtype=np.int64)


def separates(codes, subset):
    seen = set()
    for s in range(codes.shape[1]):
        key = tuple(int(codes[g, s]) for g in subset)
        if key in seen:
            return False
        seen.add(key)
    return True


def brute_force_fstar(codes, allowed=None):
    allowed = list(range(codes.shape[0])) if allowed is None else list(allowed)
    for k in range(len(allowed) + 1):
        for subset in itertools.combinations(allowed, k):
            if separates(codes, subset):
                return k
    return None


def brute_force_cover(codes, pair_list, allowed):
    """Fewest guesses separating every listed pair."""
    for k in range(len(allowed) + 1):
        for subset in itertools.combinations(allowed, k):
            if all(any(codes[g, i] != codes[g, j] for g in subset) for i, j in pair_list):
                return k
    return None


def random_word_lists(rng, n_secrets, n_extra, length=3, letters="abcd"):
    words = set()
    while len(words) < n_secrets + n_extra:
        words.add("".join(rng.choice(list(letters), size=length)))
    words = sorted(words)
    order = rng.permutation(len(words))
    secrets = sorted(words[k] for k in order[:n_secrets])
    guesses = sorted(words)
    return guesses, secrets


def game_codes(guesses, secrets, letters):
    return code_matrix(encode_words(guesses, letters), encode_words(secrets, letters))


@pytest.fixture(scope="module")
def wordle():
    secrets = sorted((DATA / "nyt_answers.txt").read_text().split())
    guesses = sorted((DATA / "nyt_guesses_apr2022.txt").read_text().split())
    return guesses, secrets


# ---------------------------------------------------------------------------
# pairs


def test_pairs_within_labels_all_same_label_gives_every_pair():
    i, j = blindfold_pairs.pairs_within_labels(np.zeros(5, dtype=np.int64))
    assert list(zip(i.tolist(), j.tolist())) == list(itertools.combinations(range(5), 2))


def test_pairs_within_labels_groups():
    labels = np.array([3, 1, 3, 2, 1, 3])
    got = set(zip(*[a.tolist() for a in blindfold_pairs.pairs_within_labels(labels)]))
    want = {(a, b) for a, b in itertools.combinations(range(6), 2) if labels[a] == labels[b]}
    assert got == want


def test_sort_and_merge_pairs_dedupe_and_orient():
    i, j = blindfold_pairs.merge_pairs((np.array([3, 1, 2]), np.array([1, 3, 2])), (np.array([0]), np.array([4])))
    assert list(zip(i.tolist(), j.tolist())) == [(0, 4), (1, 3)]


def test_one_position_and_anagram_pairs_match_brute_force(wordle):
    _, secrets = wordle
    words = secrets[::7]
    enc = encode_words(words, ALPHABET)
    one = set(zip(*[a.tolist() for a in blindfold_pairs.one_position_pairs(enc)]))
    ana = set(zip(*[a.tolist() for a in blindfold_pairs.anagram_pairs(enc)]))
    want_one, want_ana = set(), set()
    for a, b in itertools.combinations(range(len(words)), 2):
        if sum(x != y for x, y in zip(words[a], words[b])) == 1:
            want_one.add((a, b))
        if sorted(words[a]) == sorted(words[b]):
            want_ana.add((a, b))
    assert one == want_one and len(one) > 10
    assert ana == want_ana and len(ana) > 0
    seeds = set(zip(*[a.tolist() for a in blindfold_pairs.seed_pairs(enc, extra=(np.array([5]), np.array([2])))]))
    assert seeds == want_one | want_ana | {(2, 5)}


def test_separators_csr_matches_direct_comparison():
    rng = np.random.default_rng(1)
    guesses, secrets = random_word_lists(rng, 12, 8)
    codes = game_codes(guesses, secrets, "abcd")
    ct = blindfold_pairs.transpose_codes(codes)
    i, j = blindfold_pairs.pairs_within_labels(np.zeros(len(secrets), dtype=np.int64))
    cols = np.array([0, 3, 5, 7, 11, 15])
    indptr, indices = blindfold_pairs.separators(ct, i, j, cols)
    for p in range(len(i)):
        want = [k for k, g in enumerate(cols) if codes[g, i[p]] != codes[g, j[p]]]
        assert indices[indptr[p] : indptr[p + 1]].tolist() == want
    assert np.array_equal(blindfold_pairs.separator_counts(ct, i, j, cols), np.diff(indptr))


def test_unseparated_classes_and_pairs_agree_with_scalar_feedback():
    rng = np.random.default_rng(2)
    guesses, secrets = random_word_lists(rng, 20, 5)
    codes = game_codes(guesses, secrets, "abcd")
    assert np.array_equal(codes, scalar_codes(guesses, secrets))
    subset = [1, 4]
    classes = blindfold_pairs.unseparated_classes(codes, subset)
    buckets = {}
    for s, word in enumerate(secrets):
        buckets.setdefault(tuple(feedback(guesses[g], word) for g in subset), []).append(s)
    want = sorted((b for b in buckets.values() if len(b) > 1), key=lambda b: (-len(b), b[0]))
    assert [c.tolist() for c in classes] == want
    i, j = blindfold_pairs.unseparated_pairs(codes, subset)
    assert set(zip(i.tolist(), j.tolist())) == {p for b in want for p in itertools.combinations(b, 2)}
    assert blindfold_pairs.unseparated_pair_count(codes, subset) == len(i)
    assert not blindfold_pairs.separates_all(codes, subset)


def test_pairs_left_after_matches_recount():
    rng = np.random.default_rng(3)
    guesses, secrets = random_word_lists(rng, 25, 10)
    codes = game_codes(guesses, secrets, "abcd")
    labels = blindfold_pairs.class_labels(codes, [0])
    scores = blindfold_pairs.pairs_left_after(codes, labels)
    for g in range(len(guesses)):
        assert scores[g] == blindfold_pairs.unseparated_pair_count(codes, [0, g])


def test_dominance_reductions_are_exact():
    rng = np.random.default_rng(4)
    guesses, secrets = random_word_lists(rng, 14, 10)
    codes = game_codes(guesses, secrets, "abcd")
    ct = blindfold_pairs.transpose_codes(codes)
    i, j = blindfold_pairs.pairs_within_labels(np.zeros(len(secrets), dtype=np.int64))
    bits = blindfold_pairs.column_bits(ct, i, j)
    dom = blindfold_pairs.column_dominators(bits)
    sets = [set(np.flatnonzero(codes[g, i] != codes[g, j]).tolist()) for g in range(len(guesses))]
    for g, d in enumerate(dom):
        if d >= 0:
            assert dom[d] == -1 and sets[g] <= sets[d]
    kept = np.flatnonzero(dom < 0)
    for a, b in itertools.permutations(kept, 2):
        assert not sets[a] <= sets[b]
    full = CoverModel(ct, np.arange(len(guesses)), i, j, reduce=False).solve()
    reduced_model = CoverModel(ct, np.arange(len(guesses)), i, j, reduce=True)
    reduced = reduced_model.solve()
    assert reduced_model.n_cols <= len(guesses) and reduced_model.n_rows <= len(i)
    assert round(full["objective"]) == round(reduced["objective"]) == brute_force_fstar(codes)
    assert separates(codes, reduced["chosen"])


# ---------------------------------------------------------------------------
# the MIP and the lazy loop on tiny games (brute force gives f*)


@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 10_000), n_secrets=st.integers(5, 12), n_extra=st.integers(0, 6))
def test_lazy_loop_matches_brute_force(seed, n_secrets, n_extra):
    rng = np.random.default_rng(seed)
    guesses, secrets = random_word_lists(rng, n_secrets, n_extra)
    codes = game_codes(guesses, secrets, "abcd")
    want = brute_force_fstar(codes)
    res = solve_blindfold(codes, enc_secrets=encode_words(secrets, "abcd"), repair=bool(seed % 2))
    assert res.proven_optimal and res.f_star == want == res.lower_bound
    assert len(res.chosen) == want and separates(codes, res.chosen)
    assert res.rounds == len(res.solver_seconds) >= 1
    assert len(res.pairs_i) == len(res.pairs_j)


@settings(max_examples=10, deadline=None)
@given(seed=st.integers(0, 10_000), n_pairs=st.integers(1, 15))
def test_relaxation_optimum_never_exceeds_fstar(seed, n_pairs):
    rng = np.random.default_rng(seed)
    guesses, secrets = random_word_lists(rng, 10, 4)
    codes = game_codes(guesses, secrets, "abcd")
    i, j = blindfold_pairs.pairs_within_labels(np.zeros(len(secrets), dtype=np.int64))
    pick = rng.choice(len(i), size=min(n_pairs, len(i)), replace=False)
    model = CoverModel(blindfold_pairs.transpose_codes(codes), np.arange(len(guesses)), i[pick], j[pick])
    out = model.solve()
    assert out["status"] == "Optimal"
    pair_list = list(zip(i[pick].tolist(), j[pick].tolist()))
    assert round(out["objective"]) == brute_force_cover(codes, pair_list, range(len(guesses)))
    assert out["objective"] <= brute_force_fstar(codes) + 1e-9
    assert out["dual_bound"] <= out["objective"] + 1e-9


@pytest.mark.parametrize("seed", [11, 12, 13])
def test_lazy_loop_without_seeds_and_capped_additions(seed):
    rng = np.random.default_rng(seed)
    guesses, secrets = random_word_lists(rng, 10, 5)
    codes = game_codes(guesses, secrets, "abcd")
    empty = (np.empty(0, dtype=np.int32), np.empty(0, dtype=np.int32))
    res = solve_blindfold(codes, seeds=empty, max_new_pairs=2, repair=False)
    assert res.proven_optimal and res.f_star == brute_force_fstar(codes)
    assert all(r.pairs_added <= 2 for r in res.round_log)


def test_restricted_and_excluded_guesses():
    rng = np.random.default_rng(5)
    guesses, secrets = random_word_lists(rng, 10, 8)
    codes = game_codes(guesses, secrets, "abcd")
    enc = encode_words(secrets, "abcd")
    answers = [guesses.index(s) for s in secrets]
    res = solve_blindfold(codes, enc_secrets=enc, columns=answers)
    assert res.proven_optimal and res.f_star == brute_force_fstar(codes, answers)
    assert set(res.chosen.tolist()) <= set(answers)
    banned = res.chosen[:1]
    rest = [g for g in range(len(guesses)) if g not in set(banned.tolist())]
    res2 = solve_blindfold(codes, enc_secrets=enc, exclude=banned)
    assert res2.proven_optimal and res2.f_star == brute_force_fstar(codes, rest)
    assert banned[0] not in res2.chosen


def test_infeasible_when_no_allowed_guess_separates_a_pair():
    guesses = ["aab", "aba", "baa", "ccc"]
    secrets = ["aab", "aba", "baa"]
    codes = game_codes(guesses, secrets, "abc")
    enc = encode_words(secrets, "abc")
    res = solve_blindfold(codes, enc_secrets=enc, columns=[3])  # "ccc" separates nothing
    assert res.f_star is None and not res.proven_optimal
    assert res.stop_reason.startswith("infeasible")


def test_mip_dual_bound_exceeds_lp_relaxation():
    # pairs of an odd cycle: LP optimum 1.5 (x = 1/2 on three guesses), MIP optimum 2
    codes = np.array(
        [
            [0, 1, 1],  # separates (0,1) and (0,2)
            [1, 1, 0],  # separates (0,2) and (1,2)
            [0, 1, 0],  # separates (0,1) and (1,2)
        ],
        dtype=np.uint8,
    )
    ct = blindfold_pairs.transpose_codes(codes)
    model = CoverModel(ct, np.arange(3), np.array([0, 0, 1]), np.array([1, 2, 2]), reduce=False)
    out = model.solve()
    assert out["status"] == "Optimal" and round(out["objective"]) == 2
    assert out["dual_bound"] >= 2 - 1e-6


def test_time_limit_is_reported_honestly(wordle):
    """386 secrets cannot be covered within 50 ms: the result must say so, never claim an optimum."""
    guesses, secrets = wordle
    sub_secrets = secrets[::6]
    codes = game_codes(guesses, sub_secrets, ALPHABET)
    res = solve_blindfold(codes, enc_secrets=encode_words(sub_secrets, ALPHABET), time_limit=0.05)
    assert not res.proven_optimal and res.stop_reason == "time limit"
    assert res.f_star is None or res.lower_bound < res.f_star
    assert res.gap is None or res.gap > 0


def test_generous_time_limit_proves_the_brute_force_optimum():
    rng = np.random.default_rng(11)
    guesses, secrets = random_word_lists(rng, 12, 6)
    codes = game_codes(guesses, secrets, "abcd")
    res = solve_blindfold(codes, enc_secrets=encode_words(secrets, "abcd"), time_limit=60)
    assert res.proven_optimal and res.lower_bound == res.f_star == brute_force_fstar(codes)


def test_model_export_lp_and_mps(tmp_path):
    rng = np.random.default_rng(6)
    guesses, secrets = random_word_lists(rng, 8, 4)
    codes = game_codes(guesses, secrets, "abcd")
    res = solve_blindfold(codes, enc_secrets=encode_words(secrets, "abcd"), model_path=str(tmp_path / "m.lp"))
    text = (tmp_path / "m.lp").read_text().lower()
    assert "min" in text and "bin" in text
    i, j = blindfold_pairs.pairs_within_labels(np.zeros(len(secrets), dtype=np.int64))
    model = CoverModel(blindfold_pairs.transpose_codes(codes), np.arange(len(guesses)), i, j)
    model.write(str(tmp_path / "m.mps"))
    assert "ROWS" in (tmp_path / "m.mps").read_text()
    assert res.summary()["f_star"] == res.f_star


def test_greedy_completion_separates_and_is_no_smaller_than_the_optimum():
    rng = np.random.default_rng(7)
    guesses, secrets = random_word_lists(rng, 20, 10)
    codes = game_codes(guesses, secrets, "abcd")
    g = greedy_complete(codes, [])
    assert separates(codes, g) and len(g) >= brute_force_fstar(codes)
    assert not separates(codes, g[:-1])  # greedy adds a guess only while pairs are left


# ---------------------------------------------------------------------------
# the real Wordle sets (cheap: six code rows)


@pytest.mark.parametrize(
    "words",
    ["combo fatty grrrl spuds venge whilk", "catty frond rumba spill verge whack"],
)
def test_known_six_sets_separate_all_answers(wordle, words):
    _, secrets = wordle
    six = words.split()
    codes = game_codes(six, secrets, ALPHABET)
    assert check(codes, range(6)) == []
    assert blindfold_pairs.separates_all(codes, range(6))


def test_five_words_leave_classes(wordle):
    _, secrets = wordle
    five = "catty frond rumba spill verge".split()
    codes = game_codes(five, secrets, ALPHABET)
    classes = check(codes, range(5))
    assert classes and all(len(c) >= 2 for c in classes)
    named = [{secrets[s] for s in c} for c in classes]
    assert {"holly", "jolly", "lowly"} in named
    for c in classes:  # every member of a class answers every guess alike
        first = [feedback(w, secrets[c[0]]) for w in five]
        assert all([feedback(w, secrets[s]) for w in five] == first for s in c)
