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
