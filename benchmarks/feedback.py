"""Feedback benchmark: matrix build, Parquet write/read, |G|x|G|, Nerdle, peak memory of the stage.

Prints one JSON object.  JIT is warmed up before timing.  Run: .venv/bin/python benchmarks/feedback.py
"""

import json
import resource
import subprocess
import sys
import tempfile
from pathlib import Path

import numpy as np

from pipeline.feedback.kernel import code_matrix
from pipeline.feedback.matrix import game_matrix
from pipeline.feedback.parquet import read_matrix, write_matrix
from pipeline.games.catalog import builtin_game
from timing import best_of  # benchmarks/timing.py, beside this script


def stage_peak_rss_mb(outputs: str) -> float:
    """Peak RSS of a fresh `python -m pipeline stage=feedback game=wordle_original` process."""
    code = ("import resource, sys; from pipeline.app.commands import main; "
            "main(['stage=feedback', 'game=wordle_original', 'stage.force=true', 'paths.outputs=' + sys.argv[1]]); "
            "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, file=sys.stderr)")
    proc = subprocess.run([sys.executable, "-c", code, outputs], capture_output=True, text=True, check=True)
    return float(proc.stderr.strip().splitlines()[-1])


def main():
    wordle, nerdle = builtin_game("wordle_original"), builtin_game("nerdle")
    game_matrix(builtin_game("mini_nerdle"))  # compile
    build_s, codes = best_of(lambda: game_matrix(wordle))
    enc = wordle.encoded_guesses()
    gg_s, _ = best_of(lambda: code_matrix(enc, enc), repeats=2)
    enc_n = nerdle.encoded_guesses()
    nerdle_s, nerdle_codes = best_of(lambda: code_matrix(enc_n, enc_n), repeats=1)
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "matrix.parquet"
        write_s, _ = best_of(lambda: write_matrix(path, codes, {}))
        read_s, (back, _) = best_of(lambda: read_matrix(path))
        assert np.array_equal(back, codes)
        size_mb = path.stat().st_size / 1e6
        peak_mb = stage_peak_rss_mb(tmp)
    print(json.dumps({
        "wordle_matrix_shape": list(codes.shape),
        "wordle_build_s": round(build_s, 3), "target_build_s": 0.3,
        "parquet_write_s": round(write_s, 3), "target_write_s": 0.2,
        "parquet_read_s": round(read_s, 3), "target_read_s": 0.1,
        "parquet_size_mb": round(size_mb, 2),
        "guesses_x_guesses_s": round(gg_s, 3), "target_gg_s": 1.5,
        "nerdle_17723sq_s": round(nerdle_s, 3), "nerdle_dtype": nerdle_codes.dtype.name, "target_nerdle_s": 10,
        "feedback_stage_peak_rss_mb": round(peak_mb, 1), "target_peak_mb": 1536,
        "driver_peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }, indent=2))


if __name__ == "__main__":
    main()
