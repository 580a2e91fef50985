"""Everything checked before a run starts, called from one place (pipeline.compose.compose_config).

A composed config is checked once: its output folders are usable, Ray's settings are sane (and a cluster
head answers), the game loads, and the chosen stage and every stage it would run as an input accept their
settings (each stage's `validate`, then the memory size checks of pipeline.validation).  Each problem is a
PipelineError of one line.  The game a check loads is kept for the run (`check_run` returns it), so a run
does not load its game twice.
"""

import os
import tempfile
from pathlib import Path

from pipeline.config import Config
from pipeline.errors import PipelineError
from pipeline.validation import check_sizes

_GAMES: dict = {}  # games loaded by the checks, by config: a run does not load its game twice
_REACHED: set = set()  # Ray addresses whose head answered in this process
_CHECKED: dict = {}  # configs already checked in this process (repr -> their game): each is checked once


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


def check_inside(folder: str, setting: str, outputs: str) -> None:
    """`setting` names a folder inside paths.outputs (links and `..` resolved): a run writes nowhere else."""
    inner, outer = Path(os.path.realpath(str(folder))), Path(os.path.realpath(str(outputs)))
    if not inner.is_relative_to(outer):
        raise PipelineError(f"{setting}={folder} is outside paths.outputs={outputs}: a run writes only inside its "
                            f"outputs folder (give a folder inside it, or move paths.outputs)")


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
    """Everything that can be checked before a run starts; returns the loaded game (cached per process).  A
    config already checked in this process is not checked again."""
    from pipeline.games.catalog import load_game
    from pipeline.runtime.ray_session import check_ray_config

    if repr(config) in _CHECKED:
        return _CHECKED[repr(config)]
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
    _CHECKED[repr(config)] = _GAMES[game_key]
    return _GAMES[game_key]
