"""Stage report on a tiny game: every stage's results beside each other, plots with honest axes and distinct
names, and the best tree drawn at the configured depth."""

import json
import xml.etree.ElementTree as ET

import pyarrow.parquet as pq
import pytest

from pipeline.errors import PipelineError
from pipeline.report import plots

WORDS = ["batch", "catch", "hatch", "latch", "match", "patch", "watch", "crane", "crate", "grate", "irate", "plate"]


@pytest.fixture
def word_game(word_list_game):
    return [*word_list_game(WORDS), "ray.executor=local"]


def nodes_to_depth(tree: dict, depth: int) -> int:
    return 1 + (sum(nodes_to_depth(c, depth - 1) for c in tree["children"].values()) if depth > 1 else 0)


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


def test_information_axis_starts_at_zero_bits(tmp_path, figures):
    """The openers stage's openers.png and the report's opener_information.png: bars from zero bits, so a
    0.5 % difference looks like one."""
    import pyarrow as pa

    pq.write_table(pa.table({"opener": ["soare", "roate"], "avg_bits": [6.2, 6.17], "avg_remaining": [274.4, 279.0]}),
                   tmp_path / "openers.parquet")
    plots.information_plot(tmp_path / "i.png", tmp_path, title="top openers")
    ax = figures[-1].axes[0]
    assert ax.get_xlim()[0] == 0 and ax.get_title() == "top openers"
    assert [round(p.get_width(), 2) for p in ax.patches] == [6.2, 6.17]


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
