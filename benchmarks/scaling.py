"""Scaling benchmark: per-task overhead and lower-bound fan-out throughput at 1 and 2 workers, and the
projected wall time of `experiment=prove_wordle` on 8 / 32 / 128 cores from measured task times.

Projection model (stated assumptions): fan-out rounds run one after another (levels are sequential);
within a round tasks balance perfectly over P cores, but a round never finishes before its longest task;
each task adds the measured per-task overhead; the driver's own time outside fan-outs stays serial.
Task times come from the manifests of the latest prove_wordle artifacts under outputs/ (run it first).
Prints one JSON object.  Run: .venv/bin/python benchmarks/scaling.py
"""

import json
import os
import time
from pathlib import Path

import numpy as np

from pipeline.config import PROJECT_ROOT
from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.runtime.fanout import fan_out
from pipeline.search.bounds import k_of_game, opener_values

OPENERS_SAMPLE = 1200
BATCH = 100


def noop(item):
    return item


def level2_batch(openers, codes, secret_of_guess, n_codes, k_s, enc_g, enc_s):
    return opener_values(codes, secret_of_guess, n_codes, k_s, openers, 2, 7920, encoded_guesses=enc_g,
                         encoded_secrets=enc_s)[0]


def measure(workers: int, game, codes, k_s) -> dict:
    import ray

    ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
    try:
        fan_out(noop, list(range(20)), label="warm-up", progress=False)
        start = time.perf_counter()
        fan_out(noop, list(range(400)), label="noop", progress=False)
        overhead = (time.perf_counter() - start) / 400
        openers = np.linspace(0, len(game.guesses) - 1, OPENERS_SAMPLE).astype(np.int32)
        batches = [openers[i:i + BATCH] for i in range(0, len(openers), BATCH)]
        shared = (codes, game.secret_of_guess, game.n_codes, k_s, game.encoded_guesses(), game.encoded_secrets())
        fan_out(level2_batch, batches[:workers], shared, label="warm-up", progress=False)  # JIT in each worker
        start = time.perf_counter()
        fan_out(level2_batch, batches, shared, label="V2", progress=False)
        wall = time.perf_counter() - start
    finally:
        ray.shutdown()
    return {"workers": workers, "per_task_overhead_ms": round(overhead * 1000, 3),
            "v2_openers_per_s": round(len(openers) / wall, 1), "v2_wall_s": round(wall, 2)}


def latest_manifests(game) -> dict:
    found = {}
    for stage in ("feedback", "upper_bound", "lower_bound", "prove"):
        manifests = [json.loads(p.read_text()) for p in (PROJECT_ROOT / "outputs" / stage).glob("[!.]*/manifest.json")]
        manifests = [m for m in manifests if m["game"]["secrets_sha256"] == game.secrets_digest
                     and m["game"]["guesses_sha256"] == game.guesses_digest and not m["game"]["hard_mode"]]
        if manifests:
            found[stage] = max(manifests, key=lambda m: m["written_at"])
    return found


def project(manifests: dict, overhead_s: float, cores: int) -> float:
    total = 0.0
    for m in manifests.values():
        rounds = m.get("fan_out", {}).get("rounds", [])
        total += max(0.0, m["run_seconds"] - sum(r["wall_seconds"] for r in rounds))  # serial driver time
        for r in rounds:
            total += max(r["longest_task"], r["task_seconds"] / cores) + overhead_s * r["tasks"] / cores
    return total


def main():
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    game = builtin_game("wordle_original")
    codes = game_matrix(game)
    k_s = k_of_game(codes, game.n_codes)
    runs = [measure(w, game, codes, k_s) for w in (1, 2)]
    manifests = latest_manifests(game)
    overhead = runs[-1]["per_task_overhead_ms"] / 1000
    out = {"fan_out": runs, "speedup_2_vs_1": round(runs[1]["v2_openers_per_s"] / runs[0]["v2_openers_per_s"], 2)}
    if set(manifests) >= {"upper_bound", "lower_bound", "prove"}:
        task_cpu = sum(m["fan_out"]["task_seconds"] for m in manifests.values() if "fan_out" in m)
        out["prove_wordle_measured_wall_s"] = round(sum(m["run_seconds"] for m in manifests.values()), 1)
        out["prove_wordle_task_seconds_total"] = round(task_cpu, 1)
        out["projected_wall_s"] = {cores: round(project(manifests, overhead, cores), 1) for cores in (2, 8, 32, 128)}
    else:
        out["projection"] = f"missing artifacts: run experiment=prove_wordle first (found {sorted(manifests)})"
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
