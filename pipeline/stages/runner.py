"""Run a stage: make sure its inputs exist (running them if needed), key it, skip or write it.

An artifact's key is its stage's name and algorithm VERSION, its config, the game identity it depends on and
the keys of the artifacts it reads (so bumping an input's VERSION re-keys everything downstream), plus the
stage's own key material: never the source code, so a comment or a refactor keeps hours of proof.  The
manifest still records the code's hash (`code_version`) for provenance; tests/test_versions.py pins each
stage's results on small games to its VERSION, so a change of results without a bump fails there.
"""

import dataclasses
import functools
import hashlib
import platform
import time
from importlib import metadata
from pathlib import Path

from pipeline import __version__
from pipeline.config.settings import Config
from pipeline import PipelineError
from pipeline.games.game import Game
from pipeline.runtime.log import log, log_to_file
from pipeline.runtime.progress import announce_compilation
from pipeline.runtime.store import Artifact, ArtifactStore, config_key
from pipeline.stages import STAGES
from pipeline.stages.base import StageContext, StageContract, contract
from pipeline.config.stages import StageConfig

NOT_IN_KEY = ("name", "force")
PACKAGE_DIR = Path(__file__).resolve().parents[1]
RESULT_PACKAGES = ("games", "feedback", "search", "blindfold", "artifacts")  # their code shapes results
READS_PUBLISHED = ("report", "reproduce", "openers")  # their code includes report/ (published figures, plots)
COMPARES_PUBLISHED = ("report", "reproduce")  # their results include the published figures: data in their key
RESULT_MODULES = ("config/validation.py",)
DEPENDENCIES = ("ray", "numpy", "pyarrow", "hydra-core", "omegaconf", "numba", "llvmlite", "highspy",
                "matplotlib", "psutil")


def source_files(module) -> list[Path]:
    """The source a stage's result depends on: the maths packages, tree files, the settings checks, the stage's
    own module and the stage base and runner (everything in stages/ except the other stages and the schemas,
    whose values are in the key already), and for the stages that compare with published figures the report
    package (correcting a figure reruns no proof)."""
    own = Path(module.__file__).resolve()
    other_stages = {(PACKAGE_DIR / "stages" / f"{name}.py").resolve() for name in STAGES} - {own}
    other_stages.add((PACKAGE_DIR / "stages" / "preflight.py").resolve())  # checks, not results
    packages = RESULT_PACKAGES + (("report",) if module.NAME in READS_PUBLISHED else ())
    files = [p for package in packages for p in (PACKAGE_DIR / package).rglob("*.py")]
    files += [PACKAGE_DIR / name for name in RESULT_MODULES]
    files += [p for p in (PACKAGE_DIR / "stages").glob("*.py") if p.resolve() not in other_stages]
    return sorted(files)


