"""Stage report: report.md and PNG plots from the artifacts present for a game, beside the published figures.
Missing artifacts are listed with the command that makes them, never faked."""

from pipeline.artifacts.find import artifacts_for
from pipeline.artifacts.markdown import md_row, md_text
from pipeline.artifacts.outputs import (CERTIFICATE, EXACT, LB_SUMMARY, OPENER_RANKING, REPORT, REPORT_OUTPUTS,
                                        REPORT_TREE, SOLUTION, UB_SUMMARY, VALUATIONS, VERDICTS, read_table)
from pipeline.artifacts.summaries import lower_bound_summary, upper_bound_summary
from pipeline.report import published
from pipeline.runtime.store import read_json_file
from pipeline.stages.base import StageContext
from pipeline.config.stages import ReportConfig

NAME, VERSION, INPUTS = "report", 2, ()  # the stage contract: stages/base.py
OUTPUTS = REPORT_OUTPUTS  # report.md; tree.svg and the plots when there is something to draw: artifacts/outputs.py
REPORTED = ("feedback", "heuristics", "upper_bound", "lower_bound", "exact", "prove", "blindfold", "simulate",
            "openers")


SCHEMA = ReportConfig


SUMMARIES = {"upper_bound": upper_bound_summary, "lower_bound": lower_bound_summary}  # checked before use
SUMMARY_FILES = {"upper_bound": UB_SUMMARY, "lower_bound": LB_SUMMARY}
VARIED = {"max_guesses"}  # what stage=reproduce may set differently from the game a report is for


def reproduce_rows(store) -> list[dict]:
    """The rows of every finished stage=reproduce artifact, oldest first; a reproduce.json whose rows are not
    verdicts with an id and a stage is named as damaged."""
    out = []
    for artifact in store.finished("reproduce"):
        rows = artifact.read_json(VERDICTS.name).get("rows")
        if not isinstance(rows, list) or not all(isinstance(r, dict) and isinstance(r.get("id"), str) and
                                                 isinstance(r.get("stage"), str) for r in rows):
            raise artifact.damaged(VERDICTS.name, "rows is not a list of verdicts with an id and a stage")
        out += rows
    return out


def is_variant(row: dict, game) -> bool:
    """Whether a reproduce row was computed on `game` with only its guess limit set otherwise (the write-up's
    simulations play with no limit: game.max_guesses=null), by the row's own game settings."""
    recorded, own = row.get("game_identity"), game.identity()
    if row.get("game") != game.name or not isinstance(recorded, dict) or recorded == own:
        return False
    settings = row.get("game_settings", {})
    differ = {k for k in set(recorded) | set(own) if recorded.get(k) != own.get(k)}
    return isinstance(settings, dict) and differ <= VARIED and differ <= set(settings)


def settings_text(settings: dict) -> str:
    """Game settings as the overrides that select them, e.g. "game.max_guesses=null"."""
    return " ".join(f"game.{k}={'null' if v is None else str(v).lower()}" for k, v in sorted(settings.items()))


def variants(store, game) -> dict[str, dict[str, dict]]:
    """stage -> {its settings as overrides: game identity} of the runs stage=reproduce made on `game` with other
    settings (is_variant)."""
    out: dict[str, dict[str, dict]] = {}
    for row in reproduce_rows(store):
        if is_variant(row, game):
            out.setdefault(row["stage"], {})[settings_text(row["game_settings"])] = row["game_identity"]
    return out


def gathered(store, game) -> dict[str, list[dict]]:
    """Manifests (with their folder as `path`) of every finished artifact that fits this game, by stage,
    oldest first, each checked first (its files, and the summaries the sections read) so a damaged one is named
    before the report is written; then those of the runs stage=reproduce made on this game with another guess
    limit (their settings as `variant`)."""
    from pipeline.artifacts.find import artifacts_fitting

    found = {}
    for stage in REPORTED:
        found[stage] = []
        for artifact, manifest in artifacts_for(store, stage, game):
            artifact.check()
            if stage in SUMMARIES:
                SUMMARIES[stage](artifact, game)
            found[stage].append({**manifest, "path": artifact.path})
    for stage, identities in variants(store, game).items():
        for settings, identity in identities.items():
            found[stage] += [{**manifest, "path": artifact.path, "variant": settings}
                             for artifact, manifest in artifacts_fitting(store, stage, identity)]
    return found


