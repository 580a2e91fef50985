"""The reference tier: every published figure as a check (what to run, what to read, the rule that decides).

A `Check` names one published figure, the rule it is judged by and how to read the computed value from the
artifacts of one `Experiment` (a stage run on a game with given settings; the stage's inputs come with it).
`stage=reproduce` runs the experiments through the runner and turns each check into a row of reproduce.json.

Rules (RULES):
- equal:               the computed value is the published one (to the published number of decimals when the
                       source rounds, `digits`);
- at-or-below:         the computed value is at most the published one (an upper bound at least as good);
- inside-95%-interval: the published value lies in the computed 95 % interval (a simulated mean);
- within-tolerance:    |computed - published| <= `tolerance` (a figure computed on other word lists than ours:
                       the check states the tolerance and the row shows it).
A check whose experiment the pipeline cannot run yet has verdict "not run" and a reason; it never passes.
"""

from dataclasses import dataclass, field
from typing import Any, Callable

RULES = ("equal", "at-or-below", "inside-95%-interval", "within-tolerance")
PASS, FAIL, NOT_RUN = "pass", "fail", "not run"
GROUPS = ("table1", "table2", "table3", "table4", "closure", "hard", "blindfold6", "blindfold10", "hybrid",
          "simple", "openers", "general")
PAPER = "Cunanan & Thielscher 2023"
SOURCES = {"table1": f"{PAPER}, Table 1", "table2": f"{PAPER}, Table 2", "table3": f"{PAPER}, Table 3",
           "table4": f"{PAPER}, Table 4", "closure": f"{PAPER}, Section 5", "hard": "exhaustive solvers (exact)",
           "blindfold6": "Poirrier, blindfold note", "blindfold10": "Poirrier, blindfold note",
           "hybrid": "Poirrier, blindfold note (conclusion)",
           "simple": "write-up, simple strategies", "openers": "write-up, opener ranking",
           "general": "Koyama & Lai 1993 (Mastermind)"}


@dataclass(frozen=True)
class Check:
    """One published figure: its id, what it is, its value and rule, and how to read ours.

    `read(artifacts)` gets the experiment's artifacts by stage name and returns the computed value, or
    (mean, [low, high]) for the interval rule."""

    id: str
    figure: str
    published: Any
    rule: str
    read: Callable[[dict], Any]
    digits: int | None = None  # equal after rounding to this many decimals (the source's precision)
    tolerance: float | None = None  # within-tolerance: the largest |computed - published| that passes


@dataclass(frozen=True)
class Experiment:
    """A stage run on a shipped game (`game_settings` overriding its config), with `settings` for the stage
    and `upstream` settings for its inputs; `unavailable` = why the pipeline cannot run it yet."""

    group: str
    game: str
    stage: str
    checks: tuple[Check, ...]
    settings: dict = field(default_factory=dict)
    upstream: dict = field(default_factory=dict)
    game_settings: dict = field(default_factory=dict)
    unavailable: str | None = None


# ---- verdicts ------------------------------------------------------------------------------------------------


def _rounded(value, digits):
    return value if digits is None or not isinstance(value, (int, float)) else round(value, digits)


def verdict(rule: str, published, computed, interval=None, digits: int | None = None,
            tolerance: float | None = None) -> str:
    """pass or fail of one computed value under `rule` (a missing value fails)."""
    if computed is None:
        return FAIL
    if rule == "within-tolerance":
        if tolerance is None:
            raise ValueError("rule within-tolerance needs a tolerance")
        return PASS if abs(computed - published) <= tolerance else FAIL
    if rule == "equal":
        return PASS if _rounded(computed, digits) == published else FAIL
    if rule == "at-or-below":
        return PASS if computed <= published else FAIL
    if rule == "inside-95%-interval":
        return PASS if interval is not None and interval[0] <= published <= interval[1] else FAIL
    raise ValueError(f"unknown rule {rule!r}; rules: {', '.join(RULES)}")


