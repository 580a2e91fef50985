"""`python -m pipeline analyse`: per-guess values against a brute-force MinTotal on a tiny word game."""

import json
import os
import subprocess
import sys
from functools import lru_cache

import pytest

from pipeline.config.settings import PROJECT_ROOT
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
def min_total(cands: frozenset, left: int, guesses: tuple = tuple(GUESSES)) -> int:
    """Brute force: the least total number of guesses finding every secret of `cands` within `left` guesses."""
    if left <= 0:
        return INF
    if len(cands) == 1:
        return 1
    return min(guess_total(g, cands, left, guesses) for g in guesses)


@lru_cache(maxsize=None)
def guess_total(g: str, cands: frozenset, left: int, guesses: tuple = tuple(GUESSES)) -> int:
    """V*(g, C): |C| plus the best totals of the classes g cuts C into (INF if g does not split C)."""
    classes = {}
    for s in cands:
        classes.setdefault(feedback(g, s), set()).add(s)
    if len(classes) == 1 and g not in cands:
        return INF
    total = len(cands)
    for colours, members in classes.items():
        if colours != "22222":
            total += min_total(frozenset(members), left - 1, guesses)
    return min(total, INF)


def _classes(g: str, cands: frozenset) -> dict:
    classes = {}
    for s in cands:
        classes.setdefault(feedback(g, s), set()).add(s)
    return classes


def _plus(a: tuple, b: tuple) -> tuple:
    a, b = a + (0,) * (len(b) - len(a)), b + (0,) * (len(a) - len(b))
    return tuple(x + y for x, y in zip(a, b))


@lru_cache(maxsize=None)
def optimal_depths(cands: frozenset, left: int) -> frozenset:
    """Brute force: every depth distribution (secrets found at guess 1, 2, ...) of a strategy reaching
    MinTotal(C) within `left` guesses."""
    best = min_total(cands, left)
    return frozenset(d for g in GUESSES if guess_total(g, cands, left) == best for d in opening_depths(g, cands, left))


@lru_cache(maxsize=None)
def opening_depths(g: str, cands: frozenset, left: int) -> frozenset:
    """... of the best strategies opening with g (each class solved optimally)."""
    dists = {(1,) if g in cands else (0,)}
    for colours, members in _classes(g, cands).items():
        if colours != "22222":
            dists = {_plus(d, (0,) + e) for d in dists for e in optimal_depths(frozenset(members), left - 1)}
    return frozenset(dists)


@pytest.fixture(scope="module")
def game_args(tmp_path_factory):
    folder = tmp_path_factory.mktemp("analyse")
    (folder / "secrets.txt").write_text("\n".join(SECRETS) + "\n")
    (folder / "guesses.txt").write_text("\n".join(GUESSES) + "\n")
    return ["game=words", f"game.secrets.path={folder / 'secrets.txt'}",
            f"game.guesses.path={folder / 'guesses.txt'}", f"paths.outputs={folder / 'outputs'}"]


def loaded_game(game_args, **extra):
    """The fixture's game loaded in this process (game.<key> settings in `extra`)."""
    from pipeline.config.settings import GameConfig, WordListConfig
    from pipeline.games.catalog import load_game

    paths = dict(arg.split("=", 1) for arg in game_args)
    return load_game(GameConfig(name="words", secrets=WordListConfig(path=paths["game.secrets.path"]),
                                guesses=WordListConfig(path=paths["game.guesses.path"]), **extra))


def reference_rows(secret: str, guesses: list[str], secrets=SECRETS) -> list[dict]:
    rows, cands = [], frozenset(secrets)
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
@pytest.mark.slow
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


def test_exclude_removes_answers_for_the_assistant(game_args, tmp_path):
    (tmp_path / "used.txt").write_text("abbey\nABYSS\ntable\n")
    secrets = [s for s in SECRETS if s not in ("abbey", "abyss", "table")]
    out = pipeline("analyse", *game_args, f"game.exclude={tmp_path / 'used.txt'}", "secret=tabby",
                   "guesses=[about,tabby]", "--json")
    assert out.returncode == 0, out.stderr
    for row, ref in zip(json.loads(out.stdout)["rows"], reference_rows("tabby", ["about", "tabby"], secrets)):
        assert (row["candidates_before"], row["candidates_after"]) == (ref["n"], ref["after"])
        assert (row["played"]["total"], row["best"]["total"]) == (ref["played"], ref["best"])
    from pipeline.assistant.analysis import check_secret
    from pipeline import PipelineError

    game = loaded_game(game_args, exclude=str(tmp_path / "used.txt"))
    with pytest.raises(PipelineError, match=r"^'abyss' is not a possible secret of words \(game.exclude removes it\)$"):
        check_secret(game, "abyss")


def test_exclude_with_an_unknown_word_is_one_line(game_args, tmp_path):
    (tmp_path / "used.txt").write_text("tabby\nzebra\n")
    out = pipeline("analyse", *game_args, f"game.exclude={tmp_path / 'used.txt'}", "secret=about",
                   "guesses=[about]")
    assert out.returncode == 2 and out.stdout == ""
    assert out.stderr == f"error: game.exclude {tmp_path / 'used.txt'}: 'zebra' is not a secret of words\n"


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
@pytest.mark.slow
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
        for row in shown:  # ... and chances within k guesses of one of the optimal trees opening with it
            ks = [int(cell[1:]) for cell in row[3::2] if cell.startswith("≤")]
            assert ks == [played + 2, played + 3, played + 4]
            shown_chances = [cell.rstrip("%") for cell in row[4:4 + 2 * len(ks):2]]
            options = {tuple(f"{100 * sum(d[:k - played]) / len(cands):.1f}" for k in ks)
                       for d in opening_depths(row[1], cands, LIMIT - played)}
            assert tuple(shown_chances) in options


