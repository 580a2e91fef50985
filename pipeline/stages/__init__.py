"""One module per stage: read inputs, fan out, write the artifact.

Each stage module has NAME, VERSION, INPUTS (upstream stage names), SCHEMA (its config
dataclass), `run(ctx, cfg) -> summary dict`, and optionally `game_identity`.
"""

from pipeline.stages import exact, feedback, heuristics, lower_bound, prove, upper_bound

STAGES = {m.NAME: m for m in (feedback, heuristics, upper_bound, lower_bound, exact, prove)}
