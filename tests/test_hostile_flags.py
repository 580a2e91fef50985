"""Hostile flags, overrides and files of issue 47, grouped by kind: each is one `error:` line, exit status 2, no
traceback, and nothing is run, read or written on its behalf (the file it would have written is checked to be
absent).  The harness is tests/test_bad_input.py's.

Kinds: 1. flags (only -m/--multirun and -h/--help); 2. overrides that would make Hydra load a config from
another folder, call something by name, resolve an interpolation or write outside the outputs folder; 3. sweeps
(sized before any point is made, capped, never empty); 4. damaged files read by bundle, verify-tree, data
verify and the checker's JSON reader; 5. names and inputs printed back (escaped, cut to a prefix).
"""

import gzip
import io
import json
import os
import pickle
import sys
import tarfile
import threading
from pathlib import Path

import pytest

from pipeline.config.settings import CONF_DIR
from pipeline import ECHO_CHARS, LINE_CHARS, PipelineError, echo, error_line, printable
from test_bad_input import MINI, assert_one_error, fresh_console, nothing_written, run_main  # noqa: F401 (autouse)


def run_refused(args, tmp_path, capsys, message, *absent: Path):
    """The stage run `args` (outputs under tmp_path) is one error line holding `message`; nothing is written under
    the outputs, and none of the paths `absent` exists."""
    outputs = tmp_path / "outputs"
    code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", "ray.executor=local", *args], capsys)
    assert_one_error(code, err, message)
    assert out == ""
    assert nothing_written(outputs), sorted(outputs.rglob("*"))
    for path in absent:
        assert not os.path.lexists(path), path
    return err


# ---- 1. flags: a stage run takes -m/--multirun and -h/--help, no flag of Hydra's ------------------------------


class Touch:
    """A pickle whose loading creates `marker` (what `--experimental-rerun <file>` would have run)."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return Path.touch, (self.marker,)


@pytest.fixture
def rerun_pickle(tmp_path) -> tuple[Path, Path]:
    marker = tmp_path / "unpickled"
    path = tmp_path / "config.pickle"
    path.write_bytes(pickle.dumps(Touch(marker)))
    return path, marker


HYDRA_FLAGS = [["--info"], ["-i"], ["--config-name=../x"], ["-cn", "x"], ["--config-dir", "/tmp"], ["-cd", "/tmp"],
               ["--config-path=/tmp"], ["-cp", "/tmp"], ["--cfg", "job"], ["-c", "all"], ["--resolve"], ["-r"],
               ["--package", "game"], ["-p", "game"], ["--shell-completion"], ["-sc", "install=bash"],
               ["--hydra-help"], ["--version"], ["--multirun=true"], ["--multi"]]


def test_experimental_rerun_is_refused_without_unpickling(rerun_pickle, tmp_path, capsys):
    path, marker = rerun_pickle
    run_refused(["--experimental-rerun", str(path)], tmp_path, capsys, "unknown option --experimental-rerun; a "
                "stage run takes key=value overrides (and -m to sweep them; Hydra's own flags are not accepted)",
                marker)
    run_refused(["stage=feedback", *MINI, f"--experimental-rerun={path}"], tmp_path, capsys,
                f"unknown option {echo(f'--experimental-rerun={path}')}; a stage run", marker)
    run_refused(["--experimental-rerun", str(tmp_path / "missing.pickle")], tmp_path, capsys,
                "unknown option --experimental-rerun;")


@pytest.mark.parametrize("flags", HYDRA_FLAGS, ids=[" ".join(f) for f in HYDRA_FLAGS])
def test_every_flag_of_hydras_is_refused(flags, tmp_path, capsys):
    run_refused(["stage=feedback", *MINI, *flags], tmp_path, capsys, f"unknown option {flags[0]}")


def test_help_anywhere_prints_the_usage_and_runs_nothing(rerun_pickle, tmp_path, capsys):
    path, marker = rerun_pickle
    outputs = tmp_path / "outputs"
    for argv in (["--help"], ["-h"], ["stage=feedback", *MINI, "--help"], ["-m", "stage=feedback", "-h"],
                 ["--experimental-rerun", str(path), "--help"]):
        code, out, err = run_main([*argv, f"paths.outputs={outputs}"], capsys)
        assert (code, err) == (0, "")
        assert out.startswith("usage:\n  python -m pipeline stage=<stage> game=<game>")
    assert not marker.exists() and not outputs.exists()


# ---- 2. overrides: no config from another folder, nothing called by name, nothing written elsewhere ---------

HYDRA_REFUSED = "Hydra's own settings are not taken (they could load configs from any folder, run code or write"


@pytest.fixture
def evil(tmp_path) -> Path:
    """A config folder outside the package whose configs would write `written` through Hydra's job logging."""
    folder = tmp_path / "evil"
    logging_cfg = {"hydra": {"job_logging": {"version": 1, "root": {"handlers": ["f"]}, "handlers": {
        "f": {"class": "logging.FileHandler", "filename": str(tmp_path / "written")}}}}}
    for name in ("experiment/x.yaml", "game/x.yaml", "x.yaml"):
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_text("# @package _global_\n" + json.dumps(logging_cfg) + "\n")
    return folder


