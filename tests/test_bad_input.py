"""Bad input never hangs or crashes: one `error: ...` line on stderr, exit status 2, no traceback, nothing written.

Most cases run the real command line in-process (pipeline.__main__'s main: the same code path as
`python -m pipeline`, minus the interpreter start-up); the cases that used to hang run in a subprocess
with a timeout.  Games are Mini Nerdle or tiny word lists written in tmp_path.
"""

import os
import socket
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from pipeline.app.commands import main
from pipeline.config.settings import PROJECT_ROOT
from tests.helpers.cli import run_cli

WORDS = ["crane", "slate", "trace", "crate", "plane", "shine", "brick", "flute"]


@pytest.fixture
def words_file(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("\n".join(WORDS) + "\n")
    return path


@pytest.fixture
def one_word(tmp_path):
    path = tmp_path / "one.txt"
    path.write_text("crane\n")
    return path


@pytest.fixture(autouse=True)
def fresh_console():
    """In-process runs set up a console log handler on the stderr of the moment (pytest's capture): drop it after
    each test so that the next test's handler writes to its own capture."""
    from pipeline.runtime.log import log

    handlers, propagate = list(log.handlers), log.propagate
    yield
    log.handlers[:] = handlers
    log.propagate = propagate


def run_main(argv, capsys) -> tuple[int, str, str]:
    """main(argv) as `python -m pipeline` runs it: (exit status, stdout, stderr)."""
    try:
        code = main(argv)
    except SystemExit as stop:
        code = stop.code
    out, err = capsys.readouterr()
    return code, out, err


def assert_one_error(code, err, message, log_lines: bool = False):
    """Exit 2, no traceback, and stderr is one `error:` line (after the run's own log lines, if allowed)."""
    lines = err.strip().splitlines()
    assert code == 2, err
    assert "Traceback" not in err
    assert lines and lines[-1].startswith("error: ") and sum(ln.startswith("error:") for ln in lines) == 1, err
    assert len(lines) == 1 or log_lines, err
    assert message in lines[-1], lines[-1]


def nothing_written(outputs: Path) -> bool:
    """No stage folder (and no Hydra run folder) under outputs."""
    return not outputs.exists() or not any(outputs.iterdir())


MINI = ["game=mini_nerdle"]
STAGE_CASES = [
    # Ray
    (["stage=upper_bound", *MINI, "ray.num_cpus=0"], "ray.num_cpus must be at least 1, got 0"),
    (["stage=upper_bound", *MINI, "ray.num_cpus=-1"], "ray.num_cpus must be at least 1, got -1"),
    (["stage=upper_bound", *MINI, "ray.max_in_flight=0"], "ray.max_in_flight must be at least 1"),
    (["stage=upper_bound", *MINI, "ray.max_retries=-1"], "ray.max_retries must be at least 0"),
    (["stage=upper_bound", *MINI, "ray.object_store_memory=1000"], "ray.object_store_memory must be"),
    (["stage=upper_bound", *MINI, "ray.address=127.0.0.1:1"], "cannot reach a Ray head at 127.0.0.1:1"),
    (["stage=upper_bound", *MINI, "ray.address=somewhere:port"], "is not host:port"),
    (["stage=upper_bound", *MINI, "ray.address=''"], "ray.address is empty"),
    (["stage=upper_bound", *MINI, "ray.address=127.0.0.1:1", "ray.num_cpus=2"], "ray.num_cpus applies to the embedded"),
    # upper_bound
    (["stage=upper_bound", *MINI, "stage.openers=[]"], "stage.openers is empty"),
    (["stage=upper_bound", *MINI, "stage.openers=5"], "stage.openers must be ranked, all or a list of words, not 5"),
    (["stage=upper_bound", *MINI, "stage.openers=best"], "stage.openers must be ranked, all or a list of words"),
    (["stage=upper_bound", *MINI, "stage.openers=[1+1=2]"], "quote a value holding ="),
    (["stage=upper_bound", *MINI, "stage.openers=['4*7=28','4*7=28']"], "stage.openers lists '4*7=28' twice"),
    (["stage=upper_bound", *MINI, "stage.openers=[[a]]"], "stage.openers: ['a'] is not an allowed guess"),
    (["stage=upper_bound", *MINI, "stage.breadth=0"], "stage.breadth must be at least 1, got 0"),
    (["stage=upper_bound", *MINI, "stage.top_k=0"], "stage.top_k must be at least 1 (or null)"),
    (["stage=upper_bound", *MINI, "stage.widen_breadth=0"], "stage.widen_breadth must be at least 1 (or null)"),
    (["stage=upper_bound", *MINI, "stage.widen_top_k=-3"], "stage.widen_top_k must be at least 1"),
    (["stage=upper_bound", *MINI, "stage.batch_size=-3"], "stage.batch_size must be at least 1"),
    (["stage=upper_bound", *MINI, "stage.max_memo_entries=0"], "stage.max_memo_entries must be"),
    (["stage=upper_bound", *MINI, "stage.max_memo_entries=1000000000000"], "GiB per task, more than"),
    # lower_bound / prove / exact
    (["stage=lower_bound", *MINI, "stage.batches_per_level=0"], "stage.batches_per_level must be at least 1"),
    (["stage=lower_bound", *MINI, "stage.max_batch=0"], "stage.max_batch must be at least 1"),
    (["stage=lower_bound", *MINI, "stage.max_level=0"], "stage.max_level must be at least 1"),
    (["stage=lower_bound", *MINI, "stage.ub=-5"], "stage.ub must be at least 1 (or null)"),
    (["stage=lower_bound", *MINI, "stage.skip_levels=[0]"],
     "stage.skip_levels must list levels of at least 1, got [0]"),
    (["stage=lower_bound", *MINI, "stage.hard_skip_levels=[x]"], "stage.hard_skip_levels"),
    (["stage=lower_bound", *MINI, "stage.max_level=2", "stage.skip_levels=[1,2]"],
     "stage.skip_levels leaves out every level up to stage.max_level=2"),
    (["stage=lower_bound", *MINI, "stage.ub=10"], "stage.ub=10 is below |S|=206"),
    (["stage=prove", *MINI, "stage.memo_bits=40"], "stage.memo_bits must be an integer between 10 and 30, got 40"),
    (["stage=prove", *MINI, "stage.max_level=0"], "stage.max_level must be at least 1"),
    (["stage=prove", *MINI, "upstream.lower_bound.batches_per_level=0"],
     "upstream.lower_bound.batches_per_level must be at least 1 (or null), got 0 (in lower_bound, run as an"),
    (["stage=prove", *MINI, "upstream.upper_bound.openers=[]"], "upstream.upper_bound.openers is empty"),
    (["stage=prove", *MINI, "stage.objective=max_then_total"],
     "stage.objective=max_then_total: a proof closes the Total objective only"),
    (["stage=prove", *MINI, "stage.objective=worst"], "stage.objective must be total or max_then_total"),
    (["stage=prove", *MINI, "upstream.upper_bound.objective=max_then_total"],
     "stage.objective=total but upstream.upper_bound.objective=max_then_total"),
    (["stage=exact", *MINI, "stage.memo_bits=40"], "stage.memo_bits must be an integer between 10 and 30"),
    (["stage=exact", *MINI, "stage.memo_bits=5"], "stage.memo_bits must be an integer between 10 and 30"),
    (["stage=exact", *MINI, "stage.openers=['28/7=4','nope']"], "stage.openers: 'nope' is not an allowed guess"),
    (["stage=exact", *MINI, "stage.openers=5"], "stage.openers"),
    # feedback, heuristics, openers, simulate, blindfold
    (["stage=feedback", *MINI, "stage.block_rows=0"], "stage.block_rows must be at least 1, got 0"),
    (["stage=feedback", *MINI, "stage.row_group_rows=0"], "stage.row_group_rows must be at least 1"),
    (["stage=feedback", *MINI, "stage.ray_threshold_cells=-1"], "stage.ray_threshold_cells must be at least 0, got -1"),
    (["stage=heuristics", *MINI, "stage.batch_size=0"], "stage.batch_size must be at least 1"),
    (["stage=heuristics", *MINI, "stage.arithmetic=fast"], "stage.arithmetic must be one of"),
    (["stage=heuristics", *MINI, "stage.combinations=[Nope]"], "Nope"),
    (["stage=openers", *MINI, "stage.block_rows=0"], "stage.block_rows must be at least 1"),
    (["stage=openers", *MINI, "stage.plot_top=0"], "stage.plot_top must be at least 1"),
    (["stage=openers", *MINI, "stage.candidates=all"], "stage.candidates must be answers or guesses"),
    (["stage=simulate", *MINI, "stage.seeds=[]"], "stage.seeds is empty"),
    (["stage=simulate", *MINI, "stage.strategies=[]"], "stage.strategies is empty"),
    (["stage=simulate", *MINI, "stage.max_guesses=0"], "stage.max_guesses must be at least 1"),
    (["stage=simulate", *MINI, "stage.block_secrets=0"], "stage.block_secrets must be at least 1"),
    (["stage=simulate", *MINI, "stage.seeds=[-1]"], "stage.seeds must be distinct non-negative integers"),
    (["stage=blindfold", *MINI, "stage.max_rounds=0"], "stage.max_rounds must be at least 1"),
    (["stage=blindfold", *MINI, "stage.threads=0"], "stage.threads must be at least 1 (or null)"),
    (["stage=blindfold", *MINI, "stage.time_limit_s=0"], "stage.time_limit_s must be positive (seconds)"),
    (["stage=blindfold", *MINI, "stage.time_limit_s=nan"], "stage.time_limit_s must be positive (seconds)"),
    (["stage=blindfold", *MINI, "stage.seed_limit=0"], "stage.seed_limit must be at least 1"),
    (["stage=blindfold", *MINI, "stage.model_format=xml"], "stage.model_format must be lp or mps"),
    (["stage=blindfold", *MINI, "stage.check=[zzzzzz]"], "stage.check: 'zzzzzz' is not an allowed guess"),
    (["stage=blindfold", *MINI, "stage.method=cube"], "stage.method must be lazy or cubes, not 'cube'"),
    (["stage=blindfold", *MINI, "stage.method=cubes", "stage.cube_depth=-1"], "stage.cube_depth must be at least 0"),
    (["stage=blindfold", *MINI, "stage.method=cubes", "stage.cube_target=0"], "stage.cube_target must be at least 1"),
    (["stage=blindfold", *MINI, "stage.method=cubes", "stage.cube_max_families=5"],
     "stage.cube_max_families picks the cluster cuts' families"),
    (["stage=blindfold", *MINI, "stage.method=cubes", "stage.cube_cluster_cuts=true", "stage.cube_max_families=0"],
     "stage.cube_max_families must be at least 1"),
    (["stage=blindfold", *MINI, "stage.method=cubes", "stage.cube_time_limit_s=nan"],
     "stage.cube_time_limit_s must be positive (seconds)"),
    (["stage=blindfold", *MINI, "stage.method=cubes", "stage.mode=hybrid"],
     "stage.method=cubes finds the fewest fixed guesses (stage.mode=cover)"),
    # config groups and the stage's name
    (["stage=feedback", *MINI, "experiment=prove_wordel"], "Could not find 'experiment/prove_wordel' (available: "
                                                            "catalogue_bulls_and_cows_normal_unlimited, "),
    (["stage=upper_bound", *MINI, "stage.name=exact"], "stage.name cannot be changed"),
    # games
    (["stage=feedback", *MINI, "game.length=3"], "length 3 outside"),
    (["stage=feedback", *MINI, "game.length=12"], "length 12 outside"),
    (["stage=feedback", *MINI, "game.source=dice"], "unknown source 'dice'"),
]


@pytest.mark.slow
@pytest.mark.parametrize("args,message", STAGE_CASES, ids=[" ".join(a[2:]) or a[0] for a, _ in STAGE_CASES])
def test_bad_stage_setting_is_one_error_line(args, message, tmp_path, capsys):
    outputs = tmp_path / "outputs"
    code, _, err = run_main([f"paths.outputs={outputs}", "progress=false", *args], capsys)
    assert_one_error(code, err, message)
    assert nothing_written(outputs)


@pytest.mark.slow
def test_bad_word_lists(tmp_path, one_word, capsys):
    outputs = tmp_path / "outputs"
    binary = tmp_path / "binary.txt"
    binary.write_bytes(bytes(range(256)) * 4)
    cases = [
        (["stage=feedback", f"game.secrets.path={tmp_path}"], f"words secrets list {tmp_path} is a folder, not a file of words"),
        (["stage=feedback", f"game.secrets.path={tmp_path}/none"], f"words secrets list not found: {tmp_path}/none"),
        (["stage=feedback", f"game.secrets.path={binary}"], "is not UTF-8 text"),
        *[([f"stage={stage}", f"game.secrets.path={one_word}"],
           f"game words has 1 secret(s); {stage} needs at least 2") for stage in ("upper_bound", "exact")],
        (["stage=prove", f"game.secrets.path={one_word}"], "game words has 1 secret(s); prove needs at least 2"),
        (["stage=lower_bound", f"game.secrets.path={one_word}", "stage.ub=5"], "lower_bound needs at least 2"),
    ]
    for args, message in cases:
        code, _, err = run_main([f"paths.outputs={outputs}", "game=words", "game.length=5", *args], capsys)
        assert_one_error(code, err, message)
    assert nothing_written(outputs)


def test_outputs_must_be_a_folder(tmp_path, capsys):
    a_file = tmp_path / "a_file"
    a_file.write_text("x")
    code, _, err = run_main([f"paths.outputs={a_file}", "stage=feedback", *MINI], capsys)
    assert_one_error(code, err, f"paths.outputs={a_file} is a file, not a folder")
    code, _, err = run_main([f"paths.outputs={a_file}/below", "stage=feedback", *MINI], capsys)
    assert_one_error(code, err, "is a file, not a folder")
    assert a_file.read_text() == "x"


def test_a_sweep_whose_every_point_is_bad_is_one_error_line(tmp_path, capsys):
    """(A sweep with some good points runs them and reports the bad ones: tests/test_sweeps.py.)"""
    outputs = tmp_path / "outputs"
    code, _, err = run_main(["-m", f"paths.outputs={outputs}", "stage=upper_bound", "stage.breadth=0,-1", *MINI],
                            capsys)
    assert_one_error(code, err, "stage.breadth must be at least 1, got 0 (sweep point 0: ")
    assert "stage.breadth=0" in err and nothing_written(outputs)
    code, _, err = run_main(["--multirun", f"paths.outputs={outputs}", "stage=feedback", "game=wordel,wordl"],
                            capsys)
    assert_one_error(code, err, "Could not find 'game/wordel'")
    code, _, err = run_main(["-m", f"paths.outputs={outputs}", "stage=feedback", "stage.block_rows=1,,2"], capsys)
    assert code == 2 and err.startswith("error: ") and "Traceback" not in err
    code, _, err = run_main(["-m", f"paths.outputs={outputs}", "stage=feedback", *MINI, "sweep.max_parallel=1,2"],
                            capsys)
    assert_one_error(code, err, "sweep.* settings apply to the whole sweep and cannot be swept")
    code, _, err = run_main(["-m", f"paths.outputs={outputs}", "stage=feedback", *MINI, "sweep.max_parallel=0"],
                            capsys)
    assert_one_error(code, err, "sweep.max_parallel must be at least 1 (or null: the cluster's CPUs), got 0")
    assert nothing_written(outputs)


# ---- sub-commands ---------------------------------------------------------------------------------------------

SUBCOMMAND_CASES = [
    (["verify-certificate", "{tmp}", "sample=abc"], "sample must be a whole number, got 'abc'"),
    (["verify-certificate", "{tmp}", "--sample", "abc"], "--sample must be a whole number, got 'abc'"),
    (["verify-certificate", "{tmp}", "--sample=-1"], "--sample must be at least 1"),
    (["verify-certificate", "{tmp}/nowhere"], "is not a folder"),
    (["verify-certificate", "{tmp}"], "no certificate.json in"),
    (["verify-certificate", "{tmp}", "{tmp}"], "verify-certificate takes one prove artifact folder"),
    (["verify-certificate", "{tmp}", "colour=red"], "verify-certificate takes one prove artifact folder; "
                                                     "unexpected: colour=red"),
    (["verify-certificate"], "the following arguments are required: prove_dir"),
    (["bundle"], "the following arguments are required: folder"),
    (["bundle", "{tmp}", "game=mini_nerdle"], "unrecognized arguments: game=mini_nerdle"),
    (["verify-tree", "{tmp}/a=b/tree.json", "game=mini_nerdle"], "tree file not found: {tmp}/a=b/tree.json"),
    (["verify-tree", "{tmp}/tree.json", "game=wordel"], "Could not find 'game/wordel'"),
    (["verify-tree", "{tmp}/x.json", "{tmp}/y.json", "game=mini_nerdle"], "verify-tree takes one tree file"),
    (["verify-tree", "{tmp}/x.json", "sample=3", *MINI], "verify-tree has no option sample="),
    (["data", "frob"], "invalid choice: 'frob'"),
    (["data", "verify", "extra"], "data verify takes no further arguments"),
    (["play", *MINI, "colour=blue"], "unexpected argument 'colour=blue' for play"),
    (["play", *MINI, "--colour", "blue"], "unrecognized arguments: --colour"),
    (["solve", *MINI], "solve needs secret=<word>"),
    (["solve", *MINI, "--secret", "1+1=03"], "'1+1=03' is not a possible secret of mini_nerdle"),
    (["solve", *MINI, "--secret", "28/7=4", "--tree", "{tmp}/a=b/none.json"], "tree file not found"),
]


@pytest.mark.parametrize("args,message", SUBCOMMAND_CASES, ids=[" ".join(a) for a, _ in SUBCOMMAND_CASES])
def test_bad_subcommand_arguments(args, message, tmp_path, capsys):
    fill = lambda text: text.replace("{tmp}", str(tmp_path))  # noqa: E731
    code, _, err = run_main([fill(a) for a in args], capsys)
    assert_one_error(code, err, fill(message))


@pytest.mark.parametrize("command", ["data", "verify-tree", "export-tree", "verify-certificate", "bundle", "play",
                                     "solve"])
def test_every_subcommand_has_help(command, capsys):
    code, out, err = run_main([command, "--help"], capsys)
    assert code == 0 and err == ""
    assert out.startswith(f"usage: python -m pipeline {command} ")


def test_top_level_usage_has_no_repeated_line(capsys):
    code, out, _ = run_main(["--help"], capsys)
    lines = [ln for ln in out.split("\n\n")[0].splitlines() if ln.strip()]  # the usage block (then the names)
    assert code == 0 and lines[0] == "usage:" and len(lines) == len(set(lines)) == 12
    assert {ln.split()[3] for ln in lines[1:] if not ln.split()[3].startswith(("stage=", "<"))} == \
        {"data", "verify-tree", "export-tree", "verify-certificate", "bundle", "play", "solve", "analyse", "list"}


def test_split_words_keeps_paths_with_equals_and_slashes():
    from pipeline.app.commands.common import split_words

    positional, overrides, legacy = split_words(
        ["runs/a=b/tree.json", "game=mini_nerdle", "game.hard_mode=true", "paths.outputs=/x=y", "+game.x=1",
         "sample=7", "gamex=1", "stage.breadth=3"])
    assert positional == ["runs/a=b/tree.json", "gamex=1", "stage.breadth=3"]
    assert overrides == ["game=mini_nerdle", "game.hard_mode=true", "paths.outputs=/x=y", "+game.x=1"]
    assert legacy == {"sample": "7"}


# ---- the cases that used to hang: a real process with a timeout --------------------------------------------------


@pytest.mark.parametrize("setting,message", [
    ("ray.num_cpus=0", "ray.num_cpus must be at least 1, got 0"),
    ("ray.max_in_flight=0", "ray.max_in_flight must be at least 1, got 0"),
    ("ray.task_memory_mb=0", "ray.task_memory_mb must be at least 1, got 0"),
    ("ray.address=127.0.0.1:1", "cannot reach a Ray head at 127.0.0.1:1"),
])
@pytest.mark.slow
def test_settings_that_used_to_hang_fail_at_once(setting, message, tmp_path):
    outputs = tmp_path / "outputs"
    proc = run_cli(f"paths.outputs={outputs}", "stage=upper_bound", *MINI, setting, timeout=120)
    assert_one_error(proc.returncode, proc.stderr, message)
    assert nothing_written(outputs)


def test_a_silent_server_is_not_a_ray_head():
    """A port that accepts connections but never answers (a firewall, a proxy) is refused within the timeout."""
    from pipeline import PipelineError
    from pipeline.runtime.ray_session import check_reachable

    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(server.accept()), daemon=True)
    thread.start()
    try:
        silent = r"cannot reach a Ray head at 127\.0\.0\.1:\d+ \(no answer within 0\.5s"
        with pytest.raises(PipelineError, match=silent):
            check_reachable(f"127.0.0.1:{server.getsockname()[1]}", timeout=0.5)
    finally:
        server.close()


