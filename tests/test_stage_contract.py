"""Every stage module keeps the declared stage contract (pipeline.stages.base), and the runner's defaults for
the optional hooks are the ones the contract states."""

import dataclasses
import inspect
import types

import pytest

from pipeline.games.catalog import builtin_game
from pipeline.stages import STAGES
from pipeline.stages.base import HOOKS, StageConfig, contract
from pipeline.stages.runner import stage_contract

HOOK_PARAMETERS = {"validate": 2, "inputs": 1, "game_identity": 1, "key_material": 3, "failure": 1,
                   "headline": 2}


@pytest.mark.parametrize("name", list(STAGES))
def test_every_stage_keeps_the_contract(name):
    module = STAGES[name]
    stage = contract(module)
    assert stage.name == module.NAME == name
    assert isinstance(stage.version, int) and stage.version >= 1
    assert dataclasses.is_dataclass(stage.schema) and issubclass(stage.schema, StageConfig)
    assert stage.schema().name == name  # the schema's default name is the stage's
    assert set(stage.declared_inputs) <= set(STAGES) - {name}
    assert list(inspect.signature(stage.run).parameters) == ["ctx", "cfg"]
    for hook in HOOKS:
        if hook in vars(module):  # a declared hook takes the arguments the runner passes
            assert len(inspect.signature(vars(module)[hook]).parameters) == HOOK_PARAMETERS[hook], hook
    assert set(stage.inputs(stage.schema())) <= set(stage.declared_inputs)


def test_the_runner_fills_left_out_hooks_with_the_documented_defaults(tmp_path):
    game = builtin_game("mini_nerdle", hard_mode=True)
    report = stage_contract("report")  # declares key_material, leaves validate, inputs and game_identity out
    assert report.inputs(report.schema()) == report.declared_inputs == ()
    assert report.validate(report.schema(), game) is None
    assert report.game_identity(game) == game.identity()
    assert "hard_mode" in report.game_identity(game)
    heuristics = stage_contract("heuristics")
    assert heuristics.key_material(heuristics.schema(), game, None) == {}
    feedback = stage_contract("feedback")  # declares its own identity: the lists only
    assert feedback.game_identity(game) == {k: v for k, v in game.identity().items()
                                            if k not in ("hard_mode", "max_guesses")}
    lower = stage_contract("lower_bound")  # inputs depend on the config
    assert lower.inputs(lower.schema(ub=10)) == ("feedback",)
    assert lower.inputs(lower.schema()) == ("feedback", "upper_bound")


def stage_like(name: str, **changes) -> types.ModuleType:
    """A module holding the openers stage's declarations, with `changes` (None = left out)."""
    module = types.ModuleType(name)
    declared = {k: v for k, v in vars(STAGES["openers"]).items() if not k.startswith("__")}
    vars(module).update({k: v for k, v in {**declared, **changes}.items() if v is not None})
    return module


def test_a_module_breaking_the_contract_is_refused():
    assert contract(stage_like("fine")).name == "openers"
    for missing in ("NAME", "VERSION", "SCHEMA", "INPUTS", "run"):
        with pytest.raises(TypeError, match=f"stage module broken_{missing}"):
            contract(stage_like(f"broken_{missing}", **{missing: None}))
    with pytest.raises(TypeError, match="must declare INPUTS"):
        contract(stage_like("listed_inputs", INPUTS=["feedback"]))
    wrong_schema = stage_like("wrong_schema", SCHEMA=dict)
    with pytest.raises(TypeError, match="StageConfig"):
        contract(wrong_schema)
