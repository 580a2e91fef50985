"""A fresh clone that works anywhere: package data, an installed copy run from an empty folder, FFXIVrdle
fetched on demand (never needed by the default suite), and artifacts keyed by the code that made them."""

import fnmatch
import os
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest

from pipeline.config.settings import PROJECT_ROOT, GameConfig, WordListConfig
from pipeline import PipelineError
from pipeline.games.digest import sorted_sha256
from tests.helpers.cli import run_cli

PYPROJECT = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())


def one_error_line(proc) -> str:
    lines = proc.stderr.strip().splitlines()
    assert proc.returncode == 2 and len(lines) == 1 and lines[0].startswith("error: "), proc.stderr
    return lines[0]


# --- packaging ---------------------------------------------------------------------------------------------

def test_pyproject_lists_every_package_and_maps_conf_and_data():
    tool = PYPROJECT["tool"]["setuptools"]
    code = {".".join(p.parent.relative_to(PROJECT_ROOT).parts) for p in (PROJECT_ROOT / "pipeline").rglob("__init__.py")}
    folders = {".".join(("pipeline", top, *p.relative_to(PROJECT_ROOT / top).parts)).rstrip(".")
               for top in ("conf", "data") for p in [PROJECT_ROOT / top, *(PROJECT_ROOT / top).rglob("*")]
               if p.is_dir() and "__pycache__" not in p.parts}
    assert code | folders == set(tool["packages"])  # a new package or config group must be listed there
    assert tool["package-dir"] == {"pipeline.conf": "conf", "pipeline.data": "data"}
    assert PYPROJECT["project"]["name"] != "pipeline"  # taken on PyPI
    assert PYPROJECT["project"]["scripts"]["wordle-pipeline"] == "pipeline.__main__:run"


@pytest.mark.parametrize("package,folder", [("pipeline.conf", "conf"), ("pipeline.data", "data")])
def test_package_data_covers_every_config_and_list(package, folder):
    patterns = PYPROJECT["tool"]["setuptools"]["package-data"][package]
    files = [p.relative_to(PROJECT_ROOT / folder).as_posix() for p in (PROJECT_ROOT / folder).rglob("*")
             if p.is_file() and "__pycache__" not in p.parts]
    assert files and all(any(fnmatch.fnmatch(f, pat) and f.count("/") == pat.count("/") for pat in patterns)
                         for f in files), files


def test_default_outputs_are_in_the_working_directory(tmp_path):
    proc = run_cli("stage=feedback", "game=mini_nerdle", "progress=false", cwd=tmp_path, timeout=600)
    assert proc.returncode == 0, proc.stderr
    last = Path(proc.stdout.strip().splitlines()[-1])
    assert last.parent == tmp_path / "outputs" / "feedback" and (last / "matrix.parquet").is_file()
    assert not any((PROJECT_ROOT / "pipeline").rglob("manifest.json"))


def can_build_wheels_offline() -> bool:
    """setuptools >= 77 (the `test` extra) or the `wheel` package: a wheel builds without the network."""
    from importlib.util import find_spec

    from packaging.version import Version

    return find_spec("wheel") is not None or Version(metadata.version("setuptools")) >= Version("77")


@pytest.mark.slow
@pytest.mark.skipif(not can_build_wheels_offline(), reason="needs setuptools>=77 (the test extra): make install")
def test_installed_copy_runs_from_an_empty_folder(tmp_path):
    """A regular (non-editable) install of this checkout, run from an empty folder: configs and lists come
    from the package, artifacts go to ./outputs. Installed with --target so it reuses this venv's deps."""
    site = tmp_path / "site"
    subprocess.run([sys.executable, "-m", "pip", "install", "--quiet", "--no-deps", "--no-build-isolation",
                    "--target", str(site), str(PROJECT_ROOT)], check=True, capture_output=True, timeout=600)
    assert (site / "pipeline" / "conf" / "game" / "mini_nerdle.yaml").is_file()
    assert (site / "pipeline" / "data" / "wordle" / "original_answers.txt").is_file()
    here = tmp_path / "empty"
    here.mkdir()
    env = {**os.environ, "PYTHONPATH": str(site)}
    check = [sys.executable, "-c", "import pipeline, pipeline.config.settings as c; print(pipeline.__file__, c.CONF_DIR)"]
    where = subprocess.run(check, capture_output=True, text=True, cwd=here, env=env).stdout
    assert where.split() == [str(site / "pipeline" / "__init__.py"), str(site / "pipeline" / "conf")]
    verify = subprocess.run([str(site / "bin" / "wordle-pipeline"), "data", "verify"], capture_output=True,
                            text=True, cwd=here, env=env)
    assert verify.returncode == 0 and f"all lists in {site / 'pipeline' / 'data'} match" in verify.stdout
    run = subprocess.run([sys.executable, "-m", "pipeline", "stage=feedback", "game=wordle_original",
                          "progress=false"], capture_output=True, text=True, cwd=here, env=env, timeout=600)
    assert run.returncode == 0, run.stderr
    last = Path(run.stdout.strip().splitlines()[-1])
    assert last.parent == here / "outputs" / "feedback" and (last / "matrix.parquet").is_file()
    assert last.joinpath("secrets.txt").read_text().count("\n") == 2315


