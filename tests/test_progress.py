"""runtime/progress.py: periodic progress lines when nothing is a terminal, a tqdm bar when it is."""

import io
import re
import sys

import pytest

from pipeline.runtime import progress
from pipeline.runtime.log import log_to_file
from pipeline.runtime.progress import Progress


class FakeClock:
    """A clock the test moves by hand: no sleeping, no wall-clock dependence."""

    def __init__(self):
        self.now = 1000.0

    def __call__(self):
        return self.now


class Terminal(io.StringIO):
    def isatty(self):
        return True


def run_tasks(tmp_path, total, seconds_per_task, resumed=0, enabled=True, stream=None, **intervals):
    """Advance a Progress over `total - resumed` tasks of equal fake duration; the log file's lines."""
    clock, path = FakeClock(), tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("V5", total, enabled=enabled, stream=stream or io.StringIO(), resumed=resumed,
                      clock=clock, **intervals) as bar:
            for _ in range(total - resumed):
                clock.now += seconds_per_task
                bar.advance()
    return [line.split(" INFO ", 1)[1] for line in path.read_text().splitlines()]


def expected_line(done, total, fresh, elapsed):
    """The line written by hand: done/total, whole percent, fresh tasks per second, ETA."""
    rate = fresh / elapsed
    eta = round((total - done) / rate)
    if eta < 60:
        eta_text = f"{eta}s"
    elif eta < 3600:
        eta_text = f"{eta // 60}m{eta % 60:02d}s"
    else:
        eta_text = f"{eta // 3600}h{eta % 3600 // 60:02d}m"
    return f"V5: {done}/{total} tasks ({100 * done // total}%), {rate:.3g} tasks/s, ETA {eta_text}"


def test_piped_run_logs_a_line_every_tenth_with_rate_and_eta(tmp_path):
    lines = run_tasks(tmp_path, total=100, seconds_per_task=2.0)  # a tenth every 20 s: inside the 30 s interval
    assert lines[:-1] == [expected_line(d, 100, d, 2.0 * d) for d in range(10, 100, 10)]
    assert lines[0] == "V5: 10/100 tasks (10%), 0.5 tasks/s, ETA 3m00s"
    assert lines[-1] == "V5: 100/100 tasks in 200.0s"


def test_slow_tasks_still_log_every_interval(tmp_path):
    lines = run_tasks(tmp_path, total=1000, seconds_per_task=4.0)  # a tenth every 400 s: the 30 s rule decides
    periodic = lines[:-1]
    # a line once 30 s have passed since the previous one: after 8 tasks (32 s), 16 (64 s), ..., 96;
    # the tenth at 100 tasks adds one (16 s after the last), and the count restarts from there
    # (no rate or ETA before a tenth of the tasks is done)
    assert periodic[:3] == [f"V5: {d}/1000 tasks ({d // 10}%)" for d in (8, 16, 24)]
    assert periodic[11:14] == ["V5: 96/1000 tasks (9%)"] + [expected_line(d, 1000, d, 4.0 * d) for d in (100, 108)]
    assert len(periodic) == 10 * 12 + 9  # 12 timed lines per hundred tasks, plus the tenths 100 ... 900


def test_short_fan_out_prints_only_its_summary(tmp_path):
    lines = run_tasks(tmp_path, total=16, seconds_per_task=0.1)  # 1.6 s in all: under the minimum gap
    assert lines == ["V5: 16/16 tasks in 1.6s"]


def test_rate_counts_only_tasks_run_now_not_resumed_ones(tmp_path):
    lines = run_tasks(tmp_path, total=100, seconds_per_task=2.0, resumed=40)
    # first mark at 50 done = 10 fresh tasks in 20 s: 0.5 tasks/s, 50 left -> 100 s
    assert lines[0] == "V5: 50/100 tasks (50%), 0.5 tasks/s, ETA 1m40s"
    assert lines[1] == expected_line(60, 100, 20, 40.0)
    assert lines[-1] == "V5: 100/100 tasks in 120.0s (40 resumed from an earlier run)"


def test_tasks_finishing_in_waves_get_the_rate_of_the_waves_and_the_heartbeat_counts_down(tmp_path):
    """8 equal batches on 2 cores: two finish after 25 min, 6 s apart, then nothing for a batch's time.  The rate is
    2 at once over 1506 s each (not 1 task over the 6 s between them: an ETA of 36 s), the ETA 6 tasks at it; a
    heartbeat 7.5 min later says 7.5 min less."""
    import time

    clock, path = FakeClock(), tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("V5", 8, stream=io.StringIO(), clock=clock, heartbeat_seconds=0.05) as bar:
            clock.now += 1500
            bar.advance(seconds=1500)  # both started at once: each took its whole wave, as the executor says
            clock.now += 6
            bar.advance(seconds=1506)
            clock.now += 450
            time.sleep(0.3)  # heartbeats, on real time
    lines = [line.split(" INFO ", 1)[1] for line in path.read_text().splitlines()]
    assert lines[:2] == ["V5: 1/8 tasks (12%)", "V5: 2/8 tasks (25%), 0.00133 tasks/s, ETA 1h15m"]  # 4518 s
    beats = [line for line in lines if "still working" in line]
    beat = re.compile(r"V5: still working after 32m36s, 2/8 done \(25%\), none finished for \d+s, ETA 1h07m$")
    assert beats and all(beat.match(line) for line in beats), beats


