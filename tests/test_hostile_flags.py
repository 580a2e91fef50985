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
