"""The checker's pruned scans for LB_2 / LB_3 (pipeline/proofs/bounds/lower.py, hard_bounds.py) against the definitions.

The scans skip guesses whose part count on all secrets cannot beat the best found, count a set's own guesses
first and stop at |C| + 1 (inside) or |C| (outside).  Each is compared with the definition computed in plain
Python on random code matrices small enough that both LB_3 branches run (sets up to K_S + 1 members, and larger
ones); planted off-by-ones (C's own guesses one column off, the caps they stop by one too low) must change some
value.
"""

import numpy as np
import pytest

from pipeline.proofs.bounds.lower import (BLOCK, HUGE, WIDE, LowerBounds, bound, bound_column, least_v1,
                                          most_parts_inside, parts_beyond)
from pipeline.proofs.bounds.hard import least_v1_listed, most_count_listed, most_parts_listed

N_CODES = 16  # 15 colours and the win: K_S <= 7, so sets of 9 or more take the general LB_3 branch


def random_code_matrix(seed: int, n_guesses: int = 900, n_secrets: int = 30):
    """A code matrix where guess s (s < n_secrets) is secret s's word: it wins on s only.  Guesses use from 1 to
    all of the non-win colours, so their part counts spread over more than one block of the scans' columns."""
    rng = np.random.default_rng(seed)
    colours = rng.integers(1, N_CODES, n_guesses)
    codes = (rng.random((n_guesses, n_secrets)) * colours[:, None]).astype(np.uint8)
    codes[np.arange(n_secrets), np.arange(n_secrets)] = N_CODES - 1
    return codes, np.arange(n_secrets)


def defined_lb3(codes, cands, k_s, rows=None) -> int:
    """min over guesses (all, or the listed `rows`) that split C of |C| + sum of Bound(t, K_S) over the non-win
    classes (HUGE when none does)."""
    values = [HUGE]
    for row in codes if rows is None else codes[rows]:
        sizes = np.bincount(row[cands], minlength=N_CODES)
        if np.count_nonzero(sizes) >= 2:
            values.append(len(cands) + sum(bound(int(t), k_s) for t in sizes[:-1] if t))
    return min(values)


def random_sets(n_secrets: int, seed: int):
    rng = np.random.default_rng(seed)
    for size in list(range(3, 9)) * 6 + list(range(9, n_secrets + 1)) * 2:
        yield np.sort(rng.choice(n_secrets, size, replace=False)).astype(np.int32)


@pytest.mark.slow
@pytest.mark.parametrize("seed", range(4))
def test_lb3_scans_give_the_defined_value(seed):
    codes, guess_of_secret = random_code_matrix(seed)
    bounds = LowerBounds(codes, guess_of_secret, N_CODES)
    branches = set()
    for cands in random_sets(codes.shape[1], seed):
        assert bounds.lb(cands, 3)[0] == defined_lb3(codes, cands, bounds.k_s), cands
        branches.add(len(cands) <= bounds.k_s + 1)
    assert branches == {True, False}


def planted_changes(seed: int, scan) -> bool:
    """Whether scan(bounds, cands, planted) gets some set's value wrong with planted=True."""
    codes, guess_of_secret = random_code_matrix(seed)
    bounds = LowerBounds(codes, guess_of_secret, N_CODES)
    return any(scan(bounds, cands, True) != scan(bounds, cands, False) for cands in random_sets(codes.shape[1], seed))


