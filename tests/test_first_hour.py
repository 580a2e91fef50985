"""A new user's first hour: every stage ends with its result in one line, compiling kernels is announced,
ETAs wait until they mean something, and the assistant opens with the best known opener."""

import io
import re
import json

from pathlib import Path

import pytest

from pipeline.stages.runner import result_line

LOCAL = "ray.executor=local"  # in this process: no Ray start-up for a tiny game


@pytest.fixture
def run_mini_nerdle(run_pipeline):
    """run a stage on Mini Nerdle in this process; returns (artifact, its result line)."""

    def run(stage, *overrides):
        artifact = run_pipeline(f"stage={stage}", "game=mini_nerdle", LOCAL, *overrides)
        return artifact, result_line(artifact)

    return run


def test_prove_line_states_the_proven_value_funnel_and_check_command(run_mini_nerdle):
    artifact, line = run_mini_nerdle("prove")
    certificate = artifact.read_json("certificate.json")
    funnel = Path(artifact.manifest["inputs"]["lower_bound"]["path"])
    levels = json.loads((funnel / "summary.json").read_text())["funnel"]
    counts = " → ".join(str(level["survivors"]) for level in levels)
    ub, n = certificate["ub"], certificate["n_secrets"]
    assert (ub, n, certificate["optimal_openers"]) == (544, 206, ["4*7=28"])
    assert line == (f"prove: proven {ub} ({ub / n:.3f} per secret) by 4*7=28; funnel {counts} → 1; "
                    f"check it with: python -m pipeline verify-certificate {artifact.path}")
    assert line.startswith("prove: proven 544 (2.641 per secret) by 4*7=28; funnel 206 → ")
    assert "verified" not in line


def test_upper_and_lower_bound_lines_state_their_results(run_mini_nerdle):
    artifact, line = run_mini_nerdle("upper_bound")
    summary = artifact.read_json("summary.json")
    assert line == (f"upper_bound: upper bound {summary['ub']} ({summary['expected']:.3f} per secret, at most "
                    f"{summary['max_guesses']} guesses) with opener {summary['opener']}; "
                    f"{summary['openers_tried']} openers tried ({summary['method']})")
    assert summary["ub"] == 544
    artifact, line = run_mini_nerdle("lower_bound", "stage.ub=544")
    summary = artifact.read_json("summary.json")
    assert line == ("lower_bound: funnel " + " → ".join(str(f["survivors"]) for f in summary["funnel"])
                    + " against UB 544; survivors 4*7=28")


def test_exact_heuristics_openers_feedback_lines_state_their_headlines(run_mini_nerdle):
    artifact, line = run_mini_nerdle("exact", 'stage.openers=["4*7=28"]')
    row = artifact.manifest["summary"]["results"][0]
    assert row["total"] == 544
    assert line == f"exact: 4*7=28 544 ({row['expected']:.3f} per secret, at most {row['max_guesses']} guesses)"
    artifact, line = run_mini_nerdle("heuristics", "stage.combinations=[MostParts]")
    s = artifact.manifest["summary"]
    assert line == (f"heuristics: best total {s['best_total']} by MostParts (opener {s['best_opener']}), "
                    f"1 of 1 combinations at best")
    artifact, line = run_mini_nerdle("openers")
    s = artifact.manifest["summary"]
    assert line.startswith(f"openers: best by information {s['best_by_bits']} ({s['best_bits']} bits)")
    assert line.endswith(f"{s['openers']} openers over 206 secrets")
    artifact, line = run_mini_nerdle("feedback")
    assert line == f"feedback: code matrix 206 guesses × 206 secrets ({artifact.manifest['summary']['dtype']})"


