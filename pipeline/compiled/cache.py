"""Digests of the package's own sources, and numba's on-disk cache folder named by the kernels' sources.

Numba revalidates a cached kernel against its own file only, so after an edit (or a `git pull`) to a kernel's
callee in another file the stale machine code would run.  The cache folder is therefore named by a digest of every
module a kernel may compile from (the kernel rooms whole, and any other module that defines a kernel): an edit
there means a fresh folder, while an edit to the command line, a stage or the runtime recompiles nothing.  Each
kernel room's __init__ calls `use_kernel_cache()` before its kernels are defined (tests/test_numba_cache.py).
"""

import hashlib
import os
import re
import sys
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1]
KERNEL_ROOMS = ("search", "feedback", "proofs", "blindfold", "games")
KERNEL = re.compile(rb"^[ \t]*@(numba\.)?njit\b", re.M)  # a kernel's decorator


def kernel_sources() -> list[Path]:
    """Every module a numba kernel may compile from: the kernel rooms whole, and any other module with a kernel."""
    return [path for path in sorted(PACKAGE.rglob("*.py"))
            if path.relative_to(PACKAGE).parts[0] in KERNEL_ROOMS
            or KERNEL.search(path.read_bytes())]


def source_digest(paths: list[Path] | None = None) -> str:
    """A digest of the given modules (every module of the package when None), as they are on disk now."""
    digest = hashlib.sha256()
    for path in paths if paths is not None else sorted(PACKAGE.rglob("*.py")):
        digest.update(str(path.relative_to(PACKAGE)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def use_kernel_cache() -> None:
    """Point numba's on-disk cache at the folder of the kernels' sources digest (once per process; Ray's workers
    inherit NUMBA_CACHE_DIR and land on the same folder).  The folder lies under $NUMBA_CACHE_DIR if set (the
    Docker image sets it), else under ~/.cache/pipeline/numba."""
    digest = source_digest(kernel_sources())
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(os.environ.get("NUMBA_CACHE_DIR") or Path(cache_home) / "pipeline" / "numba")
    folder = root if root.name == digest else root / digest
    os.environ["NUMBA_CACHE_DIR"] = str(folder)
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(folder)