def test_a_search_path_to_another_folder_is_refused(evil, tmp_path, capsys):
    written = tmp_path / "written"
    run_refused(["stage=feedback", *MINI, f"hydra.searchpath=[file://{evil}]", "experiment=x"], tmp_path, capsys,
                f"{echo(f'hydra.searchpath=[file://{evil}]')}: {HYDRA_REFUSED}", written)
    run_refused(["stage=feedback", *MINI, f"+hydra.searchpath=[file://{evil}]", "experiment=x"], tmp_path, capsys,
                HYDRA_REFUSED, written)
    run_refused(["stage=feedback", *MINI, "~hydra.searchpath"], tmp_path, capsys, f"~hydra.searchpath: {HYDRA_REFUSED}")


def test_a_group_option_that_is_a_path_is_refused(evil, tmp_path, capsys):
    """`experiment=../../x` made Hydra load conf/experiment/../../x.yaml: any YAML on the disk."""
    written = tmp_path / "written"
    climb = os.path.relpath(evil / "x", Path(CONF_DIR) / "experiment")
    run_refused(["stage=feedback", *MINI, f"experiment={climb}"], tmp_path, capsys,
                "experiment= takes one of the names in conf/experiment/ (python -m pipeline list); a config from "
                "another folder is not read", written)
    run_refused(["stage=feedback", f"game={evil / 'game' / 'x'}"], tmp_path, capsys,
                "game= takes one of the names in conf/game/", written)
    run_refused(["stage=feedback", "game=../game/mini_nerdle"], tmp_path, capsys, "game= takes one of the names")
    run_refused(["stage=feedback", "game=[mini_nerdle,primel]"], tmp_path, capsys, "game= takes one of the names")


LOGGING_ROUTES = [  # (overrides, what they would have written)
    ["hydra/job_logging=default"],
    ["+hydra.job_logging.handlers.f.class=logging.FileHandler", "+hydra.job_logging.handlers.f.filename={written}",
     "hydra.job_logging.root={{handlers:[f]}}"],
    ["hydra.hydra_logging.root.level=DEBUG"],
    ["hydra/hydra_logging=default"],
    ["+hydra.callbacks.x._target_=pathlib.Path.touch", "+hydra.callbacks.x.self={written}"],
    ["hydra.output_subdir={written}"],
    ["hydra.job.env_set.LD_PRELOAD={written}"],
    ["hydra.verbose=true"],
    ["hydra/launcher=basic"],
    ["hydra.sweeper.params.x=1"],
    ["hydra.sweep.dir={written}"],
    ["hydra.mode=MULTIRUN"],
    ["+hydra={{x:1}}"],
]


@pytest.mark.parametrize("route", LOGGING_ROUTES, ids=[r[0] for r in LOGGING_ROUTES])
def test_every_other_hydra_setting_is_refused(route, tmp_path, capsys):
    written = tmp_path / "written"
    overrides = [item.format(written=written) for item in route]
    run_refused(["stage=feedback", *MINI, *overrides], tmp_path, capsys, f"{echo(overrides[0])}: {HYDRA_REFUSED}",
                written)


