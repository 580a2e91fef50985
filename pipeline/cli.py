"""The command line: Hydra stages (`python -m pipeline stage=... game=...`) and plain sub-commands.

Bad input is reported as one `error: ...` line with exit status 2, never a traceback.  Every run — a
single one or each point of a `-m` sweep — is checked before Hydra starts it: the overrides compose,
the output folder is usable, Ray's settings are sane (and a cluster head answers), the game loads, and
the chosen stage and every stage it would run as an input accept their settings.
"""

import copy
import os
import re
import sys
import tempfile
from pathlib import Path

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from pipeline.config import CONF_DIR as CONF_PATH, Config
from pipeline.errors import PipelineError
from pipeline.overrides import check_overrides
from pipeline.stages import upstream_schema
from pipeline.stages.schemas import SCHEMAS
from pipeline.suggest import did_you_mean, key_hint
from pipeline.validation import check_sizes

CONF_DIR = str(CONF_PATH)  # conf/ of the checkout, or pipeline/conf of an installed copy
EXIT_BAD_INPUT = 2
EXIT_FAILED = 1  # the stage ran and wrote its artifact, which records a failure (e.g. a reproduce verdict)
MULTIRUN_FLAGS = ("-m", "--multirun")
GRAMMAR_ERRORS = ("no viable alternative", "mismatched input", "token recognition error", "extraneous input",
                  "LexerNoViableAltException")
QUOTE_HINT = (" (quote a value holding = , [ ] # ' ! & or spaces: 'stage.openers=[\"28/7=4\"]', "
              "'paths.outputs=\"/my dir\"')")
# Hydra's own command-line flags (hydra/_internal/utils.py get_args_parser), with or without a value
HYDRA_FLAGS = ("-h", "--help", "--hydra-help", "--version", "-c", "--cfg", "-r", "--resolve", "-p", "--package",
               "-i", "--info", "-m", "--multirun", "-sc", "--shell-completion", "-cp", "--config-path",
               "-cn", "--config-name", "-cd", "--config-dir", "--experimental-rerun")
_GAMES: dict = {}  # games loaded by the checks, by config: a run does not load its game twice
_REACHED: set = set()  # Ray addresses whose head answered in this process


def register_schemas() -> None:
    store = ConfigStore.instance()
    store.store(name="config_schema", node=Config)
    for name, schema in SCHEMAS.items():  # schemas only: no stage module is imported to compose a config
        store.store(group="stage", name=f"{name}_schema", node=schema)
    store.store(group="upstream", name="upstream_schema", node=upstream_schema())


