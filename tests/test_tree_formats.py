"""Tree files in the forms people exchange (pipeline/formats/trees.py): Selby's tree text, tree.json and
tree.txt, written by `export-tree` and read wherever a tree is read (verify-tree, solve --tree), round trips that
give back the identical tree and its total, malformed files refused in one error line; and the readable Figure 2
(children by class size, a "+N more" box, wrapped rows, a legend)."""

import json
import xml.etree.ElementTree as ET

import pytest

from pipeline.formats.trees import FormatError, from_olson, from_selby, sniff, to_olson, to_selby
from pipeline.artifacts.tree_svg import shown_tree, tree_svg
from pipeline.search.tree import Tree, from_json, statistics, to_json, to_text, verify
from test_bad_input import assert_one_error, fresh_console, run_main  # noqa: F401 (in-process CLI, log reset)

WORDS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]
SVG = "{http://www.w3.org/2000/svg}"


def split_tree(game, opener: str, candidates: list[str]) -> Tree:
    """`opener`, then in every class its first candidate: a strategy of any game whose secrets are guesses."""
    node = Tree(opener, len(candidates))
    parts: dict[str, list[str]] = {}
    for secret in candidates:
        if secret != opener:
            parts.setdefault(game.answering.response(opener, secret), []).append(secret)
    node.children = {k: split_tree(game, v[0], v) for k, v in parts.items()}
    return node


@pytest.fixture(scope="module")
def mini_tree(mini_nerdle):
    return split_tree(mini_nerdle, "4*7=28", list(mini_nerdle.secrets))


def body_of(tree: Tree, game) -> dict:
    from pipeline.artifacts.trees import tree_body

    return tree_body(tree, game)


def test_selby_text_has_the_solvers_line_form_and_reads_back():
    """Hand-checked lines: hollow starts, responses in B, G, Y order with the guess count, the win last on its
    line; the secret found by the opener is the opener's all-green line."""
    tree = Tree("salet", 4, {"00000": Tree("crony", 2, {"02000": Tree("doing", 1)}),
                             "20000": Tree("sumac", 1)})
    text = to_selby(to_json(tree))
    assert text.splitlines() == ["salet BBBBB1 crony BGBBB2 doing GGGGG3",
                                 "                   GGGGG2",
                                 "      GBBBB1 sumac GGGGG2",
                                 "      GGGGG1"]
    assert sniff(text) == "selby" and from_json(from_selby(text)) == tree
    full = ("salet BBBBB1 crony BGBBB2 doing GGGGG3\nsalet BBBBB1 crony GGGGG2\nsalet GBBBB1 sumac GGGGG2\n"
            "salet GGGGG1\n")
    assert from_json(from_selby(full)) == tree  # fully written lines (the solver's -Sf style) read the same


def test_leaderboard_json_nests_maps_and_ends_in_words_and_reads_back():
    """Hand-checked: digits 0/1/2 per letter, a node that only wins is its bare word, a guess that can be the
    secret is listed under the all-green response."""
    tree = Tree("salet", 4, {"00000": Tree("crony", 2, {"02000": Tree("doing", 1)}),
                             "20000": Tree("sumac", 1)})
    text = to_olson(to_json(tree))
    assert json.loads(text) == {"guess": "salet", "map": {
        "00000": {"guess": "crony", "map": {"02000": "doing", "22222": "crony"}}, "20000": "sumac", "22222": "salet"}}
    assert sniff(text) == "olson" and from_json(from_olson(text)) == tree
    assert from_json(from_olson('"abbey"')) == Tree("abbey", 1)


@pytest.mark.parametrize("text, why", [
    ('{"guess": "salet", "map": {"0000x": "crony"}}', "is not colour digits"),
    ('{"guess": "salet", "map": {"00000": 7}}', "a node is a word or"),
    ('{"guess": "salet", "map": {}}', "no routes"),
])
def test_malformed_leaderboard_json_says_where(text, why):
    with pytest.raises(FormatError, match=why):
        from_olson(text)