# --- FFXIVrdle: fetched on demand ---------------------------------------------------------------------------

def test_fetch_offline_is_one_error_line_and_writes_nothing(tmp_path):
    proc = run_cli("data", "fetch", "ffxivrdle", f"paths.shared_data={tmp_path / 'shared'}",
                   "game.secrets.url=http://127.0.0.1:9/answers.txt", cwd=PROJECT_ROOT, timeout=600)
    line = one_error_line(proc)
    assert "could not download http://127.0.0.1:9/answers.txt" in line
    assert f"{tmp_path}/shared/ffxivrdle/answers.txt" in line and not (tmp_path / "shared").exists()


def test_ffxivrdle_without_its_lists_is_one_error_line_naming_the_fetch_command(tmp_path):
    proc = run_cli("stage=feedback", "game=ffxivrdle", f"paths.outputs={tmp_path / 'out'}", cwd=PROJECT_ROOT,
                   env={"PIPELINE_SHARED_DATA": str(tmp_path / "none")}, timeout=600)
    line = one_error_line(proc)
    assert f"list not found: {tmp_path}/none/ffxivrdle/answers.txt" in line
    assert "python -m pipeline data fetch ffxivrdle" in line


def _fetchable(tmp_path, words: dict[str, list[str]], digests: dict[str, str]) -> GameConfig:
    """A words game whose two lists are fetched from file:// URLs into tmp_path/dest."""
    lists = {}
    for what, content in words.items():
        source = tmp_path / f"{what}-source.txt"
        source.write_text("\n".join(content) + "\n")
        lists[what] = WordListConfig(path=str(tmp_path / "dest" / f"{what}.txt"), sha256=digests[what],
                                     count=len(set(content)), url=source.as_uri())
    return GameConfig(name="t", **lists)


def test_fetch_checks_every_list_before_writing_any(tmp_path):
    from pipeline.games.catalog import load_game
    from pipeline.games.fetch import fetch_lists

    secrets, guesses = ["Slate", "crane"], ["crane", "slate", "trace"]
    good = {"secrets": sorted_sha256(secrets), "guesses": sorted_sha256(guesses)}
    bad = _fetchable(tmp_path, {"secrets": secrets, "guesses": guesses}, {**good, "guesses": "0" * 64})
    with pytest.raises(PipelineError, match="guesses downloaded from file://.*digest mismatch"):
        fetch_lists(bad)
    assert not (tmp_path / "dest").exists()  # the secrets list checked out, but nothing is kept
    cfg = _fetchable(tmp_path, {"secrets": secrets, "guesses": guesses}, good)
    assert [what for _, what in fetch_lists(cfg)] == ["fetched", "fetched"]
    assert (tmp_path / "dest" / "secrets.txt").read_text() == "crane\nslate\n"
    assert load_game(cfg).guesses == ("crane", "slate", "trace")
    assert [what for _, what in fetch_lists(cfg)] == ["already there", "already there"]


def test_fetch_refuses_a_game_without_urls():
    from pipeline.config.compose import game_config
    from pipeline.games.fetch import fetch_lists

    with pytest.raises(PipelineError, match="wordle_original has no lists to fetch"):
        fetch_lists(game_config("wordle_original"))


