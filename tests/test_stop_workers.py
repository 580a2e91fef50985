"""A stopped command leaves nothing running and nothing behind (issue 52; issue 47, section 4).

SIGINT, SIGTERM or SIGHUP to a command that starts processes of its own (verify-certificate's checker pool, the
same pool under stage=reproduce, a -m sweep's Ray, a run with ray.executor=ray, analyse's forked solver) or runs
a native solver (blindfold's HiGHS) ends every one of them and removes its temporary folder before it exits
with the signal's status and one `error:` line that fits the command.

Each command runs as `python -m pipeline ...` in a session of its own, with a TMPDIR of its own (it must be
empty afterwards, and it tags the command's processes wherever they go) and the signals it is sent at their
defaults, whatever the test runner had (tests/helpers/processes.py).  A test waits until the processes exist
(read from /proc) or the work has begun (read from stderr), never for a fixed time, then signals.  The check of
Wordle's proof runs for minutes, so a stop always lands inside it.
"""

import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

from pipeline.config.settings import PROJECT_ROOT
from pipeline.processes.signals import RESUME
from tests.helpers.highs import hard_set_cover
from tests.helpers.processes import Command, default_signals, running, started_at, wait_for_marks, wait_until

BUNDLE = PROJECT_ROOT / "catalogue" / "wordle_original-normal-g6.tar.gz"
STATUS = {signal.SIGINT: 130, signal.SIGTERM: 143, signal.SIGHUP: 129}
CHECK_STOPPED = ("the check was stopped, nothing was verified (what it re-derived is kept: the same command "
                 "resumes it)")
POOL_WORKER = b"spawn_main"  # in the command line of a checker pool's process (multiprocessing's spawn)
RAY_STARTING = b"gcs_server"  # the first process Ray starts
CPUS = os.cpu_count() or 1
REPRODUCE_ATTEMPTS = 5  # runs of stage=reproduce until one is stopped with its checker workers there


def expected_line(signum: int, consequence: str | None) -> str:
    named = f"error: interrupted ({signal.Signals(signum).name})"
    return f"{named}; {consequence}" if consequence else named


@pytest.fixture
def command(tmp_path):
    """command(args, env=None): a Command started in a folder of tmp_path; whatever of it still runs after the
    test is killed."""
    started = []

    def make(args: list[str], env: dict | None = None, terminal: bool = False) -> Command:
        started.append(Command(args, tmp_path / f"command{len(started)}", PROJECT_ROOT, env, terminal))
        return started[-1]

    yield make
    for run in started:
        run.end()


@pytest.fixture
def ray_tmpdir():
    """A short folder for Ray's session (its sockets' paths must stay short), outside the command's TMPDIR."""
    folder = tempfile.mkdtemp(prefix="ray-", dir="/tmp")
    yield folder
    shutil.rmtree(folder, ignore_errors=True)


def assert_stopped(run: Command, signum: int, consequence: str | None, group: bool = False):
    """Signal the command; its status, exactly one `error:` line (the last, with `consequence`), no traceback,
    none of its processes left, its TMPDIR empty."""
    stopped = run.stop(signum, group=group)
    text = "\n".join(stopped.lines)
    assert stopped.status == STATUS[signum], text
    assert "Traceback" not in text and "PC:" not in text and "SIGTERM received" not in text, text
    assert stopped.errors() == [expected_line(signum, consequence)] and stopped.lines[-1] == stopped.errors()[0], text
    assert run.survivors(stopped.tree) == [], (stopped.tree, text)
    assert sorted(os.listdir(run.tmpdir)) == [], text
    return stopped


# ---- verify-certificate -------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def proof_folder(tmp_path_factory):
    """The bundle unpacked once (by the checker's own wary unpacker): verify-certificate <folder>."""
    from pipeline.proofs.files.archive import unpack

    return unpack(BUNDLE, tmp_path_factory.mktemp("proof"))


def verify_certificate(command, source: str, workers: int, proof_folder, env: dict | None = None) -> Command:
    """verify-certificate of the bundle or of its unpacked folder, once its check has begun: its `workers`
    checker processes exist, or (one worker: the check runs in the command itself) it says, on a terminal, what
    it re-derives."""
    target = BUNDLE if source == "archive" else proof_folder
    workers = min(workers, CPUS)  # the command runs at most one worker per CPU
    run = command(["verify-certificate", str(target), "--workers", str(workers)], env=env, terminal=workers == 1)
    if workers > 1:
        run.wait_for_children(POOL_WORKER, workers)
    else:
        run.wait_for_line("verify-certificate: re-deriving")
    return run


CHECKS = [  # every pair of (signal, workers, source) at least once
    (signal.SIGINT, 1, "archive"), (signal.SIGINT, 2, "folder"), (signal.SIGTERM, 1, "folder"),
    (signal.SIGTERM, 2, "archive"), (signal.SIGHUP, 1, "archive"), (signal.SIGHUP, 2, "folder")]


