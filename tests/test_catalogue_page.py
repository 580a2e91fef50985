"""The catalogue's pages in a real headless browser: Debian's Chromium (`make browser` installs it; CI runs that
first) renders index.html, its DOM holds the rows, values and links the code computed, every link opens a file,
and a screenshot of the page is written; a row's tree explorer, reached by its link, opens a class and finds a
secret's path as the code computes them, and runs no script a word from a file holds.  Where no chromium is
installed the tests skip, saying so."""

import json
import shutil
import struct
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from pipeline.artifacts.catalogue_page import LINKS, SHA, STATE, cells, links
from pipeline.artifacts.tree_explorer import CHILDREN, SIZE, TOTAL, explorer_data
from pipeline.games.answer import Answering
from pipeline.proofs.certificates import record
from pipeline.search.tree import from_json, paths
from test_catalogue import certificate, copied, edited_copy
from tests.helpers.chromium import DevTools, headless, needs_chromium
from tests.helpers.proof_folders import committed_proofs

WINDOW = (1600, 700)
pytestmark = needs_chromium


class Table(HTMLParser):
    """The rendered DOM's result rows: each row's cell texts and each cell's link targets."""

    def __init__(self):
        super().__init__()
        self.rows, self.hrefs, self.titles, self.cell = [], [], [], None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "tr" and "data-game" in attrs:
            self.rows.append([])
            self.hrefs.append([])
        elif tag == "td" and self.rows:
            self.cell = ""
            if "title" in attrs:
                self.titles.append(attrs["title"])
        elif tag == "a" and self.cell is not None:
            self.hrefs[-1].append(attrs["href"])

    def handle_data(self, data):
        if self.cell is not None:
            self.cell += data

    def handle_endtag(self, tag):
        if tag == "td" and self.cell is not None:
            self.rows[-1].append(self.cell)
            self.cell = None


def png_size(path: Path) -> tuple[int, int]:
    data = path.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    return struct.unpack(">II", data[16:24])


def dom_cells(row: dict) -> list[str]:
    """The texts the page's cells of `row` should show: the code's cells, the sha256 cut to 16 characters (the
    whole in the cell's title), the links by their labels."""
    shown = cells(row, 5)
    shown[SHA] = shown[SHA][:16] + "…"
    shown[LINKS] = " ".join(label for label, _ in links(row["shown"]))
    return shown


@pytest.mark.slow
def test_the_page_renders_the_catalogue_in_chromium(mini_nerdle_store, outputs, run_pipeline, tmp_path):
    store = copied(mini_nerdle_store, outputs, "prove", "leaderboard")
    proof = store.finished("prove")[-1]
    # the record a complete verify-certificate writes (the check itself: tests/test_proofs_checker.py)
    record.write_record(proof.path, certificate(proof), complete=True, summary={})
    edited_copy(proof, "hard", hard_mode=True)  # its copied record no longer matches the certificate
    (edited_copy(proof, "damaged") / "certificate.json").write_text("not json")
    artifact = run_pipeline("stage=catalogue", "stage.committed=null")
    body = json.loads(artifact.file("catalogue.json").read_text())
    page = f"file://{artifact.file('index.html')}"

    dom, rendered = Table(), headless(tmp_path / "profile", "--dump-dom", page)
    dom.feed(rendered)
    assert [r["mode"] for r in body["rows"]] == ["normal", "hard"]
    assert [[c.strip() for c in row] for row in dom.rows] == [dom_cells(r) for r in body["rows"]]
    assert dom.titles == [r["shown"]["certificate_sha256"] for r in body["rows"]]
    assert dom.rows[0][3] == str(json.loads(proof.file("certificate.json").read_text())["ub"])
    assert dom.rows[0][STATE].startswith(f"verified here by checker version {record.CHECKER_VERSION}")
    assert dom.rows[1][STATE] == "not verified here: its files changed since they were checked (certificate.json)"
    assert dom.hrefs == [[target for _, target in links(r["shown"])] for r in body["rows"]]
    assert all((artifact.path / unquote(href)).resolve().is_file() for row in dom.hrefs for href in row)
    assert "<code>prove/damaged</code>: certificate.json is damaged" in rendered

    shot = tmp_path / "catalogue.png"
    headless(tmp_path / "profile", f"--screenshot={shot}", f"--window-size={WINDOW[0]},{WINDOW[1]}",
             "--hide-scrollbars", page)
    assert png_size(shot) == WINDOW


HOSTILE = "</script><script>window.pwned=1</script>"  # a word of a tree file anyone can edit
CLASSES = "#tree > ul > li.class"  # the opener's classes