def test_fan_out_refuses_an_empty_window_before_touching_ray():
    from pipeline import PipelineError
    from pipeline.runtime.executors import fan_out

    with pytest.raises(PipelineError, match="ray.max_in_flight must be at least 1, got 0"):
        fan_out(abs, [1, 2], label="x", max_in_flight=0)
    with pytest.raises(PipelineError, match="positive number of CPUs"):
        fan_out(abs, [1, 2], label="x", num_cpus=0)


# ---- safe file names -----------------------------------------------------------------------------------------------


@pytest.mark.parametrize("word", ["28/7=4", "4*7=28", "..", "a\\b", "crane", "x%2Fy", "é/ü"])
def test_tree_names_stay_inside_the_artifact_folder(word, tmp_path):
    from urllib.parse import unquote

    from pipeline.artifacts.trees import tree_name, tree_path

    name = tree_name(word)
    assert "/" not in name and "\\" not in name and not name.startswith(".")
    assert unquote(name[len("tree-"):]) == word  # one file per opener: the encoding is reversible
    path = tree_path(tmp_path, word)
    assert path.parent == tmp_path and path.name == f"{name}.json"
    path.write_text("{}")  # a plain file name the file system accepts
    assert [p.name for p in tmp_path.iterdir()] == [path.name]


