"""The hybrid decided by the branching search (pipeline/blindfold/branching.py) against brute force over every
k-set on tiny games, where a set exists and where none does, and beside the hitting-set MIP it replaces.

Games with exactly one k-set that works make each pruning rule visible: a rule that cut one set too many loses
the only answer.  Planted by hand, each of these one-line slips fails a test here: the kernel skipping its first
second-to-last guess (`range(start + 1, ...)`), a branch skipping its first splitter (`branch[1:]`) or dropping
its last one (`[:-1]`), the last guess excluding the next branch's guess too (`branch_rows[:p + 2]`), an
obstacle's splitters built without its last member; tests/test_planted_bugs.py plants three of them for good."""

import itertools
import json

import numpy as np
import pytest

from pipeline.blindfold import obstacles as O
from pipeline.blindfold.branching import METHOD, decide_by_branching
from tests.helpers.fixed_guesses import GUESSES, SECRETS, code_matrix, random_two_letter_game, solvable_bf, works_bf


def branched(k, depth, guesses, secrets, columns=None, **options):
    win = 3 ** len(secrets[0]) - 1
    columns = np.arange(len(guesses)) if columns is None else columns
    return decide_by_branching(code_matrix(guesses, secrets), columns, k, depth, win, **options)


def solvable_m(codes, members: tuple[int, ...], depth: int, win: int) -> bool:
    """Brute force on the code matrix: some tree of at most `depth` guesses (rows) finds every member."""
    if len(members) <= 1:
        return True
    if depth <= 1:
        return False
    for row in codes:
        parts, won = {}, False
        for s in members:
            if row[s] == win:
                won = True
            else:
                parts.setdefault(int(row[s]), []).append(s)
        if (len(parts) > 1 or won) and all(solvable_m(codes, tuple(p), depth - 1, win) for p in parts.values()):
            return True
    return False


def works_m(codes, fixed, depth: int, win: int) -> bool:
    """Every class of the fixed rows is solvable within `depth` further guesses (rows of `codes`)."""
    classes = {}
    for s in range(codes.shape[1]):
        classes.setdefault(tuple(codes[list(fixed), s]), []).append(s)
    return all(solvable_m(codes, tuple(c), depth, win) for c in classes.values())


def working_sets(k, depth, guesses, secrets, columns) -> list[tuple[int, ...]]:
    """Every k-set of `columns` that works, class trees guessing among `columns` too (brute force)."""
    codes, win = code_matrix(guesses, secrets)[columns], 3 ** len(secrets[0]) - 1
    return [tuple(int(columns[r]) for r in f) for f in itertools.combinations(range(len(columns)), k)
            if works_m(codes, f, depth, win)]


def assert_agrees(k, depth, guesses, secrets) -> bool:
    """The search's answer is brute force's: a verified set of at most k guesses, or proven none."""
    columns = np.arange(len(guesses))
    exists = bool(working_sets(k, depth, guesses, secrets, columns))
    result = branched(k, depth, guesses, secrets)
    assert result.status == (O.FOUND if exists else O.NONE), (k, depth, secrets)
    assert result.method == METHOD and result.summary()["method"] == METHOD
    if exists:
        chosen = [guesses[g] for g in result.chosen]
        assert len(chosen) <= k and works_bf(chosen, depth, guesses, secrets)
    else:
        assert (result.lower_bound, result.chosen, result.stop) == (k + 1, [], "every branch exhausted")
    return exists


@pytest.mark.parametrize("k,depth", [(1, 1), (1, 2), (2, 1), (1, 3), (3, 1), (2, 2), (4, 1)])
def test_branching_matches_brute_force_on_a_word_game(k, depth):
    assert_agrees(k, depth, GUESSES, SECRETS)


@pytest.mark.slow
def test_branching_matches_brute_force_on_random_games():
    """Both outcomes, with k = 1 .. 4 (the last guess alone, the last two in the kernel, and one and two levels
    of branching above them), and the bound binding: sets of exactly k where k - 1 do not suffice."""
    outcomes, tight = {True: 0, False: 0}, 0
    for seed in range(6):
        guesses, secrets = random_two_letter_game(seed)
        for k, depth in ((1, 2), (2, 1), (2, 2), (3, 1), (4, 1)):
            exists = assert_agrees(k, depth, guesses, secrets)
            outcomes[exists] += 1
            tight += exists and not working_sets(k - 1, depth, guesses, secrets, np.arange(len(guesses)))
    assert outcomes[True] >= 6 and outcomes[False] >= 5 and tight >= 6


def separating_sets(codes, k: int) -> list[tuple[int, ...]]:
    """Brute force: every k-set of rows giving each secret (column) its own codes (1-guess trees)."""
    return [f for f in itertools.combinations(range(codes.shape[0]), k)
            if np.unique(codes[list(f)], axis=1).shape[1] == codes.shape[1]]


def planted_game(rng, k: int):
    """A code matrix (3 codes, no win) where k planted rows give every secret its own codes and the other rows
    are lopsided (mostly code 0), with the planted rows."""
    n, rows = {2: 8, 3: 24, 4: 60}[k], 8 + 2 * k
    tuples = rng.permutation(np.array(list(itertools.product(range(3), repeat=k))))[:n]
    codes = rng.choice(3, size=(rows, n), p=[0.6, 0.3, 0.1]).astype(np.uint8)
    chosen = rng.choice(rows, size=k, replace=False)
    codes[chosen] = tuples.T
    return codes, sorted(int(r) for r in chosen)


