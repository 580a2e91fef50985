"""stage=leaderboard: the k best openers' exact values and a certificate that every other opener is worse.

References: a brute-force MinTotal written here (its own scalar answering function, every guess tried at
every node, the game's guess limit) gives V*(g) of every opener of a tiny Wordle game; the leaderboard must
list exactly the openers valued at most the k-th best, with those values.  Forged certificates are refused."""

import json
import shutil
import subprocess
import sys
from collections import Counter
from functools import lru_cache

import pytest

from pipeline import PipelineError
from pipeline.proofs.certificates.optimal import CertificateError
from pipeline.proofs.certificates.leaderboard import verify_leaderboard

INF = float("inf")


def colours(guess: str, secret: str) -> str:
    """Wordle's answer as a string of 0/1/2 (grey, yellow, green): greens first, then yellows left to right."""
    out = ["0"] * len(guess)
    unused = Counter(s for g, s in zip(guess, secret) if g != s)
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            out[i] = "2"
        elif unused[g] > 0:
            out[i], unused[g] = "1", unused[g] - 1
    return "".join(out)


def brute_force_values(secrets: list[str], guesses: list[str], limit: int, hard: bool = False) -> dict[str, float]:
    """V*(g, S) of every opener: |S| + sum over its non-win classes of MinTotal with one guess fewer left.
    Hard mode: a guess must keep every green letter in place and hold every letter at least as often as one
    response revealed it (green + yellow)."""

    def parts(guess, candidates):
        classes: dict[str, list[str]] = {}
        for s in candidates:
            classes.setdefault(colours(guess, s), []).append(s)
        return [(code, tuple(c)) for code, c in classes.items() if code != "2" * len(guess)]

    def after(rule, guess, code):
        greens, least = rule
        shown = Counter(ch for ch, c in zip(guess, code) if c != "0")
        least = {**dict(least), **{ch: max(n, dict(least).get(ch, 0)) for ch, n in shown.items()}}
        return (greens | {(i, ch) for i, (ch, c) in enumerate(zip(guess, code)) if c == "2"},
                tuple(sorted(least.items())))

    def legal(guess, rule):
        greens, least = rule
        return all(guess[i] == ch for i, ch in greens) and all(guess.count(ch) >= n for ch, n in least)

    @lru_cache(maxsize=None)
    def min_total(candidates: tuple, left: int, rule) -> float:
        if left == 0:
            return INF
        if len(candidates) == 1:
            return 1
        best = INF
        for g in guesses:
            if hard and not legal(g, rule):
                continue
            split = parts(g, candidates)
            if len(split) == 1 and len(split[0][1]) == len(candidates):
                continue  # g tells nothing: never part of an optimal strategy
            best = min(best, len(candidates) + sum(min_total(p, left - 1, after(rule, g, code) if hard else rule)
                                                   for code, p in split))
        return best

    start = (frozenset(), ())
    return {g: len(secrets) + sum(min_total(p, limit - 1, after(start, g, code) if hard else start)
                                  for code, p in parts(g, secrets)) for g in guesses}


@pytest.fixture(scope="module")
def tiny_game(tmp_path_factory):
    """Secrets: the 16 original answers _IGHT and _ATCH, where hard mode binds (a green IGHT must be kept);
    guesses: those and 21 other allowed words; limit 6 guesses.  (overrides, normal values, hard values)."""
    from pipeline.config.settings import DATA_DIR

    answers = (DATA_DIR / "wordle" / "original_answers.txt").read_text().split()
    allowed = (DATA_DIR / "wordle" / "original_guesses.txt").read_text().split()
    secrets = sorted(w for w in answers if w[1:] in ("ight", "atch"))
    guesses = sorted(set(secrets) | set(allowed[::640]))
    folder = tmp_path_factory.mktemp("tiny")
    (folder / "secrets.txt").write_text("\n".join(secrets) + "\n")
    (folder / "guesses.txt").write_text("\n".join(guesses) + "\n")
    overrides = ["game=words", f"game.secrets.path={folder / 'secrets.txt'}",
                 f"game.guesses.path={folder / 'guesses.txt'}"]
    return overrides, brute_force_values(secrets, guesses, 6), brute_force_values(secrets, guesses, 6, hard=True)


def first_tie(values: dict) -> int:
    """The smallest k whose k-th best value is shared with the (k+1)-th (a tie to list), else 3."""
    ordered = sorted(values.values())
    return next((k for k in range(1, len(ordered)) if ordered[k - 1] == ordered[k]), 3)


