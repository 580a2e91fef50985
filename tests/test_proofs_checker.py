"""The independent checker (pipeline/proofs): its own answering function, bounds and exact search, and that it
rejects tampered or forged certificates made by the real prover."""

import copy
import dataclasses
import hashlib
import json
import random
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from pipeline.config.settings import GameConfig
from pipeline.games.catalog import builtin_game
from pipeline.proofs.game.answer import code_matrix, colours, symbols
from pipeline.proofs.bounds.lower import LowerBounds, bound, split
from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate
from pipeline.proofs.exact.solver import ExactSolver
from pipeline.proofs.game.hard_mode import violation
from pipeline.proofs.certificates.tree import TreeRejected, check_tree, verify_tree_file

IGHT_ATCH = "batch catch eight fight hatch latch light match might night patch right sight tight watch wight".split()


def _prove(tmp_path_factory, *overrides):
    """Run the real prover (stage prove and its inputs) and return the artifact folder."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    outputs = tmp_path_factory.mktemp("outputs")
    cfg = compose_config([f"paths.outputs={outputs}", "progress=false", "stage=prove", *overrides])
    game = load_game(cfg.game)
    return run_stage(cfg.stage, cfg, game, ArtifactStore(outputs)).path, game


@pytest.fixture(scope="module")
def mini_proof(tmp_path_factory, ray_session):
    return _prove(tmp_path_factory, "game=mini_nerdle")


@pytest.fixture(scope="module")
def ight_words(tmp_path_factory):
    from pipeline.config.settings import PROJECT_ROOT

    secrets = tmp_path_factory.mktemp("ight") / "secrets.txt"
    secrets.write_text("\n".join(IGHT_ATCH) + "\n")
    return [f"game.secrets.path={secrets}", f"game.guesses.path={PROJECT_ROOT / 'data/wordle/original_guesses.txt'}",
            "game=words", "game.name=ight", "game.length=5"]


@pytest.fixture(scope="module")
def ight_proof(tmp_path_factory, ight_words, ray_session):
    return _prove(tmp_path_factory, *ight_words)


def tampered(folder, tmp_path, edit_cert=None, edit_tree=None):
    """A copy of a prove artifact with its certificate and/or tree edited (tree digest kept consistent)."""
    out = tmp_path / f"t{len(list(tmp_path.glob('t*')))}"
    shutil.copytree(folder, out)
    cert = json.loads((out / "certificate.json").read_text())
    if edit_tree:
        tree = json.loads((out / "tree.json").read_text())
        edit_tree(tree)
        (out / "tree.json").write_text(json.dumps(tree))
        cert["ub_tree_sha256"] = hashlib.sha256((out / "tree.json").read_bytes()).hexdigest()
    if edit_cert:
        edit_cert(cert)
    (out / "certificate.json").write_text(json.dumps(cert))
    return out


def with_limit(game, limit):
    """The same game with a guess limit, when games carry one (else the certificate's own limit applies)."""
    if "max_guesses" in {f.name for f in dataclasses.fields(GameConfig)}:
        return dataclasses.replace(game, max_guesses=limit)
    return game


# ---- (b) the answering function ---------------------------------------------------------------------------

@pytest.mark.parametrize("guess,secret,expected", [
    ("speed", "abide", "00101"), ("eerie", "there", "10102"), ("lolly", "hello", "01220"),
    ("geese", "eerie", "02102"), ("salet", "later", "02121"), ("4*7=28", "28/7=4", "101111"),
])
def test_answering_function_known_examples(guess, secret, expected):
    assert colours(guess, secret) == expected
    code = code_matrix([guess], [secret], "abcdefghijklmnopqrstuvwxyz0123456789+-*/=")[0, 0]
    assert code == sum(int(c) * 3**i for i, c in enumerate(expected))


def test_answering_function_matches_the_pipeline_matrix_on_random_words():
    from pipeline.feedback.matrix import game_matrix
    from pipeline.games.answer import feedback

    rng = random.Random(7)
    for _ in range(3000):  # few letters, so repeated letters are the rule
        g, s = ("".join(rng.choice("abcde") for _ in range(rng.randint(4, 8))) for _ in range(2))
        s = s[:len(g)].ljust(len(g), "a")
        assert colours(g, s) == feedback(g, s)
    game = builtin_game("wordle_original")
    rows = sorted(rng.sample(range(len(game.guesses)), 300))
    mine = code_matrix([game.guesses[i] for i in rows], game.secrets, game.alphabet)
    assert np.array_equal(mine.astype(np.int64), game_matrix(game)[rows].astype(np.int64))


# ---- bounds and exact search against brute force / the definitions -----------------------------------------

def test_bound_is_the_least_sum_of_depths():
    def brute(n, k):  # best tree: fill depth d with as many nodes as the level above allows
        best = None
        def grow(left, width, depth, acc):
            nonlocal best
            if left == 0:
                best = acc if best is None else min(best, acc)
                return
            for here in range(1, min(width, left) + 1):
                grow(left - here, here * k, depth + 1, acc + here * depth)
        grow(n, 1, 1, 0)
        return best
    for n in range(1, 12):
        for k in range(1, 5):
            assert bound(n, k) == brute(n, k)


def test_lower_bounds_below_exact_and_v_monotone_on_mini_nerdle():
    game = builtin_game("mini_nerdle")
    codes = code_matrix(game.guesses, game.secrets, game.alphabet)
    bounds = LowerBounds(codes, game.guess_of_secret, game.n_codes)
    assert bounds.k_s == 75
    exact = ExactSolver(codes, symbols(game.guesses, game.alphabet), game.guess_of_secret, game.n_codes,
                        len(game.alphabet), False)
    opener = game.guess_index["4*7=28"]
    members, starts, sizes = split(codes[opener], bounds.everyone, game.n_codes)
    classes = [members[a:a + t] for a, t in zip(starts, sizes)]
    vstar = 206 + sum(exact.min_total(c, None, None) for c in classes)
    assert vstar == 544  # the published optimum
    values = [bounds.v(opener, bounds.everyone, level)[0] for level in range(1, 6)]
    assert values == sorted(values) and values[-1] <= vstar
    for c in classes:
        assert bounds.lb(c, 3)[0] <= bounds.lb(c, 5)[0] <= exact.min_total(c, None, None)


def test_checker_raises_classes_through_lb3_only(monkeypatch):
    """The checker's V_level early exit is exact within every budget where LB_5 < LB_4 (test_bounds'
    two_speed_matrix), and a planted LB_{level-1} floor cuts an opener below its V_level."""
    import pipeline.proofs.bounds.lower as checker_bounds
    from test_bounds import two_speed_matrix

    codes, _ = two_speed_matrix()
    first = np.arange(12, dtype=np.int32)
    assert [LowerBounds(codes, np.arange(20), 10).lb(first, level)[0] for level in range(1, 8)] == [
        25, 37, 34, 45, 42, 52, 50]
    everyone = np.arange(20, dtype=np.int32)

    def cut_wrongly(level):
        truth = LowerBounds(codes, np.arange(20), 10).v(20, everyone, level)[0]
        cuts = [(budget, LowerBounds(codes, np.arange(20), 10).v(20, everyone, level, budget)) for budget in range(20, 90)]
        return [budget for budget, (value, exact) in cuts if truth <= budget and not exact]

    assert all(not cut_wrongly(level) for level in range(1, 9))
    monkeypatch.setattr(checker_bounds, "raise_steps", lambda level: (level - 1, level) if level >= 4 else (level,))
    assert cut_wrongly(5) and cut_wrongly(7)


def test_exact_search_in_hard_mode_and_with_a_guess_limit(ight_words):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game

    game = load_game(compose_config(ight_words).game)
    codes = code_matrix(game.guesses, game.secrets, game.alphabet)
    everyone = np.arange(len(game.secrets), dtype=np.int32)
    args = (codes, symbols(game.guesses, game.alphabet), game.guess_of_secret, game.n_codes, len(game.alphabet))
    normal, hard = ExactSolver(*args, False), ExactSolver(*args, True)
    assert normal.min_total(everyone, 6, None) == 41
    assert hard.min_total(everyone, 6, hard.start_rule()) == 42
    assert normal.min_total(everyone, 2, None) > 10**9  # 16 secrets cannot all be found within 2 guesses


def test_hard_mode_rule():
    assert violation("crony", [("salet", "00000")]) is None
    assert violation("crony", [("salet", "00002")]) is not None  # a green T must stay in place
    assert violation("trace", [("salet", "00010")]) is None  # yellow E: E anywhere, even in the same place
    assert violation("crony", [("salet", "00010")]) is not None  # the yellow E is missing
    assert violation("eerie", [("geese", "02102")]) is None
    assert violation("there", [("geese", "02102")]) is not None  # needs two E (green + yellow)


# ---- verify-tree -------------------------------------------------------------------------------------------

def test_tree_checks_guess_limit_and_recorded_total(mini_proof, tmp_path):
    folder, game = mini_proof
    body = json.loads((folder / "tree.json").read_text())
    assert verify_tree_file(folder / "tree.json", game)["total"] == 544
    assert check_tree(body, game, False, 4)["distribution"] == {1: 1, 2: 73, 3: 131, 4: 1}
    with pytest.raises(TreeRejected, match="beyond the game's limit of 3"):
        check_tree(body, game, False, 3)
    wrong = copy.deepcopy(body)
    wrong["total"] = 543
    with pytest.raises(TreeRejected, match="records total 543"):
        check_tree(wrong, game, False, None)


def _nodes(tree, history=()):
    yield tree, history
    for response, child in tree.get("children", {}).items():
        yield from _nodes(child, history + ((tree["guess"], response),))


def test_tree_with_one_illegal_hard_mode_guess_is_rejected(ight_words, run_pipeline, ray_session):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game

    hard = [*ight_words, "game.hard_mode=true", "game.max_guesses=null"]  # FIGHT first needs 9 guesses in hard mode
    artifact = run_pipeline("stage=exact", *hard, "stage.openers=[fight]")
    game = load_game(compose_config(hard).game)
    tree_file = next(artifact.path.glob("tree-*.json"))
    stats = verify_tree_file(tree_file, game)  # the exact solver's hard-mode tree is legal
    body = json.loads(tree_file.read_text())
    # a node after a green letter: replace its guess by an allowed word with another letter there
    node, history = next((n, h) for n, h in _nodes(body["tree"]) if h and "2" in h[-1][1] and n.get("children"))
    position = history[-1][1].index("2")
    node["guess"] = next(w for w in game.guesses if w[position] != history[-1][0][position])
    with pytest.raises(TreeRejected, match="breaks hard mode"):
        check_tree(body, game, True, None)
    assert stats["total"] >= 42


# ---- verify-certificate: accepts the real thing ------------------------------------------------------------

def test_real_mini_nerdle_certificate_verified_in_full(mini_proof):
    folder, game = mini_proof
    result = verify_certificate(folder, game)
    assert result["complete"] and result["ub"] == 544 and result["optimal_openers"] == ["4*7=28"]
    assert result["openers_rederived"] == 205 and result["classes_rederived"] == result["classes"] == 74
    assert json.loads((folder / "certificate.json").read_text())["objective"] == "total"


@pytest.mark.slow
def test_checker_runs_with_the_prover_unimportable(mini_proof):
    """Only the stages' config schemas may load (the composer reads them to compose the game): no stage module,
    no search or feedback code."""
    folder, _ = mini_proof
    script = textwrap.dedent(f"""
        import sys
        SCHEMAS = ("pipeline.stages", "pipeline.stages.base", "pipeline.config.stages")
        PROVER = ("pipeline.search", "pipeline.feedback", "pipeline.stages")
        def prover(name):
            return name.startswith(PROVER) and name not in SCHEMAS
        class Block:
            def find_spec(self, name, path=None, target=None):
                if prover(name) or name in ("pipeline.games.answer", "pipeline.games.constraints"):
                    raise ImportError(f"blocked: {{name}}")
        sys.meta_path.insert(0, Block())
        from pipeline.games.catalog import builtin_game
        from pipeline.proofs.certificates.optimal import verify_certificate
        result = verify_certificate({str(folder)!r}, builtin_game("mini_nerdle"))
        loaded = [m for m in sys.modules if prover(m)]
        print(result["complete"], result["ub"], loaded)
    """)
    proc = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.split() == ["True", "544", "[]"]


# ---- verify-certificate: rejects ---------------------------------------------------------------------------

def _move_bound(cert):  # the sums still close; only re-deriving the raised class notices
    classes = sorted(cert["survivors"][0]["classes"], key=lambda c: c["bound"] - 2 * c["size"] + 1)
    classes[0]["bound"] += 1
    classes[-1]["bound"] -= 1


def _lower_claimed_level(cert):  # a level-3 elimination claimed at level 1: V_1 is correct, but <= ub
    entry = next(e for e in cert["eliminated"] if e["level"] == 3)
    entry["level"] = 1


def _promote_eliminated(cert):  # an eliminated opener added as a survivor with tiny (but valid) class bounds
    game = builtin_game("mini_nerdle")
    entry = cert["eliminated"].pop()
    row = code_matrix([entry["opener"]], game.secrets, game.alphabet)[0]
    classes = [{"response": "".join(str(int(code) // 3**i % 3) for i in range(6)), "size": int((row == code).sum()),
                "bound": 1, "method": "LB_1"} for code in np.unique(row) if code != game.n_codes - 1]
    value = 206 + len(classes)
    cert["survivors"].append({"opener": entry["opener"], "classes": classes, "sum": len(classes), "value": value})


def _tie_eliminated(cert):  # an eliminated opener claimed optimal: true lower bounds, summing to ub only
    game = builtin_game("mini_nerdle")
    entry = max(cert["eliminated"], key=lambda e: e["level"])  # V_1 <= ub: its floors leave room below ub
    cert["eliminated"].remove(entry)
    codes = code_matrix(game.guesses, game.secrets, game.alphabet)
    solver = ExactSolver(codes, symbols(game.guesses, game.alphabet), game.guess_of_secret, game.n_codes,
                         len(game.alphabet), False)
    row, everyone = codes[game.guess_index[entry["opener"]]], np.arange(len(game.secrets), dtype=np.int32)
    members, starts, sizes = split(row, everyone, game.n_codes)
    classes = [{"response": "".join(str(int(row[m[0]]) // 3**i % 3) for i in range(6)), "size": len(m),
                "bound": solver.min_total(m, cert["max_guesses"] - 1, None), "method": "exact"}
               for m in (members[a:a + t] for a, t in zip(starts, sizes))]
    excess = 206 + sum(c["bound"] for c in classes) - cert["ub"]
    for c in sorted(classes, key=lambda c: -c["size"]):  # lowered, never below the floor 2|C| - 1
        cut = min(excess, c["bound"] - 2 * c["size"] + 1)
        c["bound"], excess = c["bound"] - cut, excess - cut
    assert excess == 0
    cert["survivors"].append({"opener": entry["opener"], "classes": classes, "sum": cert["ub"] - 206,
                              "value": cert["ub"]})
    cert["optimal_openers"] = sorted([*cert["optimal_openers"], entry["opener"]])


@pytest.mark.parametrize("edit,message", [
    (_tie_eliminated, "is not its exact MinTotal"),
    (lambda c: c["survivors"][0]["classes"][0].__setitem__("bound", c["survivors"][0]["classes"][0]["bound"] - 1),
     "sum of class bounds"),
    (_move_bound, "re-derived as"),
    (lambda c: c.__setitem__("ub", 543), "replays to 544, not ub=543"),
    (lambda c: c.__setitem__("optimal_openers", ["1+9=10"]), "optimal_openers"),
    (_lower_claimed_level, "V_1 re-derived as .* not above ub=544"),
    (_promote_eliminated, r"value 2\d\d is below ub=544"),
    (lambda c: c["eliminated"].pop(), "not exactly the allowed guesses"),
    (lambda c: c["eliminated"][0].__setitem__("bound", 500), "does not exceed ub"),
    (lambda c: c.__setitem__("ub_tree_sha256", "0" * 64), "tree.json digest"),
    (lambda c: c.__setitem__("k_s", 74), "k_s=74"),
    (lambda c: c.__setitem__("proven", False), "proven is not true"),
    (lambda c: c.__setitem__("objective", "max_then_total"), "claims objective 'max_then_total'"),
    (lambda c: c["eliminated"][0].__setitem__("rule", "hard"), "rule 'hard' is not a bound of this game's mode"),
    (lambda c: c["survivors"][0]["classes"][0].__setitem__("method", "hard LB_2"),
     "'hard LB_2' is not a bound of this game's mode"),
])
def test_tampered_certificates_are_rejected(mini_proof, tmp_path, edit, message):
    folder, game = mini_proof
    with pytest.raises(CertificateError, match=message):
        verify_certificate(tampered(folder, tmp_path, edit), game)


def test_tampered_tree_total_is_rejected(mini_proof, tmp_path):
    folder, game = mini_proof
    with pytest.raises(CertificateError, match="records total 545"):
        verify_certificate(tampered(folder, tmp_path, edit_tree=lambda t: t.__setitem__("total", 545)), game)


def test_path_longer_than_the_guess_limit_is_rejected(mini_proof, tmp_path):
    folder, game = mini_proof  # the 544 tree finds one secret with its 4th guess
    with pytest.raises(CertificateError, match="beyond the game's limit of 3 guesses"):
        verify_certificate(tampered(folder, tmp_path, lambda c: c.__setitem__("max_guesses", 3)), with_limit(game, 3))


@pytest.mark.slow
def test_forged_547_certificate_is_caught_only_by_the_full_check(tmp_path_factory, tmp_path, ray_session):
    """A forger proves 547 from an upper bound opening 3*9=27 and hides the better openers among the
    eliminated with a bound of 548: each hidden bound is re-derivable, but only below 547."""
    folder, game = _prove(tmp_path_factory, "game=mini_nerdle", "upstream.upper_bound.openers=['3*9=27']")
    cert = json.loads((folder / "certificate.json").read_text())
    summary = json.loads((folder / "manifest.json").read_text())["summary"]
    assert summary["upper_bound_given"] == {"ub": 547, "opener": "3*9=27"}  # the prover itself went on to 544
    assert cert["proven"] and cert["ub"] == 544
    given_tree = json.loads((Path(json.loads((folder / "manifest.json").read_text())["inputs"]["upper_bound"]["path"])
                             / "tree.json").read_text())

    def forge(c):  # the certificate the prover would write if it stopped at 547 and lied about the rest
        better = [s for s in c["survivors"] if s["value"] < 547]
        assert [s["opener"] for s in better] and "4*7=28" in [s["opener"] for s in better]
        c.update(ub=547, ub_opener="3*9=27", proven=True)
        c["survivors"] = [s for s in c["survivors"] if s["value"] >= 547]
        c["eliminated"] += [{"opener": s["opener"], "level": 3, "bound": 548} for s in better]
        c["optimal_openers"] = sorted(s["opener"] for s in c["survivors"] if s["value"] == 547)
        assert "3*9=27" in c["optimal_openers"]

    forged = tampered(folder, tmp_path, forge, lambda tree: (tree.clear(), tree.update(given_tree)))
    with pytest.raises(CertificateError, match="V_3 re-derived as .* not above ub=547"):
        verify_certificate(forged, game)
    partial = verify_certificate(forged, game, sample=3)
    assert not partial["complete"] and partial["openers_rederived"] == 3


@pytest.mark.slow
def test_normal_mode_certificate_presented_as_hard_mode_is_rejected(ight_proof, tmp_path):
    folder, game = ight_proof
    result = verify_certificate(folder, game)
    assert result["complete"] and result["ub"] == 41
    hard = dataclasses.replace(game, hard_mode=True)
    with pytest.raises(CertificateError, match="breaks hard mode"):
        verify_certificate(tampered(folder, tmp_path, lambda c: c.__setitem__("hard_mode", True)), hard)
    with pytest.raises(CertificateError, match="hard_mode=False, the game has hard_mode=True"):
        verify_certificate(folder, hard)


@pytest.mark.slow
def test_parallel_rederivation_gives_the_same_verdicts(mini_proof):
    """The pooled re-derivation reaches the same verdicts; against a higher UB its V_3 values are compared too."""
    import pyarrow.parquet as pq

    from pipeline.proofs.game.answer import code_matrix
    from pipeline.proofs.bounds.lower import LowerBounds
    from pipeline.proofs.certificates.optimal import recheck_eliminations

    folder, game = mini_proof
    assert verify_certificate(folder, game, workers=2) == verify_certificate(folder, game, workers=1)
    cert = json.loads((folder / "certificate.json").read_text())
    deep = [e for e in cert["eliminated"] if e["level"] == 3]
    bounds = LowerBounds(code_matrix(game.guesses, game.secrets, game.alphabet), game.guess_of_secret, game.n_codes)
    funnel = Path(json.loads((folder / "manifest.json").read_text())["inputs"]["lower_bound"]["path"])
    lowest = min(r["value"] for r in pq.read_table(funnel / "funnel.parquet").to_pylist()
                 if r["eliminated"] and r["level"] == 3)  # V_3 is computed exactly up to the UB: the least is exact
    recheck_eliminations(cert | {"ub": lowest - 1}, game, bounds, deep, lambda m: None, workers=2)
    with pytest.raises(CertificateError, match=f"V_3 re-derived as {lowest}, not above ub={lowest}"):
        recheck_eliminations(cert | {"ub": lowest}, game, bounds, deep, lambda m: None, workers=2)



def test_parallel_class_rederivation_catches_a_raised_exact_class(mini_proof, tmp_path):
    folder, game = mini_proof

    def raise_exact(cert):  # the largest class claimed solved exactly at 20 more, the other classes 20 less
        classes = sorted(cert["survivors"][0]["classes"], key=lambda c: -c["size"])
        classes[0].update(method="exact", bound=classes[0]["bound"] + 20)
        for c in classes[1:21]:
            c["bound"] -= 1
    with pytest.raises(CertificateError, match="exact re-derived as"):
        verify_certificate(tampered(folder, tmp_path, raise_exact), game, workers=2)


@pytest.mark.slow
def test_verify_certificate_command(mini_proof, tmp_path):
    folder, _ = mini_proof
    full = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(folder)],
                          capture_output=True, text=True)
    assert full.returncode == 0 and full.stdout.startswith("ok: certificate verified — MinTotal = 544")
    quick = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(folder), "--sample", "5"],
                           capture_output=True, text=True)
    assert quick.returncode == 0 and "partially checked" in quick.stdout and "verified" not in quick.stdout
    assert "re-derived 5 of 205 elimination bounds" in quick.stdout
    bad = tampered(folder, tmp_path, lambda c: c.__setitem__("optimal_openers", ["1+9=10"]))
    proc = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(bad)],
                          capture_output=True, text=True)
    assert proc.returncode == 2 and proc.stderr.strip().startswith("error: certificate rejected: optimal_openers")
    assert proc.stderr.count("\nerror") == 0 and "Traceback" not in proc.stderr


