"""Hostile flags, overrides and files of issue 47, grouped by kind: each is one `error:` line, exit status 2, no
traceback, and nothing is run, read or written on its behalf (the file it would have written is checked to be
absent).  The harness is tests/test_bad_input.py's.

Kinds: 1. flags (only -m/--multirun and -h/--help); 2. overrides that would make Hydra load a config from
another folder, call something by name, resolve an interpolation or write outside the outputs folder; 3. sweeps
(sized before any point is made, capped, never empty); 4. damaged files read by bundle, verify-tree, data
verify and the checker's JSON reader; 5. names and inputs printed back (escaped, cut to a prefix).
"""

import gzip
import io
import json
import os
import pickle
import sys
import tarfile
import threading
from pathlib import Path

import pytest

from pipeline.config import CONF_DIR
from pipeline.errors import ECHO_CHARS, LINE_CHARS, PipelineError, echo, error_line, printable
from test_bad_input import MINI, assert_one_error, fresh_console, nothing_written, run_main  # noqa: F401 (autouse)


def run_refused(args, tmp_path, capsys, message, *absent: Path):
    """The stage run `args` (outputs under tmp_path) is one error line holding `message`; nothing is written under
    the outputs, and none of the paths `absent` exists."""
    outputs = tmp_path / "outputs"
    code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", "ray.executor=local", *args], capsys)
    assert_one_error(code, err, message)
    assert out == ""
    assert nothing_written(outputs), sorted(outputs.rglob("*"))
    for path in absent:
        assert not os.path.lexists(path), path
    return err


# ---- 4. damaged files: bundle, verify-tree, data verify, the checker's JSON reader --------------------------


@pytest.fixture(scope="module")
def mini_game():
    from pipeline.compose import builtin_game

    return builtin_game("mini_nerdle")


def bundle_folder(root: Path, game, **damage) -> Path:
    """A prove folder as bundle reads it (manifest.json, game.json.gz, certificate.json), with `damage`: manifest=
    a manifest change, stored= a function changing game.json.gz's body."""
    from pipeline.artifacts.stored_game import stored_game

    folder = root / "prove" / "k"
    folder.mkdir(parents=True)
    manifest = {"stage": "prove", "key": "k", "summary": {"ub": 544}, **damage.get("manifest", {})}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    body = damage.get("stored", lambda b: b)(stored_game(game, "prove", 1))
    (folder / "game.json.gz").write_bytes(gzip.compress(json.dumps(body).encode()))
    (folder / "certificate.json").write_text("{}")
    return folder


def without(section: str, empty=None):
    def change(body):
        if empty is None:
            del body[section]
        else:
            body[section] = empty
        return body
    return change


BUNDLE_DAMAGE = [
    ({"stored": without("game", {})}, "game.json.gz is damaged (its game section is missing or empty)"),
    ({"stored": without("lists", {})}, "game.json.gz is damaged (its lists section is missing or empty)"),
    ({"stored": without("versions")}, "game.json.gz is damaged (its versions section is missing or empty)"),
    ({"stored": without("game", [])}, "game.json.gz is damaged (its game section is missing or empty)"),
    ({"stored": lambda body: {**body, "lists": {**body["lists"], "secrets": []}}},
     "game.json.gz is damaged (its secrets list has no count and digest)"),
    ({"stored": lambda body: [body]}, "game.json.gz is damaged (a JSON list, not an object)"),
    ({"stored": lambda body: {**body, "game": {"name": "x"}}}, "game.json.gz is damaged (KeyError: 'max_guesses')"),
    ({"manifest": {"summary": ["ub", 544]}}, "manifest.json is damaged (its summary is a list, not an object)"),
    ({"manifest": {"summary": "544"}}, "manifest.json is damaged (its summary is a str, not an object)"),
]


