"""A sweep's summary: one row per point (point, overrides, status, artifact, wall, result or error), as the
table printed at the end of `-m`, and as `summary.json` and `summary.md` in the sweep's folder."""

import json
import os
from pathlib import Path

COLUMNS = ("point", "overrides", "status", "artifact", "wall", "result")


def varying(rows: list[dict]) -> list[list[str]]:
    """Each row's overrides without those every point shares (the table shows what tells the points apart)."""
    shared = set.intersection(*(set(row["overrides"]) for row in rows)) if len(rows) > 1 else set()
    return [[item for item in row["overrides"] if item not in shared] for row in rows]


def cells(rows: list[dict]) -> list[tuple[str, ...]]:
    """The table's cells, one tuple a row in COLUMNS' order."""
    return [(str(row["point"]), " ".join(own) or "(none)", row["status"],
             Path(row["artifact"]).name if row["artifact"] else "-", f"{row['wall_s']:.1f}s",
             row["result"] if row["status"] == "ok" else row["error"])
            for row, own in zip(rows, varying(rows))]


def table(rows: list[dict]) -> str:
    """Aligned plain-text columns for a terminal."""
    body = [COLUMNS, *cells(rows)]
    widths = [max(len(line[i]) for line in body) for i in range(len(COLUMNS) - 1)]
    return "\n".join("  ".join([*(text.ljust(width) for text, width in zip(line, widths)), line[-1]]).rstrip()
                     for line in body)


def markdown(rows: list[dict]) -> str:
    """The same table in Markdown, every cell literal text (overrides and errors may hold `|`, `<`, backticks)."""
    from pipeline.artifacts.markdown import md_row

    lines = [md_row(COLUMNS), "|" + "---|" * len(COLUMNS), *(md_row(line) for line in cells(rows))]
    return "\n".join(lines) + "\n"


def write_summary(folder: Path, rows: list[dict], stopped_by: str | None = None) -> None:
    """summary.json (every row, artifact paths in full; `stopped_by`: the signal that stopped the sweep, if one
    did) and summary.md, each written whole or not at all."""
    body = {"points": len(rows), "failed": [row["point"] for row in rows if row["status"] != "ok"],
            **({"stopped_by": stopped_by} if stopped_by else {}), "rows": rows}
    for name, text in (("summary.json", json.dumps(body, indent=2) + "\n"), ("summary.md", markdown(rows))):
        partial = folder / f".{name}.partial"
        partial.write_text(text)
        os.replace(partial, folder / name)
