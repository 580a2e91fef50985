"""Shared fixtures: one embedded Ray session for the whole run, composed configs, tiny games."""

import os

import pytest

os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")


@pytest.fixture(scope="session")
def ray_session():
    """One embedded Ray for every test that fans out (ray.init costs seconds)."""
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


@pytest.fixture
def outputs(tmp_path):
    return tmp_path / "outputs"


@pytest.fixture
def compose_config(outputs):
    """compose_config("stage=feedback", "game=mini_nerdle") -> typed Config, outputs in a temp dir."""
    from pipeline.cli import compose, to_config

    def make(*overrides):
        return to_config(compose([f"paths.outputs={outputs}", "progress=false", *overrides]))

    return make


@pytest.fixture
def run_pipeline(compose_config):
    """Run a stage in-process as the CLI would; returns its Artifact."""
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    def run(*overrides):
        cfg = compose_config(*overrides)
        return run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))

    return run
