"""Overrides Hydra and OmegaConf would accept silently, refused with one line each.

Before anything is composed (check_routes), every route by which an override could make Hydra read a config
from another folder, build or call something by name, or write outside the outputs folder: of Hydra's own
settings only hydra.run.dir (a folder inside paths.outputs, checked once composed) and hydra.job.chdir are
taken, so hydra.searchpath, hydra.job_logging, hydra.hydra_logging, hydra.callbacks, hydra.output_subdir,
hydra.job.env_set, the launcher, sweeper and every `hydra/<group>=` are refused; so is a key `_target_` or
`()` (what Hydra's instantiate and Python's logging config call), an interpolation `${...}` (a resolver
runs when it is read: oc.env, oc.decode), a config group option that is no name of conf/<group>/
(`experiment=../x`, `game=/abs/path`) and a `group@package` override.

Once composed: OmegaConf converts `2`, `yes`, `on` and `1` to a boolean true; `+stage.foo=1` adds a key no
stage reads (and the run keeps the plain run's key); `hydra.job.chdir=true` moves a run into its log folder,
so a relative paths.outputs would land under `.runs/<date>/<time>/` and nothing would ever be reused.
"""

import dataclasses
import re
from pathlib import Path

from omegaconf import DictConfig, OmegaConf
from omegaconf.nodes import BooleanNode

from pipeline.config.settings import CONF_DIR
from pipeline import PipelineError, echo
from pipeline.config.suggest import did_you_mean


def parse(overrides: list[str]) -> list:
    """Hydra's parsed overrides (the caller has already reported grammar errors)."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    return OverridesParser.create().parse_overrides(overrides)


HYDRA_SETTINGS = ("hydra.run.dir", "hydra.job.chdir")  # the only Hydra settings an override may set
CALLABLE_KEYS = ("_target_", "()")  # Hydra's instantiate and logging.config call what these name
GROUP_OPTION = re.compile(r"^\w+$")  # a config group's option: the name of a file in conf/<group>/


def check_routes(overrides: list[str]) -> None:
    """Before anything is composed or read: no override reaches Hydra's own settings (but HYDRA_SETTINGS),
    names a callable, holds an interpolation, chooses a config outside conf/ or moves a config to another
    package.  Grammar errors are left to the composer, which words them."""
    try:
        parsed = parse(overrides)
    except Exception:  # Hydra's grammar errors: pipeline.config.compose reports them
        return
    for override in parsed:
        key, given = override.key_or_group, echo(override.input_line or override.key_or_group)
        if override.package is not None:
            raise PipelineError(f"{given}: a group@package override is not supported; choose a group's option "
                                "with <group>=<name>")
        if re.split(r"[./]", key)[0] == "hydra" and (key not in HYDRA_SETTINGS or override.is_delete()):
            raise PipelineError(f"{given}: Hydra's own settings are not taken (they could load configs from any "
                                "folder, run code or write anywhere); only hydra.run.dir=<a folder inside "
                                "paths.outputs> and hydra.job.chdir=false are")
        named = next((part for part in [*key.split("."), *keys_in(override.value())] if part in CALLABLE_KEYS), None)
        if named is not None:
            raise PipelineError(f"{given}: a key {named} is not taken (it names something to call or build)")
        if any("${" in text for text in strings_in(override.value())):
            raise PipelineError(f"{given}: an interpolation ${{...}} is not taken in an override (a resolver runs "
                                "when it is read); write the value itself")
        if "/" not in key and is_group(key) and not override.is_delete():
            check_group_option(key, override.value(), given)


def check_group_option(group: str, value, given: str) -> None:
    """A config group's option is one of the names of conf/<group>/ (or null): no path, no list of configs.  (The
    choices of a, b without -m are each checked; the composer then says a sweep needs -m.)"""
    for option in getattr(value, "list", [value]):
        if option is not None and not (isinstance(option, str) and GROUP_OPTION.match(option)):
            raise PipelineError(f"{given}: {group}= takes one of the names in conf/{group}/ (python -m pipeline "
                                "list); a config from another folder is not read")


def keys_in(value):
    """Every key of the dicts in an override's value, at any depth (a sweep's choices included)."""
    for item in values_in(value):
        if isinstance(item, dict):
            yield from (str(key) for key in item)


def strings_in(value):
    """Every string in an override's value, keys included, at any depth."""
    for item in values_in(value):
        if isinstance(item, str):
            yield item
        elif isinstance(item, dict):
            yield from (key for key in item if isinstance(key, str))


