"""A 50-point sweep run at once against the same sweep one point at a time; print JSON.

    .venv/bin/python benchmarks/sweep.py [--game primel] [--openers 10] [--breadths 5]

The points are `stage=upper_bound game=<game>` over the first `openers` allowed guesses × breadth
1..`breadths` (50 by default): each point one opener, so one task, about a second of work on Primel.  A sweep of
Mini Nerdle's 0.15 s points (`--game mini_nerdle`) measures mostly what every sweep pays once, at once or not:
Ray's start and stop, about 6 s.  Each run gets its own outputs folder, whose feedback matrix and heuristic
valuations are computed first by one untimed warm-up point, so both timed sweeps do the same 50 upper bounds:
`sweep.max_parallel=1` (serial) and the default (as many points at once as the cluster has CPUs).
"""

import argparse
import json
import os
import subprocess
import sys
import tempfile
import time

from pipeline.games.catalog import builtin_game


def pipeline(*args: str) -> tuple[float, subprocess.CompletedProcess]:
    started = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pipeline", *args], capture_output=True, text=True)
    return time.perf_counter() - started, proc


def timed_sweep(game: str, openers: list[str], breadths: int, *extra: str) -> dict:
    """Warm up a fresh outputs folder (untimed), then time the sweep of every opener × breadth there."""
    outputs = tempfile.mkdtemp(prefix="pipeline-sweep-bench-")
    stage = ["stage=upper_bound", f"game={game}", "progress=false"]
    _, warm = pipeline(*stage, f"paths.outputs={outputs}", "stage.breadth=1", f'stage.openers=["{openers[0]}"]',
                       "stage.force=true")
    assert warm.returncode == 0, warm.stderr
    listed = ",".join(f'["{word}"]' for word in openers)
    wall, proc = pipeline("-m", *stage, f"paths.outputs={outputs}", f"stage.openers={listed}",
                          f"stage.breadth={','.join(str(b) for b in range(1, breadths + 1))}", *extra)
    assert proc.returncode == 0, proc.stderr[-2000:]
    summary = json.loads(open(os.path.join(proc.stdout.strip().splitlines()[-1], "summary.json")).read())
    return {"wall_s": round(wall, 2), "points": summary["points"], "failed": summary["failed"],
            "point_wall_s_sum": round(sum(row["wall_s"] for row in summary["rows"]), 2)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="primel")
    parser.add_argument("--openers", type=int, default=10)
    parser.add_argument("--breadths", type=int, default=5)
    args = parser.parse_args()
    openers = list(builtin_game(args.game).guesses[:args.openers])
    serial = timed_sweep(args.game, openers, args.breadths, "sweep.max_parallel=1")
    concurrent = timed_sweep(args.game, openers, args.breadths)
    print(json.dumps({"benchmark": "sweep", "game": args.game, "cores": os.cpu_count(),
                      "load_1min": round(os.getloadavg()[0], 2),
                      "serial": serial, "concurrent": concurrent,
                      "speedup": round(serial["wall_s"] / concurrent["wall_s"], 2), "target_speedup": 1.7},
                     indent=2))


if __name__ == "__main__":
    main()
