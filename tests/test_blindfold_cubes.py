"""Cube-and-conquer (pipeline/blindfold/cubes.py, stage.method=cubes) against brute force over every k-set on tiny
games where both outcomes occur: sets of exactly f* guesses separate every secret, none of f* - 1.

The split must put every k-set that separates the pool's pairs in exactly one cube (cover) and no k-set in two
(disjoint); the LP bound must prune no cube that holds such a set, and the rule binds: some cube holding one has a
bound equal to its guesses left, so pruning one guess early loses it.  Planted (tests at the end), each of these
slips fails a property here: a child skipped, a child excluding its own separator as well (excluded twice), a
child excluding the next child's separator, no exclusions (the children overlap), the LP bound off by one guess."""

import itertools
import json
from dataclasses import dataclass
from functools import cache

import numpy as np
import pytest

from pipeline.blindfold import cubes as C
from pipeline.blindfold.pairs import pairs_within_labels, seed_pairs, transpose_codes
from pipeline.games.answer import feedback
from tests.helpers.fixed_guesses import GUESSES, SECRETS, code_matrix, random_two_letter_game


@dataclass(frozen=True)
class Tiny:
    """A tiny game with its code matrix, its f* by brute force and a pool of pairs for the split."""

    name: str
    guesses: list
    secrets: list
    codes: np.ndarray
    f_star: int
    pool: tuple

    @property
    def codes_t(self):
        return transpose_codes(self.codes)

    @property
    def columns(self):
        return np.arange(len(self.guesses))


def separating_mask(codes, sets: np.ndarray, pool=None) -> np.ndarray:
    """For each row of `sets` (guess indices), whether it separates every pair of `pool` (default: of secrets)."""
    n_secrets = codes.shape[1]
    i, j = pairs_within_labels(np.zeros(n_secrets)) if pool is None else pool
    differs = np.zeros((len(sets), len(i)), dtype=bool)
    for column in range(sets.shape[1]):
        rows = codes[sets[:, column]]
        differs |= rows[:, i] != rows[:, j]
    return differs.all(axis=1)


@cache
def k_sets(n_guesses: int, k: int) -> np.ndarray:
    """Every k-set of guesses 0 .. n_guesses - 1, one per row (the empty set: one row of no columns)."""
    if k == 0:
        return np.zeros((1, 0), dtype=np.int64)
    return np.array(list(itertools.combinations(range(n_guesses), k)), dtype=np.int64).reshape(-1, k)


def brute_f_star(codes) -> int:
    return next(k for k in range(codes.shape[0] + 1) if separating_mask(codes, k_sets(codes.shape[0], k)).any())


def encoded(words) -> np.ndarray:
    return np.array([[ord(c) - ord("a") for c in w] for w in words], dtype=np.int64)


@cache
def tiny_games() -> tuple[Tiny, ...]:
    """The word game and two random two-letter games, each with three pools for the split: every pair; the seed
    pairs (one position apart or anagrams); the first seed pair alone (the MIPs must then add rows)."""
    games = []
    for name, (guesses, secrets) in [("words", (GUESSES, SECRETS)),
                                     *((f"two-letter-{seed}", random_two_letter_game(seed)) for seed in range(2))]:
        codes = code_matrix(guesses, secrets)
        seeds = seed_pairs(encoded(secrets))
        pools = {"every pair": pairs_within_labels(np.zeros(len(secrets))), "seeds": seeds,
                 "one pair": (seeds[0][:1], seeds[1][:1])}
        games += [Tiny(f"{name}, {pool_name}", guesses, secrets, codes, brute_f_star(codes), pool)
                  for pool_name, pool in pools.items()]
    return tuple(games)


def holds(cube: C.Cube, sets: np.ndarray) -> np.ndarray:
    """Which k-sets the cube holds: all its fixed guesses, none of its excluded ones."""
    inside = np.ones(len(sets), dtype=bool)
    for g in cube.fixed:
        inside &= (sets == g).any(axis=1)
    for g in cube.excluded:
        inside &= ~(sets == g).any(axis=1)
    return inside


def cube_trees(depths=(1, 2, 3), games=None) -> list:
    """(game, k, tree) for k = f* - 1 and f* on the tiny games (default: all), split to each depth, pruning on."""
    return [(game, k, C.split(game.codes_t, game.columns, game.pool, k, depth=depth, target=10**6))
            for game in (tiny_games() if games is None else games) for k in (game.f_star - 1, game.f_star)
            for depth in depths]