def test_write_tree_refuses_a_path_as_name(tmp_path):
    from pipeline.artifacts.trees import write_tree

    with pytest.raises(ValueError, match="unsafe tree file name"):
        write_tree(lambda n: tmp_path / n, None, None, name="tree-28/7=4")


@pytest.mark.slow
def test_exact_writes_trees_of_openers_with_slashes(ray_session, tmp_path, run_pipeline):
    """A game whose symbols include / and *: the exact stage writes one tree file per opener, readable back."""
    import json

    from pipeline.artifacts.trees import tree_path

    words = ["a/b*", "ab/*", "*/ab", "b*a/", "/a*b", "ba*/"]
    path = tmp_path / "symbols.txt"
    path.write_text("\n".join(words) + "\n")
    art = run_pipeline("stage=exact", "game=words", "game.length=4", "game.alphabet=ab/*",
                       f"game.secrets.path={path}", "stage.openers=['a/b*','*/ab']", "stage.memo_bits=10")
    names = sorted(p.name for p in art.path.iterdir())
    assert all("/" not in n for n in names)
    for opener in ("a/b*", "*/ab"):
        body = json.loads(tree_path(art.path, opener).read_text())
        assert body["tree"]["guess"] == opener and body["total"] >= len(words)


# ---- damaged artifacts and stale temp folders -----------------------------------------------------------------------