def fail(message: str) -> None:
    print(f"error: {' '.join(str(message).split())}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def explain_compose_error(err: Exception) -> str:
    """One line out of Hydra's / OmegaConf's multi-line composition errors."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()] or [type(err).__name__]
    cause = err.__cause__
    detail = [ln.strip() for ln in str(cause).splitlines() if ln.strip()] if cause else []
    options = []
    if "Available options" in str(err):
        listed = str(err).split("Available options", 1)[1].split("Config search path", 1)[0]
        options = [o.strip() for o in listed.splitlines()[1:] if o.strip() and not o.strip().endswith("_schema")]
    if options:
        missing = re.search(r"Could not find '[^/']*/([^']+)'", lines[0])
        hint = did_you_mean(missing.group(1), options) if missing else ""
        return f"{lines[0]} (available: {', '.join(options)}){hint}"
    message = " — ".join(dict.fromkeys(lines[:1] + detail[:1]))
    if any(text in message for text in GRAMMAR_ERRORS):
        message += QUOTE_HINT
    as_float = re.search(r"Value '([^']+)' of type 'float' could not be converted to Integer", message)
    if as_float:
        message += f" (an integer setting takes whole digits: {as_float.group(1)} is a float)"
    return message + key_hint(message)


def compose(overrides: list[str], run_dir_key: str | None = None, label: str = "") -> DictConfig:
    """Compose the config without running anything (validates every override); with `run_dir_key`
    (hydra.run.dir or hydra.sweep.dir) also check that Hydra can create that folder.  `label` ends an error
    line (which sweep job it was)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    register_schemas()
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
            cfg = hydra_compose(config_name="config", overrides=overrides, return_hydra_config=bool(run_dir_key))
            run_folder = OmegaConf.select(cfg, run_dir_key) if run_dir_key else None
            if run_dir_key:
                with read_write(cfg), open_dict(cfg):
                    del cfg["hydra"]
            OmegaConf.resolve(cfg)
    except Exception as err:  # Hydra raises many types; all mean "your config is wrong"
        fail(explain_compose_error(err) + label)
    try:
        check_overrides(overrides, cfg)
        if run_dir_key:
            check_outputs(cfg.paths.outputs)  # named first: the run folder lies inside it by default
            check_folder(run_folder, run_dir_key)
    except PipelineError as err:
        fail(f"{err}{label}")
    return cfg


def to_config(cfg: DictConfig) -> Config:
    try:
        return OmegaConf.to_object(cfg)
    except Exception as err:
        fail(explain_compose_error(err))


def check_outputs(outputs: str) -> None:
    """paths.outputs must be a folder we can create and write in (Hydra writes its run log there first)."""
    check_folder(outputs, "paths.outputs")


def check_folder(folder: str, setting: str) -> None:
    """`setting` names a folder that exists or can be created: its nearest existing ancestor is a folder in
    which a sub-folder can really be made (tried and removed at once: permissions alone say nothing to root,
    nor about /proc or a read-only mount)."""
    if not str(folder).strip():
        raise PipelineError(f"{setting} is empty; give a folder, e.g. {setting}=./outputs")
    path = Path(folder).expanduser().absolute()
    if path.exists() and not path.is_dir():
        raise PipelineError(f"{setting}={folder} is a file, not a folder")
    existing = next(p for p in (path, *path.parents) if p.exists())
    if not existing.is_dir():
        raise PipelineError(f"{setting}={folder}: {existing} is a file, not a folder")
    try:
        os.rmdir(tempfile.mkdtemp(prefix=".pipeline-probe-", dir=existing))
    except OSError as err:
        raise PipelineError(f"{setting}={folder}: cannot create a folder in {existing} "
                            f"({err.strerror or type(err).__name__})") from None


def check_plan(name: str, stage_cfg, config: Config, game, seen: set[str]) -> None:
    """`validate` the stage and, recursively, every stage it runs as an input (with its upstream settings)."""
    from pipeline.stages.runner import stage_contract, upstream_config

    stage = stage_contract(name)
    where = "stage" if not seen else f"upstream.{name}"
    if not isinstance(stage_cfg, stage.schema) or stage_cfg.name != name:
        raise PipelineError(f"{where}.name cannot be changed; choose a stage with stage=<name>")
    seen.add(name)
    try:
        stage.validate(stage_cfg, game)
        check_sizes(stage_cfg)
    except PipelineError as err:
        if where == "stage":
            raise
        message = str(err).replace("stage.", f"{where}.")
        raise PipelineError(f"{message} (in {name}, run as an input)") from None
    for dep in stage.inputs(stage_cfg):
        dep_cfg = upstream_config(dep, config)
        same_objective(where, stage_cfg, dep, dep_cfg)
        if dep not in seen:
            check_plan(dep, dep_cfg, config, game, seen)


def same_objective(where: str, stage_cfg, dep: str, dep_cfg) -> None:
    """A stage with an objective reads only results computed for that objective."""
    ours, theirs = getattr(stage_cfg, "objective", None), getattr(dep_cfg, "objective", None)
    if ours is not None and theirs is not None and ours != theirs:
        raise PipelineError(f"{where}.objective={ours} but upstream.{dep}.objective={theirs}: a stage reads "
                            "only results computed for its own objective")


def check_run(config: Config):
    """Everything that can be checked before a run starts; returns the loaded game (cached per process)."""
    from pipeline.games.catalog import load_game
    from pipeline.runtime.ray_session import check_ray_config

    check_outputs(config.paths.outputs)
    first = config.ray.address not in _REACHED
    check_ray_config(config.ray, connect=first)
    game_key = repr(config.game)
    if game_key not in _GAMES:
        _GAMES[game_key] = load_game(config.game)
    check_plan(config.stage.name, config.stage, config, _GAMES[game_key], set())
    if first and config.ray.address != "local":  # last: joining takes seconds, every local check is done
        from pipeline.runtime.cluster_check import check_cluster

        check_cluster(config.ray)  # says which cluster it joined, refuses one whose workers run other code
    _REACHED.add(config.ray.address)
    return _GAMES[game_key]


def plan_stages(config: Config) -> set[str]:
    """The stage run and every stage it runs as an input."""
    from pipeline.stages.runner import stage_contract, upstream_config

    names, todo = set(), [(config.stage.name, config.stage)]
    while todo:
        name, stage_cfg = todo.pop()
        names.add(name)
        needed = stage_contract(name).inputs(stage_cfg)
        todo += [(dep, upstream_config(dep, config)) for dep in needed if dep not in names]
    return names


def rebuild_hint(err, config: Config) -> str:
    """The command that rebuilds a damaged artifact: `stage.force=true` for the stage run, else its upstream key."""
    if err.stage == config.stage.name:
        return "rebuild it with stage.force=true"
    if err.stage in plan_stages(config):
        return f"rebuild it with upstream.{err.stage}.force=true"
    return (f"rebuild it with `python -m pipeline stage={err.stage} ...` and stage.force=true (that run's settings), "
            f"or delete {err.path.parent}")


def run_dir() -> Path:
    """Hydra's folder for this run (config, overrides, log); a temp folder outside a Hydra run."""
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():
        return Path(HydraConfig.get().runtime.output_dir)
    import tempfile

    return Path(tempfile.mkdtemp(prefix="pipeline-run-"))


def run_task(cfg: DictConfig) -> Path:
    """Load the game and run the chosen stage (and any missing inputs). Returns the artifact folder."""
    from pipeline.runtime.log import log_to_file, setup_console
    from pipeline.runtime.store import ArtifactStore, DamagedArtifactError
    from pipeline.stages.runner import result_line, run_stage, stage_contract

    config = to_config(cfg)
    setup_console()
    try:
        game = check_run(config)
        with log_to_file(run_dir() / "pipeline.log"):
            artifact = run_stage(config.stage, config, game, ArtifactStore(config.paths.outputs))
        failed = stage_contract(config.stage.name).failure(artifact)
        headline = result_line(artifact)
    except DamagedArtifactError as err:
        fail(f"{err}; {rebuild_hint(err, config)}")
    except PipelineError as err:
        fail(str(err))
    except KeyboardInterrupt as err:  # one line, exit 130 (Ctrl-C) or 143 (SIGTERM): pipeline.runtime.signals
        from pipeline.runtime.signals import report

        sys.exit(report(err))
    print(headline)
    print(artifact.path)
    if failed:
        print(f"error: {' '.join(failed.split())}", file=sys.stderr)
        sys.exit(EXIT_FAILED)
    return artifact.path


def sweep_points(overrides: list[str]) -> list[list[str]]:
    """Every job's overrides of a `-m` sweep (`a=1,2 b=x,y` gives 4 jobs), as Hydra's basic sweeper makes them."""
    from hydra._internal.core_plugins.basic_sweeper import BasicSweeper
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
        batches = BasicSweeper.split_arguments(parsed, None)
    except Exception as err:  # Hydra's grammar errors
        fail(explain_compose_error(err))
    return [job for batch in batches for job in batch]


def check_points(points: list[list[str]]) -> None:
    """Compose and check every run before the first starts; the first bad point ends with one error line."""
    for overrides in points:
        label = f" (sweep job {' '.join(overrides)})" if len(points) > 1 else ""
        try:
            check_run(to_config(compose(overrides, run_dir_key="hydra.sweep.dir", label=label)))
        except PipelineError as err:
            fail(f"{err}{label}")


def run_single(overrides: list[str]) -> None:
    """One run (no sweep, no Hydra flag): composed once, checked, then run as Hydra runs a job — its folder
    under `.runs/` with the config and overrides, HydraConfig set for `run_dir` — without hydra.main, which
    would compose the same config twice more (a quarter of a second each)."""
    from hydra import initialize_config_dir
    from hydra._internal.callbacks import Callbacks
    from hydra.core.global_hydra import GlobalHydra
    from hydra.core.utils import run_job
    from hydra.types import HydraContext, RunMode

    register_schemas()
    with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3", job_name="cli"):
        hydra = GlobalHydra.instance().hydra
        try:  # as hydra.main composes a run (with Hydra's logging), but with the compose API's messages
            cfg = hydra.compose_config("config", [*overrides, "hydra.mode=RUN"], run_mode=RunMode.RUN,
                                       with_log_configuration=True, from_shell=False)
            task_cfg = copy.deepcopy(cfg)  # what the task gets: the config without Hydra's node
            with read_write(task_cfg), open_dict(task_cfg):
                del task_cfg["hydra"]
            OmegaConf.resolve(task_cfg)
            folder = cfg.hydra.run.dir
        except Exception as err:  # Hydra raises many types; all mean "your config is wrong"
            fail(explain_compose_error(err))
        try:
            check_overrides(overrides, task_cfg)
            check_outputs(task_cfg.paths.outputs)  # named first: the run folder lies inside it by default
            check_folder(folder, "hydra.run.dir")
            check_run(to_config(task_cfg))
        except PipelineError as err:
            fail(str(err))
        context = HydraContext(config_loader=hydra.config_loader, callbacks=Callbacks(cfg))
        result = run_job(task_function=run_task, config=cfg, job_dir_key="hydra.run.dir", job_subdir_key=None,
                         hydra_context=context, configure_logging=True)
        result.return_value  # re-raises what the task raised


def check_flags(flags: list[str]) -> None:
    """Only Hydra's own flags reach Hydra (which would print its whole usage for any other)."""
    from pipeline.commands import COMMANDS

    for flag in flags:
        name = flag.split("=", 1)[0]
        if name not in HYDRA_FLAGS:
            hint = did_you_mean(name, HYDRA_FLAGS)
            fail(f"unknown option {name}{hint}; a stage run takes key=value overrides (and -m to sweep them), "
                 f"other commands are {', '.join(COMMANDS)} (see python -m pipeline --help)")


def hydra_main(argv: list[str]) -> None:
    """Check every run ourselves (one-line errors), then hand over to Hydra for logs and sweeps; a single run
    without Hydra flags is run directly (run_single)."""
    import hydra

    flags = [a for a in argv if a.startswith("-")]
    overrides = [a for a in argv if not a.startswith("-")]
    check_flags(flags)
    if not flags:
        return run_single(overrides)
    if all(f in MULTIRUN_FLAGS for f in flags):  # other Hydra flags (--cfg, --info, ...) go to Hydra as they are
        check_points(sweep_points(overrides))
    register_schemas()
    sys.argv = [sys.argv[0], *argv]
    hydra.main(config_path=CONF_DIR, config_name="config", version_base="1.3")(run_task)()
