"""The catalogue (pipeline/artifacts/catalogue.py) as catalogue.md and as a static index.html.

Both show the same cells, computed once by `cells`: every number as the certificate states it (the optimum, the
worst case), the average as the exact fraction optimum/|S| beside its decimal, never a published constant.  The
page is one table and plain CSS, no script, nothing fetched: it reads the same from a copied folder.  Each row
with a tree links its explorer page (pipeline/artifacts/tree_explorer.py), whose heading and facts are here.  Each
row says where its certificates come from (a committed archive, this outputs folder, or both, and then whether
they agree on the optimum); a committed archive not verified here names the command that checks it."""

import re
from html import escape
from urllib.parse import quote

from pipeline.artifacts.markdown import md_row, md_text

COLUMNS = ("game", "mode", "guess limit", "optimum (total)", "average", "worst case", "optimal openers", "funnel",
           "certificate sha256", "verified", "source", "links", "shown")
SOURCE_NAMES = {"committed": "committed archive", "outputs": "this outputs folder"}
SHA, STATE, LINKS = (COLUMNS.index(c) for c in ("certificate sha256", "verified", "links"))  # marked up per format


def openers_text(openers: list[str], shown: int) -> str:
    """The first `shown` openers, and how many more catalogue.json lists."""
    if len(openers) <= shown:
        return ", ".join(openers)
    return f"{', '.join(openers[:shown])} and {len(openers) - shown} more (in catalogue.json)"


def average_text(entry: dict) -> str:
    """`2.640777 (544/206)`: the decimal, then the exact fraction it comes from."""
    if entry["average"] is None:
        return ""
    return f"{entry['average']:.6f} ({entry['optimum']}/{entry['game']['n_secrets']})"


def optimum_text(entry: dict) -> str:
    if entry["optimum"] is not None:
        return str(entry["optimum"])
    if entry["kind"] == "infeasible":
        return "no strategy within the limit" + (" (proven)" if entry["proven"] else "")
    return f"not proven (upper bound {entry['upper_bound']})"


def verified_text(entry: dict) -> str:
    """`verified here by …` only for a record this machine's checker sealed (pipeline/proofs/certificates/record.py)."""
    check = entry["verification"]
    if entry["verified"]:
        named = f", as {check['checked_as']}" if check.get("checked_as") else ""
        return (f"verified here by checker version {check['checker_version']} (code {check['checker_code'][:12]}) "
                f"at {check['checked_at']}{named}")
    how = f"; check it: {entry['check_command']}" if entry["check_command"] else ""
    if check["state"] == "partially checked":
        return f"not verified here: only a sample was checked (at {check['checked_at']}){how}"
    return f"not verified here: {check['why']}{how}"


def source_text(row: dict) -> str:
    """Where the row's certificates come from; with both, whether they agree on the optimum (as each claims it)."""
    if row["source"] != "both":
        return SOURCE_NAMES[row["source"]]
    claims = "; ".join(f"{SOURCE_NAMES[s]}: {', '.join(c) or 'no proven optimum'}" for s, c in row["claims"].items())
    verdict = {None: "one proves no optimum", True: "they agree on the optimum",
               False: "they disagree on the optimum"}[row["agree"]]
    return f"both; {verdict} ({claims})"


def links(entry: dict) -> list[tuple[str, str]]:
    """(label, relative URL) of the entry's files that exist: the tree's explorer page (a row's shown certificate
    with a tree: pipeline/artifacts/tree_explorer.py), tree picture, certificate, bundle.  The paths are quoted: a
    leaderboard's tree files are named with % escapes (tree-4%2A7%3D28.svg), which a URL spells %25."""
    named = (("explore the tree", entry["explorer_path"]), ("tree.svg", entry["tree_svg_path"]),
             ("certificate.json", entry["certificate_path"]), ("bundle", entry["bundle_path"]))
    return [(label, quote(target)) for label, target in named if target]


def explorer_heading(row: dict) -> str:
    limit = "no guess limit" if row["guess_limit"] is None else f"at most {row['guess_limit']} guesses"
    return f"{row['game']}: {row['mode']} mode, {limit}"