def values_in(value):
    """`value` and everything inside it: list items, dict values, a sweep's choices (without recursion)."""
    todo = [value]
    while todo:
        item = todo.pop()
        yield item
        if isinstance(item, dict):
            todo.extend(item.values())
        elif isinstance(item, (list, tuple)):
            todo.extend(item)
        elif isinstance(getattr(item, "list", None), list):  # ChoiceSweep: a,b,c
            todo.extend(item.list)


def is_group(key: str) -> bool:
    """A config group (`game`, `experiment`, `hydra/launcher`), not a setting."""
    return "/" in key or ("." not in key and (Path(CONF_DIR) / key).is_dir())


def check_booleans(overrides: list[str], cfg: DictConfig) -> None:
    """A boolean setting takes true or false, nothing OmegaConf would merely convert (2, yes, on, 1)."""
    for override in parse(overrides):
        key = override.key_or_group
        if override.is_delete() or override.is_sweep_override() or is_group(key) or key.startswith("hydra."):
            continue
        parent, _, leaf = key.rpartition(".")
        node = OmegaConf.select(cfg, parent) if parent else cfg
        if not isinstance(node, DictConfig) or not isinstance(node._get_node(leaf), BooleanNode):
            continue
        value = override.value()
        quoted = isinstance(value, str) and value.lower() in ("true", "false")  # 'true': what OmegaConf reads
        if not (isinstance(value, bool) or value is None or quoted):
            raise PipelineError(f"{key}={override.get_value_element_as_str()}: a boolean setting is true or false "
                                f"(e.g. {key}=true)")


def schema_fields(node) -> list[str] | None:
    """The field names of the dataclass behind a config node, or None for a free-form node."""
    kind = OmegaConf.get_type(node) if isinstance(node, DictConfig) else None
    return [f.name for f in dataclasses.fields(kind)] if kind and dataclasses.is_dataclass(kind) else None


def check_added_keys(overrides: list[str], cfg: DictConfig) -> None:
    """`+key=value` / `++key=value` may add a config group or set an existing setting, never a new key."""
    for override in parse(overrides):
        key = override.key_or_group
        if not (override.is_add() or override.is_force_add()) or is_group(key) or key.startswith("hydra."):
            continue
        node, path = cfg, []
        for part in key.split("."):
            fields = schema_fields(node)
            if fields is not None and part not in fields:
                where = ".".join(path)
                raise PipelineError(f"unknown setting {key}: {where or 'the config'} has no key {part!r}"
                                    f"{did_you_mean(part, fields, where + '.' if where else '')}; "
                                    "+ adds no setting the pipeline does not read")
            path.append(part)
            node = node[part] if isinstance(node, DictConfig) and part in node else None


def check_chdir(overrides: list[str]) -> None:
    """Refuse hydra.job.chdir=true: artifacts are found under paths.outputs, which must not move per run."""
    for override in parse(overrides):
        if override.key_or_group == "hydra.job.chdir" and not override.is_delete() \
                and override.value() not in (False, None, "false"):
            value = override.value()
            given = str(value).lower() if isinstance(value, bool) else override.get_value_element_as_str()
            raise PipelineError(f"hydra.job.chdir={given} is not supported: a run "
                                "would change into its .runs/<date>/<time>/ log folder, a relative paths.outputs "
                                "would follow it and no artifact would ever be reused; leave hydra.job.chdir=false")


LARGEST_INT = 2**63 - 1  # settings reach numpy, numba, Parquet and Ray as 64-bit integers


def integers(value):
    """Every integer in an override's value (a number, or the items of a list or dict, at any depth)."""
    if isinstance(value, bool):
        return
    if isinstance(value, int):
        yield value
    elif isinstance(value, (list, tuple)):
        for item in value:
            yield from integers(item)
    elif isinstance(value, dict):
        for item in value.values():
            yield from integers(item)


def check_integers(overrides: list[str]) -> None:
    """No integer of an override is beyond 64 bits (Python's ints are not, but everything they reach is)."""
    for override in parse(overrides):
        if override.is_delete() or override.is_sweep_override():
            continue
        huge = next((n for n in integers(override.value()) if abs(n) > LARGEST_INT), None)
        if huge is not None:
            raise PipelineError(f"{override.key_or_group}: {huge} is beyond the largest integer a setting may hold "
                                f"({LARGEST_INT:,}, 64 bits)")


def check_overrides(overrides: list[str], cfg: DictConfig) -> None:
    """Every check of this module, on overrides that composed into `cfg`."""
    check_chdir(overrides)
    check_integers(overrides)
    check_booleans(overrides, cfg)
    check_added_keys(overrides, cfg)
