"""Stage reproduce: the reference tier.  Runs, through the runner (finished artifacts are reused), the
experiments behind every published figure (`pipeline.report.plan`) and judges each figure by its rule
(`pipeline.report.checks`): reproduce.json (one row per figure) and reproduce.md.

The command exits non-zero, with one line naming the failing rows, when any verdict is fail (the artifact
is written first, so the rows can be read).  A figure whose experiment the pipeline cannot run yet is a
row with verdict "not run" and its reason; it is never counted as a pass.  `game=` does not matter: every
row names the game it was computed on."""

import dataclasses
import fnmatch
import json
import os
import time

from pipeline.artifacts.outputs import CERTIFICATE, REPRODUCE, VERDICT_TABLE, VERDICTS, write_json
from pipeline import PipelineError
from pipeline.report.checks import FAIL, GROUPS, NOT_RUN, PASS, Experiment, judged, markdown, unjudged
from pipeline.report.plan import experiments
from pipeline.runtime.log import log
from pipeline.stages.base import StageContext
from pipeline.config.stages import ReproduceConfig

NAME, VERSION, INPUTS = "reproduce", 2, ()  # the stage contract: stages/base.py
OUTPUTS = REPRODUCE  # reproduce.json, reproduce.md: pipeline/artifacts/outputs.py
RUNS = ("feedback", "heuristics", "upper_bound", "lower_bound", "exact", "prove", "blindfold", "simulate", "openers")


SCHEMA = ReproduceConfig


def chosen(cfg: ReproduceConfig) -> list[Experiment]:
    """The experiments of the chosen groups, each keeping only its chosen checks (experiments left empty go)."""
    picked = []
    for experiment in experiments(cfg.only or GROUPS):
        checks = tuple(c for c in experiment.checks
                       if not cfg.rows or any(fnmatch.fnmatchcase(c.id, p) for p in cfg.rows))
        if checks:
            picked.append(dataclasses.replace(experiment, checks=checks))
    return picked


def validate(cfg: ReproduceConfig, game) -> None:
    unknown = [g for g in cfg.only if g not in GROUPS]
    if unknown:
        raise PipelineError(f"stage.only: unknown group {unknown[0]!r}; groups: {', '.join(GROUPS)}")
    ids = [c.id for e in experiments(cfg.only or GROUPS) for c in e.checks]
    for pattern in cfg.rows:
        if not any(fnmatch.fnmatchcase(i, pattern) for i in ids):
            raise PipelineError(f"stage.rows: {pattern!r} names no row of the chosen groups "
                                f"({', '.join(cfg.only or GROUPS)}), e.g. {ids[0]}")


def game_identity(game) -> dict:
    """Every experiment names its own game: the one given on the command line does not change the rows."""
    return {}


def key_material(cfg: ReproduceConfig, game, store) -> dict:
    """The rows change with the VERSION of every stage the experiments run (their artifacts are keyed by it)."""
    from pipeline.stages import STAGES

    return {"stages": {name: STAGES[name].VERSION for name in RUNS}}


def failure(artifact) -> str | None:
    """One line naming the failing rows of a finished reproduce artifact (None when none fails)."""
    rows = artifact.read_json(VERDICTS.name)["rows"]
    failing = [r for r in rows if r["verdict"] == FAIL]
    if not failing:
        return None
    named = "; ".join(f"{r['id']} (published {r['published']}, computed {r['computed']})" for r in failing)
    return f"reproduce: {len(failing)} of {len(rows)} rows fail: {named}"


def experiment_overrides(experiment: Experiment) -> list[str]:
    """The overrides that compose the experiment's run: its game and stage with their settings, and the
    settings of the stages it runs as inputs."""
    from pipeline.config.compose import override

    settings = {"game": experiment.game_settings, "stage": experiment.settings, "upstream": experiment.upstream}
    return [f"game={experiment.game}", f"stage={experiment.stage}",
            *(line for key, values in settings.items() for line in override(key, values))]