@cache
def every_tree() -> list:
    """Every tiny game split one and two levels down, and the word game with every pair three levels down."""
    return cube_trees(depths=(1, 2)) + cube_trees(depths=(3,), games=tiny_games()[:1])


def terminal(tree) -> list[C.CubeNode]:
    return [node for node in tree if node.outcome != C.SPLIT]


def partition_holds(trees) -> bool:
    """Every k-set lies in at most one terminal cube, and one that separates the pool's pairs in exactly one."""
    for game, k, tree in trees:
        sets = k_sets(len(game.guesses), k)
        count = sum(holds(node.cube, sets).astype(int) for node in terminal(tree))
        if (count > 1).any() or (count[separating_mask(game.codes, sets, game.pool)] != 1).any():
            return False
    return True


def pruning_sound(trees) -> bool:
    """No pruned cube holds a k-set that separates the pool's pairs."""
    for game, k, tree in trees:
        sets = k_sets(len(game.guesses), k)
        good = sets[separating_mask(game.codes, sets, game.pool)]
        if any(holds(node.cube, good).any() for node in tree if node.outcome == C.PRUNED):
            return False
    return True


# ---- the split --------------------------------------------------------------------------------------------------

def test_the_games_have_both_outcomes():
    for game in tiny_games():
        assert separating_mask(game.codes, k_sets(len(game.guesses), game.f_star)).any(), game.name
        assert not separating_mask(game.codes, k_sets(len(game.guesses), game.f_star - 1)).any(), game.name
    assert {game.f_star for game in tiny_games()} == {3}  # so k = 2 (none) and k = 3 (some) below


def test_every_k_set_falls_in_exactly_one_cube():
    assert partition_holds(every_tree())
    assert max(len(node.cube.path) for _, _, tree in every_tree() for node in tree) == 3


def test_the_split_branches_on_the_hardest_pair_left_and_excludes_the_earlier_separators():
    game = tiny_games()[0]
    k = game.f_star
    tree = C.split(game.codes_t, game.columns, game.pool, k, depth=2, target=10**6)
    levels = {len(node.cube.path) for node in tree}
    assert levels == {0, 1, 2}  # it went two levels down
    by_path = {node.cube.path: node for node in tree}
    for node in tree:
        if node.outcome != C.SPLIT:
            continue
        s, t = node.bound.pair
        left = [(a, b) for a, b in zip(*game.pool)
                if all(game.codes[g, a] == game.codes[g, b] for g in node.cube.fixed)]
        free = [g for g in game.columns if g not in node.cube.fixed + node.cube.excluded]
        fewest = min(sum(game.codes[g, a] != game.codes[g, b] for g in free) for a, b in left)
        assert sorted(node.bound.separators) == [g for g in free if game.codes[g, s] != game.codes[g, t]]
        assert len(node.bound.separators) == fewest
        for i, g in enumerate(node.bound.separators):
            child = by_path[node.cube.path + (i,)].cube
            assert child.fixed == node.cube.fixed + (g,)
            assert set(child.excluded) == set(node.cube.excluded) | set(node.bound.separators[:i])


# ---- the LP bound ---------------------------------------------------------------------------------------------

def fewest_to_complete(game: Tiny, cube: C.Cube, most: int) -> int:
    """Brute force: the fewest guesses outside the cube's fixed and excluded ones that, with the fixed ones,
    separate every pool pair (most + 1 when no `most` of them do)."""
    free = np.array([g for g in game.columns if g not in cube.fixed + cube.excluded], dtype=np.int64)
    fixed = np.array(cube.fixed, dtype=np.int64)
    for size in range(most + 1):
        extra = free[k_sets(len(free), size)]
        sets = np.hstack([np.tile(fixed, (len(extra), 1)), extra])
        if separating_mask(game.codes, sets, game.pool).any():
            return size
    return most + 1


def test_the_certified_bound_is_the_lp_and_never_above_the_fewest_guesses_that_complete_a_cube():
    checked = 0
    for game, k, tree in every_tree():
        for node in tree:
            bound, most = node.bound, k - len(node.cube.fixed) + 1
            fewest = fewest_to_complete(game, node.cube, most)
            if bound.uncoverable:
                assert fewest == most + 1  # none at all, in truth
                continue
            if bound.lp_value is not None:
                assert bound.bound == pytest.approx(bound.lp_value, abs=1e-7)
            if fewest <= most:
                assert bound.bound <= fewest + 1e-9
                checked += 1
    assert checked > 100


def test_pruning_never_removes_a_cube_that_holds_a_separating_set():
    assert pruning_sound(every_tree())