def variant_note(found: list[dict]) -> str:
    """A line saying which of a section's runs stage=reproduce made with other game settings ("" if none)."""
    settings = sorted({m["variant"] for m in found if "variant" in m})
    return "".join(f"Run by stage=reproduce with {s} (this game otherwise).\n\n" for s in settings)


def key_material(cfg: ReportConfig, game, store) -> dict:
    """The report changes whenever the set of artifacts it reads changes (reproduce's verdicts included), and
    whenever a certificate or its verification record does (an edit, a check)."""
    found = gathered(store, game)
    return {**{stage: [m["key"] for m in found] for stage, found in found.items()},
            "reproduce": [a.key for a in store.finished("reproduce")],
            "certificates": [certificate_state(m["path"]) for m in found["prove"]]}


def certificate_state(folder) -> list:
    """[certificate digest, verification state, when checked] of a prove artifact (pipeline/proofs/certificates/record.py)."""
    from pipeline.proofs.certificates.record import sha256_of, status

    check = status(folder)
    return [sha256_of(folder / CERTIFICATE.name), check.state, check.checked_at]


def verdicts(store, game) -> list[dict]:
    """The rows of stage=reproduce computed on this game (or on it with another guess limit: is_variant): for
    each row id the newest finished artifact's."""
    from pipeline.report.checks import fits_game

    newest = {row["id"]: row for row in reproduce_rows(store)}  # oldest first: later artifacts replace a row
    return [r for r in newest.values() if fits_game(r, game.name, game.identity()) or is_variant(r, game)]


def verdict_section(rows: list[dict], title: str) -> str:
    from pipeline.report.checks import verdict_table

    return f"{title}\n\n" + verdict_table(rows) + "\n" if rows else ""


def _table(header: list[str], rows: list[list]) -> str:
    """A Markdown table of literal cells (an opener such as 4*7=28 is no emphasis); None is an empty cell."""
    lines = [md_row(header), "|" + "---|" * len(header)]
    lines += [md_row("" if v is None else v for v in row) for row in rows]
    return "\n".join(lines) + "\n"


def heuristics_section(found, game) -> str:
    m = found[-1]
    rows = {r["valuation"]: r for r in read_table(m["path"] / VALUATIONS.name).to_pylist()}
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


def summary_of(m: dict, stage: str) -> dict:
    """The summary.json of a gathered upper_bound or lower_bound artifact (its fields were checked by `gathered`)."""
    return read_json_file(stage, m["path"] / SUMMARY_FILES[stage].name, dict)


def upper_bound_section(found, game) -> str:
    """One row per ApMinTotal run, by n (a sweep's points finish in any order), oldest first within an n."""
    paper = published.TABLE2_UPPER_BOUNDS.get(game.name, {})
    rows = []
    runs = sorted(((summary_of(m, "upper_bound"), m) for m in found), key=lambda run: run[0]["breadth"])
    for s, m in runs:
        p = paper.get(s["breadth"], (None, None))
        rows.append([s["breadth"], s["openers_tried"], p[0], p[1], s["ub"], s["opener"], s["max_guesses"],
                     m["run_seconds"], m["fan_out"]["task_seconds"]])
    return "## Upper bounds: ApMinTotal(S, n)\n\n" + _table(
        ["n", "openers", "paper total", "paper opener", "total", "opener", "max guesses", "wall s", "task s"], rows)


def lower_bound_section(found, game) -> str:
    out = "## Lower-bound funnel\n\n"
    paper = published.TABLE4_FUNNEL.get(game.name)
    for m in found:
        s = summary_of(m, "lower_bound")
        survivors = [f["survivors"] for f in s["funnel"]]
        out += f"UB = {s['ub']}: survivors per level {' → '.join(map(str, survivors))}"
        out += f" (paper: {' → '.join(map(str, paper))})" if paper else ""
        out += f"; left: {md_text(', '.join(s['survivors']) or 'none')} ({m['run_seconds']} s)\n\n"
    return out


def exact_section(found, game) -> str:
    rows = []
    for m in found:
        for r in read_table(m["path"] / EXACT.name).to_pylist():
            paper = published.EXACT.get((game.name, r["opener"], game.hard_mode))
            rows.append([r["opener"], m["game"]["hard_mode"], paper, r["total"], r["max_guesses"], m["run_seconds"]])
    return "## Exact search\n\n" + _table(["opener", "hard mode", "paper", "total", "max guesses", "wall s"], rows)


