"""Hostile command lines: overrides Hydra would accept silently, sizes that cannot fit, folders that cannot be
made, unknown flags and names, a Ray cluster running other code.  Each is one `error:` line, exit status 2,
no traceback, nothing written (the harness of tests/test_bad_input.py)."""

import math
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

from pipeline.config.settings import PROJECT_ROOT
from test_bad_input import MINI, assert_one_error, nothing_written, run_main

GIB = 2**30


def run_bad(args, tmp_path, capsys, message, log_lines=False):
    """Run the command line with outputs under tmp_path; assert one error line holding `message`, nothing written."""
    outputs = tmp_path / "outputs"
    code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", *args], capsys)
    assert_one_error(code, err, message, log_lines=log_lines)
    assert nothing_written(outputs), list(outputs.rglob("*"))
    return err


@pytest.fixture(autouse=True)
def fresh_console():
    """As in test_bad_input: drop the console log handler an in-process run adds (it writes to this test's capture)."""
    from pipeline.runtime.log import log

    handlers, propagate = list(log.handlers), log.propagate
    yield
    log.handlers[:] = handlers
    log.propagate = propagate


# ---- overrides accepted silently ------------------------------------------------------------------------------

SILENT_CASES = [
    (["stage=feedback", *MINI, "game.hard_mode=2"], "game.hard_mode=2: a boolean setting is true or false"),
    (["stage=feedback", *MINI, "game.hard_mode=yes"], "game.hard_mode=yes: a boolean setting is true or false"),
    (["stage=feedback", *MINI, "progress=on"], "progress=on: a boolean setting is true or false"),
    (["stage=prove", *MINI, "upstream.upper_bound.force=1"], "upstream.upper_bound.force=1: a boolean setting"),
    (["stage=feedback", *MINI, "++game.hard_mode=yes"], "game.hard_mode=yes: a boolean setting is true or false"),
    (["stage=feedback", *MINI, "+stage.foo=1"], "unknown setting stage.foo: stage has no key 'foo'"),
    (["stage=upper_bound", *MINI, "+stage.bredth=5"], "stage has no key 'bredth' (did you mean stage.breadth"),
    (["stage=feedback", *MINI, "+game.colour=red"], "unknown setting game.colour: game has no key 'colour'"),
    (["stage=feedback", *MINI, "+verbose=true"], "unknown setting verbose: the config has no key 'verbose'"),
    (["stage=feedback", *MINI, "hydra.job.chdir=true"], "hydra.job.chdir=true is not supported"),
]


@pytest.mark.parametrize("args,message", SILENT_CASES, ids=[a[-1] for a, _ in SILENT_CASES])
def test_an_override_accepted_silently_is_refused(args, message, tmp_path, capsys):
    run_bad(args, tmp_path, capsys, message)


def test_chdir_and_a_bad_boolean_are_refused_in_a_sweep_too(tmp_path, capsys):
    run_bad(["-m", "stage=feedback", *MINI, "hydra.job.chdir=true"], tmp_path, capsys, "hydra.job.chdir=true")
    err = run_bad(["-m", "stage=feedback", *MINI, "game.hard_mode=2,3"], tmp_path, capsys,
                  "game.hard_mode=2: a boolean setting is true or false")
    assert "(sweep point 0: " in err


def test_true_and_false_still_work():
    from pipeline.config.compose import compose_config

    assert compose_config([*MINI, "game.hard_mode=true"]).game.hard_mode is True
    assert compose_config([*MINI, "game.hard_mode=False"]).game.hard_mode is False
    assert compose_config([*MINI, "game.hard_mode='true'"]).game.hard_mode is True
    assert compose_config([*MINI, "++game.hard_mode=true", "experiment=prove"]).game.hard_mode is True


# ---- sizes ----------------------------------------------------------------------------------------------------

