"""Scheduler simulation: replay the task durations a finished `experiment=prove_wordle` recorded in its
manifests through the runtime's own scheduling policy (`pipeline/runtime/policy.py`) onto N cores.

For each stage (feedback, upper_bound, lower_bound, prove) of the newest matching artifacts under
`--outputs`: the driver's time outside fan-outs stays serial; every fan-out round is replayed with
`policy.makespan` (tasks submitted in item order, `policy.in_flight_limit` of them at a time, each on
the core freed first), plus a measured per-task overhead.  Rounds of the V_i funnel are re-batched as
the runtime would batch them on N cores (`policy.batch_count`, `policy.split_sizes`), assuming that
every task pays a fixed set-up (the cheapest V_1 task) and the rest of a recorded batch's cost is shared
evenly by its openers; other rounds keep their recorded tasks.

Task costs are the CPU seconds each task recorded (what it takes on a core of its own, however loaded
the recording machine was); the driver's serial time is taken as measured (an overestimate on a loaded
machine).  Validation: the recorded tasks replayed on the recorded cores with the recorded in-flight limit
("replay_as_run") against the measured wall ("measured"), and the policy's own batching on those cores.
Prints one JSON object.  Run (after the proof, e.g. `make run`):
    .venv/bin/python benchmarks/scaling.py [--outputs DIR] [--overhead-ms X] [--game wordle_original]
"""

import argparse
import json
import os
import time
from pathlib import Path

from pipeline.games.catalog import builtin_game
from pipeline.runtime import policy

STAGES = ("feedback", "upper_bound", "lower_bound", "prove")
CORES = (2, 8, 64, 512)
GOAL_64_CORES_S = 90.0


def noop(item):
    return item


def measure_overhead_s(workers: int = 2, tasks: int = 400) -> float:
    """Seconds a trivial Ray task adds (submission, scheduling, result transfer), per task, on `workers`:
    one item per Ray task, as every stage's tasks go (the executor packs only items far cheaper than that)."""
    import ray

    from pipeline.runtime.executors import fan_out

    ray.init(address="local", num_cpus=workers, include_dashboard=False, log_to_driver=False)
    saved, policy.MAX_CHUNK = policy.MAX_CHUNK, 1
    try:
        fan_out(noop, list(range(20)), label="warm-up", progress=False)
        start = time.perf_counter()
        fan_out(noop, list(range(tasks)), label="noop", progress=False)
        return (time.perf_counter() - start) * workers / tasks  # core-seconds per task
    finally:
        policy.MAX_CHUNK = saved
        ray.shutdown()


def latest_manifests(outputs: Path, game) -> dict:
    """The newest manifest per stage of the proof chain for `game` (normal mode)."""
    found = {}
    for stage in STAGES:
        manifests = [json.loads(p.read_text()) for p in (outputs / stage).glob("[!.]*/manifest.json")]
        manifests = [m for m in manifests if m["game"]["secrets_sha256"] == game.secrets_digest
                     and m["game"]["guesses_sha256"] == game.guesses_digest and not m["game"]["hard_mode"]]
        if manifests:
            found[stage] = max(manifests, key=lambda m: m["written_at"])
    return found


def task_costs(round_: dict) -> list[float]:
    """Each task's CPU seconds (what it takes on a core of its own, whatever the load was when recorded);
    its wall seconds for rounds recorded before CPU time was."""
    return round_.get("cpu_seconds", round_["durations"])


def fixed_cost(manifest: dict) -> float:
    """Per-task set-up of a funnel batch (its bound solver's tables, built once per task), estimated as the
    cheapest V_1 task: V_1 costs next to nothing per opener, so its tasks are almost all set-up."""
    v1 = [r for r in manifest["fan_out"]["rounds"] if r["label"].endswith("-V1")]
    return min(task_costs(v1[0])) if v1 and v1[0]["durations"] else 0.0


def rebatched(round_: dict, cores: int, max_batch: int | None, fixed: float) -> list[float]:
    """A funnel round's batch costs as the policy batches its openers on `cores` cores: every task pays
    the set-up `fixed` once, and each recorded batch's remaining cost is shared evenly by its openers."""
    unit_costs = [max(0.0, c - fixed) / u for c, u in zip(task_costs(round_), round_["units"]) for _ in range(u)]
    sizes = policy.split_sizes(len(unit_costs), policy.batch_count(len(unit_costs), cores, max_batch=max_batch))
    out, start = [], 0
    for size in sizes:
        out.append(fixed + sum(unit_costs[start:start + size]))
        start += size
    return out


