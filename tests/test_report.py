"""Stage report on a tiny game: every stage's results beside each other, plots with honest axes and distinct
names, and the best tree drawn at the configured depth."""

import json
import xml.etree.ElementTree as ET

import pyarrow.parquet as pq
import pytest

from pipeline import PipelineError
from pipeline.report import plots
from test_bad_input import fresh_console, run_main  # noqa: F401 (the in-process command line and its log reset)

WORDS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]


@pytest.fixture
def word_game(word_list_game):
    return [*word_list_game(WORDS), "ray.executor=local"]


def nodes_to_depth(tree: dict, depth: int) -> int:
    return 1 + (sum(nodes_to_depth(c, depth - 1) for c in tree["children"].values()) if depth > 1 else 0)


@pytest.mark.slow
def test_report_covers_every_stage_with_distinct_plots(run_pipeline, word_game):
    ub = run_pipeline("stage=upper_bound", *word_game)
    sim = run_pipeline("stage=simulate", *word_game, "stage.strategies=[random_candidate,elimination,tree]",
                       "stage.seeds=[0,1]", "stage.opener=null")
    run_pipeline("stage=openers", *word_game)
    hybrid = json.loads(run_pipeline("stage=blindfold", *word_game, "stage.mode=hybrid", "stage.fixed=3",
                                     "stage.depth=3").file("solution.json").read_text())
    cover = json.loads(run_pipeline("stage=blindfold", *word_game).file("solution.json").read_text())
    report = run_pipeline("stage=report", *word_game, "stage.tree_depth=3")
    text = report.file("report.md").read_text()

    for title in ("## Upper bounds", "## Blindfold", "## Simulated play", "## Opener ranking by information",
                  "## Strategy tree (Figure 2)"):
        assert title in text
    assert f"| {' '.join(hybrid['fixed'])} | 3 | {hybrid['worst_case']} | {hybrid['mean']} |" in text
    assert f"| allowed | {cover['f_star']} | {cover['lower_bound']} | True | {' '.join(cover['guesses'])} |" in text
    pooled = next(r for r in pq.read_table(sim.file("simulate.parquet")).to_pylist()
                  if r["strategy"] == "random_candidate" and r["seed"] is None)
    assert f"| random_candidate | 2 |  | {round(pooled['mean'], 4)} |" in text
    made = [plots.FUNNEL, plots.DISTRIBUTION, plots.OPENER_TOTALS, plots.SIMULATED, plots.OPENER_INFORMATION]
    assert len(set(made)) == len(made) and "openers.png" not in made
    for name in made[1:]:
        assert report.file(name).stat().st_size > 1000 and f"![{name}]({name})" in text
    tree = json.loads(ub.file("tree.json").read_text())["tree"]
    svg = ET.fromstring(report.file("tree.svg").read_text())
    drawn = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "node"]
    assert len(drawn) == nodes_to_depth(tree, 3) and drawn[0].get("data-guess") == tree["guess"]
    assert "- simulate:" not in text and "- openers:" not in text  # found, so not listed as missing


def test_report_refuses_tree_depth_zero(run_pipeline, word_game):
    with pytest.raises(PipelineError, match="stage.tree_depth must be at least 1"):
        run_pipeline("stage=report", *word_game, "stage.tree_depth=0")


@pytest.fixture
def figures(monkeypatch):
    """The figures the plot functions save, kept open for inspection."""
    kept = []
    monkeypatch.setattr(plots, "_save", lambda fig, path: kept.append(fig) or path.name)
    return kept


def test_axes_are_honest(tmp_path, figures):
    (tmp_path / "summary.json").write_text(json.dumps({"distribution": {"2": 3, "3": 40, "5": 1}, "opener": "salet",
                                                       "ub": 138}))
    plots.distribution_plot(tmp_path / "d.png", tmp_path)
    ticks = list(figures[-1].axes[0].get_xticks())
    assert ticks == [2, 3, 4, 5]  # whole guesses only
    import pyarrow as pa

    pq.write_table(pa.table({"opener": ["salet", "reast", "trace"], "total": [7920, 7923, 7960]}),
                   tmp_path / "openers.parquet")
    plots.openers_plot(tmp_path / "o.png", [{"path": tmp_path}])
    ax = figures[-1].axes[0]
    assert ax.get_xlim()[0] == 0  # the bars are the differences, from zero
    assert [round(p.get_width()) for p in ax.patches] == [40, 3, 0]  # trace, reast, salet (best at the top)