def test_the_prune_rule_binds_both_ways():
    """Some cubes are pruned (the bound exceeds the guesses left), and some cube holding a set that separates the
    pool has a bound exactly its guesses left: pruning there would lose that set."""
    pruned = binding = 0
    for game, k, tree in every_tree():
        sets = k_sets(len(game.guesses), k)
        good = sets[separating_mask(game.codes, sets, game.pool)]
        for node in tree:
            left = k - len(node.cube.fixed)
            pruned += node.outcome == C.PRUNED and not node.bound.uncoverable
            binding += abs(node.bound.bound - left) < 1e-9 and left > 0 and bool(holds(node.cube, good).any())
    assert pruned > 0 and binding > 0


# ---- the whole search -----------------------------------------------------------------------------------------

@pytest.mark.parametrize("depth", [0, 1, 2])
def test_search_matches_brute_force(depth):
    """k = f*: a set of at most k guesses, separating every secret by the scalar answering function; k = f* - 1:
    none, every cube pruned or infeasible.  With the seed pools the MIPs must add rows the pool lacks."""
    rounds = []
    for game in tiny_games():
        for k in (game.f_star - 1, game.f_star):
            search = C.search_cubes(game.codes_t, game.columns, game.pool, k, depth=depth, target=10**6)
            rounds += [node.result.rounds for node in search.nodes if node.result]
            if k < game.f_star:
                assert (search.status, search.chosen) == (C.NONE, ()), game.name
                assert search.counts()[C.FEASIBLE] == search.counts()[C.OPEN] == 0
                continue
            assert search.status == C.FOUND and len(search.chosen) <= k, game.name
            words = [game.guesses[g] for g in search.chosen]
            assert len({tuple(feedback(g, s) for g in words) for s in game.secrets}) == len(game.secrets)
    assert max(rounds) > 1  # row generation took part


def test_a_cube_stopped_by_its_time_limit_is_open_and_leaves_the_question_open():
    game = next(g for g in tiny_games()  # one whose root LP leaves the question to the MIP
                if not C.prunes(C.bound_cube(C.Cube(), g.codes_t, *g.pool, g.columns, g.f_star - 1), g.f_star - 1))
    search = C.search_cubes(game.codes_t, game.columns, game.pool, game.f_star - 1, depth=0, target=1,
                            limits=C.CubeLimits(time_limit=1e-9))
    assert search.status == C.OPEN and search.nodes[0].result.outcome == C.OPEN
    assert search.nodes[0].result.status == "time limit"


# ---- planted slips: each fails a property above ----------------------------------------------------------------

def _a_child_skipped(monkeypatch):
    original = C.children
    monkeypatch.setattr(C, "children", lambda cube, separators: [c for i, c in enumerate(original(cube, separators))
                                                                  if i != 1])


def _own_separator_excluded_too(monkeypatch):
    monkeypatch.setattr(C, "children", lambda cube, separators: [
        C.Cube(cube.path + (i,), cube.fixed + (int(s),), tuple(sorted(cube.excluded + tuple(separators[:i + 1]))))
        for i, s in enumerate(separators)])


def _next_separator_excluded(monkeypatch):
    monkeypatch.setattr(C, "children", lambda cube, separators: [
        C.Cube(cube.path + (i,), cube.fixed + (int(s),),
               tuple(sorted(set(cube.excluded + tuple(separators[:i]) + tuple(separators[i + 1:i + 2])))))
        for i, s in enumerate(separators)])


def _nothing_excluded(monkeypatch):
    monkeypatch.setattr(C, "children", lambda cube, separators: [
        C.Cube(cube.path + (i,), cube.fixed + (int(s),), cube.excluded) for i, s in enumerate(separators)])


def _bound_off_by_one(monkeypatch):
    monkeypatch.setattr(C, "prunes", lambda bound, left: bound.uncoverable or bound.bound > left - 1 + C.PRUNE_MARGIN)


@pytest.mark.parametrize("plant, broken", [(_a_child_skipped, partition_holds),
                                           (_own_separator_excluded_too, partition_holds),
                                           (_next_separator_excluded, partition_holds),
                                           (_nothing_excluded, partition_holds),
                                           (_bound_off_by_one, pruning_sound)])
def test_a_planted_slip_breaks_a_property(plant, broken, monkeypatch):
    games = tiny_games()[:1]  # the word game, every pair in the pool
    assert broken(cube_trees(depths=(2,), games=games))
    plant(monkeypatch)
    assert not broken(cube_trees(depths=(2,), games=games))


# ---- the stage: stage.method=cubes, its artifact, and a resumed run --------------------------------------------

CUBES = ["stage=blindfold", "stage.method=cubes", "stage.seed_limit=1", "ray.executor=local"]


