"""Proof folders as the trust tests handle them: a copy under a test's own outputs, checked on the command line;
the committed proofs unpacked into a test's own store."""

import shutil
from pathlib import Path

from pipeline.config.settings import PROJECT_ROOT
from pipeline.proofs.files import archive
from pipeline.runtime.store import Artifact, ArtifactStore
from tests.test_bad_input import run_main


def outputs_copy(folder: Path, tmp_path: Path) -> Path:
    """A copy of a proof folder as <tmp_path>/outputs/prove/<key>, for a test to change and check."""
    return Path(shutil.copytree(folder, tmp_path / "outputs" / "prove" / folder.name))


def verify_certificate(target: Path, capsys) -> tuple[int, str, str]:
    """`python -m pipeline verify-certificate <target> --workers 1`, in process: (exit status, stdout, stderr)."""
    return run_main(["verify-certificate", str(target), "--workers", "1"], capsys)


def committed_proofs(outputs: Path, *names: str) -> dict[str, Artifact]:
    """The committed archives catalogue/<name> unpacked into `outputs` as the finished artifacts they were packed
    from (outputs/<stage>/<key>: an archive's top folder is <stage>-<key>), in the order named: name -> artifact."""
    found = {}
    for name in names:
        with archive.unpacked(PROJECT_ROOT / "catalogue" / name) as top:
            stage, key = top.name.split("-", 1)
            shutil.copytree(top, outputs / stage / key)
        found[name] = ArtifactStore(outputs).artifact(stage, key)
    return found
