"""Proof folders as the trust tests handle them: a copy under a test's own outputs, checked on the command line."""

import shutil
from pathlib import Path

from tests.test_bad_input import run_main


def outputs_copy(folder: Path, tmp_path: Path) -> Path:
    """A copy of a proof folder as <tmp_path>/outputs/prove/<key>, for a test to change and check."""
    return Path(shutil.copytree(folder, tmp_path / "outputs" / "prove" / folder.name))


def verify_certificate(target: Path, capsys) -> tuple[int, str, str]:
    """`python -m pipeline verify-certificate <target> --workers 1`, in process: (exit status, stdout, stderr)."""
    return run_main(["verify-certificate", str(target), "--workers", "1"], capsys)