def test_long_checks_say_their_progress_with_an_eta():
    from pipeline.proofs.certificates.parallel import counted

    ticks = iter([0.0, 10.0, 31.0, 40.0, 70.0, 75.0])  # the clock at start and after each of 5 results
    said: list[str] = []
    out = list(counted(iter("abcde"), 5, "class bounds", said.append, every=30.0, clock=lambda: next(ticks)))
    assert out == list("abcde")  # every result passes through, in order
    assert said == ["checked 2/5 class bounds (40%), ETA 0m46s", "checked 4/5 class bounds (80%), ETA 0m17s"]


def test_a_long_wait_between_results_says_the_check_goes_on():
    """A pool's heartbeat (STILL_RUNNING, every few seconds without a result) says `still working` at most every
    `every` seconds, with how long since the last result, and is never passed on as a result."""
    from pipeline.processes.pool import STILL_RUNNING
    from pipeline.proofs.certificates.parallel import counted

    ticks = iter([0.0, 10.0, 20.0, 45.0, 50.0, 80.0, 115.0])  # start, a result, then each heartbeat or result
    said: list[str] = []
    results = iter(["a", STILL_RUNNING, STILL_RUNNING, STILL_RUNNING, STILL_RUNNING, "b"])
    out = list(counted(results, 3, "chunks", said.append, every=30.0, clock=lambda: next(ticks)))
    assert out == ["a", "b"]
    assert said == ["checked 1/3 chunks (33%), still working, none finished for 0m35s",
                    "checked 1/3 chunks (33%), still working, none finished for 1m10s",
                    "checked 2/3 chunks (66%), ETA 0m57s"]


def test_a_pool_beats_while_a_task_runs(tmp_path):
    """A real pool: a task of 1.5 s with a heartbeat of 0.2 s yields STILL_RUNNING before its result."""
    from pipeline.processes.pool import STILL_RUNNING, process_pool
    from tests.helpers.processes import mark_and_sleep

    with process_pool(1) as pool:
        out = list(pool.map(mark_and_sleep, [(str(tmp_path / "task"), 1.5)], heartbeat=0.2))
    assert out[-1] is not STILL_RUNNING and out.count(STILL_RUNNING) >= 3 and len(out) - 1 == out.count(STILL_RUNNING)


def test_progress_lines_reach_a_log_but_announcements_stay_on_terminals(capsys, monkeypatch):
    from pipeline.proofs.certificates.optimal import stderr_say

    monkeypatch.setattr("sys.stderr.isatty", lambda: False, raising=False)
    stderr_say("re-deriving 12 closure class bound(s)")
    stderr_say("checked 2/5 class bounds (40%), ETA 0m46s")
    assert capsys.readouterr().err == "verify-certificate: checked 2/5 class bounds (40%), ETA 0m46s\n"
