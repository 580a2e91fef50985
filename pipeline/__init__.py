"""pipeline: find and prove optimal strategies for Wordle-like guessing games."""

import hashlib
import os
import sys
from pathlib import Path

__version__ = "0.1.0"


def _command_line_signals() -> None:
    """Under `python -m pipeline` or `wordle-pipeline`, Ctrl-C and SIGTERM are handled from here on (the source
    digest below takes a moment), not only once pipeline.__main__ runs; a library import changes nothing."""
    if sys.argv[:1] == ["-m"] or Path(sys.argv[0]).name == "wordle-pipeline":
        from pipeline.runtime import signals

        signals.install()


_command_line_signals()


# The rooms whose modules hold numba kernels or what kernels read (their callees and module constants); a module
# elsewhere that defines a kernel is found by its decorator.  Only these sources name the numba cache folder, so an
# edit to the command line, a stage or the runtime recompiles nothing (tests/test_numba_cache.py).
KERNEL_ROOMS = ("search", "feedback", "proofs", "blindfold", "games")
KERNEL_MARKERS = (b"@njit", b"numba.njit")


def _kernel_sources() -> list[Path]:
    """Every module a numba kernel may compile from: the kernel rooms whole, and any other module with a kernel."""
    package = Path(__file__).parent
    sources = []
    for path in sorted(package.rglob("*.py")):
        room = path.relative_to(package).parts[0]
        if room in KERNEL_ROOMS or any(marker in path.read_bytes() for marker in KERNEL_MARKERS):
            sources.append(path)
    return sources


def _source_digest(paths: list[Path] | None = None) -> str:
    """A digest of the given modules (every module of the package when None), as they are on disk now."""
    digest = hashlib.sha256()
    package = Path(__file__).parent
    for path in paths if paths is not None else sorted(package.rglob("*.py")):
        digest.update(str(path.relative_to(package)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()[:16]


def _numba_cache_per_source() -> None:
    """Keep numba's on-disk cache in a folder named by the digest of the kernels' sources.  Numba revalidates a
    cached kernel against its own file only, so after an edit (or a `git pull`) to a kernel it calls from
    another file, the stale machine code would run; a new digest means a fresh cache instead.  The folder
    lies under $NUMBA_CACHE_DIR if set (the Docker image sets it), else under ~/.cache/pipeline/numba."""
    digest = _source_digest(_kernel_sources())
    cache_home = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    root = Path(os.environ.get("NUMBA_CACHE_DIR") or Path(cache_home) / "pipeline" / "numba")
    folder = root if root.name == digest else root / digest
    os.environ["NUMBA_CACHE_DIR"] = str(folder)  # inherited by Ray's workers, which land on the same folder
    if "numba" in sys.modules:
        sys.modules["numba"].config.CACHE_DIR = str(folder)


_numba_cache_per_source()
