"""Every stage module keeps the declared stage contract (pipeline.stages.base), the runner's defaults for the
optional hooks are the ones the contract states, and a finished artifact holds the files its stage declares
(OUTPUTS, pipeline/artifacts/outputs.py)."""

import dataclasses
import inspect
import types

import pytest

from pipeline.artifacts.identity import stage_identity
from pipeline.artifacts.outputs import STAGE_LOG, Output
from pipeline.games.catalog import builtin_game
from pipeline.stages import STAGES
from pipeline.stages.base import HOOKS, contract
from pipeline.config.stages import StageConfig
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
    assert stage.outputs and all(isinstance(o, Output) for o in stage.outputs)
    assert len({o.name for o in stage.outputs}) == len(stage.outputs)  # each file declared once


@pytest.mark.slow
@pytest.mark.parametrize("name", list(STAGES))
def test_every_stage_is_found_by_the_identity_it_is_keyed_by(name):
    """The finder (pipeline/artifacts/find.py) takes a stage's game identity from pipeline/artifacts/identity.py,
    the runner from the stage's hook: the two agree, in every mode."""
    for game in (builtin_game("mini_nerdle"), builtin_game("mini_nerdle", hard_mode=True, max_guesses=None)):
        assert stage_contract(name).game_identity(game) == stage_identity(name, game)


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
    for missing in ("NAME", "VERSION", "SCHEMA", "INPUTS", "OUTPUTS", "run"):
        with pytest.raises(TypeError, match=f"stage module broken_{missing}"):
            contract(stage_like(f"broken_{missing}", **{missing: None}))
    with pytest.raises(TypeError, match="must declare INPUTS"):
        contract(stage_like("listed_inputs", INPUTS=["feedback"]))
    wrong_schema = stage_like("wrong_schema", SCHEMA=dict)
    with pytest.raises(TypeError, match="StageConfig"):
        contract(wrong_schema)


# ---- finished artifacts hold their declared outputs ----------------------------------------------------------

@pytest.fixture(scope="module")
def finished(mini_nerdle_store):
    """The store after a small run of every stage but reproduce (tests/conftest.py: shared with the version pins)."""
    return mini_nerdle_store


@pytest.mark.slow
@pytest.mark.parametrize("name", [s for s in STAGES if s != "reproduce"])
def test_finished_artifacts_hold_their_declared_outputs(finished, name):
    """Every file an artifact lists (but the runner's log) is one its stage declares, and every file the stage
    always writes is there."""
    declared = stage_contract(name).outputs
    artifacts = finished.finished(name)
    assert artifacts, f"no {name} artifact was made"
    for artifact in artifacts:
        files = set(artifact.manifest["files"]) - {STAGE_LOG.name}
        assert STAGE_LOG.name in artifact.manifest["files"]
        assert [f for f in sorted(files) if not any(o.matches(f) for o in declared)] == [], "undeclared files"
        assert [o.name for o in declared if o.always and o.name not in files] == [], "declared files missing"
