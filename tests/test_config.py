"""Every config file composes with Hydra's compose API and validates against its schema; every stage file
shows all of its schema's settings with the schema's defaults."""

import dataclasses

import pytest
import yaml

from pipeline.cli import compose, to_config
from pipeline.config import CONF_DIR, Config, GameConfig, RayConfig
from pipeline.stages import STAGES

GAMES = sorted(p.stem for p in (CONF_DIR / "game").glob("*.yaml"))


def composed(*overrides: str) -> Config:
    config = to_config(compose(list(overrides)))
    assert isinstance(config, Config)
    return config


@pytest.mark.parametrize("game", ["mini_nerdle", "wordle_original"])
@pytest.mark.parametrize("stage", list(STAGES))
def test_every_stage_file_composes_for_a_game(stage, game):
    config = composed(f"stage={stage}", f"game={game}")
    assert isinstance(config.stage, STAGES[stage].SCHEMA) and config.stage.name == stage
    assert config.game.name == game
    for name, module in STAGES.items():  # the upstream group: every stage typed by its schema
        assert isinstance(getattr(config.upstream, name), module.SCHEMA)


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
def test_stage_files_show_every_setting_with_its_default(stage):
    shown = yaml.safe_load((CONF_DIR / "stage" / f"{stage}.yaml").read_text())
    shown.pop("defaults")
    schema = STAGES[stage].SCHEMA()
    expected = {f.name: getattr(schema, f.name) for f in dataclasses.fields(schema) if f.name != "name"}
    assert shown == expected


def test_composing_a_config_imports_no_stage_module():
    """The command line composes and checks a config before it imports the stage it runs: the schemas live apart
    from the stage modules (and their numba / pyarrow imports), so a bad setting is refused in a fraction of a
    second and a stage pays only for its own imports."""
    import subprocess
    import sys
    from pathlib import Path

    code = ("import sys; from pipeline.cli import compose, to_config; "
            "config = to_config(compose(['experiment=prove_wordle'])); "
            "print(config.upstream.upper_bound.breadth, sorted(m for m in sys.modules if m.startswith("
            "('pipeline.stages.', 'pipeline.search', 'pipeline.blindfold', 'numba', 'pyarrow', 'ray'))))")
    root = Path(__file__).resolve().parents[1]
    out = subprocess.run([sys.executable, "-c", code], cwd=root, capture_output=True, text=True, check=True).stdout
    assert out.split() == ["10", "['pipeline.stages.base',", "'pipeline.stages.schemas']"]


@pytest.mark.parametrize("stage", list(STAGES))
def test_each_stage_declares_the_schema_the_command_line_registers(stage):
    from pipeline.stages.schemas import SCHEMAS

    assert STAGES[stage].SCHEMA is SCHEMAS[stage]
