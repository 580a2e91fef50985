"""The tree explorer pages (pipeline/artifacts/tree_explorer.py) and how stage=catalogue writes one per row: the
data a page embeds, replayed secret by secret against the tree's own totals; the drawing each game gets; literal
text whatever the files hold; nothing fetched.  The committed proofs (catalogue/) are the trees.  The pages in a
real browser: tests/test_catalogue_page.py."""

import base64
import gzip
import hashlib
import json
import re

import pytest

from pipeline import PipelineError
from pipeline.artifacts.catalogue import gather, shown_tree
from pipeline.artifacts.tree_explorer import (CHILDREN, GUESS, SIZE, STYLES, TOTAL, drawing_style, embedded_json,
                                              explorer_data, explorer_page)
from pipeline.games.answer import Answering
from pipeline.search.tree import Tree, from_json, paths, statistics
from pipeline.runtime.store import ArtifactStore
from tests.helpers.proof_folders import committed_proofs

DATA = re.compile(r'<script type="application/json" id="tree-data">(.*?)</script>', re.S)
SCRIPT = re.compile(r"<script>(.*?)</script>", re.S)
PROOFS = {"mini_nerdle-normal-g6.tar.gz": ("wordle", "nerdle"),  # archive: (answering function, drawing)
          "mastermind-normal-unlimited.tar.gz": ("mastermind", "mastermind"),
          "wordle_original-hard-g6.tar.gz": ("wordle", "wordle")}


@pytest.fixture(scope="module")
def proofs(tmp_path_factory) -> dict:
    """The committed proofs of PROOFS unpacked into one store: archive name -> its artifact."""
    return committed_proofs(tmp_path_factory.mktemp("committed") / "outputs", *PROOFS)


def embedded(page: str) -> dict:
    return json.loads(DATA.search(page).group(1))


def replayed(data: dict, answer: str, secrets) -> dict:
    """Every secret replayed through the embedded nodes by the answering function (not the tree's keys): id of a
    node -> (secrets reaching it, guesses they need from it on); and that each ends at a node playing it."""
    answering, reached = Answering(answer, len(data["root"][GUESS])), {}
    for secret in secrets:
        route, node = [], data["root"]
        while True:
            route.append(node)
            if node[GUESS] == secret:
                break
            response = answering.response(node[GUESS], secret)
            node = next(child for key, child in node[CHILDREN] if key == response)
        for depth, on_route in enumerate(route):
            size, total = reached.get(id(on_route), (0, 0))
            reached[id(on_route)] = (size + 1, total + len(route) - depth)
    return reached


def walk(node: list):
    yield node
    for _, child in node[CHILDREN]:
        yield from walk(child)


@pytest.mark.parametrize("archive_name", PROOFS)
def test_every_class_size_and_subtree_total_is_what_its_secrets_need(proofs, archive_name):
    answer, style = PROOFS[archive_name]
    folder = proofs[archive_name]
    body = json.loads(folder.file("tree.json").read_text())
    certificate = json.loads(folder.file("certificate.json").read_text())
    tree = from_json(body["tree"])
    data = explorer_data(tree, style)
    assert data["root"][TOTAL] == statistics(tree)["total"] == body["total"] == certificate["ub"]
    assert data["root"][SIZE] == certificate["n_secrets"]
    secrets = list(paths(tree))
    reached = replayed(data, answer, secrets)
    nodes = list(walk(data["root"]))
    assert len(nodes) == len(list(tree.nodes())) and len(reached) == len(nodes)  # no node no secret reaches
    for node in nodes:
        assert (node[SIZE], node[TOTAL]) == reached[id(node)], node[GUESS]
        assert node[TOTAL] == node[SIZE] + sum(child[TOTAL] for _, child in node[CHILDREN])
        sizes = [child[SIZE] for _, child in node[CHILDREN]]
        assert sizes == sorted(sizes, reverse=True)  # largest class first
    assert data["win"] == Answering(answer, len(tree.guess)).response(secrets[0], secrets[0])
    assert data["style"] == style


def test_each_game_is_drawn_its_own_way():
    assert drawing_style("wordle", "lists") == drawing_style("wordle", "primes") == "wordle"
    assert drawing_style("wordle", "nerdle") == "nerdle"
    assert drawing_style("mastermind", "mastermind") == "mastermind"
    assert drawing_style("bulls_and_cows", "bulls_and_cows") == "bulls_and_cows"
    assert explorer_data(Tree("1234", 1), "bulls_and_cows")["win"] == "4B0C"
    with pytest.raises(ValueError, match="unknown drawing style"):
        explorer_page(Tree("abc", 1), "chess", "heading", [])
    assert set(STYLES) == {"wordle", "nerdle", "mastermind", "bulls_and_cows"}


HOSTILE = "</script><script>window.pwned=1</script>"


def hostile_tree() -> Tree:
    return Tree("<!--", 3, {"12": Tree(HOSTILE, 1), "01": Tree("a&b\u2028>", 1)})