@pytest.mark.parametrize("text, why", [
    ("salet BBBBB1 crony GGGGG3\n", "not a response after guess 2"),
    ("salet BBBBB1 crony\n", "guess and response pairs"),
    ("salet GGGGG1 crony GGGGG2\n", "all-green response, and only there"),
    ("salet BBBB1 crony GGGGG2\n", "has 4 letters"),
    ("salet BBBBB1 crony GGGGG2\nsalet BBBBB1 doing GGGGG2\n", "where another line plays 'crony'"),
    ("IMPOSSIBLE\n", "found no strategy"),
])
def test_malformed_selby_text_says_where(text, why):
    with pytest.raises(FormatError, match=why):
        from_selby(text)


def test_selby_refuses_responses_that_are_not_colours():
    with pytest.raises(FormatError, match="colour responses"):
        to_selby(to_json(Tree("1234", 2, {"0B1W": Tree("2143", 1)})))


@pytest.mark.slow
@pytest.mark.parametrize("form", ["selby", "olson", "json", "text"])
def test_mini_nerdle_round_trip_through_every_form(tmp_path, capsys, mini_nerdle, mini_tree, form):
    """export-tree → file → verify-tree and the loader: the identical tree, and the total the replay gives."""
    from pipeline.artifacts.trees import load_tree

    total = verify(mini_tree, mini_nerdle.guesses, mini_nerdle.secrets, mini_nerdle.answering.response)
    source = tmp_path / "tree.json"
    source.write_text(json.dumps(body_of(mini_tree, mini_nerdle)))
    out = tmp_path / f"tree.{form}"
    code, said, err = run_main(["export-tree", str(source), "--format", form, "--out", str(out)], capsys)
    assert code == 0, err
    assert said.strip() == f"wrote {out}: the {form} tree of 4*7=28 for mini_nerdle, total {total}"
    loaded = load_tree(out, mini_nerdle)
    assert loaded.tree == mini_tree and loaded.total == total == statistics(mini_tree)["total"]
    code, said, err = run_main(["verify-tree", str(out), "game=mini_nerdle"], capsys)
    assert code == 0, err
    assert said.startswith(f"ok: every secret found; total {total},")


def test_words_game_round_trip_from_a_stage_tree(tmp_path, capsys, run_pipeline, word_list_game):
    """A real upper_bound tree of a small word list: its tree.txt and its Selby export verify to the total the
    stage recorded, and the Selby text read back is the stage's tree."""
    game = word_list_game(WORDS)
    artifact = run_pipeline("stage=upper_bound", *game, "ray.executor=local", f"paths.outputs={tmp_path / 'out'}")
    body = json.loads(artifact.file("tree.json").read_text())
    selby = tmp_path / "tree.selby"
    code, said, err = run_main(["export-tree", str(artifact.file("tree.json")), *game, "--format", "selby",
                                "--out", str(selby)], capsys)
    assert code == 0, err
    assert from_json(from_selby(selby.read_text())) == from_json(body["tree"])
    for path in (artifact.file("tree.txt"), selby):
        code, said, err = run_main(["verify-tree", str(path), *game], capsys)
        assert code == 0, err
        assert said.startswith(f"ok: every secret found; total {body['total']},")


def test_export_to_stdout_defaults_to_the_game_the_file_records(tmp_path, capsys, mini_nerdle, mini_tree):
    source = tmp_path / "tree.json"
    source.write_text(json.dumps(body_of(mini_tree, mini_nerdle)))
    code, said, err = run_main(["export-tree", str(source), "--format", "text"], capsys)
    assert code == 0, err
    assert said == to_text(mini_tree) and len(said.splitlines()) == len(mini_nerdle.secrets)


