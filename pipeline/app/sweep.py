"""`python -m pipeline -m key=a,b ...`: the points of a sweep run at once on Ray, then one summary.

Each point runs as a job of pipeline.runtime.launcher on this node: a driver of its own (composing and checking
its config, running its stage and any missing inputs) whose fan-outs share the cluster with the other points'.
How many run at once: `sweep.max_parallel`, or the cluster's CPUs (or the local cores) when it is null.  A point
that fails — bad input, or a failed run — is reported and the rest go on.  Every point has a folder
`<outputs>/sweeps/<id>/<n>/` (its overrides, `output.txt` with everything it printed, `pipeline.log`); a line
says when each ends.  At the end the summary (point, overrides, status, artifact, wall, result) is printed as a
table and written to `<outputs>/sweeps/<id>/summary.json` and `summary.md`; the exit status is 1 naming the
failed points, else 0.  When no point composes at all, the first one's error is the one line, exit 2, as for a
single run.
"""

import os
import secrets
import signal
import sys
import time
import traceback
from contextlib import redirect_stderr, redirect_stdout
from datetime import datetime
from pathlib import Path

from pipeline.config.settings import Config
from pipeline import PipelineError, echo, error_line

OK, FAILED, BAD_INPUT, STOPPED = "ok", "failed", "bad input", "stopped"
SWEEP_KEYS = "sweep."  # settings of the sweep as a whole: the same for every point
HYDRA_UNUSED = ("hydra.sweep.", "hydra.run.", "hydra/launcher", "hydra/sweeper", "hydra.launcher", "hydra.sweeper")
MAX_POINTS = 10_000  # a sweep's points at most: its size is worked out before any point is made, a bigger one refused


def run_point(overrides: list[str], folder: str, cwd: str) -> dict:
    """One point, in a Ray worker: composed, checked and run; everything it prints goes to its folder's
    output.txt.  Returns its summary row (never raises: a failure is a row)."""
    from pipeline.stages.preflight import checked_config
    from pipeline.runtime.log import setup_console
    from pipeline.app.task import run_config

    os.chdir(cwd)  # relative paths in the overrides mean what they mean where the sweep was started
    start = time.monotonic()
    point = Path(folder)
    point.mkdir(parents=True, exist_ok=True)
    (point / "overrides.txt").write_text("".join(f"{item}\n" for item in overrides))
    row = {"overrides": overrides, "status": OK, "artifact": "", "result": "", "error": "", "started": time.time()}
    with open(point / "output.txt", "w") as out, redirect_stdout(out), redirect_stderr(out):
        setup_console()
        try:
            config = checked_config(overrides)
        except PipelineError as err:
            row.update(status=BAD_INPUT, error=str(err))
        else:
            row.update(_run(config, point, run_config))
    row["wall_s"] = round(time.monotonic() - start, 3)
    return row


def _run(config: Config, point: Path, run_config) -> dict:
    try:
        result = run_config(config, point)
    except PipelineError as err:
        return {"status": FAILED, "error": str(err)}
    except Exception as err:  # a bug: the traceback goes to the point's output.txt, the row says where
        traceback.print_exc()
        return {"status": FAILED, "error": f"internal error ({type(err).__name__}: {err}); see {point}/output.txt"}
    return {"status": FAILED if result.failed else OK, "artifact": str(result.artifact), "result": result.headline,
            "error": result.failed}


def first_composed(points: list[list[str]]) -> tuple[Config, dict[int, str]]:
    """The config of the first point that composes (it gives the sweep its outputs folder and Ray settings),
    and the errors of the points before it; none composing is one error line (the first point's)."""
    from pipeline.stages.preflight import checked_config

    errors = {}
    for index, overrides in enumerate(points):
        try:
            return checked_config(overrides), errors
        except PipelineError as err:
            errors[index] = str(err)
    label = f" (sweep point 0: {' '.join(points[0])})" if len(points) > 1 else ""
    raise PipelineError(f"{errors[0]}{label}")


def check_sweep_overrides(points: list[list[str]]) -> None:
    """`sweep.*` settings belong to the whole sweep (refused when they differ between points); Hydra's own run and
    sweep folders and launcher are not used by this launcher (refused rather than ignored)."""
    chosen = {tuple(item for item in overrides if item.startswith(SWEEP_KEYS)) for overrides in points}
    if len(chosen) > 1:
        raise PipelineError("sweep.* settings apply to the whole sweep and cannot be swept")
    for item in points[0]:
        if item.lstrip("+~").startswith(HYDRA_UNUSED):
            raise PipelineError(f"{echo(item)}: a -m sweep does not use Hydra's folders or launcher; its folders are "
                                "<paths.outputs>/sweeps/<id>/ (choose paths.outputs)")


