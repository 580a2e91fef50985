"""Assistant benchmark: start-up of `python -m pipeline play`, and the time of each suggestion in Wordle games.

Start-up is the wall time of a fresh `play game=wordle_original tree=none` process that prints its header and
first suggestion and ends at end of input (best of 3), plus that process's own breakdown.  Suggestions are
timed with no precomputed tree (greedy on the spot) along the games of a few seeded random secrets, normal and
hard mode, each on a fresh session (nothing memoised), JIT warmed up first.

Wall times are only meaningful on an idle host; the 1-minute load average and the suggestions' CPU seconds
(all threads) are printed alongside.  Prints one JSON object.  Run: .venv/bin/python benchmarks/assistant.py
"""

import json
import os
import random
import subprocess
import sys
import tempfile
import time

from pipeline.assistant.session import Session
from pipeline.assistant.strategy import Strategy
from pipeline.config.settings import PROJECT_ROOT
from pipeline.games.answer import feedback
from pipeline.games.catalog import builtin_game

N_SECRETS = 6
SEED = 2023


def startup_seconds(outputs: str) -> float:
    start = time.perf_counter()
    proc = subprocess.run([sys.executable, "-m", "pipeline", "play", "game=wordle_original", "tree=none",
                           f"paths.outputs={outputs}"], input="", capture_output=True, text=True, cwd=PROJECT_ROOT)
    elapsed = time.perf_counter() - start
    assert proc.returncode == 0 and "suggest: " in proc.stdout, proc.stderr
    return elapsed


def in_process_breakdown() -> dict:
    code = ("import time; t0 = time.perf_counter()\n"
            "from pipeline.config.compose import compose_config\n"
            "from pipeline.games.catalog import load_game\n"
            "from pipeline.assistant.strategy import Strategy\n"
            "from pipeline.assistant.session import Session\n"
            "t1 = time.perf_counter(); cfg = compose_config(['game=wordle_original']); t2 = time.perf_counter()\n"
            "s = Session(Strategy(load_game(cfg.game))); t3 = time.perf_counter()\n"
            "s.suggestion(); t4 = time.perf_counter()\n"
            "print(t1 - t0, t2 - t1, t3 - t2, t4 - t3)\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    imports, compose, load, first = map(float, proc.stdout.split())
    return {"imports_s": round(imports, 3), "compose_s": round(compose, 3), "load_game_s": round(load, 3),
            "first_suggestion_s": round(first, 3)}


def suggestion_times(hard_mode: bool, secrets: list[str]) -> dict:
    game = builtin_game("wordle_original", hard_mode=hard_mode)
    strategy = Strategy(game)
    warm = Session(strategy)
    warm.suggestion()  # JIT warm-up (and one full root scan)
    by_turn: dict[int, list[float]] = {}
    cpu_by_turn: dict[int, list[float]] = {}
    guesses = []
    for secret in secrets:
        session = Session(strategy)
        while not session.solved:
            start, cpu = time.perf_counter(), time.process_time()
            word = session.suggestion().word
            by_turn.setdefault(len(session.rows) + 1, []).append(time.perf_counter() - start)
            cpu_by_turn.setdefault(len(session.rows) + 1, []).append(time.process_time() - cpu)
            session.play(word, feedback(word, secret))
        guesses.append(len(session.rows))
    return {
        "max_s_by_turn": {turn: round(max(ts), 4) for turn, ts in sorted(by_turn.items())},
        "mean_s_by_turn": {turn: round(sum(ts) / len(ts), 4) for turn, ts in sorted(by_turn.items())},
        "max_cpu_s_by_turn": {turn: round(max(ts), 4) for turn, ts in sorted(cpu_by_turn.items())},
        "max_s": round(max(max(ts) for ts in by_turn.values()), 4),
        "guesses": guesses,
    }


def main():
    secrets = random.Random(SEED).sample(builtin_game("wordle_original").secrets, N_SECRETS)
    with tempfile.TemporaryDirectory() as tmp:
        startup_seconds(tmp)  # numba caches, page cache
        startup = min(startup_seconds(tmp) for _ in range(3))
    print(json.dumps({
        "cpus": os.cpu_count(), "load_average_1min": round(os.getloadavg()[0], 2),  # wall times need an idle host
        "startup_s": round(startup, 3), "target_startup_s": 3.0,
        "startup_breakdown": in_process_breakdown(),
        "secrets": secrets,
        "suggestion": suggestion_times(False, secrets),
        "suggestion_hard_mode": suggestion_times(True, secrets),
        "target_suggestion_s": 1.0,
    }, indent=2))


if __name__ == "__main__":
    main()
