"""The catalogue's index.html in a real headless browser: Debian's Chromium (`make browser` installs it; CI runs
that first) renders the page, its DOM holds the rows, values and links the code computed, every link opens a
file, and a screenshot of the page is written.  Where no chromium is installed the test skips, saying so."""

import json
import shutil
import struct
import subprocess
from html.parser import HTMLParser
from pathlib import Path
from urllib.parse import unquote

import pytest

from pipeline.artifacts.catalogue_page import LINKS, SHA, STATE, cells, links
from pipeline.proofs.certificates import record
from test_catalogue import certificate, copied, edited_copy

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
WINDOW = (1600, 700)
pytestmark = pytest.mark.skipif(CHROMIUM is None, reason="no chromium on PATH: `make browser` installs Debian's "
                                                         "chromium package (as root), which this test drives")


def headless(profile: Path, *arguments: str) -> str:
    """Run headless Chromium (no sandbox: CI runs as root; no GPU; its profile in `profile`) and return its stdout."""
    done = subprocess.run([CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                           "--disable-extensions", f"--user-data-dir={profile}", *arguments],
                          capture_output=True, text=True, timeout=180)
    assert done.returncode == 0, done.stderr[-2000:]
    return done.stdout


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


def test_the_page_renders_the_catalogue_in_chromium(mini_nerdle_store, outputs, run_pipeline, tmp_path):
    store = copied(mini_nerdle_store, outputs, "prove", "leaderboard")
    proof = store.finished("prove")[-1]
    # the record a complete verify-certificate writes (the check itself: tests/test_proofs_checker.py)
    record.write_record(proof.path, certificate(proof), complete=True, summary={})
    edited_copy(proof, "hard", hard_mode=True)  # its copied record no longer matches the certificate
    (edited_copy(proof, "damaged") / "certificate.json").write_text("not json")
    artifact = run_pipeline("stage=catalogue")
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
