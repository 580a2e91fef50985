"""The command line: Hydra stages (`python -m pipeline stage=... game=...`) and plain sub-commands.

Bad input is reported as one `error: ...` line with exit status 2, never a traceback.
"""

import sys
from pathlib import Path

from hydra.core.config_store import ConfigStore
from omegaconf import DictConfig, OmegaConf

from pipeline.config import CONF_DIR as CONF_PATH, Config
from pipeline.errors import PipelineError
from pipeline.stages import STAGES, upstream_schema

CONF_DIR = str(CONF_PATH)  # conf/ of the checkout, or pipeline/conf of an installed copy
EXIT_BAD_INPUT = 2


def register_schemas() -> None:
    store = ConfigStore.instance()
    store.store(name="config_schema", node=Config)
    for module in STAGES.values():
        store.store(group="stage", name=f"{module.NAME}_schema", node=module.SCHEMA)
    store.store(group="upstream", name="upstream_schema", node=upstream_schema())


def fail(message: str) -> None:
    print(f"error: {message}", file=sys.stderr)
    sys.exit(EXIT_BAD_INPUT)


def explain_compose_error(err: Exception) -> str:
    """One line out of Hydra's / OmegaConf's multi-line composition errors."""
    lines = [ln.strip() for ln in str(err).splitlines() if ln.strip()]
    cause = err.__cause__
    detail = [ln.strip() for ln in str(cause).splitlines() if ln.strip()] if cause else []
    options = []
    if "Available options" in str(err):
        listed = str(err).split("Available options", 1)[1].split("Config search path", 1)[0]
        options = [o.strip() for o in listed.splitlines()[1:] if o.strip() and not o.strip().endswith("_schema")]
    if options:
        return f"{lines[0]} (available: {', '.join(options)})"
    return " — ".join(dict.fromkeys(lines[:1] + detail[:1]))


def compose(overrides: list[str]) -> DictConfig:
    """Compose the config without running anything (validates every override)."""
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    register_schemas()
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3"):
            cfg = hydra_compose(config_name="config", overrides=overrides)
            OmegaConf.resolve(cfg)
            return cfg
    except Exception as err:  # Hydra raises many types; all mean "your config is wrong"
        fail(explain_compose_error(err))


def to_config(cfg: DictConfig) -> Config:
    try:
        return OmegaConf.to_object(cfg)
    except Exception as err:
        fail(explain_compose_error(err))


def run_dir() -> Path:
    """Hydra's folder for this run (config, overrides, log); a temp folder outside a Hydra run."""
    from hydra.core.hydra_config import HydraConfig

    if HydraConfig.initialized():
        return Path(HydraConfig.get().runtime.output_dir)
    import tempfile

    return Path(tempfile.mkdtemp(prefix="pipeline-run-"))


def run_task(cfg: DictConfig) -> Path:
    """Load the game and run the chosen stage (and any missing inputs). Returns the artifact folder."""
    from pipeline.games.catalog import load_game
    from pipeline.runtime.log import log_to_file, setup_console
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    config = to_config(cfg)
    setup_console()
    try:
        with log_to_file(run_dir() / "pipeline.log"):
            game = load_game(config.game)
            artifact = run_stage(config.stage, config, game, ArtifactStore(config.paths.outputs))
    except PipelineError as err:
        fail(str(err))
    except KeyboardInterrupt:
        print("interrupted: finished shards are kept; rerun the same command to resume", file=sys.stderr)
        sys.exit(130)
    print(artifact.path)
    return artifact.path


def hydra_main(argv: list[str]) -> None:
    """Validate the overrides ourselves (one-line errors), then hand over to Hydra for logs and sweeps."""
    import hydra

    if not any(a in ("-m", "--multirun") for a in argv) and not any(a.startswith("-") for a in argv):
        compose(argv)
    register_schemas()
    sys.argv = [sys.argv[0], *argv]
    hydra.main(config_path=CONF_DIR, config_name="config", version_base="1.3")(run_task)()
