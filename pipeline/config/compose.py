"""The one composer: overrides in, a typed and checked `Config` out, through Hydra's public compose API.

Every config the pipeline builds comes from here: the command line (a single run and each point of a `-m`
sweep), the sub-commands, `stage=reproduce` and the leaderboard's inner runs, `game_config` (a shipped game by name),
and library users:

    from pipeline.config.compose import compose_config
    config = compose_config(["stage=prove", "game=mini_nerdle"])  # checked as a run: stages.preflight.checked_config

The schemas (pipeline/config/settings.py, pipeline/config/stages.py) give every default and type; conf/ chooses
values.  A bad override, a bad value and every problem the preflight checks find (pipeline/stages/preflight.py)
raise one PipelineError line; the command line prints it as `error: ...` and exits 2.  `sweep_points`
splits a `-m` sweep into the overrides of its points, each composed and checked as a single run.
"""

import contextlib
import copy
import decimal
import functools
import itertools
import math
import re

from omegaconf import DictConfig, OmegaConf, open_dict, read_write

from pipeline.config.settings import CONF_DIR as CONF_PATH
from pipeline.config.settings import Config, GameConfig, PathsConfig, RayConfig
from pipeline import PipelineError, echo
from pipeline.config.overrides import check_overrides, check_routes
from pipeline.config.suggest import did_you_mean, key_hint

CONF_DIR = str(CONF_PATH)  # conf/ of the checkout, or pipeline/conf of an installed copy
GRAMMAR_ERRORS = ("no viable alternative", "mismatched input", "token recognition error", "extraneous input",
                  "LexerNoViableAltException")
QUOTE_HINT = (" (quote a value holding = , [ ] # ' ! & or spaces: 'stage.openers=[\"28/7=4\"]', "
              "'paths.outputs=\"/my dir\"')")


@functools.cache
def register_schemas() -> None:
    """Put every schema in Hydra's config store: the root config and the `stage`, `upstream`, `ray` and
    `paths` groups' schemas (named `<name>_schema` in conf/'s defaults lists).  Once per process: the store
    outlives every composition, and storing the schemas again cost a tenth of a second a composition."""
    from hydra.core.config_store import ConfigStore

    from pipeline.config.stages import upstream_schema
    from pipeline.config.stages import SCHEMAS

    store = ConfigStore.instance()
    store.store(name="config_schema", node=Config)
    for name, schema in SCHEMAS.items():  # schemas only: no stage module is imported to compose a config
        store.store(group="stage", name=f"{name}_schema", node=schema)
    store.store(group="upstream", name="upstream_schema", node=upstream_schema())
    store.store(group="ray", name="ray_schema", node=RayConfig)
    store.store(group="paths", name="paths_schema", node=PathsConfig)


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
    return message + key_hint(message, schema_classes())


def schema_classes() -> dict[str, type]:
    """Every config dataclass by class name (the name OmegaConf quotes in `Key 'x' not in 'Y'`)."""
    from pipeline.config import settings as config
    from pipeline.config.stages import upstream_schema
    from pipeline.config.stages import SCHEMAS

    classes = [config.Config, config.GameConfig, config.RayConfig, config.PathsConfig, config.WordListConfig,
               upstream_schema(), *SCHEMAS.values()]
    return {cls.__name__: cls for cls in classes}


def hydra_config(overrides: list[str], with_hydra: bool = False) -> tuple[DictConfig, DictConfig]:
    """(Hydra's composition of conf/config.yaml with `overrides`, the task's config: the same without Hydra's
    node, interpolations resolved); with `with_hydra` the first keeps Hydra's own node (its run and sweep
    folders), as a run needs it.  A composition error is one PipelineError line."""
    from hydra import compose as hydra_compose

    register_schemas()
    try:
        with conf_dir_session():
            cfg = hydra_compose(config_name="config", overrides=overrides, return_hydra_config=with_hydra)
            task_cfg = without_hydra(cfg)  # a bad interpolation fails here, as a config error
    except Exception as err:  # Hydra raises many types; all mean "your config is wrong"
        raise PipelineError(explain_compose_error(err)) from None
    return cfg, task_cfg


@contextlib.contextmanager
def conf_dir_session():
    """Hydra initialised on conf/ for one composition.  A Hydra already running in this process (a stage run's
    own, while `stage=reproduce` or the leaderboard composes its inner runs) is set aside meanwhile and put
    back after."""
    from hydra import initialize_config_dir
    from hydra.core.global_hydra import GlobalHydra

    outer = GlobalHydra.instance().hydra if GlobalHydra.instance().is_initialized() else None
    if outer is not None:
        GlobalHydra.instance().clear()
    try:
        with initialize_config_dir(config_dir=CONF_DIR, version_base="1.3", job_name="cli"):
            yield
    finally:
        if outer is not None:
            GlobalHydra.instance().clear()
            GlobalHydra.instance().initialize(outer)


def without_hydra(cfg: DictConfig) -> DictConfig:
    """`cfg` without Hydra's own node, interpolations resolved: the config a task gets (`cfg` itself when it
    has no Hydra node)."""
    if "hydra" not in cfg:
        OmegaConf.resolve(cfg)
        return cfg
    task_cfg = copy.deepcopy(cfg)
    with read_write(task_cfg), open_dict(task_cfg):
        del task_cfg["hydra"]
    OmegaConf.resolve(task_cfg)
    return task_cfg


def to_config(cfg: DictConfig) -> Config:
    """The typed Config of a composed tree (the schemas' own checks run here, e.g. RayConfig's)."""
    try:
        return OmegaConf.to_object(cfg)
    except Exception as err:
        raise PipelineError(explain_compose_error(err)) from None