def cap_binding_game(n_members: int, parts: int, block: int, target_inside: bool):
    """(codes, guess_of_secret, C) where a scan's cap binds exactly: the target guess, first of the second block of
    columns, makes `parts` parts on C = secrets 0..n_members-1, every one of its parts on all secrets; the `block`
    decoy guesses before it make more parts on all secrets and, on C, one count less than the target's parts plus
    [target in C] (one value worse).  The target is secret 0's own guess when `target_inside`, else an extra
    guess.  Every other guess answers 0 except on its own secret."""
    n_secrets = n_members + 4
    codes = np.zeros((n_secrets + block + 1, n_secrets), dtype=np.uint8)
    codes[np.arange(n_secrets), np.arange(n_secrets)] = N_CODES - 1
    members = np.arange(n_members)
    decoys = np.arange(n_secrets, n_secrets + block)
    decoy_parts = parts - 1 + target_inside
    codes[np.ix_(decoys, members)] = members % decoy_parts
    codes[decoys, n_members:] = np.arange(decoy_parts, decoy_parts + 4)
    target = 0 if target_inside else n_secrets + block
    codes[target] = 0
    codes[target, 1 if target_inside else 0:n_members] = np.arange(n_members - target_inside) % (parts - target_inside)
    if target_inside:
        codes[target, 0] = N_CODES - 1
    return codes, np.arange(n_secrets), members.astype(np.int32)


def test_planted_off_by_ones_are_caught():
    """C's own guesses taken one column off change some set's value (random games); part-count caps one too low
    stop each scan a block early where its cap binds (cap_binding_game)."""
    def inside_first(bounds, cands, planted):
        return most_parts_inside(bounds.codes_t, cands, bounds.inside_columns(cands) + planted, bounds.parts_sorted,
                                 bounds.bits)

    assert any(planted_changes(seed, inside_first) for seed in range(4))
    codes, guess_of_secret, cands = cap_binding_game(8, 6, WIDE, target_inside=False)
    bounds = LowerBounds(codes, guess_of_secret, N_CODES)
    assert len(cands) <= bounds.k_s + 1 and bounds.parts_sorted[WIDE] == 6
    scan = [most_parts_inside(bounds.codes_t, cands, bounds.inside_columns(cands), bounds.parts_sorted - planted,
                              bounds.bits) for planted in (0, 1)]
    assert scan == [6, 5] and bounds.lb(cands, 3)[0] == defined_lb3(codes, cands, bounds.k_s) == 3 * 8 - 6
    codes, guess_of_secret, cands = cap_binding_game(20, 10, BLOCK, target_inside=True)
    bounds = LowerBounds(codes, guess_of_secret, N_CODES)
    assert len(cands) > bounds.k_s + 1 and bounds.parts_sorted[BLOCK] == 10
    scan = [least_v1(bounds.codes_t, cands, N_CODES, bounds.btab, bounds.parts_sorted - planted) for planted in (0, 1)]
    assert scan == [3 * 20 - 1 - 10, 3 * 20 - 10] and bounds.lb(cands, 3)[0] == defined_lb3(codes, cands, bounds.k_s)


@pytest.mark.slow
def test_hard_mode_listed_scans_give_the_defined_maxima():
    """most_count_listed = max over the listed guesses of parts + [guess in C], most_parts_listed = max of parts
    (up to its `enough`), for guesses listed by descending part count on all secrets, with or without tighter caps
    (part counts on a set containing C); planted caps one too low (on all secrets, or on the containing set) change
    some maximum."""
    planted_seen = set()
    for seed in range(4):
        codes, guess_of_secret = random_code_matrix(seed)
        secret_of_guess = np.full(codes.shape[0], -1)
        secret_of_guess[guess_of_secret] = guess_of_secret
        on_all = np.array([len(np.unique(row)) for row in codes])
        rng = np.random.default_rng(seed)
        for cands in random_sets(codes.shape[1], seed):
            parent = np.union1d(cands, rng.choice(codes.shape[1], 4, replace=False)).astype(np.int32)
            on_parent = np.array([len(np.unique(row[parent])) for row in codes])
            listed = rng.choice(codes.shape[0], 25, replace=False)
            listed = listed[np.argsort(-on_all[listed], kind="stable")]
            parts = np.array([len(np.unique(codes[g, cands])) for g in listed])
            inside = np.isin(secret_of_guess[listed], cands)
            enough, truth = len(cands) - 1, max(1, parts.max())
            for caps in (on_all, on_parent):
                count = most_count_listed(codes, cands, listed, secret_of_guess, on_all, caps, N_CODES)
                assert count == (parts + inside).max()
                most = most_parts_listed(codes, cands, listed, on_all, caps, N_CODES, enough)
                assert enough <= most <= truth if truth >= enough else most == truth  # it may stop at `enough`
            for name, low_all, low_caps in (("all", on_all - 1, on_all - 1), ("parent", on_all, on_parent - 1)):
                if most_count_listed(codes, cands, listed, secret_of_guess, low_all, low_caps, N_CODES) != count:
                    planted_seen.add(("count", name))
                if most_parts_listed(codes, cands, listed, low_all, low_caps, N_CODES, enough) != most:
                    planted_seen.add(("parts", name))
    assert planted_seen == {(scan, caps) for scan in ("count", "parts") for caps in ("all", "parent")}