IGHT = ["fight", "light", "might", "night", "right", "sight", "tight"]
IGHT_GUESSES = tuple(sorted(IGHT + ["eight", "flmrs"]))


def legal(word: str, rows: tuple) -> bool:
    """NYT hard mode: every green stays in place and every yellow or green letter is used as often."""
    for guess, colours in rows:
        if any(c == "2" and word[i] != guess[i] for i, c in enumerate(colours)):
            return False
        shown = [guess[i] for i, c in enumerate(colours) if c != "0"]
        if any(word.count(x) < shown.count(x) for x in set(shown)):
            return False
    return True


@lru_cache(maxsize=None)
def hard_min_total(cands: frozenset, rows: tuple, guesses: tuple) -> int:
    """Brute force: hard-mode MinTotal(C) without a guess limit after `rows`."""
    if len(cands) == 1:
        return 1
    best = INF
    for g in guesses:
        classes = _classes(g, cands)
        if legal(g, rows) and (len(classes) > 1 or g in cands):
            best = min(best, len(cands) + sum(hard_min_total(frozenset(m), rows + ((g, c),), guesses)
                                              for c, m in classes.items() if c != "22222"))
    return best


@pytest.mark.slow
def test_hard_mode_top_says_what_ignoring_hard_mode_gives(tmp_path):
    (tmp_path / "secrets.txt").write_text("\n".join(IGHT) + "\n")
    (tmp_path / "guesses.txt").write_text("\n".join(IGHT_GUESSES) + "\n")
    args = ["game=words", f"game.secrets.path={tmp_path / 'secrets.txt'}", "game.hard_mode=true",
            f"game.guesses.path={tmp_path / 'guesses.txt'}", "game.max_guesses=null", f"paths.outputs={tmp_path}"]
    out = pipeline("play", *args, stdin="eight 02222\ntop 2\n")
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()[out.stdout.splitlines().index("> top 2") + 1:]
    assert lines[0].startswith("top 2 legal in hard mode")
    cands, rows = frozenset(IGHT), (("eight", "02222"),)
    hard = hard_min_total(cands, rows, IGHT_GUESSES)
    assert float(lines[1].split()[2]) == pytest.approx(1 + hard / len(IGHT), abs=1e-3)
    normal = min_total(cands, INF, IGHT_GUESSES)
    assert normal < hard  # the rule costs something here
    word, value, gain = lines[3].removeprefix("best guess ignoring hard mode: ").replace(",", "").split()[:3]
    assert guess_total(word, cands, INF, IGHT_GUESSES) == normal
    assert float(value) == pytest.approx(1 + normal / len(IGHT), abs=1e-3)
    assert float(gain.lstrip("(")) == pytest.approx((hard - normal) / len(IGHT), abs=1e-3)


def test_child_results_arrive_step_by_step():
    import time

    from pipeline.assistant.values import within

    assert within(30, lambda: (7, 1), lambda r: r[0] + 1) == [(7, 1), 8]
    assert within(0.5, lambda: 3, lambda r: time.sleep(30)) == [3]  # a slow second step keeps the first
    assert within(0.3, lambda: time.sleep(30)) == []


def test_values_solved_in_a_child_match_the_in_process_ones(game_args, monkeypatch):
    import numpy as np

    from pipeline.assistant import values
    from pipeline.assistant.ranking import top_guesses
    from pipeline.feedback.matrix import game_matrix

    game = loaded_game(game_args)
    valuer = values.Valuer(game, game_matrix(game), budget=30)
    cand = np.arange(len(SECRETS), dtype=np.int32)
    here, _ = top_guesses(valuer, cand, None, LIMIT, 3, False, seconds=30)
    monkeypatch.setattr(values, "IN_PROCESS_CELLS", 0)  # every set now goes to a forked child
    valuer.orders.clear()
    forked, _ = top_guesses(valuer, cand, None, LIMIT, 3, False, seconds=30)
    assert [(g, v.total, v.depths) for g, v in forked] == [(g, v.total, v.depths) for g, v in here]
    for g, v in here:
        assert v.depths in opening_depths(game.guesses[g], frozenset(SECRETS), LIMIT)


@pytest.mark.slow
def test_openers_of_a_stored_exact_stage_bring_their_trees_depths(game_args, monkeypatch, tmp_path):
    import numpy as np

    from pipeline.assistant import values
    from pipeline.assistant.ranking import top_guesses
    from pipeline.feedback.matrix import game_matrix

    args = [arg for arg in game_args if not arg.startswith("paths.outputs=")] + [f"paths.outputs={tmp_path}"]
    out = pipeline("stage=exact", "stage.openers=[about]", "ray.executor=local", *args)
    assert out.returncode == 0, out.stderr
    game = loaded_game(game_args)
    monkeypatch.setattr(values, "IN_PROCESS_CELLS", 0)  # nothing solved here: only what is stored
    valuer = values.Valuer(game, game_matrix(game), budget=0, outputs=tmp_path)
    found, _ = top_guesses(valuer, np.arange(len(SECRETS), dtype=np.int32), None, LIMIT, 3, True, seconds=0)
    (g, value), = found
    assert game.guesses[g] == "about" and value.total == guess_total("about", frozenset(SECRETS), LIMIT)
    assert value.depths in opening_depths("about", frozenset(SECRETS), LIMIT)
