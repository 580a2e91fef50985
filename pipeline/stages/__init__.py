"""One module per stage: read inputs, fan out, write the artifact; plus the base and the runner.

Each stage module keeps the contract declared in `pipeline.stages.base` (Stage / StageContract): NAME,
VERSION, INPUTS (upstream stage names), SCHEMA (its config dataclass), `run(ctx, cfg) -> summary dict`, and
optionally the hooks `validate`, `inputs`, `game_identity` and `key_material`.
"""

from pipeline.stages import (blindfold, exact, feedback, heuristics, lower_bound, openers, prove, report, simulate,
                             upper_bound)
from pipeline.stages.base import Stage

STAGES: dict[str, Stage] = {m.NAME: m for m in (feedback, heuristics, upper_bound, lower_bound, exact, prove,
                                                 blindfold, openers, simulate, report)}


def upstream_schema():
    """A dataclass with one typed field per stage: the `upstream` config group's schema."""
    from dataclasses import field, make_dataclass

    return make_dataclass("UpstreamConfig", [(name, m.SCHEMA, field(default_factory=m.SCHEMA))
                                             for name, m in STAGES.items()])