@pytest.mark.parametrize("damage,message", BUNDLE_DAMAGE, ids=[m for _, m in BUNDLE_DAMAGE])
def test_bundle_of_a_damaged_folder_is_one_line(damage, message, mini_game, tmp_path, capsys):
    folder = bundle_folder(tmp_path, mini_game, **damage)
    code, out, err = run_main(["bundle", str(folder)], capsys)
    assert_one_error(code, err, f"{folder}/{message}; rerun its stage with stage.force=true")
    assert sorted(p.name for p in folder.parent.iterdir()) == ["k"]  # no archive, no temporary file


def test_bundle_of_the_intact_folder_is_written(mini_game, tmp_path):
    from pipeline.artifacts.bundle import write_bundle

    folder = bundle_folder(tmp_path, mini_game)
    out, index = write_bundle(folder)
    assert out == folder.with_name("k.tar.gz") and index["game"]["name"] == "mini_nerdle"
    with tarfile.open(out) as tar:
        readme = tar.extractfile("prove-k/README.txt").read().decode()
    assert "result: ub 544" in readme and "206 secrets" in readme


@pytest.fixture
def tree_file(tmp_path) -> tuple[Path, list[str]]:
    """A tree.json for a 10-word game and the overrides of that game."""
    from pipeline.artifacts.tree_formats import from_lines
    from pipeline.artifacts.trees import tree_body
    from pipeline.compose import compose_config
    from pipeline.games.answer import feedback
    from pipeline.games.catalog import load_game
    from pipeline.search.tree import from_json

    words = ["crane", "slate", "trace", "crate", "plane", "shine", "brick", "flute", "ghost", "react"]
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    overrides = ["game=words", f"game.secrets.path={tmp_path / 'words.txt'}"]
    game = load_game(compose_config(overrides, check=False).game)
    lines = "".join(f"crane,{w}\n" if w != "crane" else "crane\n" for w in words)
    tree = from_json(from_lines(lines, feedback))
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(tree_body(tree, game)))
    return path, overrides


@pytest.mark.parametrize("distribution", [{"1": "1", "2": "9"}, {"one": 1, "two": 9}, [1, 9], "1:1", {"1.5": 1}])
def test_verify_tree_of_a_tree_recording_a_garbled_distribution(distribution, tree_file, capsys):
    path, overrides = tree_file
    code, out, err = run_main(["verify-tree", str(path), *overrides], capsys)
    assert code == 0 and out.startswith("ok: every secret found; total 19"), err
    body = json.loads(path.read_text())
    assert body["distribution"] == {"1": 1, "2": 9}
    path.write_text(json.dumps({**body, "distribution": distribution}))
    code, out, err = run_main(["verify-tree", str(path), *overrides], capsys)
    assert_one_error(code, err, f"{path}: tree rejected: the file records distribution {distribution}, the replay "
                                "gives {1: 1, 2: 9}")


@pytest.fixture
def data_folder(tmp_path, monkeypatch) -> Path:
    """The shipped data folder replaced by one of one list (`data verify` checks it)."""
    from pipeline.games.digest import sorted_sha256

    folder = tmp_path / "data"
    (folder / "wordle").mkdir(parents=True)
    (folder / "wordle" / "a.txt").write_text("crane\nslate\n")
    record = {"count": 2, "sorted_sha256": sorted_sha256(["crane", "slate"])}
    (folder / "PROVENANCE.json").write_text(json.dumps({"wordle/a.txt": record}))
    monkeypatch.setattr("pipeline.config.DATA_DIR", folder)
    return folder


PROVENANCE_DAMAGE = [
    ('{"wordle/a.txt": {', "is not valid JSON"),
    ("[]", "is damaged (not an object of list paths inside"),
    ('{"wordle/a.txt": {"count": "2", "sorted_sha256": "x"}}', "is damaged (not an object of list paths"),
    ('{"wordle/a.txt": 2}', "is damaged"),
    ('{"../../../etc/passwd": {"count": 1, "sorted_sha256": "x"}}', "is damaged (not an object of list paths"),
    ('{"/etc/passwd": {"count": 1, "sorted_sha256": "x"}}', "is damaged (not an object of list paths"),
]


