"""Numba's on-disk cache follows the kernels' sources (pipeline/compiled/cache.py): a kernel calling into an edited file never runs
stale machine code, and Ray's workers (which inherit the driver's NUMBA_CACHE_DIR) use the same folder."""

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pipeline
from pipeline.compiled.cache import KERNEL


def cache_dir(package_root: Path, env: dict) -> str:
    probe = "import pipeline.search, os; print(os.environ['NUMBA_CACHE_DIR'])"
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
    kernels = tmp_path / "pipeline" / "search" / "exact" / "kernels.py"
    kernels.write_text(kernels.read_text() + "\n# edited\n")
    after = cache_dir(tmp_path, env)
    assert after != before and Path(after).parent == tmp_path / "cache"


def test_cache_folder_follows_kernel_sources_only(tmp_path):
    """An edit to a stage or the runtime keeps the compiled kernels; an edit to a kernel's callee (another file
    of a kernel room) or to a module outside the rooms that defines a kernel names a fresh folder."""
    shutil.copytree(Path(pipeline.__file__).parent, tmp_path / "pipeline",
                    ignore=shutil.ignore_patterns("__pycache__"))
    env = {"PYTHONPATH": str(tmp_path), "NUMBA_CACHE_DIR": str(tmp_path / "cache")}
    before = cache_dir(tmp_path, env)
    for name in ("stages/prove.py", "runtime/log.py"):
        edited = tmp_path / "pipeline" / name
        edited.write_text(edited.read_text() + "\n# edited\n")
        assert cache_dir(tmp_path, env) == before, name
    callee = tmp_path / "pipeline" / "games" / "encoding.py"
    callee.write_text(callee.read_text() + "\n# edited\n")
    after_callee = cache_dir(tmp_path, env)
    assert after_callee != before
    outside = tmp_path / "pipeline" / "runtime" / "kernel_elsewhere.py"
    outside.write_text("from numba import njit\n\n\n@njit(cache=True)\ndef one():\n    return 1\n")
    assert cache_dir(tmp_path, env) != after_callee


def test_every_kernel_module_sets_the_cache_folder_first():
    """Each package that holds a numba kernel points numba at the kernels' folder in its __init__, which Python
    runs before any of its modules (and so before any kernel is defined)."""
    package = Path(pipeline.__file__).parent
    kernel_packages = {path.parent for path in package.rglob("*.py") if KERNEL.search(path.read_bytes())}
    assert len(kernel_packages) >= 6  # search's rooms, feedback, proofs' rooms, blindfold, assistant
    missing = []
    for folder in kernel_packages:
        chain = [folder, *[p for p in folder.parents if package in (p, *p.parents)]]
        if not any("use_kernel_cache()" in (p / "__init__.py").read_text() for p in chain):
            missing.append(str(folder.relative_to(package)))
    assert not missing, f"kernels defined before the cache folder is set: {missing}"


def test_the_package_import_sets_nothing(tmp_path):
    """Importing the package alone hashes nothing and installs no signal handler (the command line does that)."""
    probe = ("import os, signal; os.environ.pop('NUMBA_CACHE_DIR', None); import pipeline; "
             "print(os.environ.get('NUMBA_CACHE_DIR'), signal.getsignal(signal.SIGTERM) is signal.SIG_DFL)")
    out = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, check=True,
                         env={**os.environ, "PYTHONPATH": str(Path(pipeline.__file__).parents[1])})
    assert out.stdout.split() == ["None", "True"]
