"""Exact search and the hard-mode rule against brute force written from the definitions."""

from functools import lru_cache
from pathlib import Path

import numpy as np
import pytest

from pipeline.feedback.kernel import code_matrix, encode_words
from pipeline.games.answer import colours_to_code, feedback
from pipeline.search.exact.solver import IMPOSSIBLE, ExactSolver, tree_total
from pipeline.search.hard_mode import allowed_into, state_after, symbol_counts
from pipeline.search.matrix import Matrix
from tests.helpers.words import (ALPHABET, REPEATED_LETTER_GAMES, brute_min_total_and_value, hard_ok,
                                 repeated_letter_game)

def allowed_mask(encoded: np.ndarray, history) -> np.ndarray:
    """The searches' hard-mode mask (`allowed_into`) over encoded words (n, L) after `history`, a sequence of
    (encoded guess row, response code) pairs."""
    greens, at_least = state_after(history, encoded.shape[1])
    out = np.zeros(encoded.shape[0], dtype=np.bool_)
    allowed_into(encoded, symbol_counts(encoded), greens, at_least, out)
    return out


@pytest.mark.parametrize("name", sorted(REPEATED_LETTER_GAMES))
@pytest.mark.parametrize("hard", [False, True])
def test_exact_matches_brute_force(name, hard):
    secrets, guesses, codes, sog, n_codes = repeated_letter_game(name)
    min_total, value = brute_min_total_and_value(tuple(secrets), guesses, hard)
    solver = ExactSolver(Matrix(codes, sog, n_codes, encoded_guesses=encode_words(guesses, ALPHABET)), hard_mode=hard,
                         memo_bits=8)
    everyone = np.arange(len(secrets), dtype=np.int32)
    assert solver.min_total(everyone) == (min_total(tuple(secrets), ()), True)
    rng = np.random.default_rng(len(name))
    for _ in range(12):
        subset = np.sort(rng.choice(len(secrets), size=rng.integers(1, len(secrets) + 1), replace=False))
        subset = subset.astype(np.int32)
        expected = min_total(tuple(secrets[i] for i in subset), ())
        assert solver.min_total(subset)[0] == expected
    for g, word in enumerate(guesses):
        expected = value(word, tuple(secrets), ())
        assert solver.guess_value(g) == (expected, True)
        tree = solver.tree(g)
        assert tree_total(tree, codes, everyone, n_codes - 1) == expected


def read_only(array):
    view = array.view()
    view.flags.writeable = False
    return view


def test_writable_and_read_only_inputs_share_one_compiled_search():
    """Ray hands tasks read-only arrays, other callers writable ones: numba compiles a kernel per argument
    type, so a Matrix holds read-only views either way and the solver hands them to its kernels (one
    compilation of the search, about a minute, not two) and finds the same values."""
    from pipeline.search.exact import steps as exact_steps

    secrets, guesses, codes, sog, n_codes = repeated_letter_game("eels")
    words = encode_words(guesses, ALPHABET)
    writable = ExactSolver(Matrix(codes, sog, n_codes, encoded_guesses=words), hard_mode=True, memo_bits=8)
    expected = [writable.guess_value(g) for g in range(len(guesses))]
    compiled = len(exact_steps.solve.signatures)
    frozen = ExactSolver(Matrix(read_only(codes), read_only(sog), n_codes, encoded_guesses=read_only(words)),
                         hard_mode=True, memo_bits=8)
    assert [frozen.guess_value(g) for g in range(len(guesses))] == expected
    assert len(exact_steps.solve.signatures) == compiled
    assert not writable.codes.flags.writeable and np.shares_memory(writable.codes, codes)
    assert codes.flags.writeable  # the caller's array is left as it was


@pytest.mark.parametrize("name", sorted(REPEATED_LETTER_GAMES))
def test_budget_cutoff_never_overstates(name):
    """Below the budget a value is exact; at or above it only a lower bound, never above the truth."""
    secrets, guesses, codes, sog, n_codes = repeated_letter_game(name)
    min_total, _ = brute_min_total_and_value(tuple(secrets), guesses)
    truth = min_total(tuple(secrets), ())
    for beta in range(1, truth + 3):
        solver = ExactSolver(Matrix(codes, sog, n_codes), memo_bits=6)
        value, exact = solver.min_total(None, beta)
        assert exact == (truth < beta)
        assert value == truth if exact else beta <= value <= truth


def encode(word):
    return encode_words([word], ALPHABET)[0]


