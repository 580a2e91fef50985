"""benchmarks/mutation.py without running its slips (that is the script's own job, minutes per slip): every listed
slip still finds its original text once, a text found other than once is one `error:` line and exit 2, and the
numba cache a slipped copy starts from leaves out everything compiled from modules that depend on the slip."""

import json

import pytest

from tests.benchmark_module import load_benchmark

mutation = load_benchmark("mutation")


def test_every_listed_slip_finds_its_original_once(capsys):
    assert mutation.main(["--list"]) == 0
    listed = json.loads(capsys.readouterr().out)
    assert len(listed) == len(mutation.SLIPS) >= 10
    assert {s["file"].split("/")[1] for s in listed} == {"proofs", "search"}


@pytest.mark.parametrize("original", ["no such text in the file", "none.astype(np.int64), 0"],
                         ids=["absent", "several times"])
def test_an_original_found_other_than_once_is_one_error_line(monkeypatch, capsys, original):
    slip = mutation.Slip("planted", "pipeline/proofs/exact/search.py", original, "x", ("tests/test_checker_brute.py",))
    count = (mutation.ROOT / slip.file).read_text().count(original)
    assert count != 1
    monkeypatch.setattr(mutation, "SLIPS", (slip,))
    assert mutation.main([]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1
    assert err.startswith(f"error: planted: the original text {original!r} occurs {count} times in "
                          "pipeline/proofs/exact/search.py, not once")


@pytest.mark.parametrize("argv, message", [(["--only", "nothing"], "no slip named 'nothing'"),
                                           (["--timeout", "nan"], "is not a positive number")])
def test_bad_options_are_one_error_line(capsys, argv, message):
    assert mutation.main(argv) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and message in err


def test_a_slip_invalidates_the_cache_of_every_module_that_depends_on_it(tmp_path):
    """A slip in proofs/bounds/lower.py: lower.py and exact/solver.py (whose kernels call its split) lose their cache
    entries, an unrelated kernel module (feedback/kernel.py) keeps them."""
    copy = mutation.ROOT
    stale = mutation.importers(copy, "pipeline.proofs.bounds.lower")
    names = {p.relative_to(copy).as_posix() for p in stale}
    assert {"pipeline/proofs/bounds/lower.py", "pipeline/proofs/exact/solver.py", "pipeline/proofs/certificates/optimal.py"} <= names
    assert "pipeline/feedback/kernel.py" not in names and "pipeline/search/exact/solver.py" not in names
    baseline = tmp_path / "base"
    for folder, entry in [("bounds_1", "lower.split-233.py311.nbi"), ("exact_1", "solver.node_options-31.py311.nbi"),
                          ("feedback_2", "kernel._fill_codes-80.py311.nbi"), ("strategies_3", "greedy.run-5.py311.nbi")]:
        (baseline / folder).mkdir(parents=True, exist_ok=True)
        (baseline / folder / entry).write_text("")
    mutation.seed_cache(baseline, tmp_path / "slipped", stale)
    kept = sorted(p.relative_to(tmp_path / "slipped").as_posix() for p in (tmp_path / "slipped").rglob("*.nbi"))
    assert kept == ["feedback_2/kernel._fill_codes-80.py311.nbi", "strategies_3/greedy.run-5.py311.nbi"]
