"""Widening the response classes that break a guess limit (pipeline/search/apmintotal/widen.py, and the upper_bound
stage's `widened_search`) against brute force (tests/helpers/words.py) on tiny games where the limit binds and
ApMinTotal at breadth 1 misses strategies that exist: every widened strategy replays within the limit under the
game's rules and is never below the optimum; with the cap at |G| an opener has one exactly when brute force finds
one; an opener with no class to widen keeps ApMinTotal's own strategy; the stage widens by itself."""

import json

import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.games.answer import feedback
from pipeline.games.game import Game
from pipeline.search.apmintotal.value import ApSearch
from pipeline.search.apmintotal.widen import ladder, widened_strategy
from pipeline.search.matrix import Matrix
from pipeline.search.tree import from_json, to_json, verify
from tests.helpers.words import INF, brute_min_total
from tests.test_hard_mode_chain import tree_keeps_rules
from tests.test_infeasible import run

# name: (secrets, extra guesses): -ight and -atch words, where the limit binds, with a few probes that split them
GAMES = {
    "g33": ("bight eight latch match might night patch tight watch wight", "champ fowls grows plumb swamp"),
    "g89": ("eight hatch might right tight wight", "fowls nifty psalm thumb"),
    "g99": ("catch eight fight hatch hight latch light match sight", "champ crwth flows ghost grows plumb"),
    "g115": ("dight fight hatch light might patch sight tight", "blimp champ fowls nifty plumb thumb"),
    "g165": ("bight catch eight fight tight wight", "champ fowls plumb swamp"),
    "g193": ("batch eight fight hatch latch match might night watch wight", "ghost nifty plumb psalm swamp"),
}
CASES = [(name, hard, limit) for name in GAMES for hard in (False, True) for limit in (4, 5)]
# (game, hard, limit) -> {opener: (total, {wider breadth: classes})}: breadth 1 finds no strategy, the widened
# search (cap |G|) does; brute force agrees that one exists (test_the_full_cap_finds_a_strategy_exactly_...)
RESCUED = {
    ("g33", False, 5): {"fowls": (32, {3: 1})}, ("g33", True, 5): {"fowls": (32, {3: 1})},
    ("g89", True, 4): {"fowls": (19, {10: 1})},
    ("g99", True, 4): {"plumb": (28, {15: 1})},
    ("g115", False, 4): {"fight": (24, {3: 1}), "nifty": (25, {3: 1}), "sight": (24, {3: 1})},
    ("g115", True, 4): {"plumb": (23, {10: 1})},
    ("g165", True, 4): {"plumb": (19, {10: 1})},
    ("g193", True, 4): {"plumb": (29, {3: 1})},
}


def tiny_game(name, hard, limit) -> Game:
    secrets, extra = (words.split() for words in GAMES[name])
    return Game("tiny", tuple(sorted(set(secrets + extra))), tuple(sorted(secrets)), "abcdefghijklmnopqrstuvwxyz",
                hard, limit)


def brute_opener_value(game, opener: str) -> float:
    """V*(opener, S) within the game's limit from the definition: |S| + the brute-force MinTotal of every class
    but the win, one guess fewer, after the opener's row (INF: no strategy in time)."""
    classes = {}
    for secret in game.secrets:
        classes.setdefault(feedback(opener, secret), []).append(secret)
    win = "2" * game.length
    return len(game.secrets) + sum(brute_min_total(game.guesses, members, game.hard_mode, game.max_guesses - 1,
                                                   rows=((opener, colours),))
                                   for colours, members in classes.items() if colours != win)


def widened(game, matrix, opener, cap, breadth=1):
    return widened_strategy(matrix, opener, breadth=breadth, cap=cap, left=game.max_guesses,
                            hard_mode=game.hard_mode)


@pytest.fixture(scope="module", params=CASES, ids=lambda case: "-".join(map(str, case)))
def case(request):
    game = tiny_game(*request.param)
    return request.param, game, Matrix.of_game(game_matrix(game), game)