def code(colours):
    return colours_to_code(colours)


WORDS = sorted(Path(__file__).resolve().parents[1].joinpath("data/wordle/original_answers.txt").read_text().split())


def test_hard_mode_after_all_grey_anything_goes():
    encoded = encode_words(WORDS, ALPHABET)
    assert allowed_mask(encoded, [(encode("salet"), code("00000"))]).all()


def test_hard_mode_green_t_in_last_place():
    encoded = encode_words(WORDS, ALPHABET)
    mask = allowed_mask(encoded, [(encode("salet"), code("00002"))])
    assert mask.sum() > 0
    assert all(mask[i] == w.endswith("t") for i, w in enumerate(WORDS))


def test_hard_mode_repeated_letters():
    words = ["there", "genre", "horse", "sheer", "eerie", "emcee", "three"]
    encoded = encode_words(words, ALPHABET)
    # eerie vs there: one yellow and one green E (two revealed), a yellow R, the green E stays last
    history = [(encode("eerie"), code(feedback("eerie", "there")))]
    assert feedback("eerie", "there") == "10102"
    assert list(allowed_mask(encoded, history)) == [True, True, False, False, True, False, True]
    # the count is the most revealed in any one response, not a sum over responses
    history = [("geese", "01000"), ("emcee", "00002")]
    mask = allowed_mask(encoded, [(encode(g), code(c)) for g, c in history])
    assert list(mask) == [True, True, True, False, True, True, True]
    assert list(mask) == [hard_ok(w, history) for w in words]


def test_hard_mode_mask_matches_definition():
    rng = np.random.default_rng(7)
    encoded = encode_words(WORDS, ALPHABET)
    for _ in range(40):
        history = [(g, feedback(g, s)) for g, s in zip(rng.choice(WORDS, 2), rng.choice(WORDS, 2))]
        mask = allowed_mask(encoded, [(encode(g), code(c)) for g, c in history])
        assert list(mask) == [hard_ok(w, history) for w in WORDS]


# ---- random tiny games against an exhaustive search written from the definitions -------------------------

def exhaustive(secrets, guesses, hard=False, max_guesses=None):
    """MinTotal(C) over (candidates, allowed guesses, guesses left), straight from the definition.

    In hard mode the guesses still allowed are filtered response by response with `hard_ok` (the rule
    is a conjunction over responses, so filtering the parent's list is the same as filtering everything);
    a set that cannot be solved within the guesses left is worth IMPOSSIBLE.
    """
    table = {(g, s): feedback(g, s) for g in guesses for s in secrets}
    win = "2" * len(secrets[0])

    @lru_cache(maxsize=None)
    def allowed_after(g, colours):
        return frozenset(h for h in guesses if hard_ok(h, [(g, colours)]))

    @lru_cache(maxsize=None)
    def min_total(cands, allowed, left):
        if left is not None and left <= 0:
            return IMPOSSIBLE
        if len(cands) == 1:
            return 1
        if left == 1:
            return IMPOSSIBLE
        values = [value(g, cands, allowed, left) for g in allowed if len({table[g, s] for s in cands}) >= 2]
        return min(values, default=IMPOSSIBLE)

    def value(g, cands, allowed, left):
        classes = {}
        for s in cands:
            classes.setdefault(table[g, s], []).append(s)
        total = len(cands)
        for colours, members in classes.items():
            if colours == win:
                continue
            rest = tuple(h for h in allowed if h in allowed_after(g, colours)) if hard else allowed
            total += min_total(tuple(members), rest, None if left is None else left - 1)
        return min(total, IMPOSSIBLE)

    return lambda cands, allowed=tuple(guesses): min_total(tuple(cands), tuple(allowed), max_guesses), value


def random_wordle_game(seed, n_secrets, n_guesses):
    """Random Wordle words: n_guesses guesses, the first n_secrets of them also secrets (sorted lists)."""
    rng = np.random.default_rng(seed)
    guesses = sorted(rng.choice(WORDS, n_guesses, replace=False))
    secrets = sorted(rng.choice(guesses, n_secrets, replace=False))
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    sog = np.array([secrets.index(g) if g in secrets else -1 for g in guesses], dtype=np.int32)
    return secrets, guesses, codes, sog