def test_a_package_override_is_refused(tmp_path, capsys):
    run_refused(["stage=feedback", *MINI, "game@hydra.job_logging=mini_nerdle"], tmp_path, capsys,
                "game@hydra.job_logging=mini_nerdle: a group@package override is not supported")
    run_refused(["stage=feedback", *MINI, "+paths@hydra.run=default"], tmp_path, capsys, "a group@package override")


CALLABLE_ROUTES = [
    ("+x._target_=os.system", "+x._target_=os.system: a key _target_ is not taken"),
    ("+stage._target_=os.system", "a key _target_ is not taken (it names something to call or build)"),
    ("+game.secrets={_target_:os.system,_args_:[touch]}", "a key _target_ is not taken"),
    ("stage.openers=[{_target_:os.system}]", "a key _target_ is not taken"),
]


@pytest.mark.parametrize("override,message", CALLABLE_ROUTES, ids=[o for o, _ in CALLABLE_ROUTES])
def test_a_key_naming_a_callable_is_refused(override, message, tmp_path, capsys):
    run_refused(["stage=upper_bound", *MINI, override], tmp_path, capsys, message)


def test_an_interpolation_is_refused_before_it_resolves(tmp_path, capsys, monkeypatch):
    """`${oc.env:...}` read the environment (and `${oc.decode:...}` builds values) when the config is read."""
    elsewhere = tmp_path / "elsewhere"
    monkeypatch.setenv("PIPELINE_TEST_ELSEWHERE", str(elsewhere))
    message = "an interpolation ${...} is not taken in an override (a resolver runs when it is read)"
    run_refused(["stage=feedback", *MINI, "paths.outputs=${oc.env:PIPELINE_TEST_ELSEWHERE}"], tmp_path, capsys,
                message, elsewhere)
    run_refused(["stage=feedback", *MINI, "hydra.run.dir=${oc.env:PIPELINE_TEST_ELSEWHERE}"], tmp_path, capsys,
                message, elsewhere)
    run_refused(["stage=upper_bound", *MINI, "stage.openers=['${oc.decode:x}']"], tmp_path, capsys, message)


def test_a_run_folder_outside_the_outputs_is_refused(tmp_path, capsys):
    outputs = tmp_path / "outputs"
    for folder in (tmp_path / "elsewhere", outputs / ".." / "climbed"):
        run_refused(["stage=feedback", *MINI, f"hydra.run.dir={folder}"], tmp_path, capsys,
                    f"hydra.run.dir={folder} is outside paths.outputs={outputs}: a run writes only inside its outputs "
                    "folder", folder)
    link = tmp_path / "link"
    link.symlink_to(tmp_path)
    run_refused(["stage=feedback", *MINI, f"paths.outputs={outputs}", f"hydra.run.dir={link}/outputs/../x"],
                tmp_path, capsys, "is outside paths.outputs", tmp_path / "x")


def test_the_taken_hydra_settings_still_compose(tmp_path):
    from pipeline.config.compose import compose_run

    outputs = tmp_path / "outputs"
    cfg, _ = compose_run([f"paths.outputs={outputs}", "stage=feedback", *MINI, f"hydra.run.dir={outputs}/run",
                          "hydra.job.chdir=false"], run_dir_key="hydra.run.dir")
    assert cfg.hydra.run.dir == f"{outputs}/run" and cfg.hydra.job.chdir is False
    cfg, _ = compose_run([f"paths.outputs={outputs}", "stage=feedback", *MINI], run_dir_key="hydra.run.dir")
    assert Path(cfg.hydra.run.dir).parent.parent == outputs / ".runs"


def test_a_sweep_with_a_search_path_is_refused(evil, tmp_path, capsys):
    run_refused(["-m", "stage=feedback", "game=mini_nerdle,primel", f"hydra.searchpath=[file://{evil}]",
                 "experiment=x"], tmp_path, capsys, HYDRA_REFUSED, tmp_path / "written")


