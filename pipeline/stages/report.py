"""Stage report: report.md and PNG plots from the artifacts present for a game, beside the published figures.
Missing artifacts are listed with the command that makes them, never faked."""

import json

import pyarrow.parquet as pq

from pipeline.artifacts.find import artifacts_for
from pipeline.report import published
from pipeline.stages.base import StageContext
from pipeline.stages.schemas import ReportConfig

NAME, VERSION, INPUTS = "report", 1, ()  # the stage contract: stages/base.py
REPORTED = ("feedback", "heuristics", "upper_bound", "lower_bound", "exact", "prove", "blindfold")


SCHEMA = ReportConfig


def gathered(store, game) -> dict[str, list[dict]]:
    """Manifests (with their folder as `path`) of every finished artifact that fits this game, by stage,
    oldest first."""
    return {stage: [{**manifest, "path": artifact.path} for artifact, manifest in artifacts_for(store, stage, game)]
            for stage in REPORTED}


def key_material(cfg: ReportConfig, game, store) -> dict:
    """The report changes whenever the set of artifacts it reads changes (reproduce's verdicts included)."""
    return {**{stage: [m["key"] for m in found] for stage, found in gathered(store, game).items()},
            "reproduce": [a.key for a in store.finished("reproduce")]}


def verdicts(store, game) -> list[dict]:
    """The rows of stage=reproduce computed on this game: for each row id the newest finished artifact's."""
    from pipeline.report.checks import fits_game

    newest = {}
    for artifact in store.finished("reproduce"):  # oldest first: later artifacts replace a row
        for row in artifact.read_json("reproduce.json")["rows"]:
            newest[row["id"]] = row
    return [r for r in newest.values() if fits_game(r, game.name, game.identity())]


def verdict_section(rows: list[dict], title: str) -> str:
    from pipeline.report.checks import verdict_table

    return f"{title}\n\n" + verdict_table(rows) + "\n" if rows else ""


def _table(header: list[str], rows: list[list]) -> str:
    lines = ["| " + " | ".join(header) + " |", "|" + "---|" * len(header)]
    lines += ["| " + " | ".join("" if v is None else str(v) for v in row) + " |" for row in rows]
    return "\n".join(lines) + "\n"


def heuristics_section(found, game) -> str:
    m = found[-1]
    rows = {r["valuation"]: r for r in pq.read_table(m["path"] / "valuations.parquet").to_pylist()}
    paper = published.TABLE1_WORDLE if game.name == "wordle_original" else {}

    def shown(r):  # a tree deeper than the game's guess limit is not a strategy of the game
        if not r or r.get("total") is not None or r.get("tree_total") is None:
            return (r or {}).get("total")
        return f"{r['tree_total']} (infeasible: {r['max_guesses']} guesses)"

    names = list(paper) or sorted(rows, key=lambda v: (rows[v]["total"] is None, rows[v]["total"] or 0))[:10]
    body = [[v, *(paper.get(v, (None, None))), shown(rows.get(v)), rows.get(v, {}).get("opener")] for v in names]
    feasible = [r for r in rows.values() if r["total"] is not None]
    top = min(feasible, key=lambda r: r["total"]) if feasible else None
    best = f"{top['total']} by {top['valuation']} ({top['opener']})" if top else "none within the guess limit"
    return (f"## Greedy valuations ({len(rows)} combinations, {m['run_seconds']} s)\n\n"
            + _table(["valuation", "paper total", "paper opener", "total", "opener"], body)
            + f"\nBest: {best}.\n")


def upper_bound_section(found, game) -> str:
    paper = published.TABLE2_UPPER_BOUNDS.get(game.name, {})
    rows = []
    for m in found:
        s = json.loads((m["path"] / "summary.json").read_text())
        p = paper.get(s["breadth"], (None, None))
        rows.append([s["breadth"], s["openers_tried"], p[0], p[1], s["ub"], s["opener"], s["max_guesses"],
                     m["run_seconds"], m["fan_out"]["task_seconds"]])
    return "## Upper bounds: ApMinTotal(S, n)\n\n" + _table(
        ["n", "openers", "paper total", "paper opener", "total", "opener", "max guesses", "wall s", "task s"], rows)


