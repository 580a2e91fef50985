"""One module per stage: read inputs, fan out, write the artifact; plus the base and the runner.

Each stage module keeps the contract declared in `pipeline.stages.base` (Stage / StageContract): NAME,
VERSION, INPUTS (upstream stage names), SCHEMA (its config dataclass, defined in `config/stages.py`),
`run(ctx, cfg) -> summary dict`, and optionally the hooks `validate`, `inputs`, `game_identity` and
`key_material`.

`STAGES` maps each name to its module, imported the first time it is looked up: composing a config needs
only the schemas, so a command pays for the imports (numba, pyarrow, HiGHS) of the stages it runs only.
"""

import importlib
from collections.abc import Iterator, Mapping

from pipeline.stages.base import Stage
from pipeline.config.stages import SCHEMAS


class LazyStages(Mapping):
    """Stage name -> stage module, in the order of SCHEMAS; a module is imported when first looked up."""

    def __getitem__(self, name: str) -> Stage:
        if name not in SCHEMAS:
            raise KeyError(name)
        return importlib.import_module(f"{__name__}.{name}")

    def __iter__(self) -> Iterator[str]:
        return iter(SCHEMAS)

    def __len__(self) -> int:
        return len(SCHEMAS)


STAGES: Mapping[str, Stage] = LazyStages()