RANDOM_CASES = [  # (seed, secrets, guesses, hard, max_guesses); sizes keep the exhaustive search to seconds
    (1, 5, 30, False, None), (2, 12, 60, False, None), (3, 25, 100, False, None), (4, 40, 50, False, None),
    (17, 8, 200, False, None), (5, 8, 40, True, None), (6, 15, 80, True, None), (7, 20, 100, True, None),
    (8, 40, 40, True, 6), (18, 10, 200, True, None), (9, 6, 30, False, 2), (10, 10, 60, False, 3),
    (11, 20, 100, False, 3), (12, 30, 60, False, 4), (13, 6, 40, True, 2), (14, 12, 60, True, 3),
    (15, 20, 80, True, 4), (16, 30, 50, True, 3),
]


@pytest.mark.slow
@pytest.mark.parametrize("seed,n_secrets,n_guesses,hard,max_guesses", RANDOM_CASES)
def test_random_games_match_exhaustive_search(seed, n_secrets, n_guesses, hard, max_guesses):
    secrets, guesses, codes, sog = random_wordle_game(seed, n_secrets, n_guesses)
    truth, value = exhaustive(secrets, guesses, hard, max_guesses)
    solver = ExactSolver(Matrix(codes, sog, 243, encoded_guesses=encode_words(guesses, ALPHABET)), hard_mode=hard,
                         max_guesses=max_guesses, memo_bits=10)
    expected = truth(secrets)
    got, exact = solver.min_total()
    if expected >= IMPOSSIBLE:
        assert got >= IMPOSSIBLE and not exact
        return
    assert (got, exact) == (expected, True)
    everyone = np.arange(len(secrets))
    tree = solver.tree()
    assert tree_total(tree, codes, everyone, 242) == expected
    assert depth(tree, codes, everyone) <= (max_guesses or len(secrets))
    rng = np.random.default_rng(seed)
    for g in rng.choice(len(guesses), 6, replace=False):
        want = value(guesses[g], tuple(secrets), tuple(guesses), max_guesses)
        got, exact = solver.guess_value(g)
        assert got == want if want < IMPOSSIBLE else got >= IMPOSSIBLE
    for _ in range(6):
        subset = np.sort(rng.choice(len(secrets), rng.integers(1, len(secrets) + 1), replace=False))
        want = truth([secrets[i] for i in subset])
        got, _ = solver.min_total(subset.astype(np.int32))
        assert got == want if want < IMPOSSIBLE else got >= IMPOSSIBLE


def depth(tree, codes, candidates):
    """Most guesses the tree needs for any candidate."""
    guess, children = tree
    row = codes[guess]
    deepest = 1
    for code, child in children.items():
        deepest = max(deepest, 1 + depth(child, codes, candidates[row[candidates] == code]))
    return deepest


def test_memo_keeps_hard_mode_states_apart():
    """One candidate set under two hard-mode states with different values, on one solver: a memo keyed on the
    set alone would hand the later queries the first one's answer.  After EIGHT -> 02222 only ?IGHT words may
    be played, so the candidates must be guessed one by one; from no state other words split them."""
    rng = np.random.default_rng(3)
    secrets = [w for w in WORDS if w.endswith("ight")]
    guesses = sorted(set(secrets) | set(rng.choice(WORDS, 40, replace=False)))
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    sog = np.array([secrets.index(g) if g in secrets else -1 for g in guesses], dtype=np.int32)
    truth, _ = exhaustive(secrets, guesses, hard=True)
    members = [s for s in secrets if feedback("eight", s) == "02222"]
    assert len(members) >= 5
    after_eight = tuple(h for h in guesses if hard_ok(h, [("eight", "02222")]))
    restricted, free = truth(members, after_eight), truth(members)
    assert restricted > free
    solver = ExactSolver(Matrix(codes, sog, 243, encoded_guesses=encode_words(guesses, ALPHABET)), hard_mode=True,
                         memo_bits=12)
    subset = np.array([secrets.index(m) for m in members], dtype=np.int32)
    eight = state_after([(encode("eight"), code("02222"))], 5)
    for state, expected in ((eight, restricted), (None, free), (eight, restricted)):
        assert solver.min_total(subset, state=state) == (expected, True)