def test_a_run_never_configures_logging_from_hydras_config(tmp_path, capsys, monkeypatch):
    """Behind the override checks: were a logging config to reach the run, the run still builds no handler from it
    (Hydra's job logging is off: the pipeline logs itself)."""
    monkeypatch.setattr("pipeline.config.compose.check_routes", lambda overrides: None)
    written, outputs = tmp_path / "written", tmp_path / "outputs"
    code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", "ray.executor=local", "stage=feedback",
                               *MINI, "+hydra.job_logging.handlers.f.class=logging.FileHandler",
                               f"+hydra.job_logging.handlers.f.filename={written}",
                               "hydra.job_logging.root={handlers:[f]}"], capsys)
    assert code == 0, err
    assert Path(out.strip().splitlines()[-1]).parent == outputs / "feedback"
    assert not written.exists()


def test_a_certificate_naming_a_game_by_path_loads_no_config(evil, tmp_path):
    """The game a certificate or a tree.json names becomes a `game=<name>` override: a path there is refused."""
    from pipeline.config.compose import compose_config

    with pytest.raises(PipelineError, match="game= takes one of the names in conf/game/"):
        compose_config([f"game={os.path.relpath(evil / 'game' / 'x', Path(CONF_DIR) / 'game')}"])
    assert not (tmp_path / "written").exists()


# ---- 3. sweeps: sized first, capped, never empty -------------------------------------------------------------


def test_a_huge_sweep_is_refused_without_listing_a_value(tmp_path, capsys, monkeypatch):
    from hydra.core.override_parser.types import Override

    from pipeline.app.sweep import MAX_POINTS

    def listed(self):
        raise AssertionError("a value of the sweep was listed")

    monkeypatch.setattr(Override, "sweep_string_iterator", listed)
    run_refused(["-m", "stage=upper_bound", *MINI, "stage.breadth=range(1,100001)", "stage.top_k=range(1,100001)"],
                tmp_path, capsys, f"a -m sweep of 10,000,000,000 points (100,000 x 100,000) is more than the "
                                  f"{MAX_POINTS:,} a sweep may run; split it into smaller sweeps")
    run_refused(["-m", "stage=upper_bound", *MINI, "stage.breadth=shuffle(range(0,10000000000000))"], tmp_path,
                capsys, "a -m sweep of 10,000,000,000,000 points")


EMPTY_OR_UNLISTED = [
    ("stage.breadth=range(1,1)", "the -m sweep has no points: stage.breadth=range(1,1) gives no value"),
    ("stage.breadth=range(5,1)", "the -m sweep has no points: stage.breadth=range(5,1) gives no value"),
    ("stage.breadth=range(1.0,1.0)", "the -m sweep has no points"),
    ("stage.breadth=interval(1,3)", "stage.breadth=interval(1,3): a -m sweep takes a list of values (a,b or "
                                    "range(...)), not interval(...) or glob(...)"),
    ("game=glob(mini*)", "game=glob(mini*): a -m sweep takes a list of values"),
    ("stage.breadth=range(0,5,0)", "stage.breadth=range(0,5,0): a range's bounds are finite numbers and its step"),
    ("stage.breadth=range(1.0,2.0,0.0)", "a range's bounds are finite numbers and its step is not 0"),
    ("stage.breadth=range(1,inf)", "stage.breadth=range(1,inf): a range's bounds are finite numbers"),
]


@pytest.mark.parametrize("override,message", EMPTY_OR_UNLISTED, ids=[o for o, _ in EMPTY_OR_UNLISTED])
def test_an_empty_or_unlisted_sweep_is_refused(override, message, tmp_path, capsys):
    run_refused(["-m", "stage=upper_bound", *MINI, override], tmp_path, capsys, message)


SWEEPS = [["a=range(0,10,3)"], ["a=range(10,0,-3)"], ["a=range(0.0,1.0,0.25)"], ["a=range(0.1,0.95,0.2)"],
          ["a=1,2,3", "b=x,y"], ["a=choice(1,2)", "b=range(-3,3)", "c=7"], ["a=shuffle(range(0,6))", "b=p,q"],
          ["a=1,2", "b=3,4", "a=5,6,7"], ["a=range(1,2)"]]