def prove_section(found, game) -> str:
    """One line per proof.  `proven: **True**` only when this machine's verify-certificate has checked the
    certificate in full as it is now (a record sealed by this machine's checker key: pipeline/proofs/certificates/record.py);
    a certificate that claims a proof but is not so checked (never checked here, a hand-written or copied record,
    a file changed since) says `proven: **not verified here**` with what it claims; `proven: **False**` when the
    certificate itself claims no proof."""
    from pipeline.proofs.certificates.record import status

    out = "## Proof\n\n"
    for m in found:
        c = read_json_file("prove", m["path"] / CERTIFICATE.name, dict)
        check = status(m["path"])
        if c["proven"] and check.verified:
            claim = (f"proven: **True** — MinTotal = {c['ub']}, optimal opener(s) {', '.join(c['optimal_openers'])} "
                     f"({check.label()})")
        elif c["proven"]:
            claim = (f"proven: **not verified here** — the certificate claims MinTotal = {c['ub']} with opener(s) "
                     f"{', '.join(c['optimal_openers'])}: {check.label()}")
        else:
            claim = f"proven: **False** — upper bound {c['ub']} ({c['ub_opener']}) not shown optimal"
        out += (f"{claim}; {len(c['eliminated'])} openers eliminated by the funnel; "
                f"certificate `{m['path']}` ({m['run_seconds']} s)\n\n")
    return out


def blindfold_section(found, game) -> str:
    cover, hybrid = [], []
    for m in found:
        s = read_json_file("blindfold", m["path"] / SOLUTION.name, dict)
        if s.get("mode") == "hybrid":
            hybrid.append([" ".join(s["fixed"]), s["depth"], s["worst_case"], s["mean"], s["classes"],
                           s["largest_class"], s["search"], s["guesses_from"], m["run_seconds"]])
        elif "check" in s:
            cover.append([s.get("guesses_from", "given"), None, None, None, " ".join(s["check"])
                          + f" (separates all: {s['separates_all']})", m["run_seconds"]])
        else:
            cover.append([s.get("guesses_from"), s.get("f_star"), s.get("lower_bound"), s.get("proven_optimal"),
                          " ".join(s.get("guesses", [])), m["run_seconds"]])
    out = "## Blindfold\n\n"
    if cover:
        out += _table(["guesses from", "f*", "lower bound", "proven", "guesses", "wall s"], cover)
    if hybrid:
        out += ("\nHybrid: fixed guesses played without looking, then an adaptive tree of at most `depth` "
                "guesses per class.\n\n" + _table(["fixed guesses", "depth", "worst case", "mean", "classes",
                                                   "largest class", "search", "guesses from", "wall s"], hybrid))
    return out


def simulate_section(found, game) -> str:
    from pipeline.report.plots import shown_rows

    out = "## Simulated play\n\n"
    for m in found:
        rows = [[r["strategy"], r["runs"], r["opener"], None if r["mean"] is None else round(r["mean"], 4),
                 None if r["mean"] is None else f"[{r['ci_low']:.4f}, {r['ci_high']:.4f}]", r["max"], r["failures"]]
                for r in shown_rows(m["path"])]
        out += _table(["strategy", "runs", "opener", "mean", "95 % interval", "max", "lost"], rows) + \
            f"\n({m['run_seconds']} s)\n\n"
    return out


def openers_section(found, game) -> str:
    out = "## Opener ranking by information\n\n"
    for m in found:
        table = read_table(m["path"] / OPENER_RANKING.name).slice(0, 10).to_pylist()
        over = m.get("summary", {}).get("candidates", "answers")
        rows = [[r["opener"], round(r["avg_bits"], 4), round(r["avg_remaining"], 2), r["parts"], r["largest"]]
                for r in table]
        out += f"Candidates counted among the {over}:\n\n" + _table(
            ["opener", "bits", "left", "parts", "largest"], rows) + f"\n({m['run_seconds']} s)\n\n"
    return out


# stage -> its section of report.md, from that stage's manifests (at least one)
SECTIONS = {"heuristics": heuristics_section, "upper_bound": upper_bound_section, "lower_bound": lower_bound_section,
            "exact": exact_section, "prove": prove_section, "blindfold": blindfold_section,
            "simulate": simulate_section, "openers": openers_section}