@pytest.mark.parametrize("signum, workers, source", CHECKS,
                         ids=[f"{signal.Signals(s).name}-workers{w}-{source}" for s, w, source in CHECKS])
@pytest.mark.slow
def test_a_stopped_check_ends_its_workers_and_removes_its_temporary_folder(signum, workers, source, command,
                                                                          proof_folder):
    before = sorted(os.listdir(proof_folder))
    run = verify_certificate(command, source, workers, proof_folder)
    assert_stopped(run, signum, CHECK_STOPPED)
    assert sorted(os.listdir(proof_folder)) == before  # no record, no half-written one


@pytest.mark.slow
def test_ctrl_c_at_a_terminal_reaches_the_workers_too_and_they_leave_it_to_the_check(command, proof_folder):
    """Ctrl-C goes to the whole process group: the workers (some still importing) ignore it, the check ends them."""
    run = verify_certificate(command, "archive", 2, proof_folder)
    assert_stopped(run, signal.SIGINT, CHECK_STOPPED, group=True)


@pytest.mark.slow
def test_the_workers_die_with_a_killed_check(command, proof_folder):
    """kill -9 leaves no cleanup to the check: its workers die with it (PR_SET_PDEATHSIG)."""
    run = verify_certificate(command, "folder", 2, proof_folder)
    stopped = run.stop(signal.SIGKILL)
    assert stopped.status == -signal.SIGKILL
    assert run.survivors(stopped.tree) == [], stopped.tree


@pytest.mark.slow
def test_a_check_whose_worker_is_killed_says_so_in_one_line_and_keeps_its_journal(command, proof_folder,
                                                                                 tmp_path):
    """A worker killed from outside (as the out-of-memory killer does) stops the check as a signal would: one
    `error:` line naming the worker and how it ended, exit 2, no traceback, the other workers ended, nothing
    recorded, and the values already re-derived kept in the journal for the rerun."""
    before = sorted(os.listdir(proof_folder))
    config = tmp_path / "config"
    run = verify_certificate(command, "folder", 2, proof_folder, env={"PIPELINE_CONFIG_DIR": str(config)})
    victim = run.wait_for_children(POOL_WORKER, 2)[0]
    kept = wait_until(run.proc, lambda: journal_lines(config), "a value in the check's journal", 600.0)
    os.kill(victim, signal.SIGKILL)
    ended = run.stop(0)  # signal 0: nothing is sent, the command ends by itself
    text = "\n".join(ended.lines)
    assert ended.status == 2 and "Traceback" not in text, text
    assert ended.errors() == [f"error: a worker process (pid {victim}) was killed by SIGKILL (the system may have "
                              f"run out of memory: see `dmesg`); {CHECK_STOPPED}"], text
    assert run.survivors(ended.tree) == [] and sorted(os.listdir(run.tmpdir)) == [], text
    assert sorted(os.listdir(proof_folder)) == before
    assert journal_lines(config) >= kept


def journal_lines(config) -> int:
    """How many lines the check journals under the config folder `config` hold."""
    return sum(len(path.read_text().splitlines()) for path in config.glob("check-journals/*.jsonl"))


def test_a_worker_that_dies_ends_the_map_with_how_it_ended(tmp_path):
    """A pool whose worker is killed mid-task: its map raises WorkerLost naming the worker and the signal, long
    before the other worker's task (ten minutes) would end, and the block then ends that worker.  (The pool's own
    thread may not see the death at all until another task ends: it watches the workers it knew when it last woke,
    and Python 3.11 starts a worker per task submitted; about one run in two of this test waited the ten minutes.)"""
    from pipeline.processes.pool import WorkerLost, process_pool
    from tests.helpers.processes import mark_and_sleep

    marks = [tmp_path / f"task{i}" for i in range(2)]
    with pytest.raises(WorkerLost) as lost, process_pool(2) as pool:
        results = pool.map(mark_and_sleep, [(str(mark), 600.0) for mark in marks])
        pids = wait_for_marks(marks)
        os.kill(pids[1], signal.SIGKILL)
        killed_at = time.monotonic()
        list(results)
    assert time.monotonic() - killed_at < 300  # not at the end of the other task
    assert str(lost.value) == (f"a worker process (pid {pids[1]}) was killed by SIGKILL (the system may have run "
                               "out of memory: see `dmesg`)")
    assert not [pid for pid in pids if running(pid, started_at(pid))]


def test_a_worker_that_exits_ends_the_map_with_its_status():
    """A worker that exits with a status of its own (not a signal) is named with that status, not with the SIGTERM
    the pool then sends to the others."""
    from pipeline.processes.pool import WorkerLost, process_pool
    from tests.helpers.processes import exit_with

    with pytest.raises(WorkerLost, match=r"^a worker process \(pid \d+\) exited with status 3$"), \
            process_pool(2) as pool:
        list(pool.map(exit_with, [3]))