def explorer_facts(row: dict) -> list[str]:
    """What an explorer page says of its row's certificate, in the catalogue's own words."""
    entry = row["shown"]
    return [f"optimum (total): {optimum_text(entry)} over {row['secrets']} secrets ({row['guesses']} allowed "
            f"guesses), average {average_text(entry)}", f"worst case: {entry['worst_case']} guesses",
            f"optimal openers: {openers_text(entry['optimal_openers'], len(entry['optimal_openers']))}",
            f"certificate: {entry['kind']} {entry['folder']}, sha256 {entry['certificate_sha256']}; the tree: "
            f"{entry['tree_file']}, sha256 {entry['tree_sha256']}", verified_text(entry)]


def cells(row: dict, openers_shown: int) -> list[str]:
    """The row's cells as text, in COLUMNS order (links and sha256 are marked up by each format)."""
    entry = row["shown"]
    limit = "none" if row["guess_limit"] is None else str(row["guess_limit"])
    return [f"{row['game']} (|S| {row['secrets']}, |G| {row['guesses']})", row["mode"], limit,
            optimum_text(entry), average_text(entry), "" if entry["worst_case"] is None else str(entry["worst_case"]),
            openers_text(entry["optimal_openers"], openers_shown), " → ".join(map(str, entry["funnel"])),
            entry["certificate_sha256"], verified_text(entry), source_text(row), "",
            f"{entry['kind']} {entry['folder']}: {row['shown_as']}"]


def is_empty(catalogue: dict) -> bool:
    return not catalogue["counts"]["certificates"] and not catalogue["counts"]["unreadable"]


def headline_text(catalogue: dict, outputs: str) -> str:
    c = catalogue["counts"]
    if is_empty(catalogue):
        return f"no certificates under {outputs}"
    unreadable = f", {c['unreadable']} unreadable" if c["unreadable"] else ""
    committed = f" ({c['committed']} in committed archives)" if c["committed"] else ""
    return (f"{counted(c['results'], 'result')} ({c['verified']} verified) from "
            f"{counted(c['certificates'], 'certificate')}{committed}{unreadable}")


def counted(n: int, thing: str) -> str:
    return f"{n} {thing}{'' if n == 1 else 's'}"


def others(catalogue: dict) -> list[tuple[dict, dict]]:
    """(row, entry) of every certificate not shown in its row."""
    return [(row, entry) for row in catalogue["rows"] for entry in row["others"]]


# ---- Markdown --------------------------------------------------------------------------------------------------


def markdown(catalogue: dict, outputs: str, openers_shown: int) -> str:
    """catalogue.md: every text from the certificates, folders, records and settings written literally
    (pipeline/artifacts/markdown.py); only the sha256 (hex this stage computed) is a code span."""
    where = "" if is_empty(catalogue) else f" under {outputs}"  # an empty catalogue's headline names it
    text = f"# Catalogue of certificates\n\n{md_text(headline_text(catalogue, outputs) + where)}.\n\n"
    text += verified_note(catalogue) + "\n\n"
    if catalogue["rows"]:
        text += md_row(COLUMNS) + "\n|" + "---|" * len(COLUMNS) + "\n"
        for row in catalogue["rows"]:
            values = [md_text(value) for value in cells(row, openers_shown)]
            values[SHA] = f"`{values[SHA]}`"
            values[LINKS] = ", ".join(f"[{label}]({target})" for label, target in links(row["shown"]))
            text += "| " + " | ".join(values) + " |\n"
    if others(catalogue):
        text += "\n## Other certificates of the same rows\n\n"
        text += "".join(f"- {md_text(other_text(row, e))}" + (
            f" ([certificate.json]({quote(e['certificate_path'])}))" if e["certificate_path"] else "") + "\n"
            for row, e in others(catalogue))
    if catalogue["unreadable"]:
        text += "\n## Unreadable certificates\n\n"
        text += "".join(f"- {md_text(u['folder'])}: {md_text(u['problem'])}\n" for u in catalogue["unreadable"])
    return text


