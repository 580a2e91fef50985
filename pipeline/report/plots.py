"""The report's PNG plots (matplotlib, no display needed)."""

import json

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
import pyarrow.parquet as pq  # noqa: E402


def funnel_plot(path, lower_bound_dir) -> str:
    summary = json.loads((lower_bound_dir / "summary.json").read_text())
    levels = [f["level"] for f in summary["funnel"]]
    survivors = [f["survivors"] for f in summary["funnel"]]
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar([f"V{lv}" if lv else "all" for lv in levels], survivors, color="#4c72b0")
    ax.set_yscale("log")
    ax.set_ylabel("openers with V_i ≤ UB")
    ax.set_title(f"Lower-bound funnel (UB = {summary['ub']})")
    for x, y in enumerate(survivors):
        ax.annotate(str(y), (x, y), ha="center", va="bottom")
    return _save(fig, path)


def distribution_plot(path, upper_bound_dir) -> str:
    summary = json.loads((upper_bound_dir / "summary.json").read_text())
    dist = {int(k): v for k, v in summary["distribution"].items()}
    fig, ax = plt.subplots(figsize=(6, 4))
    ax.bar(list(dist), list(dist.values()), color="#55a868")
    ax.set_xlabel("guesses")
    ax.set_ylabel("secrets")
    ax.set_title(f"Best tree: {summary['opener']} total {summary['ub']}")
    return _save(fig, path)


def openers_plot(path, upper_bound_manifests) -> str:
    best = {}
    for m in upper_bound_manifests:
        for r in pq.read_table(m["path"] / "openers.parquet").to_pylist():
            best[r["opener"]] = min(best.get(r["opener"], r["total"]), r["total"])
    ranked = sorted(best.items(), key=lambda kv: (kv[1], kv[0]))[:30]
    fig, ax = plt.subplots(figsize=(7, max(3, 0.25 * len(ranked))))
    ax.barh([w for w, _ in ranked][::-1], [t for _, t in ranked][::-1], color="#c44e52")
    ax.set_xlim(min(t for _, t in ranked) * 0.995, max(t for _, t in ranked) * 1.002)
    ax.set_xlabel("ApMinTotal total with this opener")
    ax.set_title("Opener ranking")
    return _save(fig, path)


def _save(fig, path) -> str:
    fig.tight_layout()
    fig.savefig(path, dpi=100)
    plt.close(fig)
    return path.name