def test_words_and_names_from_files_stay_literal_text():
    page = explorer_page(hostile_tree(), "wordle", f"<img src=x onerror=alert(1)>{HOSTILE}", [HOSTILE, "a & b"])
    data = DATA.search(page).group(1)
    assert not set(data) & set("<>&") and "\u2028" not in data  # JSON escapes: nothing to end the element
    assert json.loads(data) == explorer_data(hostile_tree(), "wordle")
    assert json.loads(embedded_json({"w": HOSTILE}))["w"] == HOSTILE
    assert "<title>&lt;img src=x onerror=alert(1)&gt;&lt;/script&gt;" in page
    assert "<li>&lt;/script&gt;&lt;script&gt;window.pwned=1&lt;/script&gt;</li><li>a &amp; b</li>" in page
    assert page.count("<script") == 2 and page.count("</script>") == 2  # the data and the page's own script


def test_the_page_fetches_nothing_and_runs_only_its_own_script():
    page = explorer_page(hostile_tree(), "nerdle", "heading", [])
    policy = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">', page).group(1)
    [script] = SCRIPT.findall(page)
    digest = base64.b64encode(hashlib.sha256(script.encode()).digest()).decode()
    assert policy == f"default-src 'none'; style-src 'unsafe-inline'; script-src 'sha256-{digest}'"
    assert not re.search(r"\b(src|href|action)=|https?://|@import|url\(", page.replace(policy, ""))
    assert "innerHTML" not in script and "eval(" not in script  # words reach the page as textContent only


# ---- stage=catalogue ------------------------------------------------------------------------------------------


def test_the_catalogue_writes_each_rows_explorer_and_links_it(outputs, run_pipeline):
    folders = committed_proofs(outputs, *PROOFS, "mastermind-normal-g4.tar.gz")
    artifact = run_pipeline("stage=catalogue", "stage.committed=null")
    body = json.loads(artifact.file("catalogue.json").read_text())
    rows = {(r["game"], r["mode"], r["guess_limit"]): r["shown"] for r in body["rows"]}
    assert rows[("mastermind", "normal", 4)]["explorer_path"] is None  # infeasible: no tree
    drawn = {}
    for archive_name, (_, style) in PROOFS.items():
        folder = folders[archive_name]
        [entry] = [e for e in rows.values() if e["folder"] == f"prove/{folder.key}"]
        tree_bytes = folder.file("tree.json").read_bytes()
        assert (entry["tree_file"], entry["tree_sha256"]) == ("tree.json", hashlib.sha256(tree_bytes).hexdigest())
        page = artifact.file(entry["explorer_path"]).read_text()
        assert embedded(page) == explorer_data(from_json(json.loads(tree_bytes)["tree"]), style)
        assert f"optimum (total): {entry['optimum']} over" in page and "not verified here: no verification record" \
            in page
        assert f'href="{entry["explorer_path"]}"' in artifact.file("index.html").read_text()
        assert f"[explore the tree]({entry['explorer_path']})" in artifact.file("catalogue.md").read_text()
        drawn[archive_name] = entry["drawn_as"]
    assert drawn == {name: style for name, (_, style) in PROOFS.items()}
    assert artifact.manifest["summary"]["explorers"] == 3
    assert sorted(p.name for p in artifact.path.glob("explore-*.html")) == sorted(
        e["explorer_path"] for e in rows.values() if e["explorer_path"])
    assert rows[("mini_nerdle", "normal", 6)]["explorer_path"].startswith("explore-mini_nerdle-normal-g6-")


def test_a_folder_without_its_stored_game_is_drawn_by_its_trees_answer(outputs):
    for folder in committed_proofs(outputs, "mastermind-normal-unlimited.tar.gz",
                                   "mini_nerdle-normal-g6.tar.gz").values():
        folder.file("game.json.gz").unlink()
    drawn = {r["game"]: r["shown"]["drawn_as"] for r in gather(ArtifactStore(outputs))["rows"]}
    assert drawn == {"mastermind": "mastermind", "mini_nerdle": "wordle"}  # Nerdle's source is stored there only


@pytest.mark.parametrize("damage, problem", [
    ("game.json.gz", "game.json.gz is damaged"),
    ("tree.json", "tree.json holds no strategy tree"),
])
def test_a_damaged_stored_game_or_tree_is_listed_unreadable(outputs, damage, problem):
    [folder] = committed_proofs(outputs, "mini_nerdle-normal-g6.tar.gz").values()
    if damage == "game.json.gz":
        folder.file(damage).write_bytes(gzip.compress(b'{"game": "not an object"}'))
    else:
        body = json.loads(folder.file(damage).read_text())
        folder.file(damage).write_text(json.dumps({**body, "tree": {"guess": "1+9=10", "children": []}}))
    catalogue = gather(ArtifactStore(outputs))
    assert catalogue["rows"] == []
    [unreadable] = catalogue["unreadable"]
    assert unreadable["problem"].startswith(problem), unreadable


def test_a_tree_changed_after_it_was_catalogued_is_refused(outputs):
    [folder] = committed_proofs(outputs, "mini_nerdle-normal-g6.tar.gz").values()
    store = ArtifactStore(outputs)
    [row] = gather(store)["rows"]
    assert shown_tree(store, row["shown"]).candidates == row["secrets"]
    folder.file("tree.json").write_text(folder.file("tree.json").read_text() + " ")
    with pytest.raises(PipelineError, match="changed while the catalogue was written"):
        shown_tree(store, row["shown"])