def useful_openers(game, matrix):
    return [g for g in range(len(game.guesses)) if len(set(matrix.codes[g].tolist())) > 1]


def test_the_ladder_of_breadths():
    assert ladder(10, 100) == [30, 100]
    assert ladder(1, 10) == [3, 10]
    assert ladder(10, 1000) == [30, 100, 300, 1000]
    assert ladder(10, 50) == [30, 50]  # the cap itself is the last step
    assert ladder(2, 15) == [3, 10, 15]
    assert ladder(10, 10) == ladder(10, 3) == ladder(10, None) == []


@pytest.mark.slow
def test_widened_strategies_replay_within_the_limit_and_never_beat_the_optimum(case):
    """Each feasible widened strategy (caps 2, 3, |G|) replays every secret to its total through the game's own
    answering function, within the limit and, in hard mode, with every guess allowed; it opens with its opener
    and its total is no less than brute force's V*(opener) within the limit."""
    _, game, matrix = case
    for g in useful_openers(game, matrix):
        optimum = brute_opener_value(game, game.guesses[g])
        for cap in (2, 3, len(game.guesses)):
            result = widened(game, matrix, g, cap)
            if not result.feasible:
                continue
            tree = result.tree(list(game.guesses), game.answering.text)
            assert tree.guess == game.guesses[g]
            assert verify(tree, game.guesses, game.secrets) == result.total
            assert tree_keeps_rules(tree, game.hard_mode, game.max_guesses), (game.guesses[g], cap)
            assert result.total >= optimum


@pytest.mark.slow
def test_the_full_cap_finds_a_strategy_exactly_when_one_exists(case):
    """Cap |G|: the last step searches a class over every guess, so an opener has a widened strategy exactly when
    brute force finds one; the openers breadth 1 misses and widening finds are the ones pinned in RESCUED."""
    key, game, matrix = case
    rescued = {}
    for g in useful_openers(game, matrix):
        result = widened(game, matrix, g, len(game.guesses))
        assert result.feasible == (brute_opener_value(game, game.guesses[g]) < INF), game.guesses[g]
        if result.feasible and not ApSearch(matrix, 1, hard_mode=game.hard_mode,
                                            max_guesses=game.max_guesses).strategy(None, g).feasible:
            rescued[game.guesses[g]] = (result.total, result.widened)
    assert rescued == RESCUED.get(key, {})


@pytest.mark.slow
def test_a_cap_finds_whatever_apmintotal_at_that_breadth_finds(case):
    """The classes are independent, so an opener with an ApMinTotal(S, cap) strategy has a widened one too."""
    _, game, matrix = case
    for g in useful_openers(game, matrix):
        for cap in (2, 3, 10):
            whole = ApSearch(matrix, cap, hard_mode=game.hard_mode, max_guesses=game.max_guesses).strategy(None, g)
            assert widened(game, matrix, g, cap).feasible >= whole.feasible, (game.guesses[g], cap)


def test_an_opener_with_no_class_to_widen_keeps_apmintotal_s_strategy(case):
    _, game, matrix = case
    for breadth in (1, 2):
        search = ApSearch(matrix, breadth, hard_mode=game.hard_mode, max_guesses=game.max_guesses)
        for g in useful_openers(game, matrix):
            narrow = search.strategy(None, g)
            if not narrow.feasible:
                continue
            result = widened(game, matrix, g, len(game.guesses), breadth)
            assert (result.total, result.widened) == (narrow.total, {})
            trees = [r.tree(list(game.guesses), game.answering.text) for r in (result, narrow)]
            assert to_json(trees[0]) == to_json(trees[1])


def test_a_class_solved_only_at_the_cap_needs_the_cap():
    """PLUMB in g99 (hard mode within 4): its one class that breadth 1 cannot finish in time is solved from
    breadth 11 on: a cap of 11 reaches it at its ladder's last step (3, 10, 11), a cap of 10 does not."""
    game = tiny_game("g99", True, 4)
    matrix = Matrix.of_game(game_matrix(game), game)
    plumb = game.guess_index["plumb"]
    assert [cap for cap in range(2, 16) if widened(game, matrix, plumb, cap).feasible] == list(range(11, 16))
    assert ladder(1, 11) == [3, 10, 11] and widened(game, matrix, plumb, 11).widened == {11: 1}