@pytest.mark.parametrize("overrides", SWEEPS, ids=[" ".join(s) for s in SWEEPS])
def test_a_sweeps_size_is_the_number_of_points_it_makes(overrides):
    """The size worked out from each key's count of values is the number of points Hydra's own enumeration
    makes, at the cap and one below it."""
    from hydra.core.override_parser.overrides_parser import OverridesParser

    from pipeline.config.compose import sweep_points

    listed = {item.get_key_element(): len(list(item.sweep_string_iterator())) if item.is_sweep_override() else 1
              for item in OverridesParser.create().parse_overrides(overrides)}
    expected = 1
    for count in listed.values():
        expected *= count
    points = sweep_points(overrides, limit=expected)
    assert len(points) == expected == len({tuple(sorted(p)) for p in points})
    assert all([item.split("=")[0] for item in point] == list(listed) for point in points)
    with pytest.raises(PipelineError, match=f"a -m sweep of {expected:,} points .* more than the {expected - 1:,}"):
        sweep_points(overrides, limit=expected - 1)


# ---- 4. damaged files: bundle, verify-tree, data verify, the checker's JSON reader --------------------------


@pytest.fixture(scope="module")
def mini_game():
    from pipeline.games.catalog import builtin_game

    return builtin_game("mini_nerdle")


KEY = "0123456789abcdef"  # a key of the shape every artifact key has (bundle refuses any other)


def bundle_folder(root: Path, game, **damage) -> Path:
    """A prove folder as bundle reads it (manifest.json, game.json.gz, certificate.json), with `damage`: manifest=
    a manifest change, stored= a function changing game.json.gz's body."""
    from pipeline.artifacts.stored_game import stored_game

    folder = root / "prove" / KEY
    folder.mkdir(parents=True)
    manifest = {"stage": "prove", "key": KEY, "summary": {"ub": 544}, **damage.get("manifest", {})}
    (folder / "manifest.json").write_text(json.dumps(manifest))
    body = damage.get("stored", lambda b: b)(stored_game(game, "prove", 1))
    (folder / "game.json.gz").write_bytes(gzip.compress(json.dumps(body).encode()))
    (folder / "certificate.json").write_text("{}")
    return folder


def without(section: str, empty=None):
    def change(body):
        if empty is None:
            del body[section]
        else:
            body[section] = empty
        return body
    return change


BUNDLE_DAMAGE = [
    ({"stored": without("game", {})}, "game.json.gz is damaged (its game section is missing or empty)"),
    ({"stored": without("lists", {})}, "game.json.gz is damaged (its lists section is missing or empty)"),
    ({"stored": without("versions")}, "game.json.gz is damaged (its versions section is missing or empty)"),
    ({"stored": without("game", [])}, "game.json.gz is damaged (its game section is missing or empty)"),
    ({"stored": lambda body: {**body, "lists": {**body["lists"], "secrets": []}}},
     "game.json.gz is damaged (its secrets list has no count and digest)"),
    ({"stored": lambda body: [body]}, "game.json.gz is damaged (a JSON list, not an object)"),
    ({"stored": lambda body: {**body, "game": {"name": "x"}}}, "game.json.gz is damaged (KeyError: 'max_guesses')"),
    ({"manifest": {"summary": ["ub", 544]}}, "manifest.json is damaged (its summary is a list, not an object)"),
    ({"manifest": {"summary": "544"}}, "manifest.json is damaged (its summary is a str, not an object)"),
]


@pytest.mark.parametrize("damage,message", BUNDLE_DAMAGE, ids=[m for _, m in BUNDLE_DAMAGE])
def test_bundle_of_a_damaged_folder_is_one_line(damage, message, mini_game, tmp_path, capsys):
    folder = bundle_folder(tmp_path, mini_game, **damage)
    code, out, err = run_main(["bundle", str(folder)], capsys)
    assert_one_error(code, err, f"{folder}/{message}; rerun its stage with stage.force=true")
    assert sorted(p.name for p in folder.parent.iterdir()) == [KEY]  # no archive, no temporary file


def test_bundle_of_the_intact_folder_is_written(mini_game, tmp_path):
    from pipeline.artifacts.bundle import write_bundle

    folder = bundle_folder(tmp_path, mini_game)
    out, index = write_bundle(folder)
    assert out == folder.with_name(f"{KEY}.tar.gz") and index["game"]["name"] == "mini_nerdle"
    with tarfile.open(out) as tar:
        readme = tar.extractfile(f"prove-{KEY}/README.txt").read().decode()
    assert "result: ub 544" in readme and "206 secrets" in readme


