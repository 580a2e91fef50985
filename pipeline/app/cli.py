"""The Hydra stage runs of the command line: `python -m pipeline stage=... game=...` (and `-m` sweeps).

pipeline.app.commands is the entry point; it hands every argument list that is not a sub-command to
`hydra_main` here, and this module imports nothing back from it.  Bad input is reported as one `error: ...`
line with exit status 2, never a traceback.  Every run — a single one or each point of a `-m` sweep — is
composed and checked by the one composer (pipeline.config.compose.compose_config, which calls the checks of
pipeline.stages.preflight) before Hydra starts it.
"""

import sys
from pathlib import Path

from omegaconf import DictConfig

from pipeline.config.compose import CONF_DIR, compose_run, register_schemas, sweep_points as split_sweep
from pipeline.config.compose import to_config as typed_config
from pipeline.config.settings import Config
from pipeline import PipelineError, echo, error_line, printable
from pipeline.stages.preflight import check_run
from pipeline.config.suggest import did_you_mean

EXIT_BAD_INPUT = 2
EXIT_FAILED = 1  # the stage ran and wrote its artifact, which records a failure (e.g. a reproduce verdict)
MULTIRUN_FLAGS = ("-m", "--multirun")
HELP_FLAGS = ("-h", "--help")  # the usage (pipeline.app.commands prints it before a run is looked at)
# The only flags of a stage run (the README's).  Hydra's own (--cfg, --info, -cd/--config-dir, -cn, -cp,
# --experimental-rerun, ...) never reach Hydra: they load configs from any folder or unpickle a file.
FLAGS = (*MULTIRUN_FLAGS, *HELP_FLAGS)


def fail(message: str) -> None:
    print(error_line(message), file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def to_config(cfg: DictConfig) -> Config:
    """The typed Config of a composed tree; one error line and exit 2 when it does not fit the schemas."""
    try:
        return typed_config(cfg)
    except PipelineError as err:
        fail(str(err))


def run_dir() -> Path:
    """Hydra's folder for this run (config, overrides, log); a temp folder outside a Hydra run."""
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():
        return Path(HydraConfig.get().runtime.output_dir)
    import tempfile

    return Path(tempfile.mkdtemp(prefix="pipeline-run-"))


def run_task(cfg: DictConfig) -> Path:
    """Run the chosen stage (and any missing inputs) of a composed config: its result line, then its artifact
    folder.  The config was checked when it was composed (check_run remembers it: nothing is checked twice)."""
    from pipeline.runtime.log import setup_console
    from pipeline.app.task import run_config

    config = to_config(cfg)
    setup_console()
    try:
        result = run_config(config, run_dir())
    except PipelineError as err:
        fail(str(err))
    except KeyboardInterrupt as err:  # one line, exit 130 (Ctrl-C), 143 (SIGTERM), 129 (SIGHUP): processes.signals
        from pipeline.processes.signals import report

        sys.exit(report(err))
    print(printable(result.headline))
    print(printable(result.artifact))
    if result.failed:
        print(error_line(result.failed), file=sys.stderr)
        sys.exit(EXIT_FAILED)
    return result.artifact


def sweep_points(overrides: list[str]) -> list[list[str]]:
    """Every job's overrides of a `-m` sweep (pipeline.config.compose.sweep_points), at most pipeline.app.sweep.MAX_POINTS of
    them; one error line on bad grammar, an empty sweep or a bigger one."""
    from pipeline.app.sweep import MAX_POINTS

    try:
        return split_sweep(overrides, limit=MAX_POINTS)
    except PipelineError as err:
        fail(str(err))


class NoCallbacks:
    """Hydra's job callbacks for a run without any (conf/ configures none): run_job calls these two."""

    def on_job_start(self, config, **kwargs) -> None:
        """Nothing to do before the job."""

    def on_job_end(self, config, job_return, **kwargs) -> None:
        """Nothing to do after the job."""


def run_single(overrides: list[str]) -> None:
    """One run (no sweep, no Hydra flag): composed and checked once, then run as Hydra runs a job — its folder
    under `.runs/` with the config and overrides, HydraConfig set for `run_dir` — without hydra.main, which
    would compose the same config twice more (a quarter of a second each)."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.utils import run_job
    from hydra.types import HydraContext

    try:
        cfg, config = compose_run(overrides, run_dir_key="hydra.run.dir")
        check_run(config)
    except PipelineError as err:
        fail(str(err))
    register_schemas()
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3", job_name="cli"):
        context = HydraContext(config_loader=GlobalHydra.instance().config_loader(), callbacks=NoCallbacks())
        # configure_logging=False: conf/ sets no logging (hydra/job_logging: none; pipeline/runtime/log.py logs),
        # and Hydra's logging config would build whatever handler class or `()` factory it names
        result = run_job(task_function=run_task, config=cfg, job_dir_key="hydra.run.dir", job_subdir_key=None,
                         hydra_context=context, configure_logging=False)
    result.return_value  # re-raises what the task raised


def check_flags(flags: list[str], commands) -> None:
    """A stage run takes -m/--multirun and nothing else (-h/--help print the usage before a run is looked at):
    any other flag, Hydra's own included, is one error line before anything is composed, imported or read.
    `commands` are the sub-commands' names, for the error line."""
    for flag in flags:
        if flag not in MULTIRUN_FLAGS:
            hint = did_you_mean(flag.split("=", 1)[0], FLAGS)
            fail(f"unknown option {echo(flag)}{hint}; a stage run takes key=value overrides (and -m to sweep them; "
                 f"Hydra's own flags are not accepted), other commands are {', '.join(commands)} "
                 "(see python -m pipeline --help)")


def hydra_main(argv: list[str], commands=()) -> None:
    """Check every run ourselves (one-line errors), then run it as Hydra runs a job (run_single), or a `-m`
    sweep with our own launcher (pipeline.app.sweep).  `commands` names the sub-commands for error lines."""
    from pipeline.processes.signals import RESUME, on_stop

    on_stop(RESUME)  # a stage run keeps the shards its fan-outs finished
    flags = [a for a in argv if a.startswith("-")]
    overrides = [a for a in argv if not a.startswith("-")]
    check_flags(flags, commands)
    if not flags:
        return run_single(overrides)
    from pipeline.app.sweep import main as run_sweep

    sys.exit(run_sweep(sweep_points(overrides)))
