"""What every stage shares: its config schema base, the context it runs in, and the contract it keeps."""

from dataclasses import dataclass, field
from types import ModuleType
from typing import Callable, Protocol

from pipeline.config.settings import RayConfig
from pipeline.config.stages import StageConfig
from pipeline.games.game import Game
from pipeline.runtime.shards import FanOutStats
from pipeline.runtime.store import Artifact, ArtifactStore, ArtifactWriter


@dataclass
class StageContext:
    """Everything a stage's `run` may use; `inputs` are its upstream artifacts by stage name."""

    stage: str
    game: Game
    store: ArtifactStore
    ray: RayConfig
    out: ArtifactWriter
    key: str
    inputs: dict[str, Artifact] = field(default_factory=dict)
    progress: bool = True
    fanout: FanOutStats = field(default_factory=FanOutStats)

    def fan_out(self, fn, items, shared=(), *, label, shards: bool = True, num_cpus: float = 1,
                small: bool = False):
        """Run fn(item, *shared) for every item, in item order; finished shards survive a killed driver.

        The executor follows `ray.executor`: with `auto`, a single task, or work the stage calls `small`
        (cheaper than starting Ray) while no Ray session is open, runs in this process."""
        from pipeline.runtime.executors import choose_executor

        executor = choose_executor(self.ray, len(items), small=small, num_cpus=num_cpus)
        shard_dir = self.store.shard_dir(self.stage, self.key) / label if shards else None
        return executor.map(fn, items, shared, label=label, shard_dir=shard_dir, progress=self.progress,
                            stats=self.fanout)

    def cluster_cpus(self) -> int:
        """CPUs this run's fan-outs will use (the open Ray session's, else the embedded Ray's, else those of
        the cluster at ray.address), so a stage sizes its batches without reaching for the Ray session."""
        from pipeline.runtime.executors import cluster_cpus

        return cluster_cpus(self.ray)


# ---- the stage contract --------------------------------------------------------------------------------------


class Stage(Protocol):
    """What every stage module declares (the runner and the command line rely on nothing else).

    Required: NAME (the stage's name in `stage=<name>`), VERSION (the stage's algorithm version, part of the
    key: bumped whenever its results change), SCHEMA (its config dataclass, a StageConfig), INPUTS (the upstream stages it reads), OUTPUTS (the
    files it writes: pipeline/artifacts/outputs.py) and `run(ctx, cfg) -> summary dict`.  Optional hooks, each
    with the default `contract` fills in when a module leaves it out (see StageContract)."""

    NAME: str
    VERSION: int
    SCHEMA: type[StageConfig]
    INPUTS: tuple[str, ...]
    OUTPUTS: tuple

    def run(self, ctx: StageContext, cfg: StageConfig) -> dict: ...


REQUIRED = {"NAME": str, "VERSION": int, "SCHEMA": type, "INPUTS": tuple, "OUTPUTS": tuple}
HOOKS = ("validate", "inputs", "game_identity", "key_material", "failure", "headline")


@dataclass(frozen=True)
class StageContract:
    """A stage module seen through its contract: every declaration and every hook, optional ones defaulted.

    validate(cfg, game)            raise PipelineError on a bad setting, before any input is computed;
                                   default: accept every setting the schema types allow
    inputs(cfg) -> stage names     the inputs this config needs; default: INPUTS
    game_identity(game) -> dict    what of the game the result depends on (part of the key); default: all
                                   of it (lists, alphabet, hard mode, guess limit)
    key_material(cfg, game, store) -> dict   more key material read from the store (a report changes when
                                   the artifacts it gathers change); default: none
    failure(artifact) -> str | None   what a finished artifact records as failed (the command prints its folder,
                                   then exits non-zero with this line); default: nothing fails
    headline(summary, folder) -> str   the result in one line, printed before the artifact's folder, from the
                                   summary `run` returned; default: the summary's keys and values
    """

    module: ModuleType
    name: str
    version: int
    schema: type[StageConfig]
    declared_inputs: tuple[str, ...]
    run: Callable[[StageContext, StageConfig], dict]
    validate: Callable[[StageConfig, Game], None]
    inputs: Callable[[StageConfig], tuple[str, ...]]
    game_identity: Callable[[Game], dict]
    key_material: Callable[[StageConfig, Game, ArtifactStore], dict]
    failure: Callable[[Artifact], str | None]
    headline: Callable[[dict, object], str]
    outputs: tuple = ()  # the declared OUTPUTS: pipeline.artifacts.outputs.Output, one per file (or pattern)


def contract(module: ModuleType) -> StageContract:
    """The contract of a stage module; TypeError naming what is missing or mistyped if it breaks it."""
    for attribute, kind in REQUIRED.items():
        if not isinstance(getattr(module, attribute, None), kind):
            raise TypeError(f"stage module {module.__name__} must declare {attribute} ({kind.__name__})")
    if not issubclass(module.SCHEMA, StageConfig) or not callable(getattr(module, "run", None)):
        raise TypeError(f"stage module {module.__name__} needs a StageConfig SCHEMA and a run(ctx, cfg)")
    declared = vars(module)
    return StageContract(
        module, module.NAME, module.VERSION, module.SCHEMA, module.INPUTS, module.run,
        validate=declared.get("validate", _accept),
        inputs=declared.get("inputs", lambda cfg: module.INPUTS),
        game_identity=declared.get("game_identity", Game.identity),
        key_material=declared.get("key_material", _no_key_material),
        failure=declared.get("failure", _no_failure),
        headline=declared.get("headline", _plain_headline), outputs=module.OUTPUTS)


def _accept(cfg: StageConfig, game: Game) -> None:
    """The default `validate`: the schema's types are the only rule."""


def _no_key_material(cfg: StageConfig, game: Game, store: ArtifactStore) -> dict:
    """The default `key_material`: the key depends on the config, the game and the inputs only."""
    return {}


def _no_failure(artifact: Artifact) -> None:
    """The default `failure`: a finished artifact is a success."""


def _plain_headline(summary: dict, folder) -> str:
    """The default `headline`: the summary's scalar entries as `key value`, joined by commas."""
    return ", ".join(f"{k} {v}" for k, v in summary.items() if isinstance(v, (str, int, float, bool)))
