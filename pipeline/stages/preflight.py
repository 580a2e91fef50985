"""Everything checked before a run starts, called from one place (pipeline.config.compose.compose_config).

A composed config is checked once: its output folders are usable, Ray's settings are sane (and a cluster
head answers), the game loads, and the chosen stage and every stage it would run as an input accept their
settings (each stage's `validate`, then the memory size checks of pipeline.config.validation).  Each problem is a
PipelineError of one line.  The game a check loads is kept for the run (`check_run` returns it), so a run
does not load its game twice.
"""

from pipeline.config.settings import Config
from pipeline import PipelineError
from pipeline.config.validation import check_outputs, check_sizes

_GAMES: dict = {}  # games loaded by the checks, by config: a run does not load its game twice
_REACHED: set = set()  # Ray addresses whose head answered in this process
_CHECKED: dict = {}  # configs already checked in this process (repr -> their game): each is checked once


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


def checked_config(overrides: list[str], run_dir_key: str | None = None) -> Config:
    """The Config of `overrides` (pipeline.config.compose.compose_config), checked as a run by `check_run`
    (once per config and process)."""
    from pipeline.config.compose import compose_config

    config = compose_config(overrides, run_dir_key)
    check_run(config)
    return config