def other_text(row: dict, entry: dict) -> str:
    """A certificate not shown in its row, in words: its row, kind, folder, claim and verification."""
    return (f"{row['game']} {row['mode']}, limit {row['guess_limit']}: {entry['kind']} {entry['folder']}, "
            f"{optimum_text(entry)}, {verified_text(entry)}")


def verified_note(catalogue: dict) -> str:
    return (f"Verified means: a complete check by `python -m pipeline verify-certificate` on this machine, by this "
            f"checker (version {catalogue['checker_version']}, the same code), over the files as they are now (a "
            f"committed archive: those very bytes), its record sealed with this machine's checker key; a record "
            f"copied from elsewhere is not verified here.")


# ---- HTML ------------------------------------------------------------------------------------------------------

STYLE = """
body { font-family: "Liberation Sans", Arial, sans-serif; margin: 1.5em; color: #1a1a1a; }
table { border-collapse: collapse; font-size: 14px; }
th, td { border: 1px solid #b8b8b8; padding: 4px 8px; text-align: left; vertical-align: top; }
th { background: #eceff3; }
td.number { text-align: right; font-variant-numeric: tabular-nums; }
td.sha { font-family: "Liberation Mono", monospace; font-size: 12px; }
tr.verified td.state { background: #dff3e0; }
tr.unverified td.state { background: #fbe9d0; }
"""
NUMBERS = {COLUMNS.index(c) for c in ("guess limit", "optimum (total)", "average", "worst case")}  # right-aligned


def html_row(row: dict, openers_shown: int) -> str:
    entry, values = row["shown"], cells(row, openers_shown)
    out = []
    for i, value in enumerate(values):
        if i == SHA:
            out.append(f'<td class="sha" title="{escape(value)}">{escape(value[:16])}…</td>')
        elif i == STATE:
            out.append(f'<td class="state">{escape(value)}</td>')
        elif i == LINKS:
            out.append("<td>" + " ".join(f'<a href="{escape(target)}">{escape(label)}</a>'
                                         for label, target in links(entry)) + "</td>")
        else:
            out.append(f'<td class="number">{escape(value)}</td>' if i in NUMBERS else f"<td>{escape(value)}</td>")
    state = "verified" if entry["verified"] else "unverified"
    return f'<tr class="{state}" data-game="{escape(row["game"])}">' + "".join(out) + "</tr>"


def as_code(text: str) -> str:
    """`command` spans (Markdown) as <code> elements."""
    return re.sub(r"`([^`]*)`", r"<code>\1</code>", text)


def page(catalogue: dict, outputs: str, openers_shown: int) -> str:
    body = ["<h1>Catalogue of certificates</h1>", f"<p id=\"counts\">{escape(headline_text(catalogue, outputs))}."
            f"</p>", f"<p>{as_code(escape(verified_note(catalogue)))}</p>"]
    if catalogue["rows"]:
        header = "".join(f"<th>{escape(c)}</th>" for c in COLUMNS)
        rows = "\n".join(html_row(r, openers_shown) for r in catalogue["rows"])
        body.append(f'<table id="results"><thead><tr>{header}</tr></thead><tbody>{rows}</tbody></table>')
    if others(catalogue):
        body.append('<h2>Other certificates of the same rows</h2><ul id="others">' + "".join(
            f"<li>{escape(other_text(row, e))}" + (
                f' (<a href="{escape(quote(e["certificate_path"]))}">certificate.json</a>)' if e["certificate_path"]
                else "") + "</li>"
            for row, e in others(catalogue))
            + "</ul>")
    if catalogue["unreadable"]:
        body.append('<h2>Unreadable certificates</h2><ul id="unreadable">' + "".join(
            f"<li><code>{escape(u['folder'])}</code>: {escape(u['problem'])}</li>" for u in catalogue["unreadable"])
            + "</ul>")
    return ("<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\"><title>Catalogue of certificates"
            f"</title><style>{STYLE}</style></head>\n<body>\n" + "\n".join(body) + "\n</body></html>\n")
