"""A bundle checks on another machine: a fresh virtual environment, a plain `pip install` of this checkout (its
dependencies resolved and downloaded by pip as a user's would be, nothing of this environment reused), then
`python -m pipeline verify-certificate <archive>` from an empty folder with nothing of this checkout on the
path.  The install is the cost (minutes: every dependency downloaded; see docs/proofs.md): marked fresh_install,
run by `make test-install` (and .ci/run), not by `make test`."""

import os
import subprocess
import sys
import time

import pytest

from pipeline.config.settings import PROJECT_ROOT
from tests.test_bundle import EXCLUDED, WORDS, proved
from tests.test_bad_input import fresh_console, run_main  # noqa: F401 (fresh_console: autouse)


def clean_env() -> dict:
    """This environment without anything that would let the fresh one import the checkout or this venv."""
    drop = {"PYTHONPATH", "VIRTUAL_ENV", "PYTHONHOME", "PYTHONSTARTUP", "PIPELINE_OUTPUTS"}
    return {k: v for k, v in os.environ.items() if k not in drop}


@pytest.mark.slow
@pytest.mark.fresh_install
def test_a_bundle_verifies_from_a_plain_install_in_a_fresh_venv(tmp_path, capsys):
    lists = tmp_path / "lists"
    lists.mkdir()
    (lists / "secrets.txt").write_text("\n".join(WORDS) + "\n")
    (lists / "exclude.txt").write_text("\n".join(EXCLUDED) + "\n")
    folder = proved(tmp_path, ["game=words", f"game.secrets.path={lists / 'secrets.txt'}",
                               f"game.exclude={lists / 'exclude.txt'}"])
    code, _, err = run_main(["bundle", str(folder), "--out", str(tmp_path / "proof.tar.gz")], capsys)
    assert code == 0, err
    for path in lists.iterdir():
        path.unlink()

    venv, env = tmp_path / "venv", clean_env()
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True, env=env, timeout=300)
    python = str(venv / "bin" / "python")
    started = time.monotonic()
    # --no-compile: no .pyc written ahead for every dependency module (halves the install here); the same install
    install = subprocess.run([python, "-m", "pip", "install", "--quiet", "--no-compile", str(PROJECT_ROOT)],
                             capture_output=True, text=True, env=env, cwd=tmp_path, timeout=1800)
    print(f"plain pip install into a fresh venv: {time.monotonic() - started:.0f} s", file=sys.__stderr__)
    assert install.returncode == 0, install.stderr[-3000:]

    empty = tmp_path / "elsewhere"
    empty.mkdir()
    where = subprocess.run([python, "-c", "import pipeline; print(pipeline.__file__)"], capture_output=True,
                           text=True, env=env, cwd=empty)
    assert where.stdout.startswith(str(venv)), where.stdout + where.stderr  # the installed copy, not the checkout
    check = subprocess.run([python, "-m", "pipeline", "verify-certificate", str(tmp_path / "proof.tar.gz")],
                           capture_output=True, text=True, env=env, cwd=empty, timeout=1800)
    assert check.returncode == 0, check.stderr[-3000:]
    assert check.stdout.startswith("ok: certificate verified — MinTotal = 58 for custom game words (secrets "
                                   "sha256 "), check.stdout
    assert "26 secrets" in check.stdout and "3 excluded" in check.stdout
    assert list(empty.iterdir()) == []  # nothing written where it ran (the archive was unpacked in a temp folder)
