"""The real command line: one clear error line and exit status 2 for each bad input."""

import subprocess
import sys

import pytest

from pipeline.config.settings import PROJECT_ROOT


def pipeline(*args, outputs):
    return subprocess.run([sys.executable, "-m", "pipeline", f"paths.outputs={outputs}", *args],
                          capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=300)


@pytest.mark.slow
def test_feedback_stage_prints_its_artifact_folder_last(outputs):
    proc = pipeline("stage=feedback", "game=mini_nerdle", outputs=outputs)
    assert proc.returncode == 0, proc.stderr
    last = proc.stdout.strip().splitlines()[-1]
    assert last.startswith(str(outputs / "feedback")) and (outputs / "feedback").is_dir()
    assert (outputs / "feedback" / last.rsplit("/", 1)[1] / "matrix.parquet").is_file()


@pytest.mark.parametrize("args,message", [
    (["game=wordel"], "Could not find 'game/wordel' (available: bulls_and_cows, ffxivrdle,"),
    (["stage=feedbak"], "Could not find 'stage/feedbak' (available: blindfold, catalogue, exact, feedback,"),
    (["stage.bredth=3"], "Key 'bredth' not in 'FeedbackConfig'"),
    (["stage.block_rows=many"], "could not be converted to Integer"),
    (["game=ffxivrdle", "paths.shared_data=/nowhere"],
     "not found: /nowhere/ffxivrdle/answers.txt — FFXIVrdle's lists are not shipped: run `python -m pipeline data fetch ffxivrdle`"),
    (["game=wordle_original", "game.secrets.sha256=" + "0" * 64], "digest mismatch"),
    (["game=words", "game.secrets.path=/nowhere/words"], "words secrets list not found: /nowhere/words"),
])
@pytest.mark.slow
def test_bad_input_gives_one_error_line(args, message, outputs):
    proc = pipeline("stage=feedback", *args, outputs=outputs)
    assert proc.returncode == 2
    lines = proc.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: ") and message in lines[0], proc.stderr
    assert not (outputs / "feedback").exists() or not any((outputs / "feedback").iterdir())


def test_data_verify_command():
    proc = subprocess.run([sys.executable, "-m", "pipeline", "data", "verify"], capture_output=True, text=True)
    assert proc.returncode == 0 and "match PROVENANCE.json" in proc.stdout
