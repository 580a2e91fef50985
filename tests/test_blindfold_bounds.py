"""benchmarks/blindfold_bounds.py on tiny games whose f* (fewest fixed guesses separating every pair of secrets,
every guess a secret) is known by brute force over every k-set: each method's bound never exceeds f* at any point of
its curve, and with a generous time limit it reaches f* with a verified set of that size.  The scip method skips
(with its reason) when pyscipopt, the optional extra, is missing."""

import itertools
import os
import subprocess
import sys

import numpy as np
import pytest

from benchmark_module import load_benchmark
from pipeline.blindfold.pairs import separates_all
from pipeline.config.settings import PROJECT_ROOT
from tests.helpers.fixed_guesses import GUESSES, code_matrix, random_two_letter_game

bounds = load_benchmark("blindfold_bounds")
METHODS = ["highs", pytest.param("scip", marks=pytest.mark.skipif(
    bounds.scip_module() is None, reason="pyscipopt (the optional extra scip) is not installed")), "lp-cuts"]


def tiny_game(words):
    """(code matrix, encoded words, f* by brute force) with every word a guess and a secret."""
    codes = code_matrix(words, words)
    enc = np.array([[ord(c) - ord("a") for c in w] for w in words], dtype=np.int64)
    f_star = next(k for k in range(len(words) + 1)
                  if any(separates_all(codes, list(f)) for f in itertools.combinations(range(len(words)), k)))
    return codes, enc, f_star


GAMES = {"word game": GUESSES, "two letters 8": random_two_letter_game(8)[0]}


@pytest.fixture(scope="module", params=list(GAMES))
def game(request):
    return tiny_game(GAMES[request.param])


@pytest.mark.parametrize("method", METHODS)
def test_bound_reaches_brute_force_f_star(game, method):
    codes, enc, f_star = game
    assert f_star >= 3  # the rule binds: the same-letter rows alone do not give f*
    record = bounds.measure(codes, enc, method=method, time_limit=60.0, threads=1, sample_s=1.0)
    lowers = [point["lower_bound"] for point in record["curve"]]
    assert lowers == sorted(lowers) and max(lowers) <= f_star + bounds.EPS
    assert record["proven_f_star_at_least"] == f_star
    assert len(record["verified_best"]) == f_star and separates_all(codes, record["verified_best"])
    assert record["stop"].startswith("proven")


def test_lp_cuts_with_cluster_cuts_reaches_f_star_and_says_so(game):
    codes, enc, f_star = game
    plain = bounds.measure(codes, enc, method="lp-cuts", time_limit=60.0, threads=1, sample_s=1.0)
    record = bounds.measure(codes, enc, method="lp-cuts", time_limit=60.0, threads=1, sample_s=1.0,
                            cluster_cuts=True)
    capped = bounds.measure(codes, enc, method="lp-cuts", time_limit=60.0, threads=1, sample_s=1.0,
                            cluster_cuts=True, max_families=1)
    assert capped["lp_rows"].startswith("pair rows + cluster cuts of 1 families")
    assert capped["proven_f_star_at_least"] == f_star
    lowers = [point["lower_bound"] for point in record["curve"]]
    assert lowers == sorted(lowers) and max(lowers) <= f_star + bounds.EPS
    assert record["proven_f_star_at_least"] == f_star and record["stop"].startswith("proven")
    assert len(record["verified_best"]) == f_star and separates_all(codes, record["verified_best"])
    assert plain["lp_rows"] == "pair rows" and record["lp_rows"].startswith("pair rows + cluster cuts of ")


@pytest.mark.parametrize("method", METHODS)
def test_short_limit_bound_stays_below_f_star(game, method):
    codes, enc, f_star = game
    record = bounds.measure(codes, enc, method=method, time_limit=0.05, threads=1, sample_s=1.0)
    assert record["lower_bound_raw"] <= f_star + bounds.EPS


def run_script(*args, pythonpath_first=None):
    env = dict(os.environ)
    if pythonpath_first:
        env["PYTHONPATH"] = os.pathsep.join([str(pythonpath_first), env.get("PYTHONPATH", "")])
    return subprocess.run([sys.executable, str(PROJECT_ROOT / "benchmarks" / "blindfold_bounds.py"), *args],
                          capture_output=True, text=True, env=env, timeout=120)


def test_bad_time_limit_is_one_error_line():
    done = run_script("--time-limit", "0")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["error: --time-limit and --sample-s must be positive, --threads at "
                                                "least 1"]


def test_scip_missing_is_one_error_line(tmp_path):
    shadow = tmp_path / "pyscipopt"
    shadow.mkdir()
    (shadow / "__init__.py").write_text("raise ImportError('not installed here')\n")
    done = run_script("--method", "scip", "--time-limit", "1", pythonpath_first=tmp_path)
    assert done.returncode == 2 and done.stdout == ""
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("error: --method scip needs pyscipopt")


def test_cluster_cuts_without_lp_cuts_is_one_error_line():
    done = run_script("--method", "highs", "--cluster-cuts", "--time-limit", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["error: --cluster-cuts goes with --method lp-cuts only"]


@pytest.mark.parametrize("args", [["--max-families", "0", "--cluster-cuts", "--method", "lp-cuts"],
                                  ["--max-families", "5", "--method", "lp-cuts"]])
def test_bad_max_families_is_one_error_line(args):
    done = run_script(*args, "--time-limit", "1")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip().splitlines() == ["error: --max-families must be at least 1 and goes with --cluster-cuts"]