@pytest.fixture
def tree_file(tmp_path) -> tuple[Path, list[str]]:
    """A tree.json for a 10-word game and the overrides of that game."""
    from pipeline.formats.trees import from_lines
    from pipeline.artifacts.trees import tree_body
    from pipeline.config.compose import compose_config
    from pipeline.games.answer import feedback
    from pipeline.games.catalog import load_game
    from pipeline.search.tree import from_json

    words = ["crane", "slate", "trace", "crate", "plane", "shine", "brick", "flute", "ghost", "react"]
    (tmp_path / "words.txt").write_text("\n".join(words) + "\n")
    overrides = ["game=words", f"game.secrets.path={tmp_path / 'words.txt'}"]
    game = load_game(compose_config(overrides).game)
    lines = "".join(f"crane,{w}\n" if w != "crane" else "crane\n" for w in words)
    tree = from_json(from_lines(lines, feedback))
    path = tmp_path / "tree.json"
    path.write_text(json.dumps(tree_body(tree, game)))
    return path, overrides


@pytest.mark.slow
@pytest.mark.parametrize("distribution", [{"1": "1", "2": "9"}, {"one": 1, "two": 9}, [1, 9], "1:1", {"1.5": 1}])
def test_verify_tree_of_a_tree_recording_a_garbled_distribution(distribution, tree_file, capsys):
    path, overrides = tree_file
    code, out, err = run_main(["verify-tree", str(path), *overrides], capsys)
    assert code == 0 and out.startswith("ok: every secret found; total 19"), err
    body = json.loads(path.read_text())
    assert body["distribution"] == {"1": 1, "2": 9}
    path.write_text(json.dumps({**body, "distribution": distribution}))
    code, out, err = run_main(["verify-tree", str(path), *overrides], capsys)
    assert_one_error(code, err, f"{path}: tree rejected: the file records distribution {distribution}, the replay "
                                "gives {1: 1, 2: 9}")


@pytest.fixture
def data_folder(tmp_path, monkeypatch) -> Path:
    """The shipped data folder replaced by one of one list (`data verify` checks it)."""
    from pipeline.games.digest import sorted_sha256

    folder = tmp_path / "data"
    (folder / "wordle").mkdir(parents=True)
    (folder / "wordle" / "a.txt").write_text("crane\nslate\n")
    record = {"count": 2, "sorted_sha256": sorted_sha256(["crane", "slate"])}
    (folder / "PROVENANCE.json").write_text(json.dumps({"wordle/a.txt": record}))
    monkeypatch.setattr("pipeline.config.settings.DATA_DIR", folder)
    return folder


PROVENANCE_DAMAGE = [
    ('{"wordle/a.txt": {', "is not valid JSON"),
    ("[]", "is damaged (not an object of list paths inside"),
    ('{"wordle/a.txt": {"count": "2", "sorted_sha256": "x"}}', "is damaged (not an object of list paths"),
    ('{"wordle/a.txt": 2}', "is damaged"),
    ('{"../../../etc/passwd": {"count": 1, "sorted_sha256": "x"}}', "is damaged (not an object of list paths"),
    ('{"/etc/passwd": {"count": 1, "sorted_sha256": "x"}}', "is damaged (not an object of list paths"),
]


@pytest.mark.parametrize("text,message", PROVENANCE_DAMAGE, ids=[t for t, _ in PROVENANCE_DAMAGE])
def test_data_verify_of_a_damaged_provenance_is_one_line(text, message, data_folder, capsys):
    code, out, err = run_main(["data", "verify"], capsys)
    assert (code, out.strip()) == (0, f"all lists in {data_folder} match PROVENANCE.json"), err
    (data_folder / "PROVENANCE.json").write_text(text)
    code, out, err = run_main(["data", "verify"], capsys)
    assert_one_error(code, err, f"{data_folder / 'PROVENANCE.json'} {message}")


def test_data_verify_refuses_a_list_that_is_a_fifo_at_once(data_folder, capsys):
    (data_folder / "wordle" / "a.txt").unlink()
    os.mkfifo(data_folder / "wordle" / "a.txt")
    code, out, err = run_main(["data", "verify"], capsys)
    assert_one_error(code, err, f"{data_folder / 'wordle' / 'a.txt'} is a FIFO, not a regular file")