def judged(check: Check, experiment: Experiment, artifacts: dict) -> dict:
    """The row of a check whose experiment ran: computed value, interval (if any), verdict, artifact folder."""
    value = check.read(artifacts)
    interval = None
    if check.rule == "inside-95%-interval" and value is not None:
        value, interval = value
    row = base_row(check, experiment)
    row.update(computed=value, verdict=verdict(check.rule, check.published, value, interval, check.digits,
                                                  check.tolerance),
               artifact=str(artifacts[experiment.stage].path))
    if interval is not None:
        row["interval"] = list(interval)
    return row


def unjudged(check: Check, experiment: Experiment, verdict_: str, reason: str) -> dict:
    """The row of a check whose experiment did not run (not run) or ended in an error (fail)."""
    return {**base_row(check, experiment), "computed": None, "verdict": verdict_, "reason": reason}


def base_row(check: Check, experiment: Experiment) -> dict:
    return {"id": check.id, "group": experiment.group, "source": SOURCES[experiment.group], "figure": check.figure,
            "game": experiment.game, "game_settings": dict(experiment.game_settings), "stage": experiment.stage,
            "published": check.published, "rule": check.rule,
            **({"digits": check.digits} if check.digits is not None else {}),
            **({"tolerance": check.tolerance} if check.tolerance is not None else {})}


def fits_game(row: dict, name: str, identity: dict) -> bool:
    """Whether a row was computed on this game: its recorded identity (lists, alphabet, mode, limit) when the
    game was loaded, else its name and settings (the shipped game, in hard mode if the game is)."""
    if row.get("game_identity"):
        return row["game_identity"] == identity
    settings = {"hard_mode": True} if identity.get("hard_mode") else {}
    return row["game"] == name and {k: v for k, v in row["game_settings"].items() if v} == settings


# ---- reading artifacts ---------------------------------------------------------------------------------------


def row_value(stage: str, file: str, column: str, **where):
    """A reader of `column` in the first row of a Parquet file of `stage` matching `where` (None if none does)."""
    def read(artifacts):
        rows = artifacts[stage].read_table(file).to_pylist()
        return next((r[column] for r in rows if all(r[k] == v for k, v in where.items())), None)
    return read


def summary_value(artifacts, stage, key):
    return artifacts[stage].read_json("summary.json").get(key)



def best_heuristics(artifacts, column):
    summary = artifacts["heuristics"].manifest["summary"]
    return summary.get({"total": "best_total", "count": "combinations_at_best"}[column])


def funnel_survivors(level):
    def read(artifacts):
        funnel = summary_value(artifacts, "lower_bound", "funnel")
        return next((f["survivors"] for f in funnel if f["level"] == level), None)
    return read



def funnel_closed_at(artifacts):
    """The level after which the funnel leaves a single opener (None if it never does)."""
    funnel = summary_value(artifacts, "lower_bound", "funnel")
    return next((f["level"] for f in funnel if f["survivors"] == 1), None)


def proof_of(artifacts):
    """'<total> by <opener(s)>' when the certificate proves it and verify-certificate has checked it in full as it
    is now (pipeline/proofs/certificates/record.py), else what it says."""
    from pipeline.proofs.certificates.record import status

    c, check = artifacts["prove"].read_json("certificate.json"), status(artifacts["prove"].path)
    if not c["proven"]:
        return f"not proven (UB {c['ub']})"
    claim = f"{c['ub']} by {','.join(c['optimal_openers'])}"
    return claim if check.verified else f"{claim}, {check.label()}"


def proven_total(artifacts):
    """The certificate's optimum when it proves one and is verified in full, else None (a failing row)."""
    from pipeline.proofs.certificates.record import status

    c = artifacts["prove"].read_json("certificate.json")
    return c["ub"] if c["proven"] and status(artifacts["prove"].path).verified else None