def parent_scan_values(seed: int, inside_parent: bool) -> list[int]:
    """LB_4 and LB_5 of random sets, with or without the LB_3 scans of subsets inside their parent's columns."""
    codes, guess_of_secret = random_code_matrix(seed, n_guesses=300, n_secrets=14)
    bounds = LowerBounds(codes, guess_of_secret, N_CODES)
    if not inside_parent:
        bounds._within = lambda cands, parts: None
    return [bounds.lb(cands, level)[0] for cands in random_sets(codes.shape[1], seed) for level in (4, 5)]


@pytest.mark.slow
def test_subsets_scanned_inside_their_parent_give_the_same_bounds():
    """LB_3 of a subset D of C counted only over the guesses that split C, by their part count on C (which caps
    theirs on D): LB_4 and LB_5 of random sets as without it."""
    for seed in range(3):
        assert parent_scan_values(seed, True) == parent_scan_values(seed, False)


def test_a_parent_cap_one_too_low_is_caught():
    """D = secrets 0..7 inside P = D + secrets 8, 9: WIDE decoys make 7 parts on P but 5 on D; the target, first
    of P's second block of columns, makes 6 on both.  LB_3(D) = 3 * 8 - 6; with P's counts one too low the scan
    stops before the target and says 3 * 8 - 5."""
    n_secrets = 12
    codes = np.zeros((n_secrets + WIDE + 1, n_secrets), dtype=np.uint8)
    codes[np.arange(n_secrets), np.arange(n_secrets)] = N_CODES - 1
    d, decoys, target = np.arange(8), np.arange(n_secrets, n_secrets + WIDE), n_secrets + WIDE
    codes[np.ix_(decoys, d)] = d % 5
    codes[decoys, 8:10] = [5, 6]
    codes[target, d] = d % 6
    parent = np.arange(10, dtype=np.int32)
    values = []
    for planted in (0, 1):
        bounds = LowerBounds(codes, np.arange(n_secrets), N_CODES)
        parts = np.array([len(np.unique(column[parent])) for column in bounds.codes_t.T])
        cands, sub_t, caps, place = bounds._within(parent, parts)
        assert caps[WIDE] == 6 and caps[WIDE - 1] == 7
        values.append(bounds.lb(d.astype(np.int32), 3, within=(cands, sub_t, caps - planted, place))[0])
    assert values == [3 * 8 - 6, 3 * 8 - 5] and values[0] == defined_lb3(codes, d, 7)