def unique_answer_games(per_k: int = 4) -> list[tuple[np.ndarray, int, list[int]]]:
    """(codes, k, the one k-set of rows that works, by brute force): `per_k` games each for k = 2, 3, 4."""
    rng, games = np.random.default_rng(0), []
    for k in (2, 3, 4):
        while sum(kk == k for _, kk, _ in games) < per_k:
            codes, chosen = planted_game(rng, k)
            if separating_sets(codes, k) == [tuple(chosen)]:
                games.append((codes, k, chosen))
    return games


def unique_answers_found(games) -> bool:
    """Whether the search returns the one set of every game (and proves k - 1 guesses too few)."""
    for codes, k, chosen in games:
        rows = np.arange(codes.shape[0])
        result = decide_by_branching(codes, rows, k, 1, 9)
        if result.status != O.FOUND or sorted(result.chosen) != chosen:
            return False
        if decide_by_branching(codes, rows, k - 1, 1, 9).status != O.NONE:
            return False
    return True


def test_a_unique_answer_is_found():
    """Where brute force finds a single k-set, the search returns that set: a pruning rule that cut one set too
    many would lose it (module docstring)."""
    assert unique_answers_found(unique_answer_games())


def test_branching_and_the_mip_agree():
    for seed in range(4):
        guesses, secrets = random_two_letter_game(seed)
        win = 3 ** len(secrets[0]) - 1
        for k, depth in ((2, 1), (2, 2), (3, 1)):
            codes = code_matrix(guesses, secrets)
            mip = O.decide(codes, np.arange(len(guesses)), k, depth, win)
            assert branched(k, depth, guesses, secrets).status == mip.status


def test_seeds_and_starts_change_nothing_but_speed():
    guesses, secrets = random_two_letter_game(3)
    for k, depth in ((1, 2), (2, 1), (2, 2), (3, 1)):
        plain = branched(k, depth, guesses, secrets).status
        seeded = branched(k, depth, guesses, secrets, seeds=[list(range(len(secrets)))], starts=[[0, 1]]).status
        assert plain == seeded


@pytest.mark.parametrize("k,depth", [(2, 1), (1, 2), (2, 2)])
def test_obstacles_are_minimal_and_unsolvable(k, depth):
    result = branched(k, depth, GUESSES, SECRETS)
    assert result.obstacles
    for obstacle in result.obstacles:
        words = tuple(SECRETS[s] for s in obstacle)
        assert not solvable_bf(words, depth, GUESSES)
        assert all(solvable_bf(words[:i] + words[i + 1:], depth, GUESSES) for i in range(len(words)))


def test_time_limit_is_not_settled():
    result = branched(2, 2, GUESSES, SECRETS, time_limit=1e-9)
    assert (result.status, result.stop, result.chosen) == (O.OPEN, "time limit", [])


# ---- the stage: stage.decision picks the method, solution.json names it ------------------------------------


@pytest.mark.parametrize("decision,method", [("branching", METHOD), ("mip", O.METHOD)])
def test_stage_records_the_method(run_pipeline, hybrid_word_game, decision, method):
    """2 fixed guesses with 1-guess trees: none, proven by either method, and the status says which."""
    artifact = run_pipeline(*hybrid_word_game, "stage.fixed=2", "stage.depth=1", "stage.beam=3",
                            f"stage.decision={decision}")
    s = json.loads(artifact.file("solution.json").read_text())
    assert s["status"] == f"proven: no such set, by the {method}" and s["decision"]["method"] == method
    assert s["decision"]["status"] == O.NONE and s["fixed"] is None


def test_stage_refuses_an_unknown_decision(run_pipeline, hybrid_word_game):
    from pipeline import PipelineError

    with pytest.raises(PipelineError, match="stage.decision must be branching or mip, not 'beam'"):
        run_pipeline(*hybrid_word_game, "stage.fixed=2", "stage.depth=1", "stage.decision=beam")


def test_the_three_plus_two_set_found_on_wordle_nyt_apr2022():
    """The stage's answer to 3 fixed guesses, then trees of 2 (docs/blindfold.md): ABHOR CLEFT GAWPS leaves
    no class that one guess cannot tell apart, every secret within 5 guesses, total 10102."""
    from pipeline.blindfold.hybrid import evaluate
    from pipeline.games.catalog import builtin_game
    from pipeline.feedback.matrix import answer_matrix

    game = builtin_game("wordle_nyt_apr2022")
    codes = answer_matrix(game.encoded_guesses(), game.encoded_secrets())
    fixed = tuple(game.guess_index[w] for w in ("abhor", "cleft", "gawps"))
    total, worst, distribution, sizes = evaluate(codes, fixed, 2, game.answering.win, {})
    assert (total, worst, sum(sizes.values()), max(sizes)) == (10102, 5, 1464, 13)
    assert distribution == {1: 1, 2: 1, 4: 1436, 5: 871}
    assert O.new_obstacles(codes, O.blindfold_pairs.class_labels(codes, list(fixed)), 2, game.answering.win, {}) == []