def class_sum(opener):
    def read(artifacts):
        survivors = artifacts["prove"].read_json("certificate.json")["survivors"]
        return next((s["sum"] for s in survivors if s["opener"] == opener), None)
    return read



def solution_of(key):
    return lambda artifacts: artifacts["blindfold"].read_json("solution.json").get(key)


def unique_set(artifacts):
    """True when the no-good solve proved no other set of f* guesses separates every secret; False when it
    found one; else why it stopped (time or round limit) before deciding."""
    found = artifacts["blindfold"].read_json("solution.json").get("uniqueness")
    if not found or found["unique"] is not None:
        return None if not found else found["unique"]
    return f"not proven: the uniqueness solve stopped ({found['status']}) after {found['rounds']} rounds"


def chosen_set(artifacts):
    return sorted(artifacts["blindfold"].read_json("solution.json").get("guesses", []))


def simulated(strategy):
    def read(artifacts):
        found = artifacts["simulate"].manifest["summary"]["strategies"].get(strategy)
        return None if not found or found["mean"] is None else (found["mean"], found["ci"])
    return read



# ---- showing rows --------------------------------------------------------------------------------------------


def shown(value) -> str:
    """A published or computed value as a table cell."""
    if value is None:
        return "—"
    if isinstance(value, list):
        return " ".join(map(str, value))
    if isinstance(value, float):
        return f"{value:.6g}"  # enough for a published figure as printed (273.92, 1048.32)
    return str(value)


def computed_cell(row: dict) -> str:
    cell = shown(row["computed"])
    if row.get("interval"):
        cell += f" [{shown(row['interval'][0])}, {shown(row['interval'][1])}]"
    return cell


def rule_cell(row: dict) -> str:
    if row.get("tolerance") is not None:
        return f"{row['rule']} (±{row['tolerance']:.4g})"
    return row["rule"] + (f" ({row['digits']} decimals)" if row.get("digits") is not None else "")


def game_cell(row: dict) -> str:
    """The row's game with the settings that differ from the shipped game's."""
    settings = row.get("game_settings", {})
    notes = [note for key, value, note in (("hard_mode", True, "hard"), ("secrets_are_guesses", True, "S = G"),
                                           ("max_guesses", None, "no guess limit"))
             if key in settings and settings[key] == value]
    return row["game"] + "".join(f" ({note})" for note in notes)


def verdict_table(rows: list[dict]) -> str:
    """Rows as a Markdown table: id, figure, game, published, computed, rule, verdict (bold unless pass)."""
    lines = ["| id | figure | game | published | computed | rule | verdict |", "|---|---|---|---|---|---|---|"]
    for r in rows:
        game = game_cell(r)
        mark = r["verdict"] if r["verdict"] == PASS else f"**{r['verdict']}**"
        lines.append(f"| {r['id']} | {r['figure']} | {game} | {shown(r['published'])} | {computed_cell(r)} | "
                     f"{rule_cell(r)} | {mark} |")
    return "\n".join(lines) + "\n"


def markdown(rows: list[dict]) -> str:
    """reproduce.md: the counts, one table per group (with its source), then why rows did not pass."""
    counts = {v: sum(r["verdict"] == v for r in rows) for v in (PASS, FAIL, NOT_RUN)}
    text = (f"# Published figures reproduced\n\n{counts[PASS]} pass, {counts[FAIL]} fail, {counts[NOT_RUN]} not run "
            f"(not run is never a pass).\n")
    for group in GROUPS:
        mine = [r for r in rows if r["group"] == group]
        if mine:
            text += f"\n## {group} ({mine[0]['source']})\n\n" + verdict_table(mine)
    reasons = [r for r in rows if r.get("reason")]
    if reasons:
        text += "\n## Why\n\n" + "".join(f"- {r['id']} ({r['verdict']}): {r['reason']}\n" for r in reasons)
    return text