def experiment_config(ctx: StageContext, experiment: Experiment):
    """The experiment's Config from the one composer, run with this run's Ray settings, progress and store."""
    from pipeline.config.compose import compose_config

    config = compose_config(experiment_overrides(experiment))
    return dataclasses.replace(config, ray=ctx.ray, progress=ctx.progress,
                               paths=dataclasses.replace(config.paths, outputs=str(ctx.store.root)))


def run_experiment(ctx: StageContext, experiment: Experiment, config, game) -> dict:
    """Run the experiment's stage (and its inputs) on `game`; its artifacts by stage name."""
    from pipeline.stages.runner import run_stage

    ready = {}
    run_stage(config.stage, config, game, ctx.store, ready)
    if "prove" in ready:
        checked_proof(ready["prove"].path, game)
    return ready


def checked_proof(folder, game) -> None:
    """A proof's figures are judged on a verified certificate only: a proven certificate without a complete record
    of its files as they are is checked in full by the independent checker (pipeline/proofs), which records it.
    A rejection, or a check stopped by a dead worker, is logged; the proof's row then shows the certificate as
    unverified, and fails."""
    from pipeline.processes.pool import WorkerLost
    from pipeline.proofs.certificates.record import status, verify_and_record

    if status(folder).verified or json.loads((folder / CERTIFICATE.name).read_text()).get("proven") is not True:
        return
    log.info(f"{NAME}: checking the certificate {folder} with verify-certificate's checker")
    try:
        verify_and_record(folder, game, workers=os.cpu_count() or 1)
    except (PipelineError, WorkerLost) as err:
        log.warning(f"{NAME}: {folder}: {err}")


def experiment_rows(ctx: StageContext, experiment: Experiment) -> list[dict]:
    """The rows of one experiment: judged when it ran, "not run" when it cannot, fail when it broke."""
    from pipeline.games.catalog import load_game

    if experiment.unavailable:
        return [unjudged(c, experiment, NOT_RUN, experiment.unavailable) for c in experiment.checks]
    try:
        config = experiment_config(ctx, experiment)
        game = load_game(config.game)
    except PipelineError as err:  # e.g. lists that are not shipped and not fetched
        return [unjudged(c, experiment, NOT_RUN, str(err)) for c in experiment.checks]
    log.info(f"{NAME}: {experiment.group}: {experiment.stage} on {experiment.game} {experiment.settings or ''}")
    started = time.time()
    try:
        artifacts = run_experiment(ctx, experiment, config, game)
    except PipelineError as err:
        rows = [unjudged(c, experiment, FAIL, str(err)) for c in experiment.checks]
    else:
        rows = [{**judged(c, experiment, artifacts), "seconds": round(time.time() - started, 1)}
                for c in experiment.checks]
    return [{**row, "game_identity": game.identity()} for row in rows]


def run(ctx: StageContext, cfg: ReproduceConfig) -> dict:
    rows = [row for experiment in chosen(cfg) for row in experiment_rows(ctx, experiment)]
    counts = {v: sum(r["verdict"] == v for r in rows) for v in (PASS, FAIL, NOT_RUN)}
    write_json(ctx.out.file(VERDICTS.name), {"counts": counts, "rows": rows}, indent=1)
    ctx.out.file(VERDICT_TABLE.name).write_text(markdown(rows))
    for row in rows:
        if row["verdict"] != PASS:
            log.warning(f"{NAME}: {row['id']}: {row['verdict']} (published {row['published']}, computed "
                        f"{row['computed']}){': ' + row['reason'] if row.get('reason') else ''}")
    log.info(f"{NAME}: {counts[PASS]} pass, {counts[FAIL]} fail, {counts[NOT_RUN]} not run")
    return {"counts": counts, "groups": sorted({r["group"] for r in rows}, key=GROUPS.index),
            "failing": [r["id"] for r in rows if r["verdict"] == FAIL],
            "not_run": [r["id"] for r in rows if r["verdict"] == NOT_RUN]}


def headline(summary: dict, folder) -> str:
    """`72 pass, 0 fail, 2 not run` (the failing checks named)."""
    counts = summary["counts"]
    failing = f" (failing: {', '.join(summary['failing'])})" if summary.get("failing") else ""
    return f"{counts[PASS]} pass, {counts[FAIL]} fail, {counts[NOT_RUN]} not run{failing}"
