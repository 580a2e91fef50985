"""One composed run: the chosen stage and any missing inputs, its result line, and what went wrong as one line.

Shared by the command line's single run (pipeline.app.cli) and every point of a `-m` sweep (pipeline.app.sweep).
"""

from dataclasses import dataclass
from pathlib import Path

from pipeline.config.settings import Config
from pipeline import PipelineError


@dataclass
class RunResult:
    """A finished run: its artifact folder, its result line, and the failure its artifact records ("" if none)."""
    artifact: Path
    headline: str
    failed: str = ""


def plan_stages(config: Config) -> set[str]:
    """The stage run and every stage it runs as an input."""
    from pipeline.stages.runner import stage_contract, upstream_config

    names, todo = set(), [(config.stage.name, config.stage)]
    while todo:
        name, stage_cfg = todo.pop()
        names.add(name)
        needed = stage_contract(name).inputs(stage_cfg)
        todo += [(dep, upstream_config(dep, config)) for dep in needed if dep not in names]
    return names


def rebuild_hint(err, config: Config) -> str:
    """The command that rebuilds a damaged artifact: `stage.force=true` for the stage run, else its upstream key."""
    if err.stage == config.stage.name:
        return "rebuild it with stage.force=true"
    if err.stage in plan_stages(config):
        return f"rebuild it with upstream.{err.stage}.force=true"
    return (f"rebuild it with `python -m pipeline stage={err.stage} ...` and stage.force=true (that run's settings), "
            f"or delete {err.path.parent}")


def run_config(config: Config, run_folder: Path) -> RunResult:
    """Run `config`'s stage (and any missing inputs), its log copied into `run_folder`/pipeline.log.  Bad input
    and a damaged artifact (with the command that rebuilds it) raise one PipelineError line."""
    from pipeline.stages.preflight import check_run
    from pipeline.runtime.log import log_to_file
    from pipeline.runtime.store import ArtifactStore, DamagedArtifactError
    from pipeline.stages.runner import result_line, run_stage, stage_contract

    game = check_run(config)
    try:
        with log_to_file(run_folder / "pipeline.log"):
            artifact = run_stage(config.stage, config, game, ArtifactStore(config.paths.outputs))
    except DamagedArtifactError as err:
        raise PipelineError(f"{err}; {rebuild_hint(err, config)}") from None
    failed = stage_contract(config.stage.name).failure(artifact) or ""
    return RunResult(artifact=artifact.path, headline=result_line(artifact), failed=failed)
