"""Wall seconds of the warm whole command `python -m pipeline stage=exact 'stage.openers=[salet]' stage.force=true`.

    .venv/bin/python benchmarks/cli.py [--runs 5] [--outputs DIR] [--python PY] [--cwd DIR] [override ...]

Runs the command once untimed (it computes the feedback matrix and compiles the kernels if needed: "warm"
means neither is left to do), then `--runs` times with subprocess, and prints JSON: median, min and max wall
seconds, the stage's own "done in" seconds of each run and the load average before and after (on a shared
machine the figures mean little without it).  `--python`/`--cwd` time another checkout (A/B comparisons:
run two of these interleaved, or give `--ab OTHER_CWD` to alternate the two checkouts run by run).
"""

import argparse
import json
import os
import re
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

COMMAND = ["stage=exact", "stage.openers=[salet]", "stage.force=true"]
ROOT = Path(__file__).resolve().parents[1]


def run_once(python: str, cwd: str, overrides: list[str]) -> tuple[float, float | None]:
    """(wall seconds, the stage's own seconds from its "done in" line) of one command."""
    started = time.perf_counter()
    done = subprocess.run([python, "-m", "pipeline", *overrides], cwd=cwd, capture_output=True, text=True)
    wall = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"the command failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    stage = re.findall(r"exact: done in ([0-9.]+)s", done.stdout + done.stderr)
    return wall, float(stage[-1]) if stage else None


def summary(walls: list[float], stages: list) -> dict:
    return {"runs": len(walls), "median_s": round(statistics.median(walls), 3), "min_s": round(min(walls), 3),
            "max_s": round(max(walls), 3), "walls_s": [round(w, 3) for w in walls], "stage_done_in_s": stages}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--outputs", default=None, help="outputs folder (default: a fresh temporary one)")
    parser.add_argument("--python", default=sys.executable)
    parser.add_argument("--cwd", default=str(ROOT), help="the checkout to time (python -m runs from there)")
    parser.add_argument("--ab", default=None, help="another checkout, timed alternately with --cwd")
    parser.add_argument("overrides", nargs="*", help="more overrides for the command")
    args = parser.parse_args()
    outputs = args.outputs or tempfile.mkdtemp(prefix="pipeline-cli-bench-")
    overrides = [*COMMAND, f"paths.outputs={outputs}", *args.overrides]
    checkouts = [args.cwd] + ([args.ab] if args.ab else [])
    for cwd in checkouts:
        run_once(args.python, cwd, overrides)  # warm-up: inputs computed, kernels compiled and cached
    load_before = os.getloadavg()
    times = {cwd: ([], []) for cwd in checkouts}
    for _ in range(args.runs):
        for cwd in checkouts:
            wall, stage = run_once(args.python, cwd, overrides)
            times[cwd][0].append(wall)
            times[cwd][1].append(stage)
    result = {"command": "python -m pipeline " + " ".join(overrides), "cpus": os.cpu_count(),
              "load_before": [round(x, 2) for x in load_before],
              "load_after": [round(x, 2) for x in os.getloadavg()]}
    for cwd, (walls, stages) in times.items():
        result[cwd] = summary(walls, stages)
    print(json.dumps(result, indent=2))


if __name__ == "__main__":
    main()
