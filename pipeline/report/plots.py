"""The report's PNG plots (matplotlib, no display needed).

Every plot has its own file name (the openers stage's own `openers.png` is another picture).  Counts of guesses
are integers, so those axes carry integer ticks only; value axes start at zero, and where the values differ by
a fraction of a percent (opener totals, opener information) the plot shows the difference from the best itself
(each bar labelled with its value and the difference), never a clipped axis that would make it look large nor
bars from zero that would make it invisible."""

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import MaxNLocator  # noqa: E402

from pipeline.artifacts import outputs  # noqa: E402
from pipeline.artifacts.outputs import read_table  # noqa: E402
from pipeline.runtime.store import read_json_file  # noqa: E402

# the report's plot files, declared with the report's other outputs (pipeline/artifacts/outputs.py)
FUNNEL, DISTRIBUTION = outputs.FUNNEL_PLOT.name, outputs.DISTRIBUTION_PLOT.name
OPENER_TOTALS, SIMULATED = outputs.OPENER_TOTALS_PLOT.name, outputs.SIMULATED_PLOT.name
OPENER_INFORMATION = outputs.OPENER_INFORMATION_PLOT.name


def funnel_plot(path, lower_bound_dir) -> str:
    summary = read_json_file("lower_bound", lower_bound_dir / outputs.LB_SUMMARY.name, dict)
    levels = [f["level"] for f in summary["funnel"]]
    survivors = [f["survivors"] for f in summary["funnel"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([f"V{lv}" if lv else "all" for lv in levels], survivors, color="#4c72b0")
    ax.set_yscale("log")
    ax.set_ylabel("openers with V_i ≤ UB (log scale)")
    ax.set_title(f"Lower-bound funnel (UB = {summary['ub']})")
    for x, y in enumerate(survivors):
        ax.annotate(str(y), (x, y), ha="center", va="bottom")
    return _save(fig, path)


def _integer_guess_axis(ax, guesses) -> None:
    ax.set_xticks(list(range(min(guesses), max(guesses) + 1)))
    ax.set_xlabel("guesses")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))


def distribution_plot(path, upper_bound_dir) -> str:
    """Secrets per number of guesses in the best upper-bound tree."""
    summary = read_json_file("upper_bound", upper_bound_dir / outputs.UB_SUMMARY.name, dict)
    dist = {int(k): v for k, v in summary["distribution"].items()}
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(list(dist), list(dist.values()), color="#55a868")
    for g, n in dist.items():
        ax.annotate(str(n), (g, n), ha="center", va="bottom")
    _integer_guess_axis(ax, list(dist))
    ax.set_ylabel("secrets")
    ax.set_title(f"Best tree: {summary['opener']} total {summary['ub']}")
    return _save(fig, path)


def best_totals(upper_bound_manifests) -> list[tuple[str, int]]:
    """(opener, least ApMinTotal total over the artifacts), best first (ties: alphabetical); openers without a
    total (no tree within the guess limit) left out."""
    best = {}
    for m in upper_bound_manifests:
        for r in read_table(m["path"] / outputs.OPENER_TOTALS.name).to_pylist():
            if r["total"] is None:
                continue
            best[r["opener"]] = min(best.get(r["opener"], r["total"]), r["total"])
    return sorted(best.items(), key=lambda kv: (kv[1], kv[0]))


def openers_plot(path, upper_bound_manifests, top: int = 30) -> str | None:
    """Each opener's total above the best one, from zero: the bars are the differences themselves (None: no
    opener has a total)."""
    ranked = best_totals(upper_bound_manifests)[:top]
    if not ranked:
        return None
    best = ranked[0][1]
    fig, ax = plt.subplots(figsize=(7, max(3, 0.25 * len(ranked) + 1)))
    words, extra = [w for w, _ in ranked][::-1], [t - best for _, t in ranked][::-1]
    ax.barh(words, extra, color="#c44e52")
    for y, e in enumerate(extra):
        ax.annotate(f"+{e} (+{100 * e / best:.2f} %)", (e, y), xytext=(3, 0), textcoords="offset points",
                    va="center", fontsize=7)
    ax.set_xlim(0, max(max(extra), 1) * 1.3)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True))
    ax.set_xlabel(f"ApMinTotal total minus the best ({ranked[0][0]}: {best})")
    ax.set_title("Opener ranking: extra guesses over the best opener")
    return _save(fig, path)


def shown_rows(simulate_dir) -> list[dict]:
    """One simulate.parquet row per strategy: its pooled row over the seeds when there is one."""
    rows = read_table(simulate_dir / outputs.SIMULATED.name).to_pylist()
    chosen = {}
    for r in rows:
        if r["strategy"] not in chosen or r["seed"] is None:
            chosen[r["strategy"]] = r
    return list(chosen.values())


def simulated_plot(path, simulate_dir) -> str:
    """The share of games won with each number of guesses, one bar per strategy (pooled over seeds)."""
    rows = shown_rows(simulate_dir)
    dists = [{int(g): n for g, n in json.loads(r["distribution"]).items()} for r in rows]
    guesses = sorted({g for d in dists for g in d}) or [1]
    width = 0.8 / max(len(rows), 1)
    fig, ax = plt.subplots(figsize=(7, 4))
    for i, (r, d) in enumerate(zip(rows, dists)):
        games = sum(d.values()) + r["failures"]
        mean = "—" if r["mean"] is None else f"{r['mean']:.3f}"
        lost = f", {r['failures']} lost" if r["failures"] else ""
        ax.bar([g - 0.4 + width * (i + 0.5) for g in guesses], [100 * d.get(g, 0) / games for g in guesses],
               width, label=f"{r['strategy']} (mean {mean}{lost})")
    ax.set_xticks(list(range(min(guesses), max(guesses) + 1)))
    ax.set_xlabel("guesses")
    ax.set_ylabel("% of games")
    ax.set_ylim(0, None)
    ax.legend(fontsize=7)
    ax.set_title("Simulated games: guesses needed")
    return _save(fig, path)


def information_plot(path, openers_dir, top: int = 20, title: str | None = None) -> str:
    """The openers stage's best openers by average information, as the bits each gives fewer than the best one,
    from zero (the top openers differ by hundredths of a bit: bars of the bits themselves would look equal); each
    bar is labelled with its bits and words left.  The openers stage draws its own openers.png with it too."""
    rows = read_table(openers_dir / outputs.OPENER_RANKING.name).slice(0, top).to_pylist()
    best = rows[0]
    short = [best["avg_bits"] - r["avg_bits"] for r in rows]
    fig, ax = plt.subplots(figsize=(7.5, 0.25 * len(rows) + 1.7))
    ax.barh(range(len(rows)), short, color="#4c72b0")
    ax.set_yticks(range(len(rows)), [r["opener"] for r in rows])
    ax.invert_yaxis()
    for y, (r, d) in enumerate(zip(rows, short)):
        gap = "best" if y == 0 else f"−{d:.3f}"
        ax.annotate(f"{r['avg_bits']:.3f} bits ({gap}), {r['avg_remaining']:.1f} left", (d, y), xytext=(3, 0),
                    textcoords="offset points", va="center", fontsize=7)
    ax.set_xlim(0, max(max(short), 1e-3) * 1.6)
    ax.set_xlabel(f"bits fewer than the best opener ({best['opener']}: {best['avg_bits']:.3f} bits)")
    ax.set_title(title or f"Top {len(rows)} openers by information")
    return _save(fig, path)


def _save(fig, path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name