SIZE_CASES = [
    (["stage=upper_bound", *MINI, "stage.breadth=1e20"], "an integer setting takes whole digits: 1e+20 is a float"),
    (["stage=upper_bound", *MINI, f"stage.breadth={10**20}"],
     f"stage.breadth: {10**20} is beyond the largest integer a setting may hold (9,223,372,036,854,775,807"),
    (["stage=lower_bound", *MINI, "stage.ub=1e20"], "1e+20 is a float"),
    (["stage=lower_bound", *MINI, f"stage.ub={10**20}"], f"stage.ub: {10**20} is beyond the largest integer"),
    (["stage=simulate", *MINI, "stage.seeds=[1e23]"], "1e+23 is a float"),
    (["stage=simulate", *MINI, f"stage.seeds=[0,{10**23}]"], f"stage.seeds: {10**23} is beyond the largest"),
    (["stage=feedback", "game=primel", "game.length=11"], "game primel: about 3,513,837,171 guesses x "
                                                          "3,513,837,171 secrets make a"),
    (["stage=feedback", "game=mastermind", "game.pegs=11", "game.colours=9"],
     f"game mastermind: {9**11:,} guesses x {9**11:,} secrets make a"),
    (["stage=feedback", "game=bulls_and_cows", "game.length=10"],
     "game bulls_and_cows: 3,628,800 guesses x 3,628,800 secrets make a 12.0 TiB feedback matrix"),
]


@pytest.mark.slow
@pytest.mark.parametrize("args,message", SIZE_CASES, ids=[" ".join(a[1:]) for a, _ in SIZE_CASES])
def test_a_size_that_cannot_fit_is_refused_before_allocating(args, message, tmp_path, capsys):
    started = time.monotonic()
    run_bad(args, tmp_path, capsys, message)
    assert time.monotonic() - started < 20


def test_a_breadth_is_sized_against_memory(tmp_path, capsys, monkeypatch):
    """ApMinTotal's ranking rows take 272 bytes per unit of breadth: 10**12 needs 253,320 GiB."""
    from pipeline.config.validation import BREADTH_ENTRY_BYTES, fits_memory

    monkeypatch.setattr("pipeline.config.validation.total_memory", lambda: 64 * GIB)
    needed = f"{10**12 * BREADTH_ENTRY_BYTES / GIB:.1f} GiB per task, more than this machine's 64.0 GiB"
    run_bad(["stage=upper_bound", *MINI, f"stage.breadth={10**12}"], tmp_path, capsys, "stage.breadth asks for "
            + needed)
    run_bad(["stage=prove", *MINI, f"upstream.upper_bound.breadth={10**12}"], tmp_path, capsys,
            f"upstream.upper_bound.breadth asks for {needed} (in upper_bound, run as an input)")
    fits_memory("breadth", 10**6, BREADTH_ENTRY_BYTES)  # 272 MB: runs