def round_wall(round_: dict, cores: int | None, overhead: float, max_batch: int | None, fixed: float) -> float:
    """Projected wall of one fan-out round: as run (cores None) or under the policy on `cores` cores."""
    if cores is None:  # validation: the recorded tasks, cores and in-flight limit
        slots = policy.task_slots(round_["cluster_cpus"], round_["task_cpus"])
        return policy.makespan(round_["durations"], slots, round_["max_in_flight"], overhead=overhead)
    durations = task_costs(round_)
    if round_["label"].startswith("lower_bound-V") and sum(round_["units"]) > len(durations):
        durations = rebatched(round_, cores, max_batch, fixed)
    slots = policy.task_slots(cores, round_["task_cpus"] if round_["executor"] == "ray" else 1)
    return policy.makespan(durations, slots, policy.in_flight_limit(cores), overhead=overhead)


def project(manifests: dict, overhead: float, cores: int | None) -> dict:
    """Projected wall per stage and in all (serial driver time, as measured, + every round replayed)."""
    walls = {}
    for stage, m in manifests.items():
        rounds = m.get("fan_out", {}).get("rounds", [])
        serial = max(0.0, m["run_seconds"] - sum(r["wall_seconds"] for r in rounds))
        max_batch, fixed = m["config"].get("max_batch"), fixed_cost(m) if stage == "lower_bound" else 0.0
        walls[stage] = serial + sum(round_wall(r, cores, overhead, max_batch, fixed) for r in rounds)
    walls["total"] = sum(walls.values())
    return {k: round(v, 1) for k, v in walls.items()}


def check_recorded(manifests: dict) -> str | None:
    """Why these manifests cannot be replayed (rounds written before durations were recorded), or None."""
    for stage, m in manifests.items():
        if m.get("fan_out", {}).get("resumed"):
            return f"{stage} was resumed: its manifest does not hold every task's duration; rerun it"
        if any("durations" not in r for r in m.get("fan_out", {}).get("rounds", [])):
            return f"{stage}: rounds without per-task durations (an older run); rerun experiment=prove_wordle"
    return None


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--outputs", type=Path, default=Path(os.environ.get("PIPELINE_OUTPUTS", "outputs")))
    parser.add_argument("--game", default="wordle_original")
    parser.add_argument("--overhead-ms", type=float, default=None, help="per-task overhead; default: measured")
    args = parser.parse_args()
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    manifests = latest_manifests(args.outputs, builtin_game(args.game))
    out = {"game": args.game, "outputs": str(args.outputs), "stages": sorted(manifests)}
    problem = None if set(manifests) == set(STAGES) else "missing stages: run experiment=prove_wordle first"
    problem = problem or check_recorded(manifests)
    if problem:
        out["projection"] = problem
        print(json.dumps(out, indent=2))
        return
    overhead = args.overhead_ms / 1000 if args.overhead_ms is not None else measure_overhead_s()
    measured = {s: round(m["run_seconds"], 1) for s, m in manifests.items()}
    measured["total"] = round(sum(measured.values()), 1)
    recorded_cores = sorted({r["cluster_cpus"] for m in manifests.values() for r in m["fan_out"]["rounds"]})
    as_run = project(manifests, overhead, None)
    out |= {"per_task_overhead_ms": round(overhead * 1000, 3), "recorded_cores": recorded_cores,
            "task_seconds": round(sum(m["fan_out"]["task_seconds"] for m in manifests.values()), 1),
            "measured_wall_s": measured, "replay_as_run_s": as_run,
            "replay_error": round(as_run["total"] / measured["total"] - 1, 3),
            "projected_wall_s": {n: project(manifests, overhead, n) for n in CORES}}
    out["goal_64_cores_s"] = {"goal": GOAL_64_CORES_S, "projected": out["projected_wall_s"][64]["total"],
                              "met": out["projected_wall_s"][64]["total"] <= GOAL_64_CORES_S}
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