def test_a_pool_left_by_an_error_ends_its_busy_workers_at_once(tmp_path):
    """An exception (Interrupted is one) inside process_pool terminates its workers mid-task instead of waiting
    for their tasks (here ten minutes each), and they are gone when the block has ended."""
    from pipeline.processes.pool import process_pool
    from tests.helpers.processes import mark_and_sleep

    marks = [tmp_path / f"task{i}" for i in range(2)]
    with pytest.raises(RuntimeError, match="stop"), process_pool(2) as pool:
        pool.map(mark_and_sleep, [(str(mark), 600.0) for mark in marks])
        workers = {pid: started_at(pid) for pid in wait_for_marks(marks)}
        left_at = time.monotonic()
        raise RuntimeError("stop")
    assert time.monotonic() - left_at < 120 and not [pid for pid, since in workers.items() if running(pid, since)]


# ---- stage runs -----------------------------------------------------------------------------------------------


@pytest.mark.slow
def test_a_stopped_reproduce_ends_the_checker_workers(command, tmp_path):
    """stage=reproduce checks a proof it made with the checker's pool, one worker per CPU.  Mini Nerdle's check
    has its workers for about a second at a time (2 cores, idle): a run that finishes before they were seen (one CI
    run in three, loaded) is started again in a store of its own, up to REPRODUCE_ATTEMPTS times."""
    for attempt in range(REPRODUCE_ATTEMPTS):
        run = command(["stage=reproduce", "stage.only=[table3]", "stage.rows=[table3.mini_nerdle.proof]",
                       "ray.executor=local", f"paths.outputs={tmp_path / f'outputs{attempt}'}"])
        if CPUS == 1:
            run.wait_for_line("checking the certificate")
        elif run.children_unless_finished(POOL_WORKER, CPUS) is None:
            continue
        assert_stopped(run, signal.SIGTERM, RESUME)
        return
    pytest.fail(f"every one of {REPRODUCE_ATTEMPTS} runs finished before its {CPUS} checker workers were seen")


@pytest.mark.slow
def test_a_stopped_blindfold_ends_its_solve(command, tmp_path):
    """Blindfold Wordle's lazy loop: stopped once its first round is done, while HiGHS works on the next."""
    outputs = tmp_path / "outputs"
    run = command(["stage=blindfold", "game=wordle_original", "ray.executor=local", f"paths.outputs={outputs}"])
    run.wait_for_line("blindfold: round 1:")
    assert_stopped(run, signal.SIGTERM, RESUME)
    left = [path.name for path in outputs.glob("blindfold/*") if path.name != ".claims"]  # .claims: the store's locks
    assert left == [], left  # no artifact, no temp folder


def test_highs_stops_at_a_signal_and_its_solve_ends():
    """run_highs: a signal while HiGHS solves (sent from its first interrupt check) is raised in the main thread
    at once, and HiGHS has stopped.  (With h.run() the handler would run inside that callback, where HiGHS
    swallows the exception: "Solve error", the stop lost.)"""
    import highspy

    from pipeline.blindfold.model import run_highs

    class Stop(KeyboardInterrupt):
        pass

    def stop(signum, frame):
        raise Stop

    h = hard_set_cover(seconds=120.0)
    sent = []
    h.cbMipInterrupt.subscribe(lambda event: sent or sent.append(os.kill(os.getpid(), signal.SIGUSR1)))
    previous = signal.signal(signal.SIGUSR1, stop)
    started = time.monotonic()
    try:
        with pytest.raises(Stop):
            run_highs(h)
    finally:
        signal.signal(signal.SIGUSR1, previous)
    assert sent and not h.is_solver_running()
    assert h.getModelStatus() == highspy.HighsModelStatus.kInterrupt
    assert time.monotonic() - started < 60.0


SIGNAL_AS_HIGHS_STARTS = """
import os, signal, sys, time
import highspy
from pipeline.blindfold.model import run_highs
from pipeline.processes import signals
from tests.helpers.highs import hard_set_cover

signals.install()
signals.on_stop("nothing was done")
start_solve = highspy.Highs.startSolve
def start_then_signal(h):  # the signal lands inside startSolve, once HiGHS's thread has started
    thread = start_solve(h)
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.5)
    return thread
highspy.Highs.startSolve = start_then_signal
h = hard_set_cover(seconds=120.0)
try:
    with signals.unwinding():
        run_highs(h)
    print("not stopped")
except KeyboardInterrupt as err:
    print("solving" if h.is_solver_running() else h.getModelStatus().name)
    sys.exit(signals.report(err))
"""