def hostile_copy(folder: Path) -> str:
    """A copy of a proof folder beside it whose game is named, and one of whose secrets is spelled, as markup
    that would run a script; the secret's new spelling."""
    copy = Path(shutil.copytree(folder, folder.with_name("hostile")))
    cert = json.loads((copy / "certificate.json").read_text())
    (copy / "certificate.json").write_text(json.dumps({**cert, "game": f"<img src=x onerror=pwned=2>{HOSTILE}"}))
    body = json.loads((copy / "tree.json").read_text())
    node = body["tree"]
    while node["children"]:
        node = next(iter(node["children"].values()))
    node["guess"] = HOSTILE
    (copy / "tree.json").write_text(json.dumps(body))
    return HOSTILE


def explorer_state(browser: DevTools, session: str) -> dict:
    """What the explorer page shows: the opener's classes, the open ones' classes, the path found."""
    return browser.evaluate(session, """(() => {
        const classes = (ul) => [...ul.children].filter((li) => li.matches("li.class"))
            .map((li) => [li.dataset.response, Number(li.dataset.size), Number(li.dataset.total)]);
        return {opener: classes(document.querySelector("#tree > ul")),
                open: [...document.querySelectorAll("li.class.open")].map((li) => classes(li.querySelector("ul"))),
                path: [...document.querySelectorAll("#path li.step")].map((li) => [li.dataset.guess,
                                                                                     li.dataset.response]),
                said: document.getElementById("path").textContent,
                onPath: document.querySelectorAll(".on-path").length}; })()""")


def shown_classes(node: list) -> list:
    return [[response, child[SIZE], child[TOTAL]] for response, child in node[CHILDREN]]


@pytest.mark.slow
def test_the_explorer_opens_a_class_and_finds_a_secrets_path_in_chromium(outputs, run_pipeline, tmp_path):
    folders = committed_proofs(outputs, "mini_nerdle-normal-g6.tar.gz", "mastermind-normal-unlimited.tar.gz")
    nerdle = folders["mini_nerdle-normal-g6.tar.gz"]
    tree = from_json(json.loads(nerdle.file("tree.json").read_text())["tree"])
    data, routes = explorer_data(tree, "nerdle"), paths(tree)
    secret = max(sorted(routes), key=lambda s: len(routes[s]))  # the first of the longest paths
    hostile = hostile_copy(nerdle.path)
    artifact = run_pipeline("stage=catalogue", "stage.committed=null")
    shown = {row["game"]: row["shown"] for row in json.loads(artifact.file("catalogue.json").read_text())["rows"]}

    with DevTools(tmp_path / "profile") as browser:
        session = browser.open(artifact.file("index.html").as_uri())
        browser.click(session, 'tr[data-game="mini_nerdle"] a[href^="explore-"]')  # the row's link
        browser.wait_for("Page.loadEventFired", session)
        assert browser.evaluate(session, "location.pathname").endswith("/" + shown["mini_nerdle"]["explorer_path"])
        start = explorer_state(browser, session)
        assert start["opener"] == shown_classes(data["root"]) and start["open"] == []

        response, child = next((r, c) for r, c in data["root"][CHILDREN] if c[CHILDREN])  # the largest to open
        browser.click(session, f'{CLASSES}[data-response="{response}"] > button.head')
        assert explorer_state(browser, session)["open"] == [shown_classes(child)]

        browser.type(session, "#secret", secret)
        found = explorer_state(browser, session)
        answering = Answering("wordle", len(secret))
        assert found["path"] == [[guess, answering.response(guess, secret)] for guess in routes[secret]]
        assert found["said"].startswith(f"{secret}: found with guess {len(routes[secret])}.")
        assert found["onPath"] == len(routes[secret]) - 1  # its classes, opened down to the one that finds it
        browser.evaluate(session, "document.getElementById('secret').value = ''")
        assert "1+1=11" not in routes
        browser.type(session, "#secret", "1+1=11")
        assert explorer_state(browser, session)["said"] == "\u201c1+1=11\u201d is not a secret of this tree."

        browser.call("Page.navigate", session, url=artifact.file(shown["mastermind"]["explorer_path"]).as_uri())
        browser.wait_for("Page.loadEventFired", session)
        browser.type(session, "#secret", "6543")
        pegs = browser.evaluate(session, """[...document.querySelectorAll("#path li.step")].map((li) =>
            [li.dataset.response, li.querySelectorAll(".key.black").length, li.querySelectorAll(".key.white")
             .length, li.querySelectorAll(".peg").length])""")
        assert pegs and all(response == f"{black}B{white}W" and drawn == 4 for response, black, white, drawn in pegs)
        assert pegs[-1] == ["4B0W", 4, 0, 4]

        [name] = [game for game in shown if game.startswith("<img")]
        browser.call("Page.navigate", session, url=artifact.file(shown[name]["explorer_path"]).as_uri())
        browser.wait_for("Page.loadEventFired", session)
        browser.type(session, "#secret", hostile)
        assert browser.evaluate(session, "typeof window.pwned") == "undefined"
        assert browser.evaluate(session, "document.title") == f"{name}: normal mode, at most 6 guesses"
        assert browser.evaluate(session, "document.scripts.length") == 2  # the data and the page's own script
        assert explorer_state(browser, session)["path"][-1] == [hostile, data["win"]]