@pytest.fixture
def cube_game(word_list_game):
    return word_list_game(SECRETS, GUESSES)


def test_stage_proves_f_star_with_a_recorded_cube_tree(run_pipeline, cube_game):
    from pipeline.stages.runner import result_line

    artifact = run_pipeline(*CUBES, *cube_game)
    solution = json.loads(artifact.file("solution.json").read_text())
    f_star = brute_f_star(code_matrix(GUESSES, SECRETS))
    assert (solution["f_star"], solution["lower_bound"], solution["proven_optimal"]) == (f_star, f_star, True)
    assert len({tuple(feedback(g, s) for g in solution["guesses"]) for s in SECRETS}) == len(SECRETS)
    tree = json.loads(artifact.file(f"cubes-k{f_star - 1}.json").read_text())
    assert tree["status"] == C.NONE and tree["cubes"][0]["id"] == "root"
    assert {c["outcome"] for c in tree["cubes"]} <= {C.SPLIT, C.PRUNED, C.INFEASIBLE}
    assert any(c["outcome"] == C.INFEASIBLE and c["mip"]["status"] == "Infeasible" for c in tree["cubes"])
    assert "HiGHS's word" in tree["trusted"] and "HiGHS" in tree["solver"]["mip"]
    assert f"f_star: {f_star}, proven_optimal: true" in result_line(artifact)


def test_a_stopped_run_resumes_without_recomputing_finished_cubes(run_pipeline, cube_game, tmp_path, monkeypatch):
    """Stopped after three cube MIPs, the rerun solves only the others and writes the tree of a run never stopped."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    cfg = compose_config([f"paths.outputs={tmp_path / 'whole'}", "progress=false", *CUBES, *cube_game])
    whole = run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))
    leaves = sum(c["outcome"] in (C.INFEASIBLE, C.FEASIBLE) for c in
                 json.loads(whole.file("cubes-k2.json").read_text())["cubes"])
    assert leaves > 3
    solved, original = [], C.solve_cube

    def stopping(cube, *args):
        if len(solved) == 3:
            raise RuntimeError("stopped")
        solved.append(cube)
        return original(cube, *args)

    monkeypatch.setattr(C, "solve_cube", stopping)
    with pytest.raises(RuntimeError, match="stopped"):
        run_pipeline(*CUBES, *cube_game)
    first = list(solved)
    monkeypatch.setattr(C, "solve_cube", lambda cube, *args: solved.append(cube) or original(cube, *args))
    resumed = run_pipeline(*CUBES, *cube_game)
    assert len(solved) == leaves and not set(first) & set(solved[3:])  # the three finished cubes not solved again
    same = [json.loads(a.file("cubes-k2.json").read_text()) for a in (whole, resumed)]
    for tree in same:
        for cube in tree["cubes"]:
            cube["lp"].pop("seconds")
            cube.get("mip", {}).pop("seconds", None)
    assert same[0] == same[1]
    assert resumed.manifest["fan_out"]["resumed"] >= 3



@pytest.mark.parametrize("seed_limit", [1, 3, None])
def test_the_pool_is_the_same_letters_pairs_and_the_seeds_fewest_separated(seed_limit):
    """pool_pairs against its definition, pair by pair: secrets of one set of letters at most two positions apart,
    with the `seed_limit` seed pairs (all with None) that the fewest columns separate, ties in seed order."""
    codes, enc = code_matrix(GUESSES, SECRETS), encoded(SECRETS)
    columns = np.arange(0, len(GUESSES), 2)  # every other guess: the counts are over the columns given
    seeds = seed_pairs(enc)
    pool = C.pool_pairs(transpose_codes(codes), enc, seeds, seed_limit=seed_limit, columns=columns)
    same_letters = {(i, j) for i, j in itertools.combinations(range(len(SECRETS)), 2)
                    if set(SECRETS[i]) == set(SECRETS[j]) and sum(a != b for a, b in zip(SECRETS[i], SECRETS[j])) <= 2}
    separated_by = [int((codes[columns, i] != codes[columns, j]).sum()) for i, j in zip(*seeds)]
    order = sorted(range(len(separated_by)), key=lambda n: separated_by[n])  # stable: ties in seed order
    fewest = {(int(seeds[0][n]), int(seeds[1][n])) for n in order[:seed_limit or len(order)]}
    assert len(fewest) < len(order) or seed_limit is None  # the limit really drops seeds
    assert same_letters and sorted(same_letters | fewest) == sorted(zip(pool[0].tolist(), pool[1].tolist()))
