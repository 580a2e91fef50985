"""Numba's on-disk cache follows the package's sources: a kernel calling into an edited file never runs
stale machine code, and Ray's workers (which inherit the driver's NUMBA_CACHE_DIR) use the same folder."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pipeline


def cache_dir(package_root: Path, env: dict) -> str:
    probe = "import pipeline, os; print(os.environ['NUMBA_CACHE_DIR'])"
    out = subprocess.run([sys.executable, "-c", probe], cwd=package_root, env={**os.environ, **env},
                         capture_output=True, text=True, check=True)
    return out.stdout.strip()


def test_cache_folder_changes_with_any_source_edit(tmp_path):
    shutil.copytree(Path(pipeline.__file__).parent, tmp_path / "pipeline",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    before = cache_dir(tmp_path, env)
    assert Path(before).parent == tmp_path / "cache"
    assert cache_dir(tmp_path, {**env, "NUMBA_CACHE_DIR": before}) == before  # a Ray worker's view: unchanged
    kernels = tmp_path / "pipeline" / "search" / "exact_kernels.py"
    kernels.write_text(kernels.read_text() + "\n# edited\n")
    after = cache_dir(tmp_path, env)
    assert after != before and Path(after).parent == tmp_path / "cache"