def test_guess_limit_is_counted_down_the_tree():
    """The ?IGHT words with a few others: the best strategy needs 5 guesses for some secret and no strategy
    does with 4.  A search that did not count guesses down the tree (checking only that each node has
    guesses left) would report the unlimited value under the limit of 4."""
    rng = np.random.default_rng(4)
    secrets = [w for w in WORDS if w.endswith("ight")]
    guesses = sorted(set(secrets) | set(rng.choice(WORDS, 6, replace=False)))
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    sog = np.array([secrets.index(g) if g in secrets else -1 for g in guesses], dtype=np.int32)
    free = exhaustive(secrets, guesses)[0](secrets)
    assert exhaustive(secrets, guesses, max_guesses=4)[0](secrets) >= IMPOSSIBLE
    assert exhaustive(secrets, guesses, max_guesses=5)[0](secrets) == free
    for max_guesses in (4, 5, None):
        solver = ExactSolver(Matrix(codes, sog, 243), max_guesses=max_guesses, memo_bits=10)
        value, exact = solver.min_total()
        if max_guesses == 4:
            assert value >= IMPOSSIBLE and not exact
        else:
            assert (value, exact) == (free, True)
            assert depth(solver.tree(), codes, np.arange(len(secrets))) <= (max_guesses or len(secrets))


def _pair_set(rng, size):
    """`size` words, every one also the only guesses, such that no word splits them into singletons and some
    word leaves exactly one pair (found by drawing from WORDS)."""
    while True:
        words = sorted(rng.choice(WORDS, size, replace=False))
        classes = [len({feedback(g, s) for s in words}) for g in words]
        if max(classes) == size - 1:
            return words


@pytest.mark.parametrize("size", [4, 6])
def test_a_candidate_leaving_one_pair_is_worth_2n_with_three_guesses_left(size):
    """With no perfect split, a candidate leaving one pair and singletons costs 2n: the least such a set can
    cost, so the search takes it without a scan.  The pair needs a third guess: with two guesses left the set
    cannot be solved at all."""
    words = _pair_set(np.random.default_rng(size), size)
    codes = code_matrix(encode_words(words, ALPHABET), encode_words(words, ALPHABET))
    sog = np.arange(size, dtype=np.int32)
    for max_guesses, expected in ((3, 2 * size), (2, IMPOSSIBLE), (None, 2 * size)):
        assert exhaustive(words, words, max_guesses=max_guesses)[0](words) == expected
        value, exact = ExactSolver(Matrix(codes, sog, 243), max_guesses=max_guesses, memo_bits=8).min_total()
        if expected >= IMPOSSIBLE:
            assert value >= IMPOSSIBLE and not exact
        else:
            assert (value, exact) == (expected, True)


@pytest.mark.slow
def test_salet_is_7920_on_original_wordle():
    root = Path(__file__).resolve().parents[1] / "data/wordle"
    guesses = sorted((root / "original_guesses.txt").read_text().split())
    secrets = sorted((root / "original_answers.txt").read_text().split())
    codes = code_matrix(encode_words(guesses, ALPHABET), encode_words(secrets, ALPHABET))
    index = {w: i for i, w in enumerate(secrets)}
    sog = np.array([index.get(w, -1) for w in guesses], dtype=np.int32)
    solver = ExactSolver(Matrix(codes, sog, 243))
    salet = guesses.index("salet")
    assert solver.guess_value(salet) == (7920, True)
    tree = solver.tree(salet)
    assert tree_total(tree, codes, np.arange(len(secrets)), 242) == 7920


def test_memo_grows_and_keeps_its_entries():
    """A memo over half full doubles (up to its limit) and every stored value and flag is found again."""
    from pipeline.search.exact.kernels import EXACT, LOWER, Memo, memo_find, memo_grown, memo_store

    memo = Memo(np.zeros((16, 2), np.uint64), np.zeros(16, np.int8), np.zeros((16, 3), np.int64),
                np.array([0, 1024], dtype=np.int64))
    h2 = np.random.default_rng(3).integers(1, 2**62, size=400, dtype=np.uint64)
    for i in range(400):  # h1 = 4i: at most two keys per 4-slot bucket while the memo is at most half full
        memo = memo_grown(memo)
        memo_store(memo, np.uint64(4 * i), h2[i], 5, 100 + i, EXACT if i % 2 else LOWER, i)
    assert memo.flags.shape[0] == 1024 and memo.fill[0] == 400
    for i in range(400):
        slot = memo_find(memo, np.uint64(4 * i), h2[i])
        assert slot >= 0 and memo.vals[slot, 0] == 100 + i and memo.vals[slot, 1] == i
        assert memo.flags[slot] == (EXACT if i % 2 else LOWER)
    assert np.shares_memory(memo_grown(memo).flags, memo.flags)  # at its limit: the same table


