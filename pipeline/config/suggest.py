"""What the command line offers — sub-commands, stages, games, experiments and config keys — and the
"did you mean" hints built from them when a name is misspelt.

It reads conf/ and the dataclasses it is given, and imports nothing above pipeline.config.settings: the callers
(pipeline.app.commands, pipeline.config.compose) hand it the stage schemas."""

import dataclasses
import difflib
import re
from pathlib import Path

from pipeline.config.settings import CONF_DIR

GROUPS = ("stage", "game", "experiment")  # the config groups `list` and `--help` show
DESCRIPTION_WIDTH = 100  # characters of a one-line description


def did_you_mean(word: str, choices, prefix: str = "", suffix: str = "") -> str:
    """` (did you mean X?)` for the closest choices to `word` (each written prefix + choice + suffix), or ""
    when none is close."""
    close = difflib.get_close_matches(str(word), list(choices), n=3, cutoff=0.6)
    if not close:
        return ""
    return " (did you mean " + " or ".join(f"{prefix}{c}{suffix}" for c in close) + "?)"


def group_options(group: str) -> list[str]:
    """The options of a config group: conf/<group>/*.yaml, sorted."""
    return sorted(p.stem for p in (Path(CONF_DIR) / group).glob("*.yaml"))


def describe_yaml(path: Path, width: int = DESCRIPTION_WIDTH) -> str:
    """The first sentence of a config file's leading comment (Hydra's `@package` line and indented examples
    skipped), shortened at a word to `width` characters."""
    words = []
    for line in path.read_text(encoding="utf-8").splitlines():
        if not line.startswith("#"):
            break
        text = line.lstrip("#").strip()
        if text.startswith("@package") or line.startswith("#  ") or not text:
            continue
        words += text.split()
        if text.endswith((".", ":")):
            break
    sentence = " ".join(words).rstrip(":")
    end = re.search(r"(?<!e\.g)(?<!i\.e)\. ", sentence)  # a full stop, not that of e.g. or i.e.
    sentence = sentence[:end.start() + 1] if end else sentence
    if len(sentence) > width:
        sentence = sentence[:width - 1].rsplit(" ", 1)[0].rstrip(",;:(") + "…"
    return sentence


def group_listing(group: str, order=()) -> list[tuple[str, str]]:
    """(option, one-line description) for every option of a config group, those named in `order` first and in
    that order (the stages in their pipeline order)."""
    names = group_options(group)
    names = [n for n in order if n in names] + [n for n in names if n not in order]
    return [(name, describe_yaml(Path(CONF_DIR) / group / f"{name}.yaml")) for name in names]


def key_hint(message: str, classes: dict[str, type]) -> str:
    """A "did you mean" for OmegaConf's `Key 'bredth' not in 'UpperBoundConfig'` (with the override's path
    from Hydra's `Could not override 'stage.bredth'` when it is there), else ""; `classes` are the config
    dataclasses by class name (the name OmegaConf quotes)."""
    found = re.search(r"Key '([^']+)' not in '(\w+)'", message)
    cls = found and classes.get(found.group(2))
    if not cls:
        return ""
    where = re.search(r"override '([^']+)'", message)
    prefix = where.group(1).rsplit(".", 1)[0] + "." if where and "." in where.group(1) else ""
    return did_you_mean(found.group(1), [f.name for f in dataclasses.fields(cls)], prefix)


# ---- the settings of a schema -----------------------------------------------------------------------------------

SETTING_SECTIONS = ("game", "ray", "paths")  # besides stage=<name>: `python -m pipeline list <section>`


def shown(value) -> str:
    """A default as it is written on the command line: null, true/false, [a, b], "" for the empty string."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(shown(item) for item in value) + "]"
    return '""' if value == "" else str(value)


def schema_rows(cls: type, prefix: str, inherited: dict[str, str]) -> list[tuple[str, str, str]]:
    """(key, default, help) of every field of a config dataclass (a nested dataclass field gives one row per
    key of its own), read from the schema itself: `setting`'s help lines (pipeline/config/settings.py), else the help
    in `inherited` (of fields a base class declares without one)."""
    from pipeline.config.settings import help_of

    instance, rows = cls(), []
    for item in dataclasses.fields(cls):
        value = getattr(instance, item.name)
        if dataclasses.is_dataclass(value):
            rows += schema_rows(type(value), f"{prefix}{item.name}.", inherited)
        elif item.name != "name" or prefix == "game.":
            rows.append((f"{prefix}{item.name}", shown(value), help_of(item) or inherited.get(item.name, "")))
    return rows


def settings_listing(section: str, stages: dict[str, type], inherited: dict[str, str]) -> str:
    """`python -m pipeline list stage=<name>` (or game, ray, paths): every setting of that schema with its
    default and help line; `section` is `stage=<name>` or one of SETTING_SECTIONS, `stages` the stage
    schemas by name, `inherited` the help of the fields they share (pipeline.config.stages)."""
    from pipeline.config import settings as config
    from pipeline import PipelineError

    schemas = {"game": config.GameConfig, "ray": config.RayConfig, "paths": config.PathsConfig}
    group, _, name = section.partition("=")
    if group == "stage" and name in stages:
        cls, prefix = stages[name], "stage."
        title = (f"stage={name}: {describe_yaml(Path(CONF_DIR) / 'stage' / f'{name}.yaml')}\n"
                 f"settings (stage.<key>=<value>; upstream.{name}.<key>=<value> when it runs as an input):\n")
    elif group == "stage":
        raise PipelineError(f"unknown stage {name!r}{did_you_mean(name, stages)}; stages: {', '.join(stages)}")
    elif section in schemas:
        cls, prefix = schemas[section], f"{section}."
        title = f"{section} settings ({section}.<key>=<value>; game=<name> chooses a game's values):\n" \
            if section == "game" else f"{section} settings ({section}.<key>=<value>):\n"
    else:
        hint = did_you_mean(section, SETTING_SECTIONS) or did_you_mean(section, ["stage"], suffix="=<name>")
        raise PipelineError(f"list takes no argument, or one of stage=<name>, {', '.join(SETTING_SECTIONS)}; "
                            f"unexpected: {section}{hint}")
    rows = schema_rows(cls, prefix, inherited)
    return title + "".join(setting_lines(f"{key}={default}", text) for key, default, text in rows)


def setting_lines(left: str, text: str, width: int = 32) -> str:
    """`  key=default   help`, the help wrapped at DESCRIPTION_WIDTH (and below a key=default too long to pad)."""
    import textwrap

    lines = textwrap.wrap(text, DESCRIPTION_WIDTH - width - 2) or [""]
    first = f"  {left.ljust(width)}{lines[0]}" if len(left) < width else f"  {left}\n{' ' * (width + 2)}{lines[0]}"
    return "".join(line.rstrip() + "\n" for line in [first, *(" " * (width + 2) + rest for rest in lines[1:])])