def hash_files(files: list[Path], root: Path) -> str:
    """sha256 over every file's path (relative to root) and bytes."""
    digest = hashlib.sha256()
    for path in files:
        digest.update(path.relative_to(root).as_posix().encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


@functools.lru_cache(maxsize=None)
def code_version(module) -> str:
    """Package version + a hash of the stage's source, recorded in its manifests: which code made an artifact
    (provenance only; the key holds the stage's VERSION instead)."""
    return f"{__version__}+{hash_files(source_files(module), PACKAGE_DIR)[:12]}"


def dependency_versions() -> dict[str, str | None]:
    """The exact installed versions of Python and every dependency (None = not installed), for manifests."""
    versions = {"python": platform.python_version()}
    for dist in DEPENDENCIES:
        try:
            versions[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            versions[dist] = None
    return versions


def stage_module(name: str):
    """The module of stage `name` (PipelineError naming the stages if there is none)."""
    if name not in STAGES:
        raise PipelineError(f"unknown stage {name!r}; stages: {', '.join(STAGES)}")
    return STAGES[name]


def stage_contract(name: str) -> StageContract:
    """Stage `name` through its declared contract (optional hooks filled with their defaults)."""
    return contract(stage_module(name))


def upstream_config(name: str, cfg: Config) -> StageConfig:
    """The config of a stage run as an input: its schema defaults plus `upstream.<name>` overrides."""
    return getattr(cfg.upstream, name)


def stage_key(stage: StageContract, stage_cfg: StageConfig, game: Game, inputs: dict[str, Artifact],
              store: ArtifactStore) -> str:
    """The artifact's key: everything that changes its result (config, game identity, the stage's VERSION, its
    inputs' keys, the published figures a comparing stage judges by), not the code that computes it."""
    sizing = {f.name for f in dataclasses.fields(stage_cfg) if f.metadata.get("sizing")}
    fields = {k: v for k, v in dataclasses.asdict(stage_cfg).items() if k not in NOT_IN_KEY and k not in sizing}
    published = {"published": published_figures()} if stage.name in COMPARES_PUBLISHED else {}
    return config_key({"stage": stage.name, "version": stage.version, "config": fields,
                       "game": stage.game_identity(game),
                       "inputs": {name: art.key for name, art in sorted(inputs.items())},
                       **published, **stage.key_material(stage_cfg, game, store)})


@functools.lru_cache(maxsize=None)
def published_figures() -> str:
    """A hash of the published figures (pipeline/report/published.py's tables, data rather than code): a
    corrected figure re-keys the stages that compare with it, and reruns no proof."""
    from pipeline.report import published

    tables = {name: value for name, value in vars(published).items() if name.isupper()}
    return config_key({"figures": repr(sorted(tables.items()))})


def run_stage(stage_cfg: StageConfig, cfg: Config, game: Game, store: ArtifactStore,
              ready: dict | None = None) -> Artifact:
    """The finished artifact of `stage_cfg` for `game`, computing it (and its inputs) only if missing.

    `ready` remembers artifacts already settled in this run (inputs shared by several stages)."""
    ready = {} if ready is None else ready
    if stage_cfg.name in ready and not stage_cfg.force:
        return ready[stage_cfg.name]
    stage = stage_contract(stage_cfg.name)
    stage.validate(stage_cfg, game)  # bad settings fail before any input is computed
    inputs = {dep: run_stage(upstream_config(dep, cfg), cfg, game, store, ready) for dep in stage.inputs(stage_cfg)}
    key = stage_key(stage, stage_cfg, game, inputs, store)
    artifact = store.artifact(stage.name, key)
    if stage_cfg.force:
        compute(stage, stage_cfg, cfg, game, store, inputs, key)
    elif store.is_done(stage.name, key):
        artifact.check()  # a missing or truncated file is named now, not deep inside a later stage
        log.info(f"{stage.name}: up to date, skipped (stage.force=true recomputes): {artifact.path}")
    else:
        def waiting():
            log.info(f"{stage.name}: another run is computing {key}; waiting for it")

        with store.claim(stage.name, key, on_wait=waiting):  # one computation of a key at a time
            if store.is_done(stage.name, key):
                artifact.check()
                log.info(f"{stage.name}: computed by the other run meanwhile: {artifact.path}")
            else:
                compute(stage, stage_cfg, cfg, game, store, inputs, key)
    ready[stage.name] = artifact
    return artifact


def compute(stage, stage_cfg: StageConfig, cfg: Config, game: Game, store: ArtifactStore, inputs: dict,
            key: str) -> None:
    """Run `stage` and write its artifact under `key`: the manifest names the code, versions and inputs."""
    manifest = {
        "stage": stage.name, "key": key, "schema_version": stage.version, "package_version": __version__,
        "code_version": code_version(stage.module), "versions": dependency_versions(),
        "game": {"name": game.name, **game.identity()}, "config": dataclasses.asdict(stage_cfg),
        "inputs": {name: {"key": art.key, "path": str(art.path)} for name, art in inputs.items()},
    }
    if stage_cfg.force:
        store.clear_shards(stage.name, key)
    announce_compilation()  # the stage's kernels are imported by now: a cold cache is said before it costs
    started = time.time()
    with store.write(stage.name, key, manifest, replace=stage_cfg.force) as out, log_to_file(out.file("stage.log")):
        of_game = f" for game {game.name}" if stage.game_identity(game) else ""  # a catalogue gathers every game
        log.info(f"{stage.name}: running{of_game} (key {key})")
        ctx = StageContext(stage.name, game, store, cfg.ray, out, key, inputs, cfg.progress)
        summary = stage.run(ctx, stage_cfg)
        out.record(summary=summary, run_seconds=round(time.time() - started, 3),
                   fan_out=ctx.fanout.as_dict())
    log.info(f"{stage.name}: done in {time.time() - started:.1f}s")


def result_line(artifact: Artifact) -> str:
    """`<stage>: <headline>`: the stage's result in one line, from the summary its run recorded in the manifest."""
    stage = stage_contract(artifact.stage)
    summary = artifact.manifest.get("summary") or {}
    return f"{stage.name}: {' '.join(stage.headline(summary, artifact.path).split())}"