def test_a_heartbeat_past_the_estimate_says_by_how_much_not_eta_zero(tmp_path):
    """The waves above, then nothing for 80 min: the 6 tasks left were due 4527 s after the last one finished (3006
    task-seconds over 1506 s: 1.996 at once, 1506 s each), so the heartbeat says the ETA passed 4m33s ago (4800 s
    on) rather than counting down to `ETA 0s`."""
    import time

    clock, path = FakeClock(), tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("V5", 8, stream=io.StringIO(), clock=clock, heartbeat_seconds=0.05) as bar:
            clock.now += 1500
            bar.advance(seconds=1500)
            clock.now += 6
            bar.advance(seconds=1506)
            clock.now += 80 * 60
            time.sleep(0.3)
    beats = [line for line in path.read_text().splitlines() if "still working" in line]
    assert beats and all(line.endswith(", ETA passed 4m33s ago") for line in beats), beats


@pytest.mark.parametrize("seconds, elapsed, rate", [
    ([300.0, 10.0, 10.0], 320.0, 0.1),  # one at a time, the first compiling: one per 10 s
    ([10.0] * 10, 50.0, 0.2),  # two at a time, 10 s each: two per 10 s
    ([40.0, 41.0, 40.0, 41.0], 81.0, 2 * 3 / 122),  # two waves of two: two per (mean of the later three) s
])
def test_the_rate_is_tasks_at_once_over_a_task_s_mean_seconds(seconds, elapsed, rate):
    estimate = progress.Rate()
    assert estimate.per_second(elapsed=elapsed) is None  # nothing yet
    estimate.task(seconds[0])
    assert estimate.per_second(elapsed=elapsed) is None  # the first alone may have been compiling
    for s in seconds[1:]:
        estimate.task(s)
    assert estimate.per_second(elapsed=elapsed) == pytest.approx(rate)


def test_disabled_progress_keeps_the_summary_only(tmp_path):
    lines = run_tasks(tmp_path, total=100, seconds_per_task=2.0, enabled=False)
    assert lines == ["V5: 100/100 tasks in 200.0s"]


def test_terminal_gets_a_tqdm_bar_and_no_periodic_lines(tmp_path):
    terminal = Terminal()
    lines = run_tasks(tmp_path, total=100, seconds_per_task=2.0, stream=terminal, resumed=3)
    assert lines == ["V5: 100/100 tasks in 194.0s (3 resumed from an earlier run)"]
    drawn = terminal.getvalue()
    assert "V5:" in drawn and re.search(r"\b3/100\b", drawn)  # tqdm's first draw starts at the resumed count


HEARTBEAT = re.compile(r"V5: still working after \d+s, 1/3 done \(33%\), none finished for \d+s$")


def test_a_heartbeat_line_comes_while_a_task_runs_and_none_finishes(tmp_path):
    import time

    path = tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("V5", 3, stream=io.StringIO(), heartbeat_seconds=0.05) as bar:
            bar.advance()
            time.sleep(0.5)  # one long task: no line is due from finishing tasks
    lines = [line.split(" INFO ", 1)[1] for line in path.read_text().splitlines()]
    assert lines[-1].startswith("V5: 1/3 tasks in ")
    assert lines[:-1] and all(HEARTBEAT.match(line) for line in lines[:-1]), lines


def test_under_a_bar_the_heartbeat_goes_to_the_log_file_and_the_bar_not_the_console(tmp_path, monkeypatch):
    import logging
    import time

    from pipeline.runtime.log import _CurrentStderr, log

    console, terminal, path = io.StringIO(), Terminal(), tmp_path / "stage.log"
    monkeypatch.setattr(sys, "stderr", console)
    handler = _CurrentStderr()
    handler.setFormatter(logging.Formatter("%(message)s"))
    log.addHandler(handler)
    try:
        with log_to_file(path):
            with Progress("V5", 3, stream=terminal, heartbeat_seconds=0.05) as bar:
                bar.advance()
                time.sleep(0.5)
    finally:
        log.removeHandler(handler)
    logged = [line.split(" INFO ", 1)[1] for line in path.read_text().splitlines()]
    assert any(HEARTBEAT.match(line) for line in logged), logged
    assert "still working" not in console.getvalue()  # the console shows the bar, which says it
    assert console.getvalue().startswith("V5: 1/3 tasks in ")
    assert "none finished for" in terminal.getvalue()


def test_progress_off_writes_no_heartbeat(tmp_path):
    import time

    path = tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("V5", 2, enabled=False, stream=io.StringIO(), heartbeat_seconds=0.05):
            time.sleep(0.3)
    assert "still working" not in path.read_text()


@pytest.mark.slow
def test_piped_stage_run_logs_progress_of_each_fan_out(ray_session, outputs, monkeypatch):
    """A real `stage=lower_bound` run with stderr not a terminal: its stage.log has the periodic lines
    of every fan-out (intervals shrunk to zero so each finished task but the last gets one)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    monkeypatch.setattr(sys, "stderr", io.StringIO())  # piped, as under `ray job submit`
    monkeypatch.setattr(progress, "LOG_EVERY_SECONDS", 0.0)
    monkeypatch.setattr(progress, "LOG_MIN_GAP_SECONDS", 0.0)
    cfg = compose_config([f"paths.outputs={outputs}", "stage=lower_bound", "game=mini_nerdle", "stage.ub=544",
                                "stage.max_level=2"])
    assert cfg.progress  # the default: lines on
    artifact = run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))
    text = artifact.file("stage.log").read_text()
    summaries = re.findall(r"(\S+): (\d+)/\2 tasks in ", text)
    assert summaries
    for label, total in summaries:
        total = int(total)
        done = [int(d) for d in re.findall(rf"{re.escape(label)}: (\d+)/{total} tasks \(", text)]
        assert done == list(range(1, total)), label  # one line per finished task, in order, before the summary