@pytest.mark.parametrize("seed", range(6))
def test_select_smallest_puts_the_b_smallest_first(seed):
    from pipeline.search.exact.kernels import select_smallest

    rng = np.random.default_rng(seed)
    for size in (1, 2, 3, 17, 40, 1000):
        values = rng.permutation(np.arange(size, dtype=np.int64) * 7 + 3)
        for b in {1, min(size, 16), size}:
            a = values.copy()
            select_smallest(a, b)
            assert sorted(a[:b]) == sorted(values)[:b] and sorted(a) == sorted(values)


def _scan_reference(codes, cand, guesses, win):
    """Per guess of the list, by direct counting: (classes, win members, sum of squared class sizes)."""
    out = []
    for g in guesses:
        _, sizes = np.unique(codes[g, cand], return_counts=True)
        out.append((len(sizes), int((codes[g, cand] == win).sum()), int((sizes**2).sum())))
    return out


@pytest.mark.parametrize("size", [30, "largest"])
@pytest.mark.parametrize("layout", ["everyone", "subset", "runs"])
def test_small_set_scan_over_several_blocks_matches_direct_counts(layout, size):
    """The small-set scan goes through the list block by block (contiguous slices or gathered positions):
    its useful guesses, bounds, ordering keys and most classes match counting every guess directly, and a
    perfect splitter in a later block ends the scan there.  At the largest small set one guess leaves all
    but one candidate together: the most equal pairs its 16-bit counts must hold."""
    from pipeline.search.exact.kernels import BLOCK, INF, KEY_MASK, KEY_SHIFT, SMALL_SET, scan

    rng = np.random.default_rng(7)
    n_guesses, n_secrets, win = 3 * BLOCK + 100, 300, 242
    codes = rng.integers(0, 12, size=(n_guesses, n_secrets)).astype(np.uint8)  # 12 codes: no perfect split
    codes[rng.random(codes.shape) < 0.05] = win
    codes[:40, :] = 5  # guesses that split nothing stay out of the useful list
    secret_of_guess = np.where(np.arange(n_guesses) < n_secrets, np.arange(n_guesses), -1)
    cand = rng.choice(n_secrets, size=SMALL_SET if size == "largest" else size, replace=False).astype(np.int32)
    codes[40, cand] = 3
    codes[40, cand[0]] = 4
    solver = ExactSolver(Matrix(codes, secret_of_guess, win + 1))
    everything = np.arange(n_guesses, dtype=np.int32)
    a, b, c = (n_guesses * share // 100 for share in (43, 55, 92))  # runs, gaps and a strided stretch
    lists = {"everyone": everything, "subset": np.sort(rng.choice(everything, n_guesses * 86 // 100, replace=False)),
             "runs": np.concatenate([everything[:a], everything[b:c:3], everything[c:]])}
    lst = lists[layout].astype(np.int32)
    w = solver.work
    w.pool[:len(cand)] = cand
    w.guess_lists[1, :len(lst)] = lst
    u, m, excluded, kmax, c, other = scan(solver.tables, w, 0, len(lst), 0, len(cand), INF)
    ref = [(g, k, n_win, sq) for g, (k, n_win, sq) in zip(lst, _scan_reference(codes, cand, lst, win))
           if not (k == 1 and n_win == 0)]
    n = len(cand)
    assert (c, other, excluded) == (-1, -1, INF) and u == m == len(ref)
    assert list(w.guess_lists[1, :u]) == [g for g, *_ in ref] and kmax == max(k for _, k, _, _ in ref)
    assert list(w.kept_guess[0, :m]) == [g for g, *_ in ref]
    assert list(w.kept_lower[0, :m]) == [3 * n - k - n_win for _, k, n_win, _ in ref]
    assert list(w.kept_key[0, :m] >> KEY_SHIFT) == [sq for *_, sq in ref]
    assert list(w.kept_key[0, :m] & KEY_MASK) == list(range(m))

    perfect = lst[len(lst) // 2 + 40]  # in a later block: every candidate its own code
    codes[perfect, cand] = np.arange(n, dtype=np.uint8) * 5
    solver = ExactSolver(Matrix(codes, secret_of_guess, win + 1))
    w = solver.work
    w.pool[:n] = cand
    w.guess_lists[1, :len(lst)] = lst
    u, m, excluded, kmax, c, other = scan(solver.tables, w, 0, len(lst), 0, n, INF)
    useful_before = sum(1 for g, *_ in ref if g < perfect)
    assert (other, kmax, u) == (perfect, n, useful_before + 1)
    assert c == (perfect if (codes[perfect, cand] == win).any() else -1)