def test_solve_plays_a_selby_tree(tmp_path, capsys, mini_nerdle, mini_tree):
    path = tmp_path / "mini.selby"
    path.write_text(to_selby(to_json(mini_tree)))
    code, said, err = run_main(["solve", "game=mini_nerdle", "--tree", str(path), "--secret", "28/7=4"], capsys)
    assert code == 0, err
    rows = [line for line in said.splitlines() if not line.startswith(("suggestions", "solved"))]
    route = []
    node = mini_tree
    while True:
        route.append(node.guess)
        if node.guess == "28/7=4":
            break
        node = node.children[mini_nerdle.answering.response(node.guess, "28/7=4")]
    assert len(rows) == len(route) and said.strip().endswith(f"solved in {len(route)} guesses")


@pytest.mark.parametrize("content, command", [
    ("salet BBBBB1 crony\n", "verify-tree"), ("salet BBBBB1 crony\n", "solve"), ("{not json", "verify-tree"),
    ("4*7=28 BBBGBB1 6+9=15 GGGGGG3\n", "export-tree"), ("", "verify-tree"),
])
def test_malformed_tree_files_give_one_error_line(tmp_path, capsys, content, command):
    path = tmp_path / "bad.tree"
    path.write_text(content)
    args = {"verify-tree": [str(path)], "export-tree": [str(path), "--format", "json"],
            "solve": ["--tree", str(path), "--secret", "28/7=4"]}[command]
    code, _, err = run_main([command, *args, "game=mini_nerdle"], capsys)
    assert_one_error(code, err, "bad.tree")


def test_a_text_tree_of_other_lists_is_refused(tmp_path, capsys, mini_nerdle, mini_tree):
    path = tmp_path / "tree.txt"
    path.write_text(to_text(mini_tree))
    code, _, err = run_main(["verify-tree", str(path), "game=midi_nerdle"], capsys)
    assert_one_error(code, err, "tree.txt")


# ---- Figure 2 ---------------------------------------------------------------------------------------------------


def boxes(svg: str, kind: str) -> list[ET.Element]:
    return [g for g in ET.fromstring(svg).iter(f"{SVG}g") if g.get("class") == kind]


def test_figure_caps_children_by_class_size_with_a_more_box(mini_nerdle, mini_tree):
    """Mini Nerdle's opener has more responses than the cap: the largest classes are drawn, largest first, and
    one "+N more" box holds the rest (classes and secrets add up)."""
    svg = tree_svg(mini_tree, 2, caps=(10, 4))
    second = [g for g in boxes(svg, "node") if g.get("data-level") == "2"]
    sizes = sorted((c.candidates for c in mini_tree.children.values()), reverse=True)
    assert [int(g.get("data-candidates")) for g in second] == sizes[:9]
    more = boxes(svg, "more")
    assert len(more) == 1 and int(more[0].get("data-hidden")) == len(mini_tree.children) - 9
    assert int(more[0].get("data-secrets")) == sum(sizes[9:])
    assert "+N more" in svg and "right place" in svg  # the legend explains the box and the colours


def test_figure_wraps_into_rows_with_a_sensible_aspect(mini_tree):
    """Depth 2 of a wide tree: rows of boxes, not one long row (the picture's width / height near 1.5)."""
    root = ET.fromstring(tree_svg(mini_tree, 2))
    width, height = float(root.get("width")), float(root.get("height"))
    assert 1 <= width / height <= 2.5
    rows = {g.find(f"{SVG}rect").get("y") for g in boxes(tree_svg(mini_tree, 2), "node") if g.get("data-level") == "2"}
    assert len(rows) > 1


def test_figure_of_a_small_tree_draws_every_child_without_a_more_box():
    tree = Tree("salet", 3, {"00000": Tree("crony", 1), "20000": Tree("sumac", 1)})
    shown = shown_tree(tree, 2)
    assert [b.node.guess for b in shown.children] == ["crony", "sumac"] and not boxes(tree_svg(tree, 2), "more")