def write_words(path: Path, count: int) -> Path:
    """`count` distinct five-letter words (aaaaa, aaaab, ...), one a line."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    words = ("".join(letters[(i // 26**k) % 26] for k in reversed(range(5))) for i in range(count))
    path.write_text("\n".join(words) + "\n")
    return path


def test_a_long_word_list_runs_if_its_matrix_fits_else_is_refused(tmp_path, capsys, monkeypatch):
    """With 1 GiB of memory a game may take 512 MiB: 20,000 words (381.5 MiB) load, 200,000 (37.3 GiB) do not."""
    from pipeline.games.catalog import load_game
    from pipeline.config.compose import game_config

    monkeypatch.setattr("pipeline.config.validation.total_memory", lambda: GIB)
    big = write_words(tmp_path / "big.txt", 200_000)
    run_bad(["stage=feedback", "game=words", f"game.secrets.path={big}"], tmp_path, capsys,
            "game words: 200,000 guesses x 200,000 secrets make a 37.3 GiB feedback matrix, more than half of "
            "this machine's 1.0 GiB memory")
    small = write_words(tmp_path / "small.txt", 20_000)
    game = load_game(game_config("words", secrets={"path": str(small)}))
    assert len(game.secrets) == len(game.guesses) == 20_000


def test_a_300_symbol_alphabet_is_refused(tmp_path, capsys):
    alphabet = "".join(chr(0x100 + i) for i in range(300))
    words = tmp_path / "w.txt"
    words.write_text("\n".join(alphabet[i:i + 5] for i in range(0, 250, 5)) + "\n")
    run_bad(["stage=feedback", "game=words", f"game.secrets.path={words}", f"game.alphabet='{alphabet}'"],
            tmp_path, capsys, "game words: game.alphabet has 300 symbols, more than the 256 a game may have")


def test_the_prime_count_estimate_is_close():
    """The estimate sizes Primel before its sieve is built; it must be near the true counts (8363 five-digit
    primes, 68906 six-digit ones)."""
    from pipeline.games.generators import generated_count, primes

    for length in (5, 6):
        true = len(primes(length))
        assert abs(generated_count("primes", length) - true) / true < 0.1
    assert generated_count("mastermind", 4, pegs=4, colours=6) == 1296
    assert generated_count("bulls_and_cows", 4) == 5040 == math.perm(10, 4)


def test_verify_certificate_workers_are_capped_at_the_cpu_count(tmp_path, capsys):
    code, _, err = run_main(["verify-certificate", str(tmp_path), "--workers", "10000"], capsys)
    cpus = os.cpu_count()
    assert err.splitlines()[0] == f"warning: --workers 10000 is more than this machine's {cpus} CPU(s); using {cpus}"
    assert_one_error(code, err, "no certificate.json in", log_lines=True)
    from pipeline.app.commands.common import capped_workers

    assert capped_workers(1) == 1


# ---- Nerdle's lengths: one bound ------------------------------------------------------------------------------


@pytest.mark.parametrize("length", [4, 11])
def test_nerdle_lengths_outside_the_generator_are_refused(length, tmp_path, capsys):
    run_bad(["stage=feedback", "game=nerdle", f"game.length={length}"], tmp_path, capsys,
            f"game nerdle: length {length} outside 5–10")


def test_nerdle_lengths_are_refused_in_a_sweep(tmp_path, capsys):
    err = run_bad(["-m", "stage=feedback", "game=nerdle", "game.length=11,4"], tmp_path, capsys,
                  "game nerdle: length 11 outside 5–10 (sweep point 0: ")
    assert "game.length=11" in err


def test_validation_and_the_generator_share_the_bound():
    from pipeline import PipelineError
    from pipeline.games.catalog import LENGTHS, _rules
    from pipeline.config.compose import game_config
    from pipeline.games.generators import NERDLE_LENGTHS, nerdle_equations

    assert LENGTHS["nerdle"] is NERDLE_LENGTHS
    low, high = NERDLE_LENGTHS
    for length in (low, high):
        assert _rules(game_config("nerdle", length=length))[0] == length
    for length in (low - 1, high + 1):
        with pytest.raises(PipelineError, match=f"length {length} outside {low}–{high}"):
            _rules(game_config("nerdle", length=length))
        with pytest.raises(ValueError, match=f"lengths {low} to {high}"):
            nerdle_equations(length)
    assert len(nerdle_equations(low)) > 0


# ---- folders that cannot be made --------------------------------------------------------------------------------


def test_run_folders_that_cannot_be_made(tmp_path, capsys):
    """hydra.run.dir lies inside paths.outputs (tests/test_hostile_flags.py: outside it is refused) and must be a
    folder that can be made there."""
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    a_file = outputs / "a_file"
    a_file.write_text("x")
    code, _, err = run_main([f"paths.outputs={outputs}", "stage=feedback", *MINI, f"hydra.run.dir={a_file}/x"], capsys)
    assert_one_error(code, err, f"hydra.run.dir={a_file}/x: {a_file} is a file, not a folder")
    assert list(outputs.iterdir()) == [a_file]
    run_bad(["stage=feedback", *MINI, "hydra.run.dir=/proc/pipeline-x"], tmp_path / "b", capsys,
            f"hydra.run.dir=/proc/pipeline-x is outside paths.outputs={tmp_path / 'b' / 'outputs'}")
    run_bad(["-m", "stage=feedback", *MINI, "hydra.sweep.dir=/tmp/x"], tmp_path / "b", capsys,
            "hydra.sweep.dir=/tmp/x: a -m sweep does not use Hydra's folders or launcher; its folders are "
            "<paths.outputs>/sweeps/<id>/ (choose paths.outputs)")
    assert a_file.read_text() == "x"


def test_outputs_under_proc_is_refused(capsys):
    code, _, err = run_main(["paths.outputs=/proc/pipeline-x/y", "stage=feedback", *MINI], capsys)
    assert_one_error(code, err, "paths.outputs=/proc/pipeline-x/y: cannot create a folder in /proc")
    assert not Path("/proc/pipeline-x").exists()


def test_the_writability_probe_leaves_nothing(tmp_path):
    from pipeline.config.validation import check_folder

    check_folder(str(tmp_path / "new" / "deeper"), "paths.outputs")
    assert list(tmp_path.iterdir()) == []


# ---- flags, the lexer, did you mean ---------------------------------------------------------------------------

NAME_CASES = [
    (["stage=feedback", *MINI, "--bogus"], "unknown option --bogus; a stage run takes key=value overrides"),
    (["stage=feedback", *MINI, "--multirn"], "unknown option --multirn (did you mean --multirun?)"),
    (["stage=feedback", *MINI, "paths.outputs=/tmp/a b#c"], "LexerNoViableAltException: paths.outputs=/tmp/a b#c "
                                                            "(quote a value holding"),
    (["stage=upper_bound", *MINI, "stage.bredth=5"],
     "Key 'bredth' not in 'UpperBoundConfig' (did you mean stage.breadth"),
    (["stage=prove", *MINI, "upstream.upper_bound.bredth=5"], "(did you mean upstream.upper_bound.breadth"),
    (["stage=feedback", *MINI, "game.hardmode=true"], "(did you mean game.hard_mode?)"),
    (["stage=uper_bound", *MINI], "Could not find 'stage/uper_bound' (available: blindfold, catalogue, exact, "
                                  "feedback, heuristics, leaderboard, lower_bound, openers, prove, report, reproduce, "
                                  "simulate, upper_bound) (did you mean upper_bound or lower_bound?)"),
    (["stage=feedback", "game=mastermnd"], "(did you mean mastermind?)"),
    (["stage=feedback", *MINI, "experiment=prov"], "prove, prove_wordle) (did you mean prove"),  # after the 23
    # catalogue_* row experiments (conf/experiment/)
]


@pytest.mark.parametrize("args,message", NAME_CASES, ids=[a[-1] for a, _ in NAME_CASES])
def test_a_misspelt_name_gets_a_suggestion(args, message, tmp_path, capsys):
    run_bad(args, tmp_path, capsys, message)


def test_a_misspelt_sub_command_gets_a_suggestion(capsys):
    code, _, err = run_main(["paly", *MINI], capsys)
    assert_one_error(code, err, "unknown command 'paly' (did you mean play?); commands are data, verify-tree")
    code, _, err = run_main(["verify-certficate", "x"], capsys)
    assert_one_error(code, err, "(did you mean verify-certificate or verify-tree?)")


# ---- a Ray cluster whose workers run other code ---------------------------------------------------------------


def test_versions_mismatch_names_the_difference():
    from pipeline.runtime.cluster_check import mismatch

    driver = {"pipeline": "0.1.0", "source": "abc", "ray": "2.60.0", "python": "3.11"}
    assert mismatch(driver, dict(driver)) is None
    assert mismatch(driver, {**driver, "ray": "2.59.0"}) == "the cluster's workers run Ray 2.59.0, this driver 2.60.0"
    assert mismatch(driver, {**driver, "source": "def"}) == ("the cluster's workers run pipeline sources (digest) "
                                                             "def, this driver abc")


@pytest.fixture
def ray_head(tmp_path):
    """A real `ray start --head` on 127.0.0.2 with one CPU, its own HOME, token and temp dir, whose Python path
    holds another `pipeline` (version 0.0.0, nothing but its __init__): its workers import that one, unless the
    driver's own folder holds this package (Ray puts the driver's working folder on its workers' path).
    Stopped by killing its own process group.  Yields (address, driver env)."""
    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        port = s.getsockname()[1]
    token = secrets.token_hex(32)
    base = Path(f"/tmp/pipeline-head-{os.getpid()}")
    (base / "fake" / "pipeline").mkdir(parents=True)
    (base / "fake" / "pipeline" / "__init__.py").write_text('__version__ = "0.0.0"\n')
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "RAY_ADDRESS", "RAY_AUTH_TOKEN_PATH")}
    env.update(HOME=str(base), RAY_USAGE_STATS_ENABLED="0", RAY_AUTH_MODE="token", RAY_AUTH_TOKEN=token)
    ray = str(Path(sys.executable).with_name("ray"))
    head = subprocess.Popen([ray, "start", "--head", f"--port={port}", "--num-cpus=1", "--node-ip-address=127.0.0.2",
                             f"--temp-dir={base / 'ray'}", "--include-dashboard=false", "--block",
                             "--disable-usage-stats"], cwd=base, env={**env, "PYTHONPATH": str(base / "fake")},
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    try:
        address = f"127.0.0.2:{port}"
        deadline = time.time() + 60
        while subprocess.run([ray, "status", f"--address={address}"], env=env, capture_output=True).returncode:
            assert time.time() < deadline and head.poll() is None, "the head did not start"
            time.sleep(0.5)
        yield address, {**env, "PYTHONPATH": str(PROJECT_ROOT)}
    finally:
        os.killpg(head.pid, signal.SIGKILL)
        head.wait(timeout=30)
        shutil.rmtree(base, ignore_errors=True)


@pytest.mark.cluster
def test_a_cluster_is_named_and_one_whose_workers_cannot_import_this_package_refused(ray_head, tmp_path):
    """From this checkout the workers import this package and the cluster is accepted; from another folder
    they import the head's pipeline 0.0.0, which lacks this package's modules: one error line, exit 2,
    nothing written, in seconds (it used to fail after a minute with no message)."""
    address, env = ray_head
    outputs = tmp_path / "outputs"
    command = [sys.executable, "-m", "pipeline", "stage=feedback", *MINI, f"ray.address={address}",
               f"paths.outputs={outputs}"]
    accepted = subprocess.run([sys.executable, "-c", "from pipeline.config.settings import RayConfig; "
                               "from pipeline.runtime.cluster_check import check_cluster; "
                               f"check_cluster(RayConfig(address={address!r})); print('accepted')"],
                              env=env, cwd=PROJECT_ROOT, capture_output=True, text=True, timeout=120)
    assert accepted.stdout.strip() == "accepted", accepted.stderr
    assert f"joined the Ray cluster at {address}: Ray " in accepted.stderr
    assert "1 node(s), 1 CPU(s)" in accepted.stderr
    started = time.monotonic()
    refused = subprocess.run(command, env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert time.monotonic() - started < 60
    assert refused.stderr.startswith(f"joined the Ray cluster at {address}")
    # which import fails depends on whether an editable install maps pipeline's sub-packages too
    assert_one_error(refused.returncode, refused.stderr, f"error: ray.address={address}: the cluster's workers "
                     "cannot run this package (", log_lines=True)
    assert "install the same pipeline on every node" in refused.stderr
    assert nothing_written(outputs)


def test_the_matrix_size_estimate_uses_the_answering_functions_code_width():
    """The size check works out a code's width without the answering function (so the checker can load a game
    without the prover's code): it must agree with the width the answering function really uses."""
    import numpy as np

    from pipeline.games.answer import Answering
    from pipeline.games.catalog import matrix_bytes

    kinds = [("wordle", n) for n in range(4, 12)] + [(k, n) for k in ("mastermind", "bulls_and_cows")
                                                      for n in range(2, 11)]
    for answer, length in kinds:
        assert matrix_bytes(3, 5, answer, length) == 15 * np.dtype(Answering(answer, length).dtype_name).itemsize