def test_information_plot_shows_the_shortfall_from_the_best(tmp_path, figures):
    """The openers stage's openers.png and the report's opener_information.png: bars are the bits each opener
    gives fewer than the best, from zero, so a 0.5 % difference is visible; labels carry the bits themselves."""
    import pyarrow as pa

    pq.write_table(pa.table({"opener": ["soare", "roate", "raise"], "avg_bits": [6.2, 6.17, 6.05],
                             "avg_remaining": [274.4, 279.0, 290.2]}), tmp_path / "openers.parquet")
    plots.information_plot(tmp_path / "i.png", tmp_path, title="top openers")
    ax = figures[-1].axes[0]
    assert ax.get_xlim()[0] == 0 and ax.get_title() == "top openers"
    assert [round(p.get_width(), 2) for p in ax.patches] == [0.0, 0.03, 0.15]
    assert [t.get_text() for t in ax.texts] == ["6.200 bits (best), 274.4 left", "6.170 bits (−0.030), 279.0 left",
                                               "6.050 bits (−0.150), 290.2 left"]
    assert "soare: 6.200 bits" in ax.get_xlabel()


def test_report_draws_an_exact_tree_when_no_upper_bound_exists(run_pipeline, word_game):
    """Figure 2 of a game solved only by `exact` (e.g. the hard group's runs): its tree, at the report's depth."""
    exact = run_pipeline("stage=exact", *word_game, "stage.openers=[crate]")
    report = run_pipeline("stage=report", *word_game, "stage.tree_depth=2", "stage.plots=false")
    body = json.loads(exact.file("tree-crate.json").read_text())
    svg = ET.fromstring(report.file("tree.svg").read_text())
    drawn = [g for g in svg.iter("{http://www.w3.org/2000/svg}g") if g.get("class") == "node"]
    assert len(drawn) == nodes_to_depth(body["tree"], 2) > 1 and drawn[0].get("data-guess") == "crate"
    assert f"The best tree (exact/{exact.path.name}, crate, total {body['total']})" in \
        report.file("report.md").read_text()


def test_report_finds_the_simulations_reproduce_ran_without_a_guess_limit(outputs, capsys, monkeypatch):
    """stage=reproduce plays the write-up's simulations with game.max_guesses=null; the report of the game itself
    (limit 6) shows that run and its verdict instead of listing simulate as missing."""
    from pathlib import Path

    from pipeline.report.checks import Check, Experiment
    from pipeline.stages import reproduce

    strategy = "elimination_weighted_answers"
    check = Check(f"simple.{strategy}", "average guesses, weighted elimination", 100, "at-or-below",
                  lambda a: a["simulate"].manifest["summary"]["strategies"][strategy]["mean"])
    plan = [Experiment("simple", "mini_nerdle", "simulate", (check,), settings={"strategies": [strategy],
                       "opener": None}, game_settings={"max_guesses": None})]
    monkeypatch.setattr(reproduce, "experiments", lambda groups: plan)
    common = [f"paths.outputs={outputs}", "progress=false", "ray.executor=local"]
    code, out, err = run_main([*common, "stage=reproduce", "stage.only=[simple]"], capsys)
    assert code in (0, None), err
    row = json.loads((Path(out.strip().splitlines()[-1]) / "reproduce.json").read_text())["rows"][0]
    assert row["verdict"] == "pass" and row["game_identity"]["max_guesses"] is None
    code, out, err = run_main([*common, "stage=report", "game=mini_nerdle", "stage.plots=false"], capsys)
    assert code in (0, None), err
    text = (Path(out.strip().splitlines()[-1]) / "report.md").read_text()
    assert "- simulate:" not in text and "## Simulated play" in text
    assert "Run by stage=reproduce with game.max_guesses=null (this game otherwise)." in text
    assert f"| {strategy} | 1 |  | {round(row['computed'], 4)} |" in text
    assert f"| simple.{strategy} |" in text  # its verdict beside it
    code, out, err = run_main([*common, "stage=report", "game=mini_nerdle", "game.hard_mode=true",
                               "stage.plots=false"], capsys)
    assert code in (0, None), err
    assert "- simulate:" in (Path(out.strip().splitlines()[-1]) / "report.md").read_text()  # other rules: not it
