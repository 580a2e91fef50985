"""What every stage shares: its config schema base and the context it runs in."""

from dataclasses import dataclass, field

from omegaconf import MISSING

from pipeline.config import RayConfig
from pipeline.runtime.fanout import FanOutStats
from pipeline.games.game import Game
from pipeline.runtime.store import Artifact, ArtifactStore, ArtifactWriter


@dataclass
class StageConfig:
    name: str = MISSING
    force: bool = False  # recompute even if a finished artifact exists


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
