"""Openers benchmark: the opener-ranking kernel on Wordle (12972 x 2315) and the whole stage on Ray.

Prints one JSON object.  JIT is warmed up before timing.  A stage's run_s includes starting
the embedded Ray session (several seconds on a busy machine); task_s is the work inside tasks.
Run: .venv/bin/python benchmarks/openers.py
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

from pipeline.feedback.kernel import code_matrix
from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.search.strategies.simulate import opener_measures, opener_stats
from timing import best_of  # benchmarks/timing.py, beside this script


def stage_run(outputs: str, *overrides: str) -> tuple[float, dict]:
    """Wall time of a fresh `python -m pipeline stage=openers game=wordle_original` and its manifest."""
    args = ["stage=openers", "game=wordle_original", "progress=false", "ray.num_cpus=2", f"paths.outputs={outputs}",
            *overrides]
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True, check=True)
    wall = time.perf_counter() - start
    folder = Path(proc.stdout.strip().splitlines()[-1])
    return wall, json.loads((folder / "manifest.json").read_text())


def main():
    wordle = builtin_game("wordle_original")
    codes = game_matrix(wordle)
    n = codes.shape[1]
    opener_stats(codes[:10], codes[:10], wordle.n_codes)  # compile
    kernel_s, (parts, largest, left, logs) = best_of(lambda: opener_stats(codes, codes, wordle.n_codes))
    remaining, bits = opener_measures(left, logs, n, n)
    soare = wordle.guess_index["soare"]
    enc = wordle.encoded_guesses()
    guesses_s, (_, _, left_g, logs_g) = best_of(
        lambda: opener_stats(codes, code_matrix(enc, enc), wordle.n_codes), repeats=1)
    remaining_g, bits_g = opener_measures(left_g, logs_g, n, len(wordle.guesses))
    with tempfile.TemporaryDirectory() as tmp:
        stage_run(tmp)  # builds the feedback input and warms the JIT cache
        wall_s, manifest = stage_run(tmp, "stage.force=true")
        wall_g, manifest_g = stage_run(tmp, "stage.candidates=guesses")
    best = int(np.argmax(bits))
    print(json.dumps({
        "shape": list(codes.shape),
        "kernel_answers_s": round(kernel_s, 3),
        "kernel_guesses_s": round(guesses_s, 3),
        "stage_answers_wall_s": round(wall_s, 2), "stage_answers_run_s": manifest["run_seconds"],
        "stage_answers_task_s": manifest["fan_out"]["task_seconds"],
        "stage_guesses_wall_s": round(wall_g, 2), "stage_guesses_run_s": manifest_g["run_seconds"],
        "stage_guesses_task_s": manifest_g["fan_out"]["task_seconds"],
        "target_stage_s": 30,
        "best_by_bits": wordle.guesses[best], "best_bits": round(float(bits[best]), 4),
        "soare_bits": round(float(bits[soare]), 4), "soare_remaining": round(float(remaining[soare]), 2),
        "soare_bits_over_guesses": round(float(bits_g[soare]), 4),
        "soare_remaining_over_guesses": round(float(remaining_g[soare]), 2),
        "best_by_bits_over_guesses": wordle.guesses[int(np.argmax(bits_g))],
        "summary_answers": manifest["summary"]["top10_by_bits"][:5],
        "summary_guesses": manifest_g["summary"]["top10_by_bits"][:5],
    }, indent=2))


if __name__ == "__main__":
    main()
