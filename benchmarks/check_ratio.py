"""A proof and its full certificate check, timed one after the other; print JSON.

    .venv/bin/python benchmarks/check_ratio.py                        # original Wordle, normal mode
    .venv/bin/python benchmarks/check_ratio.py game.hard_mode=true    # any overrides of the experiment

Runs `python -m pipeline experiment=prove_wordle <overrides>` in a fresh outputs folder (benchmarks/stage_run.py),
then `python -m pipeline verify-certificate <its prove folder> --workers N`, both as a user runs them, and reports
the wall time of each, the check's CPU seconds (user + system of its processes) and the ratio check / proof: the
speed target is a check in at most half the proof's time.  The first run after a change also pays the compilation
of the kernels that changed; run it twice to see the warm figures.
"""

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

import stage_run  # benchmarks/stage_run.py, beside this script


def children_cpu() -> float:
    usage = resource.getrusage(resource.RUSAGE_CHILDREN)
    return usage.ru_utime + usage.ru_stime


def check(folder: Path, workers: int) -> dict:
    """Time `verify-certificate folder --workers N`: wall, CPU of its processes, its verdict line."""
    cpu, started = children_cpu(), time.perf_counter()
    done = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(folder), "--workers",
                           str(workers)], capture_output=True, text=True)
    return {"returncode": done.returncode, "wall_s": round(time.perf_counter() - started, 1),
            "cpu_s": round(children_cpu() - cpu, 1), "verdict": (done.stdout.strip().splitlines() or [""])[0]}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("overrides", nargs="*", help="overrides of experiment=prove_wordle")
    parser.add_argument("--workers", type=int, default=2, help="processes of the check")
    args = parser.parse_args()
    if args.workers < 1:
        parser.error(f"--workers must be at least 1, got {args.workers}")
    proof = stage_run.run(["experiment=prove_wordle", *args.overrides])
    outputs = Path(next(o.split("=", 1)[1] for o in proof["command"].split() if o.startswith("paths.outputs=")))
    folders = sorted((outputs / "prove").glob("*/certificate.json"), key=lambda p: p.stat().st_mtime)
    out = {"command": proof["command"], "proof": {k: proof[k] for k in ("returncode", "wall_s", "peak_rss_tree_mb")},
           "certificate": (proof["stages"].get("prove") or {}).get("summary")}
    if proof["returncode"] != 0 or not folders:
        out["error"] = proof["stderr_tail"]
    else:
        out["check"] = check(folders[-1].parent, args.workers)
        out["ratio_check_to_proof"] = round(out["check"]["wall_s"] / proof["wall_s"], 2)
    print(json.dumps(out, indent=2, default=str))


if __name__ == "__main__":
    main()