def test_a_signal_as_highs_starts_stops_its_solve_before_the_run_ends():
    """run_highs: a stop that lands while startSolve starts HiGHS's thread is raised once the thread runs, and
    HiGHS is stopped before run_highs leaves (raised inside startSolve, it left HiGHS solving, and the exit
    aborted under HiGHS's thread: SIGABRT instead of 143, one CI run in three of test_a_stopped_blindfold)."""
    result = subprocess.run([sys.executable, "-c", SIGNAL_AS_HIGHS_STARTS], cwd=PROJECT_ROOT, capture_output=True,
                            text=True, timeout=120, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)},
                            check=False, preexec_fn=default_signals)
    said = result.stdout.splitlines()[-1:]  # after HiGHS's banner
    assert (result.returncode, said) == (143, ["kInterrupt"]), (result.returncode, result.stdout, result.stderr)
    assert result.stderr == "error: interrupted (SIGTERM); nothing was done\n", result.stderr


@pytest.mark.slow
def test_a_sweep_stopped_as_ray_starts_writes_its_summary_and_ends_ray(command, tmp_path, ray_tmpdir):
    """SIGTERM while ray.init runs (Ray's own handler would exit 15 without a line): it waits until Ray is up,
    then the sweep unwinds: its summary marks every point stopped, and Ray's processes end with it."""
    outputs = tmp_path / "outputs"
    run = command(["-m", "stage=feedback", "game=mini_nerdle", f"paths.outputs={outputs}", "ray.num_cpus=1",
                   "progress=false", "stage.block_rows=10,20"], env={"RAY_TMPDIR": ray_tmpdir})
    run.wait_for_children(RAY_STARTING)
    stopped = run.stop(signal.SIGTERM)
    summaries = list(outputs.glob("sweeps/*/summary.json"))
    assert len(summaries) == 1, stopped.lines
    consequence = f"the points not finished are marked stopped in {summaries[0]}; {RESUME}"
    assert stopped.errors() == [expected_line(signal.SIGTERM, consequence)] == stopped.lines[-1:], stopped.lines
    assert stopped.status == 143 and run.survivors(stopped.tree) == [] and not os.listdir(run.tmpdir)
    summary = json.loads(summaries[0].read_text())
    assert summary["stopped_by"] == "SIGTERM" and summary["failed"] == [0, 1]
    assert [(row["point"], row["status"]) for row in summary["rows"]] == [(0, "stopped"), (1, "stopped")]


@pytest.mark.slow
def test_a_run_on_ray_stopped_as_ray_starts_is_one_line(command, tmp_path, ray_tmpdir):
    run = command(["stage=feedback", "game=mini_nerdle", f"paths.outputs={tmp_path / 'outputs'}", "ray.executor=ray",
                   "ray.num_cpus=1", "progress=false"], env={"RAY_TMPDIR": ray_tmpdir})
    run.wait_for_children(RAY_STARTING)
    assert_stopped(run, signal.SIGTERM, RESUME)


# ---- analyse ----------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("signum, group", [(signal.SIGTERM, False), (signal.SIGINT, True)],
                         ids=["SIGTERM", "Ctrl-C to the process group"])
@pytest.mark.slow
def test_a_stopped_analyse_ends_its_solver(signum, group, command):
    """analyse values a position in a forked child with a time budget (here the best play after FUZZY: more than
    a thousand candidates, minutes of work): stopped while the child works."""
    run = command(["analyse", "game=wordle_original", "secret=cigar", "guesses=[fuzzy,cigar]", "--budget", "600"])
    run.wait_for_children(b"analyse")  # the fork: the same command line
    assert_stopped(run, signum, None, group=group)


# ---- signals the interrupted code would swallow -------------------------------------------------------------------


SWALLOWING = """
import ctypes, os, signal, sys, time
from pipeline.processes import signals

signals.install()
signals.on_stop("nothing was done")
def inside():  # a ctypes callback (as numba's compiler calls llvmlite's): Python discards what it raises
    os.kill(os.getpid(), signal.SIGTERM)
    time.sleep(0.5)
callback = ctypes.CFUNCTYPE(None)(inside)
try:
    with signals.unwinding():
        callback()
        for _ in range(600):
            time.sleep(0.1)
    print("not stopped")
except KeyboardInterrupt as err:
    sys.exit(signals.report(err))
"""


def test_an_interrupt_raised_inside_a_callback_is_raised_again():
    result = subprocess.run([sys.executable, "-c", SWALLOWING], cwd=PROJECT_ROOT, capture_output=True, text=True,
                            timeout=120, env={**os.environ, "PYTHONPATH": str(PROJECT_ROOT)}, check=False,
                            preexec_fn=default_signals)
    assert result.returncode == 143 and result.stdout == "", (result.stdout, result.stderr)
    assert result.stderr == "error: interrupted (SIGTERM); nothing was done\n", result.stderr