def leaderboard(tiny_game, outputs, hard: bool):
    """The leaderboard of the tiny game at its first k with a tie: (artifact, game, brute-force values, k)."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    overrides, normal, hard_values = tiny_game
    values = hard_values if hard else normal
    k = first_tie(values)
    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "stage=leaderboard", f"stage.k={k}",
                             f"game.hard_mode={str(hard).lower()}", *overrides])
    game = load_game(cfg.game)
    return run_stage(cfg.stage, cfg, game, ArtifactStore(outputs)), game, values, k


@pytest.fixture(scope="module")
def board(tiny_game, tmp_path_factory, ray_session):
    return leaderboard(tiny_game, tmp_path_factory.mktemp("outputs"), hard=False)


@pytest.mark.slow
def test_leaders_are_the_brute_force_best_with_ties(board):
    artifact, game, values, k = board
    cert = json.loads((artifact.path / "certificate.json").read_text())
    kth = sorted(values.values())[k - 1]
    expected = sorted((v, g) for g, v in values.items() if v <= kth)
    assert [(e["value"], e["opener"]) for e in cert["leaders"]] == expected
    assert cert["threshold"] == kth and cert["ties"] == (len(expected) > k) and len(expected) > k
    for e in cert["settled"]:
        assert values[e["opener"]] >= e["value"] > kth
    for e in cert["eliminated"]:
        assert values[e["opener"]] > kth and set(e) == {"opener", "level", "rule"}  # the claim V_level > threshold
    summary = json.loads((artifact.path / "summary.json").read_text())
    assert summary["leaders"] == [{"opener": g, "value": v} for v, g in expected]


def test_hard_mode_leaders_are_the_brute_force_best(tiny_game, tmp_path, ray_session):
    artifact, game, values, k = leaderboard(tiny_game, tmp_path / "outputs", hard=True)
    cert = json.loads((artifact.path / "certificate.json").read_text())
    kth = sorted(values.values())[k - 1]
    assert values != tiny_game[1] and cert["hard_mode"] is True  # the rule changes some value here
    assert [(e["value"], e["opener"]) for e in cert["leaders"]] == sorted((v, g) for g, v in values.items() if v <= kth)
    assert verify_leaderboard(artifact.path, game)["complete"]


def test_certificate_verifies_and_forgeries_are_rejected(board, tmp_path):
    artifact, game, values, k = board
    result = verify_leaderboard(artifact.path, game)
    assert result["complete"] and result["threshold"] == sorted(values.values())[k - 1]

    def forged(edit):
        folder = tmp_path / f"f{len(list(tmp_path.iterdir()))}"
        shutil.copytree(artifact.path, folder)
        cert = json.loads((folder / "certificate.json").read_text())
        edit(cert)
        (folder / "certificate.json").write_text(json.dumps(cert))
        return folder

    def lower_a_leader(cert):  # value, sum and class bound lowered together: the sum closes, the tree does not
        cert["leaders"][0]["value"] -= 1
        cert["leaders"][0]["sum"] -= 1
        cert["leaders"][0]["classes"][0]["bound"] -= 1

    def shift_a_class_bound(cert):  # the sums still close; only re-deriving the classes notices
        classes = max(cert["leaders"], key=lambda e: len(e["classes"]))["classes"]
        big = max(range(len(classes)), key=lambda i: classes[i]["size"])
        classes[big]["bound"] += 1
        classes[big - 1 if big else 1]["bound"] -= 1

    def hide_a_tied_leader(cert):  # a leader tied at the threshold claimed eliminated: V_1 re-derived is too low
        e = cert["leaders"].pop()
        cert["ties"] = len(cert["leaders"]) > cert["k"]
        cert["eliminated"].append({"opener": e["opener"], "level": 1, "rule": "normal", "bound": cert["threshold"] + 1})

    cases = {
        "sum of class bounds": lambda c: c["leaders"][0].__setitem__("value", c["leaders"][0]["value"] + 1),
        "its tree totals": lower_a_leader,
        "re-derived": shift_a_class_bound,
        "not exactly the allowed guesses": lambda c: c["eliminated"].pop(),
        "does not exceed the threshold": lambda c: c["eliminated"][0].__setitem__("bound", c["threshold"]),
        "not the k-th leader": lambda c: c.__setitem__("threshold", c["threshold"] - 1),
        "fewer than k": lambda c: c.__setitem__("k", len(c["leaders"]) + 1),
        "digest differs": lambda c: c["leaders"][0].__setitem__("tree_sha256", "0" * 64),
        "not a file name": lambda c: c["leaders"][0].__setitem__("tree", "../tree.json"),
        "normal V_1 re-derived": hide_a_tied_leader,
    }
    for where, edit in cases.items():
        with pytest.raises(CertificateError, match=where):
            verify_leaderboard(forged(edit), game)


@pytest.mark.slow
def test_verify_certificate_command_on_a_leaderboard(board, tiny_game):
    artifact, game, values, k = board
    proc = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(artifact.path),
                           "--workers", "1", *tiny_game[0]], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.startswith("ok: certificate verified") and f"the {k} best openers" in proc.stdout


@pytest.mark.parametrize("override,message", [
    ("stage.k=0", "k must be at least 1"),
    ("stage.k=207", "more than the 206 openers"),
    ("stage.objective=max_then_total", "leaderboard certifies the Total objective only"),
    ("stage.funnel_level=0", "funnel_level must be at least 1"),
])
def test_bad_input_is_refused(run_pipeline, override, message):
    with pytest.raises(PipelineError, match=message):
        run_pipeline("stage=leaderboard", "game=mini_nerdle", override)


def test_bad_input_on_the_command_line_is_one_line(tmp_path):
    proc = subprocess.run([sys.executable, "-m", "pipeline", "stage=leaderboard", "game=mini_nerdle", "stage.k=0",
                           f"paths.outputs={tmp_path}"], capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.count("\n") == 1 and proc.stderr.startswith("error:")
    assert not (tmp_path / "leaderboard").exists()


def test_fewer_ranked_openers_than_k_is_refused(run_pipeline, tiny_game, ray_session):
    overrides = tiny_game[0]
    with pytest.raises(PipelineError, match=r"for 2 of its 2 openers, fewer than stage.k=4: rerun with a larger "
                                            r"upstream.upper_bound.top_k \(e.g. 8\)"):
        run_pipeline("stage=leaderboard", "stage.k=4", "upstream.upper_bound.top_k=2", *overrides)
