"""The drawn strategy tree (Figure 2): well-formed SVG, the root guess, and exactly the nodes of the chosen levels."""

import json
import xml.etree.ElementTree as ET

import pytest

from pipeline.artifacts.tree_svg import tree_svg
from pipeline import PipelineError
from pipeline.games.answer import feedback
from pipeline.search.tree import Tree, from_json

WORDS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]
SVG = "{http://www.w3.org/2000/svg}"


def first_candidate_tree(candidates: list[str]) -> Tree:
    """Always guess the first remaining candidate (a deep tree: 7 levels on WORDS)."""
    guess = candidates[0]
    node = Tree(guess, len(candidates))
    parts: dict[str, list[str]] = {}
    for s in candidates[1:]:
        parts.setdefault(feedback(guess, s), []).append(s)
    node.children = {k: first_candidate_tree(v) for k, v in parts.items()}
    return node


def per_level(tree: dict, depth: int, level: int = 1, counts=None) -> dict[int, int]:
    """Nodes per level 1..depth, counted on the tree's JSON form."""
    counts = {} if counts is None else counts
    counts[level] = counts.get(level, 0) + 1
    if level < depth:
        for child in tree["children"].values():
            per_level(child, depth, level + 1, counts)
    return counts


def drawn(svg: str) -> list[ET.Element]:
    root = ET.fromstring(svg)  # raises on malformed XML
    assert root.tag == f"{SVG}svg"
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "node"]


@pytest.mark.parametrize("depth", [1, 2, 3, 10])
def test_svg_holds_the_nodes_of_the_chosen_levels(depth):
    tree = first_candidate_tree(WORDS)
    nodes = drawn(tree_svg(tree, depth))
    expected = per_level(json.loads(json.dumps(_as_json(tree))), depth)
    assert len(nodes) == sum(expected.values())
    assert {lv: sum(g.get("data-level") == str(lv) for g in nodes) for lv in expected} == expected
    assert nodes[0].get("data-guess") == "batch" and nodes[0].get("data-level") == "1"
    if depth >= 7:
        assert max(expected) == 7  # the whole tree is drawn once the depth reaches it


def _as_json(tree: Tree) -> dict:
    return {"guess": tree.guess, "children": {k: _as_json(c) for k, c in tree.children.items()}}


def test_svg_escapes_symbols_and_refuses_depth_zero():
    tree = Tree("1<2&3", 2, {"2B1W": Tree("3>2'1", 1)})
    nodes = drawn(tree_svg(tree, 2))
    assert [g.get("data-guess") for g in nodes] == ["1<2&3", "3>2'1"]
    with pytest.raises(ValueError):
        tree_svg(tree, 0)


@pytest.fixture
def word_game(word_list_game):
    return word_list_game(WORDS)


@pytest.mark.parametrize("stage, depth", [("upper_bound", None), ("upper_bound", 3), ("exact", 1), ("exact", 4)])
def test_stages_draw_the_svg_beside_each_tree_json_to_the_chosen_depth(run_pipeline, word_game, stage, depth):
    artifact = run_pipeline(f"stage={stage}", *word_game, *([] if depth is None else [f"stage.tree_depth={depth}"]))
    name = "tree" if stage == "upper_bound" else next(artifact.path.glob("tree-*.json")).stem
    body = json.loads(artifact.file(f"{name}.json").read_text())
    nodes = drawn(artifact.file(f"{name}.svg").read_text())
    assert nodes[0].get("data-guess") == body["tree"]["guess"]
    assert len(nodes) == sum(per_level(body["tree"], depth or 2).values())
    assert max(int(g.get("data-level")) for g in nodes) == min(depth or 2, body["max_guesses"])
    assert from_json(body["tree"]).candidates == len(WORDS)


@pytest.mark.parametrize("stage", ["upper_bound", "exact", "leaderboard", "prove"])
def test_stages_refuse_tree_depth_zero(run_pipeline, word_game, stage):
    with pytest.raises(PipelineError, match="stage.tree_depth must be at least 1"):
        run_pipeline(f"stage={stage}", *word_game, "stage.tree_depth=0")
