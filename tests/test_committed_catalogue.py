"""The proofs committed under catalogue/: every archive is a bundle the checker reads with its own code, named
after its game, mode and guess limit, listed once in catalogue/README.md's table with the optimum its
certificate proves; the small ones (Mini Nerdle, Mastermind) are re-checked in full from the folder."""

import hashlib
import json
import re
from pathlib import Path

import pytest

from pipeline.proofs.certificates import record
from pipeline.proofs.files import archive
from tests.test_bad_input import fresh_console, run_main  # noqa: F401 (fresh_console: autouse)

FOLDER = Path(__file__).resolve().parent.parent / "catalogue"
ARCHIVES = sorted(FOLDER.glob("*.tar.gz"))
MAX_FOLDER_BYTES = 50 * 2**20
ROW = re.compile(r"^\| \[(?P<file>[^\]]+\.tar\.gz)\]\([^)]+\) \| (?P<optimum>\d+|none) \|")  # none: infeasible


def contents(path: Path) -> tuple[dict, dict]:
    """(INDEX.json, certificate.json) of one archive, unpacked by the checker's reader."""
    with archive.unpacked(path) as top:
        return (json.loads((top / archive.INDEX).read_text()), json.loads((top / "certificate.json").read_text()))


def expected_name(index: dict) -> str:
    game = index["game"]
    mode = "hard" if game["hard_mode"] else "normal"
    limit = "unlimited" if game["max_guesses"] is None else f"g{game['max_guesses']}"
    return f"{game['name']}-{mode}-{limit}.tar.gz"


def table_rows() -> dict[str, int]:
    """catalogue/README.md's rows: archive file name -> the optimum the row states (None: no strategy within the
    limit)."""
    rows = {}
    for line in (FOLDER / "README.md").read_text().splitlines():
        match = ROW.match(line)
        if match:
            assert match["file"] not in rows, f"{match['file']} has two rows"
            rows[match["file"]] = None if match["optimum"] == "none" else int(match["optimum"])
    return rows


def test_the_folder_is_small_and_holds_the_small_proofs():
    assert sum(path.stat().st_size for path in FOLDER.iterdir()) < MAX_FOLDER_BYTES
    names = {path.name for path in ARCHIVES}
    assert {"mini_nerdle-normal-g6.tar.gz", "mastermind-normal-unlimited.tar.gz"} <= names


@pytest.mark.parametrize("path", ARCHIVES, ids=lambda p: p.name)
def test_each_archive_is_named_for_its_game_and_listed_with_its_proven_optimum(path):
    index, certificate = contents(path)
    assert index["stage"] == "prove" and path.name == expected_name(index)
    assert certificate["proven"] is True
    if certificate.get("kind") == "infeasible":
        assert certificate["feasible"] is False and table_rows()[path.name] is None
    else:
        assert table_rows().get(path.name) == certificate["ub"]


def test_every_row_of_the_table_has_its_archive():
    assert set(table_rows()) == {path.name for path in ARCHIVES}


@pytest.mark.parametrize("name, verdict", [
    pytest.param("mini_nerdle-normal-g6.tar.gz", "MinTotal = 544 for mini_nerdle (normal mode, at most 6 guesses)",
                 marks=pytest.mark.slow),
    pytest.param("mastermind-normal-unlimited.tar.gz", "MinTotal = 5625 for mastermind (4 pegs, 6 colours) (normal "
                 "mode, no guess limit)", marks=pytest.mark.slow),
    ("mastermind-normal-g4.tar.gz", "no strategy finds every secret within 4 guesses for mastermind (4 pegs, 6 "
                                    "colours) (normal mode)"),
])
@pytest.mark.slow
def test_a_small_committed_proof_verifies_in_full_from_the_folder(name, verdict, capsys):
    """Checked here from the archive, named as the checker names its lists (a shipped game's pinned lists, or
    Mastermind's every code of its size), and recorded in this machine's config folder under the archive's
    sha256: an archive carries no verification record, so a committed proof is "verified" only by the check a
    reader runs on their own machine (stage=catalogue reads that record: tests/test_catalogue_committed.py)."""
    code, out, err = run_main(["verify-certificate", str(FOLDER / name)], capsys)
    assert code == 0, err
    assert out.startswith(f"ok: certificate verified — {verdict}"), out
    sha256 = hashlib.sha256((FOLDER / name).read_bytes()).hexdigest()
    assert f"recorded: {record.archive_record_path(sha256)} (a complete check)" in out
    assert record.archive_status(FOLDER / name, sha256).verified
