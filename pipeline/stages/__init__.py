"""One module per stage: read inputs, fan out, write the artifact.

Each stage module has NAME, VERSION, INPUTS (upstream stage names), SCHEMA (its config
dataclass), `run(ctx, cfg) -> summary dict`, and optionally `game_identity`.
"""

from pipeline.stages import (blindfold, exact, feedback, heuristics, lower_bound, openers, prove, report, simulate,
                             upper_bound)

STAGES = {m.NAME: m for m in (feedback, heuristics, upper_bound, lower_bound, exact, prove, blindfold, openers,
                                simulate, report)}


def upstream_schema():
    """A dataclass with one typed field per stage: the `upstream` config group's schema."""
    from dataclasses import field, make_dataclass

    return make_dataclass("UpstreamConfig", [(name, m.SCHEMA, field(default_factory=m.SCHEMA))
                                             for name, m in STAGES.items()])
