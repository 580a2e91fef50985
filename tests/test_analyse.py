"""`python -m pipeline analyse`: per-guess values against a brute-force MinTotal on a tiny word game."""

import json
import os
import subprocess
import sys
from functools import lru_cache

import pytest

from pipeline.config import PROJECT_ROOT
from pipeline.games.answer import feedback

SECRETS = ["abbey", "abbot", "about", "above", "abyss", "allot", "alloy", "atoll", "babel", "bloat", "tabby",
           "table"]
GUESSES = sorted(SECRETS + ["basal", "bobby", "tabla", "total", "lobby", "stoat"])
LIMIT = 6
INF = 10**9


def pipeline(*args, stdin=""):
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run([sys.executable, "-m", "pipeline", *args], input=stdin, capture_output=True, text=True,
                          cwd=PROJECT_ROOT, timeout=300, env=env)


@lru_cache(maxsize=None)
def min_total(cands: frozenset, left: int) -> int:
    """Brute force: the least total number of guesses finding every secret of `cands` within `left` guesses."""
    if left <= 0:
        return INF
    if len(cands) == 1:
        return 1
    return min(guess_total(g, cands, left) for g in GUESSES)


@lru_cache(maxsize=None)
def guess_total(g: str, cands: frozenset, left: int) -> int:
    """V*(g, C): |C| plus the best totals of the classes g cuts C into (INF if g does not split C)."""
    classes = {}
    for s in cands:
        classes.setdefault(feedback(g, s), set()).add(s)
    if len(classes) == 1 and g not in cands:
        return INF
    total = len(cands)
    for colours, members in classes.items():
        if colours != "22222":
            total += min_total(frozenset(members), left - 1)
    return min(total, INF)


@pytest.fixture(scope="module")
def game_args(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analyse")
    (folder / "secrets.txt").write_text("\n".join(SECRETS) + "\n")
    (folder / "guesses.txt").write_text("\n".join(GUESSES) + "\n")
    return ["game=words", f"game.secrets.path={folder / 'secrets.txt'}",
            f"game.guesses.path={folder / 'guesses.txt'}", f"paths.outputs={folder / 'outputs'}"]


def reference_rows(secret: str, guesses: list[str]) -> list[dict]:
    rows, cands = [], frozenset(SECRETS)
    for i, g in enumerate(guesses):
        left = LIMIT - i
        after = frozenset(s for s in cands if feedback(g, s) == feedback(g, secret))
        rows.append({"n": len(cands), "after": len(after), "played": guess_total(g, cands, left),
                     "best": min_total(cands, left),
                     "next": 0 if g == secret else min_total(after, left - 1) / len(after)})
        cands = after
    return rows


@pytest.mark.parametrize("secret, guesses", [("tabby", ["about", "bloat", "tabby"]),
                                              ("alloy", ["stoat", "alloy"])])
def test_analyse_json_matches_brute_force(game_args, secret, guesses):
    out = pipeline("analyse", *game_args, f"secret={secret}", f"guesses=[{','.join(guesses)}]", "--json")
    assert out.returncode == 0, out.stderr
    result = json.loads(out.stdout)
    assert result["won"] and result["guesses"] == len(guesses)
    for i, (row, ref) in enumerate(zip(result["rows"], reference_rows(secret, guesses))):
        assert (row["candidates_before"], row["candidates_after"]) == (ref["n"], ref["after"])
        assert row["played"]["total"] == ref["played"] and row["played"]["kind"] == "exact"
        assert row["best"]["total"] == ref["best"] and row["best"]["kind"] == "exact"
        assert row["cost"] == pytest.approx((ref["played"] - ref["best"]) / ref["n"])
        assert row["luck"] == pytest.approx((ref["played"] - ref["n"]) / ref["n"] - ref["next"])
        assert row["played"]["expected_guesses"] == pytest.approx(i + ref["played"] / ref["n"])
        best_word = row["best"]["guess"]
        cands = frozenset(SECRETS) if i == 0 else None
        if cands is not None:  # the named best guess reaches the best total
            assert guess_total(best_word, cands, LIMIT) == ref["best"]
    s = result["summary"]
    assert s["exact"] and s["expected_at_start"] + s["cost"] - s["luck"] == pytest.approx(len(guesses))


def test_analyse_table_and_share_grid(game_args):
    grid = "Words 3/6\n\n" + "\n".join(
        "".join({"0": "⬛", "1": "🟨", "2": "🟩"}[c] for c in feedback(g, "tabby")) for g in ["about", "bloat", "tabby"])
    out = pipeline("analyse", *game_args, "guesses=about,bloat,tabby", "grid=-", stdin=grid)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].split()[:3] == ["#", "guess", "candidates"] and "\x1b[" not in out.stdout  # plain when piped
    assert [line.split()[1] for line in lines[1:4]] == ["about", "bloat", "tabby"]
    assert lines[4].startswith("solved in 3: 3 = ")
    ref = reference_rows("tabby", ["about", "bloat", "tabby"])
    assert lines[1].split()[6] == f"{ref[0]['played'] / ref[0]['n']:.3f}"


@pytest.mark.parametrize("args, stdin, message", [
    (["secret=zebra", "guesses=[about]"], "", "'zebra' is not a possible secret"),
    (["secret=tabby", "guesses=[about,zzzzz]"], "", "'zzzzz' is not an allowed guess"),
    (["secret=tabby", "guesses=[about,bloat]", "grid=-"], "🟩⬛⬛⬛⬛\n⬛⬛⬛⬛⬛\n", "does not match 'about'"),
    (["guesses=[about,bloat]", "grid=-"], "🟩⬛⬛⬛⬛\n", "1 rows but 2 guesses"),
    (["secret=tabby"], "", "analyse needs guesses"),
])
def test_bad_input_is_one_line(game_args, args, stdin, message):
    out = pipeline("analyse", *game_args, *args, stdin=stdin)
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr.count("\n") == 1 and out.stderr.startswith("error: ") and message in out.stderr


def test_top_in_a_play_session_matches_brute_force(game_args):
    stdin = "top 4\nabout " + feedback("about", "tabby") + "\ntop 3\ntop x\n"
    out = pipeline("play", *game_args, stdin=stdin)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert "error: type `top` or `top N`" in out.stdout  # a bad line; the session went on
    for start, cands, played in ((lines.index("> top 4"), frozenset(SECRETS), 0),
                                 (lines.index("> top 3"), None, 1)):
        if cands is None:
            cands = frozenset(s for s in SECRETS if feedback("about", s) == feedback("about", "tabby"))
        shown = [line.split() for line in lines[start + 2:] if line[:4].strip().rstrip(".").isdigit()]
        count = 4 if played == 0 else 3
        shown = shown[:count]
        assert len(shown) == count or (played and shown)
        exact = sorted(guess_total(g, cands, LIMIT - played) for g in GUESSES)
        assert [float(row[2]) for row in shown] == pytest.approx(
            [round(played + v / len(cands), 3) for v in exact[:len(shown)]], abs=1e-3)
        for row in shown:  # every listed guess has the value shown
            assert played + guess_total(row[1], cands, LIMIT - played) / len(cands) == pytest.approx(
                float(row[2]), abs=1e-3)