def test_a_proof_with_many_optimal_openers_names_five_on_its_one_line():
    """Mastermind's proof ties 720 openers: the line names five and counts the rest."""
    from pipeline.stages.prove import headline

    codes = [f"{a}{b}{c}{d}" for a in "1234" for b in "123456" for c in "123456" for d in "12345"][:720]
    summary = {"ub": 5625, "secrets": 1296, "proven": True, "optimal_openers": codes, "funnel": [1296, 720]}
    line = headline(summary, "/out/prove/k")
    assert line == ("proven 5625 (4.340 per secret) by 1111, 1112, 1113, 1114, 1115 and 715 more (720 optimal "
                    "openers, all in certificate.json); funnel 1296 → 720; check it with: python -m pipeline "
                    "verify-certificate /out/prove/k")
    summary["optimal_openers"] = codes[:5]
    assert " by 1111, 1112, 1113, 1114, 1115; funnel" in headline(summary, "/out/prove/k")


def test_blindfold_line_states_f_star_and_its_bound(run_mini_nerdle):
    artifact, line = run_mini_nerdle("blindfold")
    s = artifact.manifest["summary"]
    verdict = "proven optimal" if s["proven_optimal"] else "not proven optimal"
    assert line == (f"blindfold: f* = {s['f_star']}, lower bound {s['lower_bound']}: {verdict}; guesses "
                    f"{' '.join(s['guesses'])}")
    assert len(s["guesses"]) == s["f_star"]


def test_a_skipped_stage_prints_the_same_line(run_mini_nerdle):
    first = run_mini_nerdle("feedback")[1]
    assert run_mini_nerdle("feedback")[1] == first


@pytest.mark.slow
def test_the_cli_prints_the_line_then_the_folder_last(tmp_path):
    import os
    import subprocess
    import sys

    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONPATH": str(root)}
    done = subprocess.run([sys.executable, "-m", "pipeline", "stage=feedback", "game=mini_nerdle",
                           f"paths.outputs={tmp_path}", "progress=false", LOCAL, f"hydra.run.dir={tmp_path}/run"],
                          capture_output=True, text=True, env=env, cwd=root)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-2].startswith("feedback: code matrix 206 guesses × 206 secrets")
    assert Path(lines[-1]).is_dir() and lines[-1].startswith(str(tmp_path))


# ---- progress: no ETA before it means something ----------------------------------------------------------------


def progress_lines(tmp_path, durations, total, **intervals):
    """The log lines of a Progress over tasks taking `durations` seconds each (a hand-moved clock)."""
    from pipeline.runtime.log import log_to_file
    from pipeline.runtime.progress import Progress

    clock, path = [1000.0], tmp_path / "stage.log"
    with log_to_file(path):
        with Progress("UB", total, stream=io.StringIO(), clock=lambda: clock[0], **intervals) as bar:
            for seconds in durations:
                clock[0] += seconds
                bar.advance()
    return [line.split(" INFO ", 1)[1] for line in path.read_text().splitlines()]


def test_a_first_task_that_compiles_gives_no_eta_and_does_not_skew_the_rate(tmp_path):
    # 10 openers: the first takes 300 s (compiling), the others 10 s each
    lines = progress_lines(tmp_path, [300.0] + [10.0] * 9, total=10, every_fraction=0.1, min_gap_seconds=0)
    assert lines[0] == "UB: 1/10 tasks (10%)"  # one task done: no rate, no ETA
    assert lines[1] == "UB: 2/10 tasks (20%), 0.1 tasks/s, ETA 1m20s"  # 8 left at 10 s each
    assert lines[-1] == "UB: 10/10 tasks in 390.0s"


def test_no_eta_before_a_tenth_of_the_tasks_is_done(tmp_path):
    lines = progress_lines(tmp_path, [1.0] * 30, total=100, every_seconds=5, min_gap_seconds=0,
                           every_fraction=0.5)
    assert lines[0] == "UB: 5/100 tasks (5%)" and lines[1] == "UB: 10/100 tasks (10%), 1 tasks/s, ETA 1m30s"


# ---- the assistant ---------------------------------------------------------------------------------------------