@pytest.mark.parametrize("text,message", PROVENANCE_DAMAGE, ids=[t for t, _ in PROVENANCE_DAMAGE])
def test_data_verify_of_a_damaged_provenance_is_one_line(text, message, data_folder, capsys):
    code, out, err = run_main(["data", "verify"], capsys)
    assert (code, out.strip()) == (0, f"all lists in {data_folder} match PROVENANCE.json"), err
    (data_folder / "PROVENANCE.json").write_text(text)
    code, out, err = run_main(["data", "verify"], capsys)
    assert_one_error(code, err, f"{data_folder / 'PROVENANCE.json'} {message}")


def test_data_verify_refuses_a_list_that_is_a_fifo_at_once(data_folder, capsys):
    (data_folder / "wordle" / "a.txt").unlink()
    os.mkfifo(data_folder / "wordle" / "a.txt")
    code, out, err = run_main(["data", "verify"], capsys)
    assert_one_error(code, err, f"{data_folder / 'wordle' / 'a.txt'} is a FIFO, not a regular file")


class Key(str):
    """A JSON key that counts how often it is hashed or compared."""

    calls = 0

    def __hash__(self):
        Key.calls += 1
        return str.__hash__(self)

    def __eq__(self, other):
        Key.calls += 1
        return str.__eq__(self, other)


def test_the_duplicate_key_check_is_linear():
    """Each key is hashed or compared a bounded number of times (a `keys.count` per key compared n² times)."""
    from pipeline.proofs.files import _unique_keys

    n = 2000
    pairs = [(Key(f"k{i}"), i) for i in range(n)] + [(Key("k7"), 0)]
    Key.calls = 0
    with pytest.raises(ValueError, match="key 'k7' is given twice in one object"):
        _unique_keys(pairs)
    assert Key.calls <= 4 * n
    Key.calls = 0
    assert _unique_keys(pairs[:n]) == {f"k{i}": i for i in range(n)}
    assert Key.calls <= 4 * n


def test_a_json_of_200000_keys_is_read_and_a_duplicate_named(tmp_path):
    from pipeline.proofs.files import FileRefused, json_of

    keys = [f"key{i}" for i in range(200_000)]
    body = "{" + ",".join(f'"{k}":{i}' for i, k in enumerate(keys))
    parsed = json_of((body + "}").encode(), tmp_path / "big.json")
    assert len(parsed) == 200_000 and parsed["key199999"] == 199_999
    with pytest.raises(FileRefused, match="not valid JSON \\(key 'key3' is given twice in one object"):
        json_of((body + ',"key3":0,"key2":0}').encode(), tmp_path / "big.json")


def test_play_never_waits_on_a_fifo_or_reads_a_listed_manifest(mini_game, tmp_path):
    """The assistant's certificate claim skips a FIFO certificate (never opened to wait) and a `[]` manifest."""
    from pipeline.assistant.known import certificate_claiming

    outputs = tmp_path / "outputs"
    fifo, listed, sound = (outputs / "prove" / key for key in ("k1", "k2", "k3"))
    for folder in (fifo, listed, sound):
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text(json.dumps({"game": mini_game.identity()}))
    os.mkfifo(fifo / "certificate.json")
    (listed / "manifest.json").write_text("[]")
    claim = json.dumps({"proven": True, "ub": 544})
    (listed / "certificate.json").write_text(claim)
    found = []
    worker = threading.Thread(target=lambda: found.append(certificate_claiming(mini_game, outputs, 544)), daemon=True)
    worker.start()
    worker.join(60)
    assert found == [None]
    (sound / "certificate.json").write_text(claim)
    assert certificate_claiming(mini_game, outputs, 544) == "prove/k3"
