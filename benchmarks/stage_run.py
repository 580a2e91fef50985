"""Time one pipeline command end to end as a user runs it; print JSON.

    .venv/bin/python benchmarks/stage_run.py experiment=prove_wordle
    .venv/bin/python benchmarks/stage_run.py stage=heuristics game=wordle_original

Runs `python -m pipeline <overrides>` in a fresh outputs folder (unless paths.outputs is given), samples the
summed RSS of the whole process tree (driver + Ray workers) every 0.5 s, and reads every manifest written:
wall and task seconds per stage and per fan-out round.
"""

import json
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import psutil


def tree_rss(proc: psutil.Process) -> int:
    total = 0
    for p in [proc, *proc.children(recursive=True)]:
        try:
            total += p.memory_info().rss
        except psutil.Error:
            pass
    return total


def run(overrides: list[str], samples: list | None = None) -> dict:
    """Run one command; `samples`, when given, receives (epoch seconds, tree RSS bytes) every 0.5 s."""
    outputs = next((o.split("=", 1)[1] for o in overrides if o.startswith("paths.outputs=")), None)
    if outputs is None:
        outputs = tempfile.mkdtemp(prefix="pipeline-bench-")
        overrides = [*overrides, f"paths.outputs={outputs}"]
    started, started_wall, peak = time.perf_counter(), time.time(), 0
    proc = subprocess.Popen([sys.executable, "-m", "pipeline", *overrides], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    handle = psutil.Process(proc.pid)
    while proc.poll() is None:
        rss = tree_rss(handle)
        peak = max(peak, rss)
        if samples is not None:
            samples.append((time.time(), rss))
        time.sleep(0.5)
    out, err = proc.communicate()
    stages = {}
    for manifest in sorted(Path(outputs).glob("*/[!.]*/manifest.json")):
        if manifest.stat().st_mtime < started_wall:
            continue  # an artifact of an earlier run, reused or unrelated
        m = json.loads(manifest.read_text())
        stages[m["stage"]] = {"run_seconds": m.get("run_seconds"), "summary": m.get("summary"),
                              "fan_out": m.get("fan_out")}
    return {"command": " ".join(overrides), "returncode": proc.returncode,
            "wall_s": round(time.perf_counter() - started, 1), "peak_rss_tree_mb": round(peak / 2**20),
            "stages": stages, "stderr_tail": err.strip().splitlines()[-3:]}


if __name__ == "__main__":
    print(json.dumps(run(sys.argv[1:]), indent=2, default=str))