def sweep_folder(outputs: str) -> Path:
    """A new `<outputs>/sweeps/<date>_<time>-<random>/`."""
    name = f"{datetime.now():%Y-%m-%d_%H-%M-%S}-{secrets.token_hex(2)}"
    folder = Path(outputs).resolve() / "sweeps" / name
    folder.mkdir(parents=True)
    return folder


def run_sweep(points: list[list[str]]) -> tuple[Path, list[dict]]:
    """Every point run (as far as there is room, at once); returns the sweep's folder and its rows.  Stopped by a
    signal (Interrupted, inside signals.unwinding), it writes the summary, the points not finished marked
    `stopped`, before the interrupt goes on."""
    import logging

    from pipeline.app.sweep_summary import write_summary
    from pipeline.processes import signals

    check_sweep_overrides(points)
    config, early_errors = first_composed(points)  # sweep.max_parallel is checked there (pipeline/config/settings.py)
    folder = sweep_folder(config.paths.outputs)
    signals.on_stop(f"the points not finished are marked {STOPPED} in {folder / 'summary.json'}; {signals.RESUME}")
    log = logging.getLogger("pipeline.app.sweep")
    log.info("sweep: %d points, summary in %s", len(points), folder)
    rows: dict[int, dict] = {index: {"overrides": points[index], "status": BAD_INPUT, "artifact": "", "result": "",
                                     "error": error, "wall_s": 0.0} for index, error in early_errors.items()}
    try:
        run_points(points, folder, config, rows, log)
    except KeyboardInterrupt as err:
        stopped_by = signal.Signals(signals.signal_of(err)).name
        write_summary(folder, in_order(points, rows, stopped_by), stopped_by=stopped_by)
        raise
    return folder, in_order(points, rows)


def in_order(points: list[list[str]], rows: dict[int, dict], stopped_by: str | None = None) -> list[dict]:
    """The summary's rows in point order; a point without a row was stopped by `stopped_by` before it finished."""
    stopped = {"status": STOPPED, "artifact": "", "result": "", "wall_s": 0.0,
               "error": f"stopped by {stopped_by} before it finished"}
    return [dict(point=index, **rows.get(index, {"overrides": points[index], **stopped}))
            for index in range(len(points))]


def run_points(points: list[list[str]], folder: Path, config: Config, rows: dict[int, dict], log) -> None:
    """Start Ray, then run every point without a row yet, adding each one's row as it ends."""
    from pipeline.runtime.launcher import run_jobs
    from pipeline.runtime.ray_session import ensure_ray

    ensure_ray(config.ray)
    todo = [index for index in range(len(points)) if index not in rows]

    def finished(position: int, outcome) -> None:
        index = todo[position]
        rows[index] = outcome.value if not outcome.error else {
            "overrides": points[index], "status": FAILED, "artifact": "", "result": "", "wall_s": 0.0,
            "error": f"the point's worker failed: {outcome.error}"}
        row = rows[index]
        log.info("sweep: point %d %s in %.1fs: %s", index, row["status"], row["wall_s"], row["result"] or row["error"])

    jobs = [(points[index], str(folder / str(index)), os.getcwd()) for index in todo]
    run_jobs(run_point, jobs, max_parallel=config.sweep.max_parallel, label="sweep", on_done=finished)


def main(points: list[list[str]]) -> int:
    """The command line's `-m`: run, print and write the summary; 0, 1 (some point failed) or 2 (bad input).  A
    signal unwinds the sweep (its summary written, Ray shut down at exit) before the one line."""
    from pipeline.runtime.log import setup_console
    from pipeline.app.sweep_summary import table, write_summary
    from pipeline.processes.signals import unwinding

    setup_console()
    try:
        with unwinding():
            folder, rows = run_sweep(points)
    except PipelineError as err:
        print(error_line(err), file=sys.stderr)
        return 2
    write_summary(folder, rows)
    print(table(rows))
    print(folder)
    failed = [row["point"] for row in rows if row["status"] != OK]
    if failed:
        print(f"error: {len(failed)} of {len(rows)} sweep points failed: {', '.join(map(str, failed))} "
              f"(see {folder / 'summary.md'})", file=sys.stderr)
        return 1
    return 0
