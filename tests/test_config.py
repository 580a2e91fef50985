"""Every config file composes through the one composer (pipeline.config.compose) and validates against its schema;
every default is written once, in the schemas, and `python -m pipeline list stage=<name>` shows each setting
with its default and help line."""

import dataclasses

import pytest
import yaml

from pipeline.config.compose import compose_config
from pipeline.config.settings import CONF_DIR, Config, GameConfig, PathsConfig, RayConfig, help_of
from pipeline.stages import STAGES

GAMES = sorted(p.stem for p in (CONF_DIR / "game").glob("*.yaml"))


def composed(*overrides: str) -> Config:
    config = compose_config(list(overrides))
    assert isinstance(config, Config)
    return config


@pytest.mark.slow
@pytest.mark.parametrize("game", ["mini_nerdle", "wordle_original"])
@pytest.mark.parametrize("stage", list(STAGES))
def test_every_stage_file_composes_for_a_game(stage, game):
    config = composed(f"stage={stage}", f"game={game}")
    assert isinstance(config.stage, STAGES[stage].SCHEMA) and config.stage.name == stage
    assert config.game.name == game
    for name, module in STAGES.items():  # the upstream group: every stage typed by its schema
        assert isinstance(getattr(config.upstream, name), module.SCHEMA)


@pytest.mark.slow
@pytest.mark.parametrize("game", GAMES)
def test_every_game_file_composes(game):
    config = composed(f"game={game}")
    assert isinstance(config.game, GameConfig) and config.game.name == game
    unlimited = config.game.answer in ("mastermind", "bulls_and_cows")  # the paper's general games: no limit
    assert config.game.max_guesses == (None if unlimited else 6) and config.game.hard_mode is False
    if config.game.source == "lists":
        assert config.game.secrets.path and "${" not in config.game.secrets.path  # interpolations resolved


@pytest.mark.parametrize("ray", ["local", "cluster"])
def test_every_ray_file_composes(ray):
    config = composed(f"ray={ray}")
    assert isinstance(config.ray, RayConfig) and config.ray.address == ("local" if ray == "local" else "auto")


def test_the_experiment_file_composes():
    config = composed("experiment=prove_wordle")
    assert config.stage.name == "prove" and config.game.name == "wordle_original"
    assert (config.upstream.upper_bound.breadth, config.upstream.lower_bound.max_level) == (10, 8)


@pytest.mark.parametrize("stage", list(STAGES))
def test_a_stage_file_names_its_schema_and_repeats_no_default(stage):
    """conf/stage/<stage>.yaml holds only its defaults list (the schema, then itself): the settings and their
    defaults are the schema's, written nowhere else."""
    text = (CONF_DIR / "stage" / f"{stage}.yaml").read_text()
    assert yaml.safe_load(text) == {"defaults": [f"{stage}_schema", "_self_"]}
    assert f"python -m pipeline list stage={stage}" in text  # the header says how to see the settings


@pytest.mark.slow
@pytest.mark.parametrize("stage", list(STAGES))
def test_a_composed_stage_has_its_schema_defaults(stage):
    config = composed(f"stage={stage}")
    assert config.stage == STAGES[stage].SCHEMA()
    assert getattr(config.upstream, stage) == STAGES[stage].SCHEMA()


def test_ray_and_paths_files_repeat_no_default():
    """conf/ray/local.yaml and conf/paths/default.yaml only name their schema; ray=cluster changes one key."""
    for path, schema in (("ray/local.yaml", "ray_schema"), ("paths/default.yaml", "paths_schema")):
        assert yaml.safe_load((CONF_DIR / path).read_text()) == {"defaults": [schema, "_self_"]}
    assert yaml.safe_load((CONF_DIR / "ray" / "cluster.yaml").read_text()) == {"defaults": ["local", "_self_"],
                                                                               "address": "auto"}
    assert composed().ray == RayConfig()
    config = composed("paths.outputs=/tmp/x")
    assert config.paths.data == str(CONF_DIR.parent / "data") and config.paths.outputs == "/tmp/x"
    assert "progress" not in yaml.safe_load((CONF_DIR / "config.yaml").read_text())


@pytest.mark.parametrize("game", GAMES)
def test_a_game_file_repeats_no_default_of_the_game_schema(game):
    shown = yaml.safe_load((CONF_DIR / "game" / f"{game}.yaml").read_text())
    defaults = GameConfig(name=game)
    repeated = [key for key, value in shown.items()
                if key != "name" and not isinstance(value, dict) and getattr(defaults, key) == value]
    assert repeated == []


@pytest.mark.parametrize("section", [f"stage={name}" for name in STAGES] + ["game", "ray", "paths"])
def test_the_listing_shows_every_setting_with_its_default_and_help(section):
    """`python -m pipeline list stage=<name>` (and game, ray, paths) is read from the schema: one row per setting,
    `key=default` then its help line."""
    from pipeline.config.stages import INHERITED_HELP, SCHEMAS
    from pipeline.config.suggest import settings_listing, shown

    group, _, name = section.partition("=")
    schema = {"stage": STAGES[name].SCHEMA if name else None, "game": GameConfig, "ray": RayConfig,
              "paths": PathsConfig}[group]
    text = settings_listing(section, SCHEMAS, INHERITED_HELP)
    rows = []

    def walk(cls, prefix):
        for item in dataclasses.fields(cls):
            value = getattr(cls(), item.name)
            if dataclasses.is_dataclass(value):
                walk(type(value), f"{prefix}{item.name}.")
            elif item.name != "name" or group == "game":
                rows.append((f"{prefix}{item.name}={shown(value)}", help_of(item) or INHERITED_HELP[item.name]))

    walk(schema, f"{group}.")
    lines = text.splitlines()
    for left, help_text in rows:
        row = next(i for i, line in enumerate(lines)
                   if line.strip() == left or line.strip().startswith(left + "  "))
        assert help_text.split()[0] in " ".join(lines[row:row + 2]), (left, help_text)
        assert help_text  # every setting has a help line
    assert sum(line.startswith(f"  {group}.") for line in lines) == len(rows)


def test_the_listing_command_prints_a_stage_s_settings(capsys):
    from pipeline.app.commands import main

    assert main(["list", "stage=upper_bound"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("stage=upper_bound: ApMinTotal(S, breadth)")
    assert "  stage.breadth=10 " in out and "n in ApMinTotal(S, n)" in out


def test_composing_a_config_imports_no_stage_module():
    """The command line composes and checks a config before it imports the stage it runs: the schemas live apart
    from the stage modules (and their numba / pyarrow imports), so a bad setting is refused in a fraction of a
    second and a stage pays only for its own imports."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; from pipeline.config.compose import compose_config; "
            "config = compose_config(['experiment=prove_wordle']); "
            "print(config.upstream.upper_bound.breadth, sorted(m for m in sys.modules if m.startswith("
            "('pipeline.stages.', 'pipeline.search', 'pipeline.blindfold', 'numba', 'pyarrow', 'ray'))))")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["10", "[]"]


@pytest.mark.parametrize("stage", list(STAGES))
def test_each_stage_declares_the_schema_the_command_line_registers(stage):
    from pipeline.config.stages import SCHEMAS

    assert STAGES[stage].SCHEMA is SCHEMAS[stage]
