"""One rule for "this artifact fits this game" (pipeline.artifacts.find), used by every reader of the store."""

import json

import pytest

from pipeline.artifacts.find import artifacts_for, best_tree, fits, stored_trees
from pipeline.artifacts.trees import load_tree
from pipeline import PipelineError
from pipeline.games.catalog import builtin_game
from pipeline.runtime.store import ArtifactStore


def fake_artifact(root, stage, key, game_fields, ub=None, tree=None):
    """A finished artifact folder: its manifest (game fields, summary) and optionally a tree.json."""
    folder = root / stage / key
    folder.mkdir(parents=True)
    manifest = {"stage": stage, "key": key, "game": game_fields, **({"summary": {"ub": ub}} if ub else {})}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    if tree is not None:
        (folder / "tree.json").write_text(json.dumps(tree))
    return folder


def test_fits_needs_the_lists_and_every_recorded_rule(mini_nerdle):
    identity = mini_nerdle.identity()
    assert fits(dict(identity), identity)
    assert fits({k: identity[k] for k in ("guesses_sha256", "secrets_sha256")}, identity)  # records no rules
    assert not fits({"hard_mode": False, "max_guesses": 6}, identity)  # does not name the lists
    assert not fits({**identity, "hard_mode": True}, identity)
    assert not fits({**identity, "max_guesses": None}, identity)
    assert not fits({**identity, "secrets_sha256": "0" * 64}, identity)


def test_the_store_is_searched_by_the_stages_identity(tmp_path, mini_nerdle):
    hard = builtin_game("mini_nerdle", hard_mode=True)
    unlimited = builtin_game("mini_nerdle", max_guesses=None)
    tree = {"tree": {"guess": "x"}}
    fake_artifact(tmp_path, "upper_bound", "b_normal", mini_nerdle.identity(), ub=600, tree=tree)
    fake_artifact(tmp_path, "upper_bound", "a_normal", mini_nerdle.identity(), ub=544, tree=tree)
    fake_artifact(tmp_path, "upper_bound", "c_hard", hard.identity(), ub=500, tree=tree)
    fake_artifact(tmp_path, "upper_bound", "d_no_total", mini_nerdle.identity(), tree=tree)
    fake_artifact(tmp_path, "upper_bound", "e_no_tree", mini_nerdle.identity(), ub=100)
    fake_artifact(tmp_path, "feedback", "matrix", mini_nerdle.identity())
    (tmp_path / "upper_bound" / ".tmp-unfinished").mkdir()
    store = ArtifactStore(tmp_path)
    assert [t.key for t in stored_trees(store, mini_nerdle)] == ["a_normal", "b_normal", "d_no_total"]
    assert best_tree(store, mini_nerdle).key == "a_normal" and best_tree(store, mini_nerdle).total == 544
    assert best_tree(store, hard).key == "c_hard"
    assert best_tree(store, unlimited) is None
    # the feedback matrix depends on the lists only: the same artifact serves hard mode and any limit
    assert [a.key for a, _ in artifacts_for(store, "feedback", hard)] == ["matrix"]
    assert [a.key for a, _ in artifacts_for(store, "feedback", unlimited)] == ["matrix"]


def test_a_damaged_manifest_is_named_or_skipped_when_asked(tmp_path, mini_nerdle):
    """A reader that needs every artifact is told which manifest is damaged; one that merely looks for values
    (the assistant) leaves it out."""
    fake_artifact(tmp_path, "exact", "a_good", mini_nerdle.identity())
    (fake_artifact(tmp_path, "exact", "b_list", mini_nerdle.identity()) / "manifest.json").write_text("[1]")
    (fake_artifact(tmp_path, "exact", "c_game", mini_nerdle.identity()) / "manifest.json").write_text('{"game": 1}')
    store = ArtifactStore(tmp_path)
    with pytest.raises(PipelineError, match="b_list/manifest.json is damaged"):
        artifacts_for(store, "exact", mini_nerdle)
    assert [a.key for a, _ in artifacts_for(store, "exact", mini_nerdle, skip_damaged=True)] == ["a_good"]
    (tmp_path / "exact" / "b_list").rename(tmp_path / "exact" / ".b_list")
    with pytest.raises(PipelineError, match="c_game/manifest.json is damaged .its game is not a JSON object"):
        artifacts_for(store, "exact", mini_nerdle)


def test_one_loader_checks_lists_rules_and_replay(tmp_path, mini_nerdle):
    from pipeline.artifacts.trees import write_tree
    from pipeline.feedback.matrix import game_matrix
    from pipeline.search.strategies.greedy import greedy
    from pipeline.search.matrix import Matrix
    from pipeline.search.tree import statistics, to_json, verify

    result = greedy(Matrix.of_game(game_matrix(mini_nerdle), mini_nerdle), ("MostParts", "InSet", "ExpSizeSplit"))
    tree = result.tree(list(mini_nerdle.guesses), mini_nerdle.length)
    write_tree(lambda name: tmp_path / name, tree, mini_nerdle)
    loaded = load_tree(tmp_path / "tree.json", mini_nerdle, "label")
    assert (loaded.label, loaded.total) == ("label", result.total)
    assert result.total == verify(tree, mini_nerdle.guesses, mini_nerdle.secrets)
    for other in (builtin_game("mini_nerdle", hard_mode=True), builtin_game("mini_nerdle", max_guesses=None)):
        with pytest.raises(PipelineError, match="other word lists or rules"):
            load_tree(tmp_path / "tree.json", other)
    depth = statistics(tree)["max_guesses"]
    (tmp_path / "bare.json").write_text(json.dumps(to_json(tree)))  # records no game: replay and rules decide
    assert load_tree(tmp_path / "bare.json", builtin_game("mini_nerdle", max_guesses=depth)).total == result.total
    with pytest.raises(PipelineError, match=f"needs {depth} guesses, more than game.max_guesses={depth - 1}"):
        load_tree(tmp_path / "bare.json", builtin_game("mini_nerdle", max_guesses=depth - 1))
    with pytest.raises(PipelineError, match="does not fit game"):
        load_tree(tmp_path / "bare.json", builtin_game("midi_nerdle"))
    with pytest.raises(PipelineError, match="not found"):
        load_tree(tmp_path / "missing.json", mini_nerdle)
    (tmp_path / "junk.json").write_text("[1, 2]")
    with pytest.raises(PipelineError, match="not a strategy tree"):
        load_tree(tmp_path / "junk.json", mini_nerdle)