def lower_bound_section(found, game) -> str:
    out = "## Lower-bound funnel\n\n"
    paper = published.TABLE4_FUNNEL.get(game.name)
    for m in found:
        s = json.loads((m["path"] / "summary.json").read_text())
        survivors = [f["survivors"] for f in s["funnel"]]
        out += f"UB = {s['ub']}: survivors per level {' → '.join(map(str, survivors))}"
        out += f" (paper: {' → '.join(map(str, paper))})" if paper else ""
        out += f"; left: {', '.join(s['survivors']) or 'none'} ({m['run_seconds']} s)\n\n"
    return out


def exact_section(found, game) -> str:
    rows = []
    for m in found:
        for r in pq.read_table(m["path"] / "exact.parquet").to_pylist():
            paper = published.EXACT.get((game.name, r["opener"], game.hard_mode))
            rows.append([r["opener"], m["game"]["hard_mode"], paper, r["total"], r["max_guesses"], m["run_seconds"]])
    return "## Exact search\n\n" + _table(["opener", "hard mode", "paper", "total", "max guesses", "wall s"], rows)


def prove_section(found, game) -> str:
    out = "## Proof\n\n"
    for m in found:
        c = json.loads((m["path"] / "certificate.json").read_text())
        out += (f"proven: **{c['proven']}** — MinTotal = {c['ub']}, optimal opener(s) {', '.join(c['optimal_openers'])}; "
                f"{len(c['eliminated'])} openers eliminated by the funnel; certificate `{m['path']}` "
                f"({m['run_seconds']} s)\n\n")
    return out


def blindfold_section(found, game) -> str:
    rows = []
    for m in found:
        s = json.loads((m["path"] / "solution.json").read_text())
        rows.append([s.get("guesses_from"), s.get("f_star"), s.get("lower_bound"), s.get("proven_optimal"),
                     " ".join(s.get("guesses", [])), m["run_seconds"]])
    return "## Blindfold\n\n" + _table(["guesses from", "f*", "lower bound", "proven", "guesses", "wall s"], rows)


# stage -> its section of report.md, from that stage's manifests (at least one)
SECTIONS = {"heuristics": heuristics_section, "upper_bound": upper_bound_section, "lower_bound": lower_bound_section,
            "exact": exact_section, "prove": prove_section, "blindfold": blindfold_section}


def run(ctx: StageContext, cfg: ReportConfig) -> dict:
    game = ctx.game
    found = gathered(ctx.store, game)
    text = f"# Report: {game.name}\n\n|S| = {len(game.secrets)}, |G| = {len(game.guesses)}, hard mode: {game.hard_mode}\n\n"
    rows = verdicts(ctx.store, game)
    for stage, section in SECTIONS.items():  # a section for every stage with artifacts, its verdicts beside it
        if found[stage]:
            text += section(found[stage], game) + "\n"
            text += verdict_section([r for r in rows if r["stage"] == stage], "Published figures (stage=reproduce):")
    shown = {s for s in SECTIONS if found[s]}
    text += verdict_section([r for r in rows if r["stage"] not in shown], "## Published figures (stage=reproduce)")
    missing = [s for s in REPORTED if not found[s]]
    if missing:
        text += "## Missing artifacts\n\n" + "".join(
            f"- {s}: `python -m pipeline stage={s} game={game.name}`\n" for s in missing)
    plots = make_plots(ctx, found) if cfg.plots else []
    text += "".join(f"\n![{p}]({p})\n" for p in plots)
    ctx.out.file("report.md").write_text(text)
    return {"sections": [s for s in SECTIONS if found[s]], "missing": missing, "plots": plots,
            "verdicts": {v: sum(r["verdict"] == v for r in rows) for v in ("pass", "fail", "not run")}}


def make_plots(ctx: StageContext, found) -> list[str]:
    from pipeline.report.plots import distribution_plot, funnel_plot, openers_plot

    made = []
    if found["lower_bound"]:
        made.append(funnel_plot(ctx.out.file("funnel.png"), found["lower_bound"][-1]["path"]))
    if found["upper_bound"]:
        best = min(found["upper_bound"], key=lambda m: json.loads((m["path"] / "summary.json").read_text())["ub"])
        made.append(distribution_plot(ctx.out.file("distribution.png"), best["path"]))
        made.append(openers_plot(ctx.out.file("openers.png"), found["upper_bound"]))
    return made