def run(ctx: StageContext, cfg: ReportConfig) -> dict:
    from pipeline.config.validation import at_least

    at_least(cfg, "tree_depth", 1)  # the report has no inputs: checked here, before anything is written
    game = ctx.game
    found = gathered(ctx.store, game)
    text = f"# Report: {game.name}\n\n|S| = {len(game.secrets)}, |G| = {len(game.guesses)}, hard mode: {game.hard_mode}\n\n"
    rows = verdicts(ctx.store, game)
    for stage, section in SECTIONS.items():  # a section for every stage with artifacts, its verdicts beside it
        if found[stage]:
            text += section(found[stage], game) + "\n" + variant_note(found[stage])
            text += verdict_section([r for r in rows if r["stage"] == stage], "Published figures (stage=reproduce):")
    shown = {s for s in SECTIONS if found[s]}
    text += verdict_section([r for r in rows if r["stage"] not in shown], "## Published figures (stage=reproduce)")
    text += tree_picture(ctx, cfg, game, found["exact"])
    missing = [s for s in REPORTED if not found[s]]
    if missing:
        text += "## Missing artifacts\n\n" + "".join(
            f"- {s}: `python -m pipeline stage={s} game={game.name}`\n" for s in missing)
    plots = make_plots(ctx, found) if cfg.plots else []
    text += "".join(f"\n![{p}]({p})\n" for p in plots)
    ctx.out.file(REPORT.name).write_text(text)
    return {"sections": [s for s in SECTIONS if found[s]], "missing": missing, "plots": plots,
            "verdicts": {v: sum(r["verdict"] == v for r in rows) for v in ("pass", "fail", "not run")}}


def make_plots(ctx: StageContext, found) -> list[str]:
    from pipeline.report import plots

    made = []
    if found["lower_bound"]:
        made.append(plots.funnel_plot(ctx.out.file(plots.FUNNEL), found["lower_bound"][-1]["path"]))
    if found["upper_bound"]:
        best = min(found["upper_bound"], key=lambda m: summary_of(m, "upper_bound")["ub"])
        made.append(plots.distribution_plot(ctx.out.file(plots.DISTRIBUTION), best["path"]))
        made.append(plots.openers_plot(ctx.out.file(plots.OPENER_TOTALS), found["upper_bound"]))
    if found["simulate"]:
        made.append(plots.simulated_plot(ctx.out.file(plots.SIMULATED), found["simulate"][-1]["path"]))
    if found["openers"]:
        made.append(plots.information_plot(ctx.out.file(plots.OPENER_INFORMATION), found["openers"][-1]["path"]))
    return [name for name in made if name]


def best_drawn_tree(store, game, exact_found) -> tuple[int, str, object] | None:
    """(total, label, tree file) of the store's best tree for `game`: the lowest total among the best upper_bound
    tree and every exact tree (upper_bound first on a tie), so a game solved only by `exact` is drawn too."""
    from pipeline.artifacts.find import best_tree
    from pipeline.artifacts.trees import tree_path

    stored = best_tree(store, game)
    candidates = [] if stored is None else [(stored.total, stored.label, stored.path)]
    for m in exact_found:
        candidates += [(r["total"], f"exact/{m['key']}, {r['opener']}", tree_path(m["path"], r["opener"]))
                       for r in read_table(m["path"] / EXACT.name).to_pylist() if r["total"] is not None]
    return min(candidates, key=lambda c: c[0]) if candidates else None


def tree_picture(ctx: StageContext, cfg: ReportConfig, game, exact_found) -> str:
    """The best tree's top `cfg.tree_depth` levels as tree.svg (Figure 2); "" if there is none."""
    from pipeline.artifacts.trees import load_tree
    from pipeline.artifacts.tree_svg import tree_svg

    best = best_drawn_tree(ctx.store, game, exact_found)
    if best is None:
        return ""
    total, label, path = best
    tree = load_tree(path, game).tree
    title = f"{game.name}: {tree.guess}, total {total} ({label}, levels 1-{cfg.tree_depth})"
    ctx.out.file(REPORT_TREE.name).write_text(tree_svg(tree, cfg.tree_depth, title))
    return (f"## Strategy tree (Figure 2)\n\nThe best tree ({label}, total {total}), levels 1 to "
            f"{cfg.tree_depth}: [tree.svg](tree.svg)\n\n![tree](tree.svg)\n\n")


def headline(summary: dict, folder) -> str:
    """The report's sections, what is missing and the published figures' verdicts."""
    v = summary.get("verdicts", {})
    missing = f"; missing {', '.join(summary['missing'])}" if summary.get("missing") else ""
    return (f"report.md with {', '.join(summary['sections']) or 'no sections'}{missing}; published figures "
            f"{v.get('pass', 0)} pass, {v.get('fail', 0)} fail, {v.get('not run', 0)} not run")