@pytest.mark.needs_ffxivrdle
def test_fetch_ffxivrdle_checks_the_pinned_digests(tmp_path):
    """The real command, with the URLs pointed at the lists already here (this machine has no GitHub)."""
    from pipeline.config.compose import game_config

    here = game_config("ffxivrdle")
    proc = run_cli("data", "fetch", "ffxivrdle", f"paths.shared_data={tmp_path}",
                   f"game.secrets.url={Path(here.secrets.path).as_uri()}",
                   f"game.guesses.url={Path(here.guesses.path).as_uri()}", cwd=PROJECT_ROOT, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.count("fetched: ") == 2
    fetched = game_config("ffxivrdle", secrets={"path": str(tmp_path / "ffxivrdle" / "answers.txt")},
                          guesses={"path": str(tmp_path / "ffxivrdle" / "guesses.txt")})
    from pipeline.games.catalog import load_game

    game = load_game(fetched)
    assert (len(game.secrets), len(game.guesses)) == (168, 849) and "rank)" in game.guesses


def test_ffxivrdle_url_is_the_authors_repository_pinned_to_a_commit():
    from pipeline.config.compose import game_config

    cfg = game_config("ffxivrdle")
    for wl, name in ((cfg.secrets, "ffxivrdleAnswers.txt"), (cfg.guesses, "ffxivrdleGuesses.txt")):
        prefix, commit, rest = wl.url.rsplit("/", 3)[0], wl.url.split("/")[-3], wl.url.split("/")[-2:]
        assert prefix == "https://raw.githubusercontent.com/cunananm2000/WordleBot" and len(commit) == 40
        assert rest == ["wordLists", name]


# --- provenance: dependency and code versions in manifests, stage VERSIONs in keys ---------------------------

def test_manifest_records_dependency_and_code_versions(run_pipeline):
    from pipeline.stages import runner
    from pipeline.stages import feedback as feedback_stage

    artifact = run_pipeline("stage=feedback", "game=mini_nerdle")
    manifest = artifact.manifest
    versions = manifest["versions"]
    for dist in ("ray", "numpy", "pyarrow", "hydra-core", "omegaconf", "numba", "llvmlite", "highspy"):
        assert versions[dist] == metadata.version(dist)
    assert versions["python"] == ".".join(map(str, sys.version_info[:3]))
    assert manifest["code_version"] == runner.code_version(feedback_stage)
    assert manifest["code_version"].startswith(f"{manifest['package_version']}+")
    assert manifest["schema_version"] == feedback_stage.VERSION


def test_code_version_covers_the_maths_and_the_stage_itself():
    """The manifest's code hash names the source a result came from (provenance, not part of the key)."""
    from pipeline.stages import runner
    from pipeline.stages import openers, prove, upper_bound

    files = {p.relative_to(runner.PACKAGE_DIR).as_posix() for p in runner.source_files(prove)}
    assert {"search/bounds/lower.py", "feedback/kernel.py", "games/answer.py", "stages/prove.py",
            "artifacts/trees.py"} <= files
    assert "stages/upper_bound.py" not in files and "runtime/shards.py" not in files
    assert runner.code_version(prove) != runner.code_version(upper_bound)
    assert "report/plots.py" not in files  # a chart is the openers stage's code, not the proof's:
    assert "report/plots.py" in {p.relative_to(runner.PACKAGE_DIR).as_posix() for p in runner.source_files(openers)}


def test_editing_a_source_file_changes_the_hash(tmp_path):
    from pipeline.stages import runner

    for package in ("search", "games"):
        shutil.copytree(runner.PACKAGE_DIR / package, tmp_path / package, ignore=shutil.ignore_patterns("__pycache__"))
    files = sorted(tmp_path.rglob("*.py"))
    before = runner.hash_files(files, tmp_path)
    assert runner.hash_files(files, tmp_path) == before
    bounds = tmp_path / "search" / "bounds" / "lower.py"
    bounds.write_text(bounds.read_text() + "\n# one more line\n")
    assert runner.hash_files(files, tmp_path) != before


def test_a_different_code_version_changes_the_manifest_not_the_key(run_pipeline, monkeypatch):
    """An edited source file (a comment, a refactor) keeps every finished artifact: the key holds no code,
    the next run's manifest records the new code hash."""
    from pipeline.stages import runner

    first = run_pipeline("stage=feedback", "game=mini_nerdle")
    monkeypatch.setattr(runner, "code_version", lambda module: "0.1.0+000000000000")
    assert run_pipeline("stage=feedback", "game=mini_nerdle").key == first.key  # reused, not recomputed
    forced = run_pipeline("stage=feedback", "game=mini_nerdle", "stage.force=true")
    assert forced.key == first.key and forced.manifest["code_version"] == "0.1.0+000000000000"


def test_a_version_bump_rekeys_the_stage_and_everything_downstream(compose_config, monkeypatch):
    """Bumping a stage's VERSION changes its key and, through the input keys, those of the stages reading it
    (a proof from a feedback matrix of another algorithm is not reused); stages beside it keep theirs."""
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages import STAGES, runner

    def keys() -> dict[str, str]:
        """Each stage's key for a chain feedback -> upper_bound -> lower_bound, computed without running it."""
        cfg = compose_config("stage=lower_bound", "game=mini_nerdle")
        game, store = load_game(cfg.game), ArtifactStore(cfg.paths.outputs)
        made = {}
        for name, stage_cfg in (("feedback", cfg.upstream.feedback), ("upper_bound", cfg.upstream.upper_bound),
                                ("lower_bound", cfg.stage), ("blindfold", cfg.upstream.blindfold)):
            stage = runner.stage_contract(name)
            inputs = {dep: store.artifact(dep, made[dep]) for dep in stage.inputs(stage_cfg)}
            made[name] = runner.stage_key(stage, stage_cfg, game, inputs, store)
        return made

    before = keys()
    assert keys() == before
    monkeypatch.setattr(STAGES["upper_bound"], "VERSION", STAGES["upper_bound"].VERSION + 1)
    bumped = keys()
    assert bumped["feedback"] == before["feedback"] and bumped["blindfold"] == before["blindfold"]
    assert bumped["upper_bound"] != before["upper_bound"] and bumped["lower_bound"] != before["lower_bound"]
    monkeypatch.setattr(STAGES["feedback"], "VERSION", STAGES["feedback"].VERSION + 1)
    assert all(keys()[name] != bumped[name] for name in ("feedback", "upper_bound", "lower_bound", "blindfold"))