def play(*args, stdin, outputs):
    """`python -m pipeline play ...` with scripted input; the finished process."""
    import os
    import subprocess
    import sys

    from pipeline.config.settings import PROJECT_ROOT

    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    env["PYTHONPATH"] = str(PROJECT_ROOT)
    return subprocess.run([sys.executable, "-m", "pipeline", "play", *args, f"paths.outputs={outputs}"],
                          input=stdin, capture_output=True, text=True, cwd=PROJECT_ROOT, timeout=600, env=env)


@pytest.fixture(scope="module")
def mini_game():
    from pipeline.games.catalog import builtin_game

    return builtin_game("mini_nerdle")


def new_session(game, tree=None):
    from pipeline.assistant.session import Session
    from pipeline.assistant.strategy import Strategy

    return Session(Strategy(game, tree))


def test_play_opens_with_the_published_optimum_and_help_lists_every_command(tmp_path):
    from pipeline.report.published import OPTIMUM

    total, opener = OPTIMUM["mini_nerdle"]
    proc = play("game=mini_nerdle", stdin="help\nquit\n", outputs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert f"suggest: {opener} (published optimum {total}; not computed here); chance it wins: 1/206 = 0.485%" in out
    assert out[1] == (f"suggestions: opener {opener} (published optimum {total}; not computed here), then greedy "
                      "(MostParts, InSet, ExpSizeSplit), computed on the spot")
    listed = {line.split()[0] for line in out if line.startswith("  ") and not line.startswith("   ")}
    assert {"top", "analyse", "tree", "hard", "practice", "list", "undo", "reset", "help", "quit"} <= listed


def test_the_published_optimum_needs_the_shipped_lists_and_normal_mode(mini_game, word_list_game):
    import dataclasses

    from pipeline.assistant.known import published_optimum
    from pipeline.games.catalog import builtin_game

    assert published_optimum(mini_game) == (544, "4*7=28")
    assert published_optimum(builtin_game("mini_nerdle", hard_mode=True)) is None
    other_lists = dataclasses.replace(mini_game, secrets=mini_game.secrets[:-1])
    assert published_optimum(other_lists) is None
    assert new_session(other_lists).suggestion().source == "greedy"


def class_of_size(game, opener, sizes):
    """A secret whose response to `opener` leaves a class whose size is in `sizes`."""
    from pipeline.games.answer import feedback

    classes = {}
    for s in game.secrets:
        classes.setdefault(feedback(opener, s), []).append(s)
    return next(members[0] for members in classes.values() if len(members) in sizes)


def test_up_to_ten_candidates_are_all_shown_and_more_are_counted(mini_game):
    from pipeline.assistant.explain import candidates_line
    from pipeline.games.answer import feedback

    session = new_session(mini_game)
    for sizes in (range(9, 11), range(11, 207)):
        secret = class_of_size(mini_game, "1+9=10", sizes)
        session.reset()
        row = session.play("1+9=10", feedback("1+9=10", secret))
        words = session.candidate_words()
        shown = candidates_line(session, row).split("): ", 1)[1]
        if len(words) <= 10:
            assert shown == ", ".join(words)
        else:
            assert shown == ", ".join(words[:8]) + f", … (+{len(words) - 8} more)"


def test_one_candidate_left_is_named_the_last_one(mini_game):
    from pipeline.assistant.explain import suggestion_line
    from pipeline.games.answer import feedback

    secret = class_of_size(mini_game, "1+9=10", {1})
    session = new_session(mini_game)
    session.play("1+9=10", feedback("1+9=10", secret))
    assert session.candidate_words() == [secret]
    assert suggestion_line(session) == f"suggest: {secret} (the last candidate); certain to win"


def test_cost_and_luck_each_carry_one_sign():
    from pipeline.assistant.analysis import decomposition

    assert decomposition(0.160, -0.419) == "+ 0.160 cost + 0.419 bad luck"
    assert decomposition(0.160, 0.419) == "+ 0.160 cost − 0.419 luck"
    assert decomposition(-0.0, 0.0) == "+ 0.000 cost − 0.000 luck"


def test_end_of_input_while_thinking_ends_the_session_cleanly(tmp_path):
    from pipeline.games.answer import feedback

    proc = play("game=mini_nerdle", stdin=f"4*7=28 {feedback('4*7=28', '28/7=4')}\n", outputs=tmp_path)
    assert proc.returncode == 0 and "Traceback" not in proc.stderr
    assert proc.stdout.splitlines()[-1].startswith("suggest: ")


def greedy_tree(game):
    """A LoadedTree of the assistant's own play (published opener, then greedy) against every secret."""
    from pipeline.artifacts.trees import LoadedTree
    from pipeline.games.answer import feedback
    from pipeline.formats.trees import from_lines
    from pipeline.search.tree import from_json, statistics

    session = new_session(game)
    routes = []
    for secret in game.secrets:
        session.reset()
        while not session.solved:
            word = session.suggestion().word
            session.play(word, feedback(word, secret))
        routes.append(",".join(g for g, _ in session.history))
    tree = from_json(from_lines("\n".join(routes), feedback))
    return LoadedTree(tree, "test/tree", statistics(tree)["total"])


def test_tree_walks_the_strategy_tree_from_the_current_position(mini_game):
    from pipeline.assistant.explain import tree_lines
    from pipeline.games.answer import feedback

    loaded = greedy_tree(mini_game)
    root = loaded.tree
    session = new_session(mini_game, loaded)
    assert tree_lines(session, 1) == [f"{root.guess} (206 candidates)"]
    first = sorted(root.children)[0]
    child = root.children[first]
    lines = tree_lines(session, 2)
    assert lines[1] == f"  {first} → {child.guess} ({child.candidates} candidates)" or \
        lines[1] == f"  {first} → {child.guess} (found)"
    assert len(lines) == min(1 + len(root.children), 61)
    secret = class_of_size(mini_game, root.guess, range(3, 207))
    session.play(root.guess, feedback(root.guess, secret))
    node = root.children[feedback(root.guess, secret)]
    assert tree_lines(session, 1) == [f"{node.guess} ({node.candidates} candidates)"]
    session.play("1+9=10" if node.guess != "1+9=10" else "10-5=5", feedback("1+9=10", secret))
    assert tree_lines(session, 2)[0].startswith("play has left the strategy tree")
    assert tree_lines(new_session(mini_game), 2)[0].startswith("no strategy tree is known")


def test_hard_mode_is_switched_in_a_session_and_refused_when_the_rows_break_it(mini_game):
    from pipeline.assistant.parse import InputError
    from pipeline.games.answer import feedback
    from pipeline.games.constraints import hard_mode_violation

    secret = "28/7=4"
    session = new_session(mini_game)
    session.play("4*7=28", feedback("4*7=28", secret))
    session.set_hard_mode(True)
    assert session.game.hard_mode and session.strategy.game.hard_mode
    breaking = next(w for w in mini_game.guesses if hard_mode_violation(w, session.history))
    with pytest.raises(InputError, match="hard mode does not allow"):
        session.play(breaking, feedback(breaking, secret))
    session.set_hard_mode(False)
    session.play(breaking, feedback(breaking, secret))
    with pytest.raises(InputError, match=rf"cannot switch to hard mode: row 2 \({re.escape(breaking)}\) breaks it"):
        session.set_hard_mode(True)
    assert not session.game.hard_mode


def test_hard_command_in_play(tmp_path):
    proc = play("game=mini_nerdle", stdin="hard\nhard off\nhard maybe\nquit\n", outputs=tmp_path)
    out = proc.stdout.splitlines()
    assert "hard mode on" in out and "hard mode off" in out
    assert "error: type `hard`, `hard on` or `hard off`" in out


def test_practice_picks_a_seeded_secret_and_grades_each_guess(tmp_path, mini_game):
    import random

    from pipeline.assistant.analysis import analyse
    from pipeline.assistant.app import make_valuer
    from pipeline.games.answer import feedback

    secret = random.Random(7).choice(mini_game.secrets)
    second = "1+9=10" if secret != "1+9=10" else "10-5=5"
    proc = play("game=mini_nerdle", stdin=f"practice 7\n4*7=28\n{second}\nquit\n", outputs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    rows = [("4*7=28", feedback("4*7=28", secret)), (second, feedback(second, secret))]
    assert f"4*7=28 {rows[0][1]}" in out and f"{second} {rows[1][1]}" in out
    grades = [line for line in out if line.startswith("grade: ")]
    analysis = analyse(make_valuer(mini_game, tmp_path, 2.0), rows, secret)
    expected = []
    for row in analysis.rows:
        value, kind = row.cost
        label = "exact" if kind == "exact" else f"estimate, {kind}"
        verdict = "an optimal guess" if kind == "exact" and abs(value) < 1e-9 else f"cost {value:.3f} guesses"
        expected.append(f"grade: {verdict} ({label})")
    assert grades == expected and grades[0] == "grade: an optimal guess (exact)"


def test_a_spinner_shows_on_the_terminal_once_thinking_takes_long(capsys):
    import time

    from pipeline.assistant.terminal import Progress

    with Progress("ranking guesses", enabled=True, delay=0.05):
        time.sleep(0.4)
    assert "ranking guesses" in capsys.readouterr().err
    with Progress("ranking guesses", enabled=True, delay=5):
        time.sleep(0.1)
    assert capsys.readouterr().err == ""


# ---- compiling kernels is announced ----------------------------------------------------------------------------


def test_a_compile_is_announced_once_naming_its_kernel_and_a_cached_kernel_says_nothing(tmp_path, monkeypatch):
    """The line comes from numba's own compile event: a kernel loaded from the on-disk cache (a warm run) says
    nothing; a kernel that compiles says so once per process, by name, however many compile after it."""
    import importlib
    import sys

    from pipeline.runtime import progress

    (tmp_path / "firsthour_probe.py").write_text(
        "from numba import njit\n\n\n@njit(cache=True)\ndef twice(x):\n    return 2 * x\n\n\n"
        "@njit(cache=True)\ndef thrice(x):\n    return 3 * x\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    monkeypatch.setenv("NUMBA_CACHE_DIR", str(tmp_path / "cache"))
    import numba

    # numba's own setting too: a kernel room imported earlier in this process has pointed it at the shared folder,
    # where a probe at this very path (a run before, same --basetemp) would load though the file was rewritten
    monkeypatch.setattr(numba.config, "CACHE_DIR", str(tmp_path / "cache"))
    lines = []

    def fresh_probe():
        sys.modules.pop("firsthour_probe", None)
        return importlib.import_module("firsthour_probe")

    try:
        monkeypatch.setattr(progress, "_announced", False)
        progress.announce_compilation(emit=lines.append)
        probe = fresh_probe()
        assert lines == []  # nothing compiles at import
        assert probe.twice(21) == 42 and probe.thrice(2) == 6 and probe.twice(2.5) == 5.0  # three compiles
        assert lines == [("compiling numba kernels on first use, starting with firsthour_probe.twice (seconds to "
                          "minutes, once: cached for later runs)")]
        progress.announce_compilation(emit=lines.append)  # once per process: no second listener
        probe = fresh_probe()  # as a later run: every kernel loads from the cache
        assert probe.twice(21) == 42 and probe.thrice(2) == 6
        assert len(lines) == 1
        assert probe.twice(True) == 2  # a new argument type compiles, but the process has said it already
        assert len(lines) == 1
    finally:
        sys.modules.pop("firsthour_probe", None)