# ---- the stage ----------------------------------------------------------------------------------------------------


def test_the_stage_refuses_a_tree_that_breaks_the_limit_or_its_total():
    """The stage's last check before it writes a bound (upper_bound.checked): FOWLS' widened tree in g89 keeps
    hard mode within 4 guesses, not within 3 (some secret needs 4), nor a total one below its own."""
    from pipeline import PipelineError
    from pipeline.stages.upper_bound import checked

    game = tiny_game("g89", True, 4)
    result = widened(game, Matrix.of_game(game_matrix(game), game), game.guess_index["fowls"], 10)
    tree = result.tree(list(game.guesses), game.answering.text)
    checked(tree, result.total, game)
    with pytest.raises(PipelineError, match="breaks the game's rules: some secret needs 4 guesses"):
        checked(tree, result.total, tiny_game("g89", True, 3))
    with pytest.raises(PipelineError, match="does not replay to its total"):
        checked(tree, result.total - 1, game)


@pytest.fixture(scope="module")
def g89_lists(tmp_path_factory):
    folder = tmp_path_factory.mktemp("g89")
    secrets, extra = (words.split() for words in GAMES["g89"])
    (folder / "secrets.txt").write_text("\n".join(secrets) + "\n")
    (folder / "guesses.txt").write_text("\n".join(secrets + extra) + "\n")
    return folder


def stage_summary(outputs, lists, *overrides) -> tuple[dict, object]:
    """(summary.json, artifact folder) of upper_bound on g89 in hard mode within 4 guesses at breadth 1."""
    folder, _ = run(outputs, "stage=upper_bound", "game=words", f"game.secrets.path={lists / 'secrets.txt'}",
                    f"game.guesses.path={lists / 'guesses.txt'}", "game.length=5", "game.hard_mode=true",
                    "game.max_guesses=4", "stage.breadth=1", *overrides)
    return json.loads((folder / "summary.json").read_text()), folder


@pytest.mark.slow
def test_the_stage_widens_the_classes_by_itself(g89_lists, tmp_path, ray_session, caplog):
    """FOWLS alone at breadth 1 has no strategy within 4 in hard mode; the stage widens its one failing class
    along 3, 10 and writes FOWLS' strategy (19, brute force's V*), which replays within the rules; capped at 3 it
    finds none and says which setting to raise."""
    game = tiny_game("g89", True, 4)
    summary, folder = stage_summary(tmp_path / "wide", g89_lists, "stage.openers=[fowls]", "stage.widen_breadth=10")
    assert (summary["ub"], summary["opener"], summary["breadth"], summary["openers_tried"]) == (19, "fowls", 1, 1)
    assert summary["widened"] == {"breadths": [3, 10], "openers": 1, "more_openers": 0,
                                  "classes_of_best": {"10": 1}}
    assert brute_opener_value(game, "fowls") == 19 and summary["max_guesses"] <= 4
    import pyarrow.parquet as pq

    assert pq.read_table(folder / "openers.parquet").to_pydict()["widest_breadth"] == [10]
    tree = from_json(json.loads((folder / "tree.json").read_text())["tree"])
    assert verify(tree, game.guesses, game.secrets) == 19 and tree_keeps_rules(tree, True, 4)
    caplog.clear()
    capped, _ = stage_summary(tmp_path / "capped", g89_lists, "stage.openers=[fowls]", "stage.widen_breadth=3")
    assert (capped["feasible"], capped["widened"]) == (False, {"breadths": [3], "openers": 1, "more_openers": 0})
    assert "to search wider, raise stage.widen_breadth (here 3)" in caplog.text
    never, _ = stage_summary(tmp_path / "never", g89_lists, "stage.openers=[fowls]", "stage.widen_breadth=null")
    assert never["feasible"] is False and "widened" not in never