@pytest.fixture(scope="module")
def finished(tmp_path_factory, ray_session):
    """feedback -> upper_bound -> lower_bound for an eight-word game, run once; tests copy the folder."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    root = tmp_path_factory.mktemp("finished")
    words = root / "words.txt"
    words.write_text("\n".join(WORDS) + "\n")
    args = ["game=words", "game.length=5", f"game.secrets.path={words}"]
    cfg = compose_config([f"paths.outputs={root / 'outputs'}", "progress=false", "stage=lower_bound", *args])
    run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(cfg.paths.outputs))
    return root / "outputs", args


def damaged_copy(finished, tmp_path, stage, name, how):
    import shutil

    outputs, args = finished
    copy = tmp_path / "outputs"
    shutil.copytree(outputs, copy)
    target = next((copy / stage).glob(f"[!.]*/{name}"))
    if how == "missing":
        target.unlink()
    elif how == "truncated":
        target.write_bytes(target.read_bytes()[:10])
    else:  # same size, garbage bytes: only reading it can tell
        target.write_bytes(b"x" * target.stat().st_size)
    return copy, args, target


@pytest.mark.parametrize("stage,name,how,run,hint", [
    ("upper_bound", "summary.json", "garbage", "lower_bound", "upstream.upper_bound.force=true"),
    ("upper_bound", "tree.json", "truncated", "lower_bound", "upstream.upper_bound.force=true"),
    ("upper_bound", "summary.json", "missing", "upper_bound", "stage.force=true"),
    ("lower_bound", "funnel.parquet", "garbage", "lower_bound", "stage.force=true"),
    ("feedback", "matrix.parquet", "garbage", "upper_bound", "upstream.feedback.force=true"),
    ("feedback", "manifest.json", "garbage", "lower_bound", "upstream.feedback.force=true"),
])
@pytest.mark.slow
def test_a_damaged_artifact_is_named_with_its_rebuild_command(stage, name, how, run, hint, finished, tmp_path, capsys):
    outputs, args, target = damaged_copy(finished, tmp_path, stage, name, how)
    code, _, err = run_main([f"paths.outputs={outputs}", "progress=false", f"stage={run}", *args], capsys)
    assert_one_error(code, err, f"{target} is ", log_lines=True)  # "feedback: up to date, ..." may come first
    assert err.strip().endswith(f"rebuild it with {hint}")


def test_readers_name_a_damaged_file(finished, tmp_path):
    """Files too big to parse up front are checked where a stage reads them: same error, same stage."""
    from pipeline.runtime.store import Artifact, DamagedArtifactError

    outputs, _, target = damaged_copy(finished, tmp_path, "upper_bound", "summary.json", "garbage")
    art = Artifact("upper_bound", target.parent.name, target.parent)
    with pytest.raises(DamagedArtifactError, match=f"{target} is damaged \\(JSONDecodeError\\)") as err:
        art.read_json("summary.json")
    assert err.value.stage == "upper_bound"
    with pytest.raises(DamagedArtifactError, match="openers.parquet is damaged"):
        (target.parent / "openers.parquet").write_bytes(b"PAR1 not really")
        art.read_table("openers.parquet")
    with pytest.raises(DamagedArtifactError, match="nothing.json is missing"):
        art.read_json("nothing.json")


def test_the_suggested_rebuild_repairs_the_artifact(finished, tmp_path, capsys):
    outputs, args, target = damaged_copy(finished, tmp_path, "upper_bound", "tree.json", "truncated")
    code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", "stage=lower_bound", *args,
                               "upstream.upper_bound.force=true"], capsys)
    assert code == 0, err
    assert target.stat().st_size > 10 and Path(out.strip().splitlines()[-1]).parent == outputs / "lower_bound"


def test_a_killed_writer_leaves_a_temp_folder_the_next_run_removes(tmp_path):
    """A writer hard-killed mid-write (os._exit inside store.write) leaves .tmp-<key>-<host>-<pid>-…; the next
    write of that stage removes it, but keeps the folders of live writers and of other hosts."""
    from pipeline.runtime.store import ArtifactStore, host_tag

    root = tmp_path / "outputs"
    killed = subprocess.run([sys.executable, "-c", (
        "import os\n"
        "from pipeline.runtime.store import ArtifactStore\n"
        f"with ArtifactStore({str(root)!r}).write('feedback', 'k1', {{}}) as out:\n"
        "    out.file('part.bin').write_bytes(b'half')\n"
        "    print(os.getpid(), flush=True)\n"
        "    os._exit(9)\n")], cwd=PROJECT_ROOT, timeout=60, capture_output=True, text=True)
    assert killed.returncode == 9
    left = list((root / "feedback").glob(".tmp-k1-*"))
    assert len(left) == 1 and (left[0] / "part.bin").is_file()
    assert left[0].name.startswith(f".tmp-k1-{host_tag()}-{int(killed.stdout)}-")
    alive = root / "feedback" / f".tmp-k2-{host_tag()}-{os.getpid()}-0123abcd"  # this process: alive
    elsewhere = root / "feedback" / ".tmp-k3-otherhost-1-0123abcd"  # another machine's writer
    unknown = root / "feedback" / ".tmp-k4-0123abcd"  # an older naming: left alone
    for folder in (alive, elsewhere, unknown):
        folder.mkdir()
    store = ArtifactStore(root)
    with store.write("feedback", "k5", {}) as out:
        out.file("x.txt").write_text("x")
    remaining = sorted(p.name for p in (root / "feedback").iterdir())
    assert remaining == sorted(["k5", alive.name, elsewhere.name, unknown.name])
    assert store.clean_stale("feedback") == []


def test_a_reused_pid_does_not_keep_a_stale_folder(tmp_path):
    """A folder whose pid now belongs to a process started after the folder was written is stale too."""
    from pipeline.runtime.store import writer_alive

    assert writer_alive(os.getpid(), since=1e12)  # written 'in the future': this process is older
    assert not writer_alive(os.getpid(), since=0.0)  # written in 1970: this process started later
    done = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    assert not writer_alive(int(done.stdout), since=1e12)


def test_a_digit_word_read_as_a_number_is_still_a_word():
    """Hydra reads `stage.openers=[45817]` as the integer 45817: for Primel it is the word '45817'."""
    from types import SimpleNamespace

    from pipeline import PipelineError
    from pipeline.config.validation import word_list
    game = SimpleNamespace(name="digits", guess_index={"45817": 0, "14783": 1})
    assert word_list(SimpleNamespace(openers=[45817, "14783"]), "openers", game) == ["45817", "14783"]
    with pytest.raises(PipelineError, match="99991"):
        word_list(SimpleNamespace(openers=[99991]), "openers", game)
    with pytest.raises(PipelineError, match="True"):
        word_list(SimpleNamespace(openers=[True]), "openers", game)