def compose_run(overrides: list[str], run_dir_key: str | None = None) -> tuple[DictConfig, Config]:
    """(Hydra's composed tree, the typed Config) of `overrides`, every override checked (pipeline.config.overrides);
    with `run_dir_key` (hydra.run.dir or hydra.sweep.dir) the tree keeps Hydra's node and paths.outputs and
    that folder are checked to be folders Hydra can create."""
    from pipeline.config.validation import check_folder, check_inside, check_outputs

    check_routes(overrides)  # before Hydra reads a config: no search path, logging, callable, outside config
    run_mode = ["hydra.mode=RUN"] if run_dir_key == "hydra.run.dir" else []  # as hydra.main records a run
    cfg, task_cfg = hydra_config([*overrides, *run_mode], with_hydra=run_dir_key is not None)
    check_overrides(overrides, task_cfg)
    if run_dir_key:
        check_outputs(task_cfg.paths.outputs)  # named first: the run folder lies inside it by default
        run_dir = OmegaConf.select(cfg, run_dir_key)
        check_inside(run_dir, run_dir_key, task_cfg.paths.outputs)
        check_folder(run_dir, run_dir_key)
    return cfg, to_config(task_cfg)


def compose_config(overrides: list[str], run_dir_key: str | None = None) -> Config:
    """The Config of `overrides` (conf/config.yaml, the chosen group options, then the overrides): composed,
    every override checked and typed by the schemas.  `run_dir_key` also checks Hydra's run or sweep folder.
    A run is checked as a whole (folders, Ray, the game, every stage's settings) by
    pipeline.stages.preflight.checked_config, which calls this."""
    return compose_run(overrides, run_dir_key)[1]


def sweep_points(overrides: list[str], limit: int) -> list[list[str]]:
    """Every point's overrides of a `-m` sweep (`a=1,2 b=x,y` gives 4 points, the last key varying fastest), in
    the order Hydra's basic sweeper runs its jobs (a key given twice keeps its first place and its last value).
    The number of points is worked out first, from each key's count of values (a range's without listing it):
    an empty sweep, or one of more than `limit` points, is refused before any point is made.  A grammar error,
    or a sweep that is not a list of values (interval(...), glob(...)), is one PipelineError line."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    try:
        parsed = OverridesParser.create().parse_overrides(overrides)
    except Exception as err:  # Hydra's grammar errors
        raise PipelineError(explain_compose_error(err)) from None
    swept = {item.get_key_element(): item for item in parsed}
    counts = {key: value_count(item) for key, item in swept.items()}
    empty = next((swept[key] for key, count in counts.items() if count == 0), None)
    if empty is not None:
        raise PipelineError(f"the -m sweep has no points: {echo(empty.input_line)} gives no value")
    size = math.prod(counts.values())
    if size > limit:
        shown = " x ".join(f"{count:,}" for count in counts.values() if count > 1)
        raise PipelineError(f"a -m sweep of {size:,} points ({shown}) is more than the {limit:,} a sweep may run; "
                            "split it into smaller sweeps")
    choices = [[f"{key}={value}" for value in values(item)] for key, item in swept.items()]
    return [list(point) for point in itertools.product(*choices)]


def value_count(item) -> int:
    """How many values an override gives a sweep: 1, a list's length, or a range's (worked out, not listed)."""
    if not item.is_sweep_override():
        return 1
    from hydra.core.override_parser.types import ValueType

    if not item.is_discrete_sweep() or item.value_type == ValueType.GLOB_CHOICE_SWEEP:
        raise PipelineError(f"{echo(item.input_line)}: a -m sweep takes a list of values (a,b or range(...)), not "
                            "interval(...) or glob(...)")
    sweep = item.value()
    if not item.is_range_sweep():
        return len(sweep.list)
    start, stop, step = (decimal.Decimal(str(n)) for n in (sweep.start, sweep.stop, sweep.step))
    if step == 0 or not all(n.is_finite() for n in (start, stop, step)):
        raise PipelineError(f"{echo(item.input_line)}: a range's bounds are finite numbers and its step is not 0")
    return max(0, math.ceil((stop - start) / step))


def values(item) -> list[str]:
    """An override's values as strings, as Hydra's basic sweeper lists them (its count checked first)."""
    return list(item.sweep_string_iterator()) if item.is_sweep_override() else [item.get_value_element_as_str()]


def override(key: str, value) -> list[str]:
    """Overrides setting `key` to a Python value (a dict: one per leaf), each value quoted as Hydra reads it
    back unchanged: a string stays a string, even `12345` or `4*7=28`."""
    if isinstance(value, dict):
        return [line for name, item in value.items() for line in override(f"{key}.{name}", item)]
    return [f"{key}={literal(value)}"]


def literal(value) -> str:
    """A value in Hydra's override grammar: null, true/false, numbers, quoted strings, [lists]."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ",".join(literal(item) for item in value) + "]"
    text = str(value).replace("\\", "\\\\").replace("'", "\\'")
    return f"'{text}'"


def game_config(name: str, **overrides) -> GameConfig:
    """A shipped game's config by name with `game.<key>` overrides given as keywords (a dict value sets its
    keys), for scripts, benchmarks and tests, composed without checking a run."""
    file = CONF_PATH / "game" / f"{name}.yaml"
    if not file.is_file():
        known = ", ".join(sorted(p.stem for p in file.parent.glob("*.yaml")))
        raise PipelineError(f"unknown game {name!r}; known games: {known}")
    settings = [line for key, value in overrides.items() for line in override(f"game.{key}", value)]
    return compose_config([f"game={name}", *settings]).game
