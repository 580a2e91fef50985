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

    def fan_out(self, fn, items, shared=(), *, label, shards: bool = True, num_cpus: float = 1):
        """Run fn(item, *shared) for every item as Ray tasks; finished shards survive a killed driver."""
        from pipeline.runtime.fanout import fan_out
        from pipeline.runtime.ray_session import ensure_ray

        ensure_ray(self.ray)
        shard_dir = self.store.shard_dir(self.stage, self.key) / label if shards else None
        return fan_out(fn, items, shared, label=label, max_in_flight=self.ray.max_in_flight,
                       max_retries=self.ray.max_retries, progress=self.progress, num_cpus=num_cpus,
                       shard_dir=shard_dir, stats=self.fanout)
