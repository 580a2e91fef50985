"""stage=reproduce: the published figures are pinned by the sources (typed here again, not read from our
outputs), judged by their rules, and a failing figure makes the command exit non-zero naming it.

The runs use cheap rows only (Mini Nerdle's Table 3 proof, rows that need no run); the full reference run is
a README command, not a test."""

import dataclasses
import json
from pathlib import Path

import pytest

from pipeline.report import published
from pipeline.report.checks import FAIL, NOT_RUN, PASS, verdict
from pipeline.report.plan import experiments
from test_bad_input import fresh_console, run_main  # noqa: F401 (the in-process command line and its log reset)

# The sources' figures, copied from the papers' tables (not from published.py, not from our outputs).
SOURCES = {
    "table1.MostParts+InSet+ExpSizeSplit.total": 7944, "table1.MostParts+InSet+ExpSizeSplit.opener": "trace",
    "table1.Information+InSet+ExpSizeSplit.total": 8019, "table1.Information+InSet+ExpSizeSplit.opener": "soare",
    "table1.InSet.total": 10069, "table1.MaxSizeSplit.opener": "aesir", "table1.best.combinations": 11,
    "table2.wordle_original.n1.total": 7944, "table2.wordle_original.n5.total": 7921,
    "table2.wordle_original.n20.total": 7920, "table2.wordle_original.n10.max_guesses": 5,
    "table3.mini_nerdle.n1.total": 544, "table3.ffxivrdle.n1.opener": "raise", "table3.primel.n20.total": 29011,
    "table3.nerdle.n10.total": 53512, "table3.mini_nerdle.proof": "544 by 4*7=28",
    "table4.survivors.V2": 1711, "table4.survivors.V5": 1, "table4.salet.V1": 6881, "table4.salet.V5": 7919,
    "closure.salet.class_sum": 5605, "hard.salet.hard.total": 8122, "hard.salet.normal.total": 7920,
    "hard.wordle_nyt_jul2023.tarse.total": 11219,
    "blindfold6.allowed.f_star": 6, "blindfold10.f_star": 10, "simple.random_candidate": 4.888,
    "simple.elimination": 4.502, "simple.elimination_answers": 3.899, "openers.soare.avg_bits": 6.245,
    "openers.soare.avg_remaining": 273.92, "openers.aahed.avg_bits": 4.468, "openers.aahed.avg_remaining": 1048.32,
}
RULES = {"table3.primel.n20.total": "at-or-below", "openers.soare.avg_remaining": "within-tolerance", "table3.nerdle.n1.total": "at-or-below",
         "table1.Information+InSet+ExpSizeSplit.total": "equal", "simple.elimination": "inside-95%-interval"}


def checks_by_id() -> dict:
    return {c.id: c for e in experiments() for c in e.checks}


def test_the_plan_pins_the_sources_figures_with_their_rules():
    checks = checks_by_id()
    assert len(checks) == sum(len(e.checks) for e in experiments())  # ids are unique
    assert {i: checks[i].published for i in SOURCES} == SOURCES
    assert {i: checks[i].rule for i in RULES} == RULES
    assert {e.group for e in experiments()} == {"table1", "table2", "table3", "table4", "closure", "hard",
                                                 "blindfold6", "blindfold10", "hybrid", "simple", "openers", "general"}
    # every Table 1 row and every Table 2 breadth of the paper has its checks
    assert all(f"table1.{v.replace(',', '+')}.total" in checks for v in published.TABLE1_WORDLE)
    assert all(f"table2.wordle_original.n{n}.opener" in checks for n in (1, 5, 10, 20))


def test_verdict_rules():
    assert verdict("equal", 7920, 7920) == PASS and verdict("equal", 8019, 8022) == FAIL
    assert verdict("equal", 6.2, 6.246, digits=1) == PASS and verdict("equal", 274, 274.6, digits=0) == FAIL
    assert verdict("at-or-below", 29011, 29011) == PASS and verdict("at-or-below", 29011, 29021) == FAIL
    assert verdict("inside-95%-interval", 4.5, 4.4, interval=[4.41, 4.52]) == PASS
    assert verdict("inside-95%-interval", 4.888, 4.59, interval=[4.57, 4.60]) == FAIL
    assert verdict("equal", 7920, None) == FAIL  # a figure we did not compute never passes
    with pytest.raises(ValueError):
        verdict("roughly", 1, 1)


def reproduce(outputs, capsys, *args) -> tuple[int, str, str]:
    return run_main([f"paths.outputs={outputs}", "progress=false", "ray.executor=local", "stage=reproduce", *args],
                    capsys)


def rows_of(out: str) -> dict:
    folder = Path(out.strip().splitlines()[-1])
    return {r["id"]: r for r in json.loads((folder / "reproduce.json").read_text())["rows"]}


