"""The drawn strategy tree (Figure 2): well-formed SVG, the root guess, and exactly the nodes of the chosen levels."""

import json
import xml.etree.ElementTree as ET

import pytest

from pipeline.artifacts.tree_svg import tree_svg
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


def test_upper_bound_writes_the_svg_beside_tree_json(run_pipeline, word_game):
    artifact = run_pipeline("stage=upper_bound", *word_game)
    body = json.loads(artifact.file("tree.json").read_text())
    nodes = drawn(artifact.file("tree.svg").read_text())
    assert nodes[0].get("data-guess") == body["tree"]["guess"]
    assert len(nodes) == sum(per_level(body["tree"], 2).values())
    assert from_json(body["tree"]).candidates == len(WORDS)