@pytest.mark.parametrize("level", [1, 2])
def test_root_values_in_chunks_are_those_of_one_call(level, monkeypatch):
    """V_1 / V_2 of every opener come from one root_v12 call per ROOT_CHUNK openers (a signal is handled between
    calls): with chunks of 7 (the last one shorter), the values of a single call over all 900 openers, in order."""
    from pipeline.proofs.bounds import lower as checker_bounds

    codes, guess_of_secret = random_code_matrix(5)
    bounds = LowerBounds(codes, guess_of_secret, N_CODES)
    openers = np.arange(codes.shape[0], dtype=np.int64)
    whole = checker_bounds.root_v12(codes, bounds.codes_t, openers, N_CODES, bounds.btab, level, checker_bounds.HUGE,
                                    bounds.parts_sorted)
    assert len(np.unique(whole)) > 10  # values that differ: a shifted or reordered chunk shows
    monkeypatch.setattr(checker_bounds, "ROOT_CHUNK", 7)
    assert len(openers) % 7
    assert np.array_equal(bounds.openers(openers, level), whole)
    assert np.array_equal(bounds.openers(openers[::-3], level), whole[::-3])


def test_parts_beyond_is_the_largest_part_count_whose_bound_exceeds_the_budget():
    for n in range(1, 40):
        for budget in range(2 * n - 3, n * (n + 1) // 2 + 2):
            above = [k for k in range(1, n) if bound(n, k) > budget]
            assert parts_beyond(n, budget) == max(above, default=0), (n, budget)
    assert parts_beyond(30, HUGE) == 0


@pytest.mark.slow
def test_scans_from_a_floor_or_under_a_ceiling_give_the_defined_values():
    """A scan started from a floor gives max(floor, the maximum it defines) (most_parts_listed: up to its `enough`),
    one stopped at a ceiling min(ceiling, the least V_1), with the listed guesses capped by their counts on all
    secrets or on a set containing C: the checker's budgeted LB_2 / LB_3 rest on exactly this."""
    for seed in range(3):
        codes, guess_of_secret = random_code_matrix(seed)
        bounds = LowerBounds(codes, guess_of_secret, N_CODES)
        on_all = np.array([len(np.unique(row)) for row in codes])
        secret_of_guess = np.full(codes.shape[0], -1)
        secret_of_guess[guess_of_secret] = np.arange(len(guess_of_secret))
        btab = bound_column(codes.shape[1], bounds.k_s)
        rng = np.random.default_rng(seed)
        for cands in random_sets(codes.shape[1], seed):
            n = len(cands)
            parent = np.union1d(cands, rng.choice(codes.shape[1], 4, replace=False)).astype(np.int32)
            on_parent = np.array([len(np.unique(row[parent])) for row in codes])
            listed = rng.choice(codes.shape[0], 60, replace=False)
            listed = listed[np.argsort(-on_all[listed], kind="stable")]
            parts = np.array([len(np.unique(codes[g, cands])) for g in listed])
            count = (parts + np.isin(listed, guess_of_secret[cands])).max()
            inside = bounds.inside_columns(cands)
            every = max(len(np.unique(row[cands])) + (g in set(cands.tolist())) for g, row in enumerate(codes))
            for floor in range(0, n + 3):
                assert most_parts_inside(bounds.codes_t, cands, inside, bounds.parts_sorted, bounds.bits,
                                         floor) == max(floor, every)
                for caps in (on_all, on_parent):
                    assert most_count_listed(codes, cands, listed, secret_of_guess, on_all, caps, N_CODES,
                                             floor) == max(floor, count)
                    most = most_parts_listed(codes, cands, listed, on_all, caps, N_CODES, n - 1, max(1, floor))
                    want = max(1, floor, parts.max())
                    assert most == want if want < n - 1 else n - 1 <= most <= want
            least_listed, least_all = defined_lb3(codes, cands, bounds.k_s, listed), defined_lb3(codes, cands, bounds.k_s)
            for ceiling in (HUGE, least_listed + 1, least_listed, least_listed - 1, least_all, least_all - 2):
                assert least_v1(bounds.codes_t, cands, N_CODES, bounds.btab, bounds.parts_sorted,
                                ceiling) == min(ceiling, least_all)
                for caps in (on_all, on_parent):
                    assert least_v1_listed(codes, cands, listed, on_all, caps, N_CODES, btab,
                                           ceiling) == min(ceiling, least_listed)
