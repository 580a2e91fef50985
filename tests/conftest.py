"""Shared fixtures: one embedded Ray session for the whole run, composed configs, tiny games."""

import os

# The threads of numba's OpenMP layer sleep as soon as a parallel kernel returns instead of spinning for more work:
# the suite calls parallel kernels thousands of times on tiny games, with Ray's workers and child processes on the
# same cores, where the spinning threads took the cores the next call needed (a call of search/bounds' v1_all on 5
# candidates: 0.4-8 ms spinning, 0.01 ms sleeping; tests/test_bounds.py 60-69 s -> 8 s, 2 cores, load 3-4).  Set
# before numba starts its threads; this process's children and Ray's workers inherit it.
os.environ.setdefault("OMP_WAIT_POLICY", "passive")
os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")

from dataclasses import dataclass  # noqa: E402
from pathlib import Path  # noqa: E402

import pytest  # noqa: E402

from pipeline.config.settings import GameConfig, WordListConfig  # noqa: E402


@pytest.fixture(scope="session", autouse=True)
def checker_key_folder(tmp_path_factory):
    """The session's own config folder for the checker's key (pipeline/proofs/certificates/seal.py), so that no test reads or
    writes the user's ~/.config/pipeline; subprocesses inherit it.  A test wanting another key folder sets
    PIPELINE_CONFIG_DIR with monkeypatch."""
    from pipeline.proofs.certificates.seal import CONFIG_ENV

    folder = tmp_path_factory.mktemp("config")
    os.environ[CONFIG_ENV] = str(folder)
    return folder


@pytest.fixture(scope="session")
def ray_session():
    """One embedded Ray for every test that fans out (ray.init costs seconds)."""
    import ray

    if not ray.is_initialized():
        ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False)
    yield ray
    ray.shutdown()


MINI_NERDLE_RUNS = {  # a small run of every stage but reproduce (which reruns the published experiments)
    "prove": ["stage=prove", "upstream.upper_bound.openers=['1+9=10']"],  # a better opener: a tree.txt too
    "heuristics": ["stage=heuristics", "stage.combinations=[MostParts,'MostParts,InSet,ExpSizeSplit']"],
    "exact": ["stage=exact", "stage.openers=['4*7=28']"],
    "openers": ["stage=openers", "stage.block_rows=50"],
    "simulate": ["stage=simulate", "stage.strategies=[tree,elimination_answers]", "stage.opener=null"],
    "blindfold": ["stage=blindfold"],
    "leaderboard": ["stage=leaderboard", "stage.k=1", "upstream.upper_bound.openers=['1+9=10']"],
    "report": ["stage=report"],  # after the others: it draws what they wrote
    "catalogue": ["stage=catalogue", "stage.committed=null"],  # the proof's and the leaderboard's certificates
}