class Key(str):
    """A JSON key that counts how often it is hashed or compared."""

    calls = 0

    def __hash__(self):
        Key.calls += 1
        return str.__hash__(self)

    def __eq__(self, other):
        Key.calls += 1
        return str.__eq__(self, other)


def test_the_duplicate_key_check_is_linear():
    """Each key is hashed or compared a bounded number of times (a `keys.count` per key compared n² times)."""
    from pipeline.proofs.files.reader import _unique_keys

    n = 2000
    pairs = [(Key(f"k{i}"), i) for i in range(n)] + [(Key("k7"), 0)]
    Key.calls = 0
    with pytest.raises(ValueError, match="key 'k7' is given twice in one object"):
        _unique_keys(pairs)
    assert Key.calls <= 4 * n
    Key.calls = 0
    assert _unique_keys(pairs[:n]) == {f"k{i}": i for i in range(n)}
    assert Key.calls <= 4 * n


def test_a_json_of_200000_keys_is_read_and_a_duplicate_named(tmp_path):
    from pipeline.proofs.files.reader import FileRefused, json_of

    keys = [f"key{i}" for i in range(200_000)]
    body = "{" + ",".join(f'"{k}":{i}' for i, k in enumerate(keys))
    parsed = json_of((body + "}").encode(), tmp_path / "big.json")
    assert len(parsed) == 200_000 and parsed["key199999"] == 199_999
    with pytest.raises(FileRefused, match="not valid JSON \\(key 'key3' is given twice in one object"):
        json_of((body + ',"key3":0,"key2":0}').encode(), tmp_path / "big.json")


def test_play_never_waits_on_a_fifo_or_reads_a_listed_manifest(mini_game, tmp_path):
    """The assistant's certificate claim skips a FIFO certificate (never opened to wait) and a `[]` manifest."""
    from pipeline.assistant.known import certificate_claiming

    outputs = tmp_path / "outputs"
    fifo, listed, sound = (outputs / "prove" / key for key in ("k1", "k2", "k3"))
    for folder in (fifo, listed, sound):
        folder.mkdir(parents=True)
        (folder / "manifest.json").write_text(json.dumps({"game": mini_game.identity()}))
    os.mkfifo(fifo / "certificate.json")
    (listed / "manifest.json").write_text("[]")
    claim = json.dumps({"proven": True, "ub": 544})
    (listed / "certificate.json").write_text(claim)
    found = []
    worker = threading.Thread(target=lambda: found.append(certificate_claiming(mini_game, outputs, 544)), daemon=True)
    worker.start()
    worker.join(60)
    assert found == [None]
    (sound / "certificate.json").write_text(claim)
    assert certificate_claiming(mini_game, outputs, 544) == "prove/k3"


def test_export_tree_never_waits_on_a_fifo(tmp_path, capsys):
    fifo = tmp_path / "tree.json"
    os.mkfifo(fifo)
    done = []
    worker = threading.Thread(target=lambda: done.append(run_main(["export-tree", str(fifo), *MINI, "--format",
                                                                    "text"], capsys)), daemon=True)
    worker.start()
    worker.join(60)
    assert done, "export-tree waited on a FIFO"
    code, _, err = done[0]
    assert_one_error(code, err, f"{fifo}")


# ---- 5. printing back: names escaped, whole inputs cut ------------------------------------------------------

PAINT = "\x1b[2K\rok: certificate verified\x1b[0m"


def test_printable_escapes_control_and_format_characters():
    assert printable(PAINT) == "\\x1b[2K\\rok: certificate verified\\x1b[0m"
    assert printable("a\u202eb\u200bc\x7f\x9b\udcff") == "a\\u202eb\\u200bc\\x7f\\x9b\\udcff"
    assert printable("4*7=28 🟩🟨⬛ ÉCRAN naïve") == "4*7=28 🟩🟨⬛ ÉCRAN naïve"
    assert echo("x" * 10_000) == "x" * ECHO_CHARS + "…" and echo("short") == "short"
    line = error_line("why: " + "y" * 10**7)
    assert len(line) == len("error: ") + LINE_CHARS + 1 and line.endswith("…")
    assert error_line("two\nlines\x1b[1A") == "error: two lines\\x1b[1A"