@pytest.mark.slow
def test_mini_nerdle_table3_reproduced_and_a_wrong_figure_fails(outputs, capsys, monkeypatch):
    code, out, err = reproduce(outputs, capsys, "stage.rows=[table3.mini_nerdle.*]")
    assert code in (0, None), err
    rows = rows_of(out)
    assert {i: (r["computed"], r["verdict"]) for i, r in rows.items()} == {
        "table3.mini_nerdle.n1.total": (544, PASS), "table3.mini_nerdle.n1.opener": ("4*7=28", PASS),
        "table3.mini_nerdle.funnel_level": (3, PASS), "table3.mini_nerdle.proof": ("544 by 4*7=28", PASS)}
    assert "4 pass, 0 fail, 0 not run" in (Path(out.strip().splitlines()[-1]) / "reproduce.md").read_text()

    # the same experiment judged against a wrong figure: the artifact is written, then one error line, exit 1
    monkeypatch.setitem(published.TABLE2_UPPER_BOUNDS, "mini_nerdle", {1: (543, "4*7=28")})
    code, out, err = reproduce(outputs, capsys, "stage.rows=[table3.mini_nerdle.n1.*]")
    assert code == 1
    assert rows_of(out)["table3.mini_nerdle.n1.total"]["verdict"] == FAIL
    errors = [line for line in err.splitlines() if line.startswith("error:")]
    assert errors == ["error: reproduce: 1 of 2 rows fail: table3.mini_nerdle.n1.total (published 543, computed 544)"]
    assert "Traceback" not in err

    # the report of the game shows the newest verdicts beside its tables
    code, out, err = run_main([f"paths.outputs={outputs}", "progress=false", "stage=report", "game=mini_nerdle",
                               "stage.plots=false"], capsys)
    assert code in (0, None), err
    text = (Path(out.strip().splitlines()[-1]) / "report.md").read_text()
    assert ("| table3.mini_nerdle.n1.total | ApMinTotal(S, 1): total | mini_nerdle | 543 | 544 | equal | **fail** |"
            in text)
    assert ("| table3.mini_nerdle.proof | proven optimal (certificate) | mini_nerdle | 544 by 4*7=28 | 544 by 4*7=28 |"
            in text)


def test_tarse_row_runs_the_exact_solve_on_the_3158_answer_list():
    """V*(TARSE) = 11219 (WordleBot's ~55 core-hours) is ~90 CPU s for our exact solver: a row that runs."""
    tarse = next(e for e in experiments() if any(c.id == "hard.wordle_nyt_jul2023.tarse.total" for c in e.checks))
    assert tarse.unavailable is None and not tarse.game_settings
    assert (tarse.game, tarse.stage, tarse.settings) == ("wordle_nyt_jul2023", "exact", {"openers": ["tarse"]})


def test_a_figure_the_pipeline_cannot_run_is_not_run_never_pass(outputs, capsys, monkeypatch):
    from pipeline.report import plan

    hard = plan.BUILDERS["hard"]  # made unavailable here, so the test does not depend on which rows are today
    monkeypatch.setitem(plan.BUILDERS, "hard", lambda: [dataclasses.replace(e, unavailable="cannot run: test")
                                                          for e in hard()])
    code, out, err = reproduce(outputs, capsys, "stage.rows=[hard.salet.normal.total,hard.wordle_nyt_jul2023.*]")
    assert code in (0, None), err
    rows = rows_of(out)
    assert [r["verdict"] for r in rows.values()] == [NOT_RUN, NOT_RUN]
    assert all(r["computed"] is None and r["reason"] == "cannot run: test" for r in rows.values())
    assert not (outputs / "feedback").exists() and not (outputs / "exact").exists()  # nothing was run


@pytest.mark.parametrize("args, message", [
    (["stage.only=[table9]"], "stage.only: unknown group 'table9'; groups: table1, table2"),
    (["stage.only=[hard]", "stage.rows=[table1.*]"], "stage.rows: 'table1.*' names no row of the chosen groups"),
])
def test_bad_selection_is_one_error_line(outputs, capsys, args, message):
    code, out, err = reproduce(outputs, capsys, *args)
    assert code == 2 and message in err and len(err.strip().splitlines()) == 1
    assert not (outputs / "reproduce").exists()


@pytest.mark.slow
def test_salet_exact_value_reproduced_from_the_parquet_rows(outputs, capsys):
    code, out, err = reproduce(outputs, capsys, "stage.rows=[hard.salet.normal.*]")
    assert code in (0, None), err
    rows = rows_of(out)
    assert {i: (r["computed"], r["verdict"]) for i, r in rows.items()} == {
        "hard.salet.normal.total": (7920, PASS), "hard.salet.normal.max_guesses": (5, PASS)}
    assert all(Path(r["artifact"]).parent.name == "exact" for r in rows.values())


class Solution:
    """A blindfold artifact holding only its solution.json."""

    def __init__(self, solution):
        self.solution = solution

    def read_json(self, name):
        return self.solution


@pytest.mark.parametrize("unique, status, expected", [
    (True, "proven", True),  # the no-good solve is infeasible: unique
    (False, "another set", False),  # it found another separating 6-set
    (None, "time limit", "not proven: the uniqueness solve stopped (time limit) after 3 rounds"),
])
def test_uniqueness_is_true_false_or_not_proven(unique, status, expected):
    from pipeline.report.checks import unique_set

    solution = {"f_star": 6, "uniqueness": {"unique": unique, "status": status, "rounds": 3}}
    assert unique_set({"blindfold": Solution(solution)}) == expected