@pytest.fixture(scope="session")
def mini_nerdle_store(tmp_path_factory, ray_session):
    """The store after MINI_NERDLE_RUNS on Mini Nerdle, every stage's finished artifacts in it: run once for
    the whole session (the stage contract and the version pins read it; neither writes into it)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    outputs = tmp_path_factory.mktemp("mini_nerdle_outputs")
    for overrides in MINI_NERDLE_RUNS.values():
        cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "game=mini_nerdle", *overrides])
        run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(outputs))
    return ArtifactStore(outputs)


@pytest.fixture(scope="module")
def mini_nerdle():
    """The built-in Mini Nerdle game, loaded once per test module."""
    from pipeline.games.catalog import builtin_game

    return builtin_game("mini_nerdle")


@pytest.fixture
def outputs(tmp_path):
    return tmp_path / "outputs"


@pytest.fixture
def compose_config(outputs):
    """compose_config("stage=feedback", "game=mini_nerdle") -> typed Config, outputs in a temp dir."""
    from pipeline.config.compose import compose_config

    def make(*overrides):
        return compose_config([f"paths.outputs={outputs}", "progress=false", *overrides])

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


@dataclass
class SmallWordle:
    """A small Wordle-like game written inside the tests (game=words): a sample of the shipped lists."""

    config: GameConfig
    overrides: list  # the same game as command-line overrides

    @property
    def game(self):
        from pipeline.games.catalog import load_game

        return load_game(self.config)


@pytest.fixture
def word_list_game(tmp_path):
    """word_list_game(secrets, guesses=None) -> overrides of game=words on those lists, written to tmp_path
    (guesses: the secrets when not given)."""

    def make(secrets, guesses=None):
        (tmp_path / "secrets.txt").write_text("\n".join(secrets) + "\n")
        overrides = ["game=words", f"game.secrets.path={tmp_path / 'secrets.txt'}"]
        if guesses is not None:
            (tmp_path / "guesses.txt").write_text("\n".join(guesses) + "\n")
            overrides.append(f"game.guesses.path={tmp_path / 'guesses.txt'}")
        return overrides

    return make


@pytest.fixture
def hybrid_word_game(word_list_game):
    """Overrides for the blindfold stage in hybrid mode (no exhaustive sets) on tests/helpers/fixed_guesses.py's
    word game."""
    from tests.helpers.fixed_guesses import GUESSES, SECRETS

    return [*word_list_game(SECRETS, GUESSES), "stage=blindfold", "stage.mode=hybrid", "stage.exhaustive_sets=0"]


@pytest.fixture(scope="session")
def small_wordle(tmp_path_factory):
    """Secrets: every 14th original answer plus RAISE (167 words); guesses: those plus every 16th allowed
    guess (967 words), so G ≠ S, codes are uint8 and an opener sweep covers words that cannot win."""
    from pipeline.config.settings import DATA_DIR

    answers = (DATA_DIR / "wordle" / "original_answers.txt").read_text().split()
    allowed = (DATA_DIR / "wordle" / "original_guesses.txt").read_text().split()
    secrets = sorted(set(answers[::14]) | {"raise"})
    guesses = sorted(set(allowed[::16]) | set(secrets))
    folder = tmp_path_factory.mktemp("small_wordle")
    (folder / "secrets.txt").write_text("\n".join(secrets) + "\n")
    (folder / "guesses.txt").write_text("\n".join(guesses) + "\n")
    config = GameConfig(name="words", secrets=WordListConfig(path=str(folder / "secrets.txt")),
                        guesses=WordListConfig(path=str(folder / "guesses.txt")))
    overrides = ["game=words", f"game.secrets.path={folder / 'secrets.txt'}",
                 f"game.guesses.path={folder / 'guesses.txt'}"]
    return SmallWordle(config, overrides)


# Fixtures that run a whole proof or a brute force once per session or module (5-160 s on 2 cores): a test needing
# one is slow, whatever its own call costs, so that `make check` never pays for them
HEAVY_FIXTURES = {"mini_nerdle_store", "mini_nerdle_proof", "ten_proof", "board", "questions"}


@pytest.hookimpl(tryfirst=True)
def pytest_collection_modifyitems(config, items):
    """Tests needing a heavy fixture are marked slow.  Tests marked needs_ffxivrdle are skipped, saying why, when FFXIVrdle's lists are not where the
    config expects them (they are never shipped: `python -m pipeline data fetch ffxivrdle`)."""
    for item in items:
        if HEAVY_FIXTURES & set(getattr(item, "fixturenames", ())):
            item.add_marker(pytest.mark.slow)
    needing = [item for item in items if item.get_closest_marker("needs_ffxivrdle")]
    if not needing:
        return
    from pipeline.config.compose import game_config

    cfg = game_config("ffxivrdle")
    missing = [path for path in (cfg.secrets.path, cfg.guesses.path) if not Path(path).is_file()]
    if missing:
        reason = (f"FFXIVrdle lists not found ({', '.join(missing)}): run `python -m pipeline data fetch "
                  f"ffxivrdle` or set PIPELINE_SHARED_DATA")
        for item in needing:
            item.add_marker(pytest.mark.skip(reason=reason))


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    """Under `make test-docker` (PIPELINE_REQUIRE_DOCKER=1, as .ci/run runs it) a `docker` test that skips fails
    instead: CI green must mean the image was built and run, never that no engine answered."""
    outcome = yield
    report = outcome.get_result()
    if (report.skipped and os.environ.get("PIPELINE_REQUIRE_DOCKER") == "1"
            and item.get_closest_marker("docker")):
        report.outcome = "failed"
        report.longrepr = f"skipped under PIPELINE_REQUIRE_DOCKER=1: {report.longrepr}"


@pytest.fixture(autouse=True)
def _restore_logging_handlers():
    """In-process CLI runs let Hydra attach handlers to the captured stderr of one test; drop them after it."""
    import logging

    loggers = [logging.getLogger(), logging.getLogger("hydra")]
    before = [list(lg.handlers) for lg in loggers]
    yield
    for lg, handlers in zip(loggers, before):
        lg.handlers[:] = handlers