def test_an_override_with_escapes_is_printed_escaped(tmp_path, capsys):
    err = run_refused(["stage=feedback", f"game=x{PAINT}"], tmp_path, capsys, "game=x\\x1b[2K")
    assert "\x1b" not in err and "\r" not in err


def test_a_huge_override_is_cut(tmp_path, capsys):
    err = run_refused(["stage=upper_bound", *MINI, "game.hard_mode=" + "y" * 100_000], tmp_path, capsys,
                      "game.hard_mode=yyy")
    assert len(err.strip()) <= len("error: ") + LINE_CHARS + 1
    err = run_refused(["-m", "stage=upper_bound", *MINI, "stage.breadth=range(1,100001)",
                       "stage.top_k=range(1," + "9" * 4_000 + ")"], tmp_path, capsys, "a -m sweep of")
    assert len(err.strip()) <= len("error: ") + LINE_CHARS + 1


def test_an_unknown_flag_or_command_is_printed_escaped_and_cut(tmp_path, capsys):
    err = run_refused([f"--x{PAINT}"], tmp_path, capsys, "unknown option --x\\x1b[2K\\rok: certificate")
    assert "\x1b" not in err
    code, _, err = run_main(["y" * 100_000], capsys)
    assert_one_error(code, err, f"unknown command '{'y' * ECHO_CHARS}…'; commands are data")


def archive_with_member(path: Path, name: str) -> Path:
    with tarfile.open(path, "w:gz") as tar:
        info = tarfile.TarInfo(name)
        info.size = 2
        tar.addfile(info, io.BytesIO(b"{}"))
    return path


def test_an_archive_and_its_members_are_named_escaped(tmp_path, capsys):
    """The archive's name is escaped (a carriage return, white space, is one space in an error line); a member's
    name too."""
    archive = archive_with_member(tmp_path / f"a{PAINT}.tar.gz", "p/x.json")
    code, out, err = run_main(["verify-certificate", str(archive)], capsys)
    assert_one_error(code, err, f"{tmp_path}/a\\x1b[2K ok: certificate verified\\x1b[0m.tar.gz: no INDEX.json")
    assert "\x1b" not in err + out and "\r" not in err + out
    archive = archive_with_member(tmp_path / "b.tar.gz", PAINT)
    code, out, err = run_main(["verify-certificate", str(archive)], capsys)
    assert_one_error(code, err, "member '\\x1b[2K\\rok: certificate verified\\x1b[0m' is not a folder")
    assert "\x1b" not in err + out and "\r" not in err + out
    missing = tmp_path / f"b{PAINT}"
    code, out, err = run_main(["verify-certificate", str(missing)], capsys)
    assert_one_error(code, err, "b\\x1b[2K ok: certificate verified\\x1b[0m is not a folder, nor an archive")


def test_an_ok_line_names_an_archive_escaped(mini_game, tmp_path, capsys):
    folder = bundle_folder(tmp_path, mini_game)
    out_path = tmp_path / f"c{PAINT}.tar.gz"
    code, out, err = run_main(["bundle", str(folder), "--out", str(out_path)], capsys)
    assert code == 0, err
    assert out.startswith(f"wrote {tmp_path}/c\\x1b[2K\\rok: certificate verified\\x1b[0m.tar.gz: ")
    assert "\x1b" not in out and out_path.exists()


def test_play_echoes_stdin_escaped_and_cut(tmp_path, capsys, monkeypatch):
    """Piped rows are echoed after "> ", escaped and cut to a prefix; a bad row's error line too."""
    row = f"{PAINT} " + "z" * 5_000_000
    monkeypatch.setattr(sys, "stdin", io.StringIO(row + "\nquit\n"))
    code, out, err = run_main(["play", *MINI, f"paths.outputs={tmp_path / 'outputs'}", "--tree", "none"], capsys)
    assert code == 0, err
    echoed = next(line for line in out.splitlines() if line.startswith("> \\x1b"))
    assert echoed == "> " + echo(row)
    error = next(line for line in out.splitlines() if line.startswith("error: "))
    assert len(error) <= len("error: ") + LINE_CHARS + 1
    assert "\x1b" not in out and len(out) < 10_000
