"""General guessing games: Mastermind and Bulls and Cows answering functions, games, exact values, proof, assistant."""

import random
from functools import lru_cache
from itertools import permutations, product

import numpy as np
import pytest

from pipeline import PipelineError
from pipeline.feedback.matrix import answer_matrix
from pipeline.games import pegs
from pipeline.games.answer import Answering
from pipeline.games.catalog import builtin_game
from pipeline.games.encoding import encode_words
from pipeline.proofs.game import answer as checker
from tests.helpers.cli import run_cli

hypothesis = pytest.importorskip("hypothesis")
from hypothesis import given, settings  # noqa: E402
from hypothesis import strategies as st  # noqa: E402


def naive_pegs(guess, secret):
    """Mastermind by the rule book: mark blacks, then pair each remaining guess peg with an unmarked secret peg."""
    used_g = [g == s for g, s in zip(guess, secret)]
    used_s = list(used_g)
    white = 0
    for i, g in enumerate(guess):
        if used_g[i]:
            continue
        for j, s in enumerate(secret):
            if not used_s[j] and s == g:
                used_s[j] = True
                white += 1
                break
    return sum(used_g), white


# ---- scalar references ---------------------------------------------------------------------------------------


def test_scalar_examples():
    assert pegs.mastermind("1122", "1213") == (1, 2)
    assert pegs.mastermind("1111", "1222") == (1, 0)
    assert pegs.mastermind("3456", "6543") == (0, 4)
    assert pegs.bulls_and_cows("1234", "1325") == (1, 2)
    assert pegs.bulls_and_cows("0123", "3210") == (0, 4)
    assert Answering("mastermind", 4).response("1122", "1213") == "1B2W"
    assert Answering("bulls_and_cows", 4).response("1234", "1325") == "1B2C"
    assert Answering("wordle", 5).response("salet", "later") == "02121"


codes_of = st.integers(2, 6).flatmap(
    lambda n: st.tuples(st.integers(1, 6), st.integers(2, 6)).flatmap(
        lambda lc: st.lists(st.text("123456"[:lc[1]], min_size=lc[0], max_size=lc[0]), min_size=2, max_size=12)))


@settings(max_examples=150, deadline=None)
@given(codes_of)
def test_mastermind_references_agree(words):
    """Three independent Mastermind references (games/, proofs/, the rule book) and both kernels agree."""
    length = len(words[0])
    kernel = answer_matrix(encode_words(words, "123456"), encode_words(words, "123456"), "mastermind")
    checked = checker.game_code_matrix(words, words, "123456", "mastermind")
    answering = Answering("mastermind", length)
    for i, g in enumerate(words):
        for j, s in enumerate(words):
            b, w = pegs.mastermind(g, s)
            assert (b, w) == naive_pegs(g, s) == checker.pegs(g, s)
            assert kernel[i, j] == checked[i, j] == answering.code(g, s) == b * (length + 1) + w
            assert answering.text(kernel[i, j]) == checker.response("mastermind", g, s) == f"{b}B{w}W"


@settings(max_examples=150, deadline=None)
@given(st.integers(1, 10).flatmap(lambda n: st.lists(st.permutations("0123456789").map(lambda p: "".join(p[:n])),
                                                     min_size=2, max_size=10)))
def test_bulls_and_cows_references_agree(words):
    """Bulls and cows: its own rule, Mastermind's rule on distinct digits, the checker's, and the kernel agree."""
    length = len(words[0])
    kernel = answer_matrix(encode_words(words, "0123456789"), encode_words(words, "0123456789"), "bulls_and_cows")
    for i, g in enumerate(words):
        for j, s in enumerate(words):
            pair = pegs.bulls_and_cows(g, s)
            assert pair == pegs.mastermind(g, s) == checker.bulls_cows(g, s)
            assert kernel[i, j] == Answering("bulls_and_cows", length).code(g, s)
            assert checker.response("bulls_and_cows", g, s) == f"{pair[0]}B{pair[1]}C"


@pytest.mark.parametrize("kind", ["wordle", "mastermind", "bulls_and_cows"])
def test_encoding_win_and_text_round_trip(kind):
    length = 4
    a = Answering(kind, length)
    word = "1234"
    assert a.code(word, word) == a.win == a.n_codes - 1
    assert checker.n_codes_of(kind, length) == a.n_codes
    others = {a.code(word, s) for s in ("".join(p) for p in permutations("0123456789", length))}
    assert max(others) == a.win and all(0 <= c < a.n_codes for c in others)
    for code in others:
        assert a.parse(a.text(code)) == code
        assert checker.text_of(kind, code, length) == a.text(code)


def test_peg_answer_forms_and_impossible_answers():
    a = Answering("mastermind", 4)
    for typed in ("2B1W", "2b1w", "2b 1w", "1w2b", "2 1", "2,1", "2 black 1 white"):
        assert a.text(a.parse(typed)) == "2B1W"
    assert a.text(a.parse("3b")) == "3B0W" and a.text(a.parse("0")) == "0B0W"
    with pytest.raises(pegs.ImpossibleAnswer, match="3B1W is impossible"):
        a.parse("3B1W")
    with pytest.raises(pegs.ImpossibleAnswer, match="more than the 4 positions"):
        a.parse("2b3w")
    with pytest.raises(ValueError, match="not an answer"):
        a.parse("2x")
    assert Answering("bulls_and_cows", 4).text(Answering("bulls_and_cows", 4).parse("1 bull 2 cows")) == "1B2C"
    with pytest.raises(pegs.ImpossibleAnswer, match="3 bulls \\+ 2 cows are more than the 4 positions"):
        Answering("bulls_and_cows", 4).parse("3b2c")


# ---- games ---------------------------------------------------------------------------------------------------


def test_generated_games():
    mm = builtin_game("mastermind")
    assert (len(mm.secrets), len(mm.guesses), mm.length, mm.alphabet, mm.n_codes) == (1296, 1296, 4, "123456", 21)
    assert mm.max_guesses is None and mm.secrets[0] == "1111" and mm.secrets[-1] == "6666"
    small = builtin_game("mastermind", pegs=3, colours=5)
    assert (len(small.secrets), small.alphabet) == (125, "12345")
    bc = builtin_game("bulls_and_cows")
    assert len(bc.secrets) == 5040 and all(len(set(w)) == 4 for w in bc.secrets)
    assert len(builtin_game("bulls_and_cows", length=3).secrets) == 720
    assert "answer" not in builtin_game("mini_nerdle").identity()  # Wordle artifact keys unchanged
    assert mm.identity()["answer"] == "mastermind"


@pytest.mark.parametrize("overrides, message", [
    ({"colours": 12}, "game.colours=12 outside 2–9"),
    ({"pegs": 1}, "game.pegs 1 outside 2–11"),
    ({"hard_mode": True}, "hard mode"),
    ({"answer": "hangman"}, "unknown answer"),
])
def test_bad_game_settings(overrides, message):
    with pytest.raises(PipelineError, match=message):
        builtin_game("mastermind", **overrides)


# ---- exact values against brute force ------------------------------------------------------------------------


def brute_min_total_by_respond(words, respond, secrets=None):
    """MinTotal of `secrets` (default: all words) over every strategy, by plain recursion (tiny games only).
    Two shortcuts that change no value: guesses leaving the same classes to solve are valued once, and a guess
    reaching 2n - 1 ends the search of n candidates (each secret takes a guess, only one is won by the first)."""
    respond = lru_cache(maxsize=None)(respond)  # each (guess, secret) pair answered once

    @lru_cache(maxsize=None)
    def best(cands):
        if len(cands) == 1:
            return 1
        value, seen = None, set()
        for g in words:
            classes = {}
            for s in cands:
                classes.setdefault(respond(g, s), []).append(s)
            if len(classes) == 1 and g not in cands:
                continue
            left = frozenset(tuple(c) for c in classes.values() if c != [g])
            if left in seen:
                continue
            seen.add(left)
            total = len(cands) + sum(best(c) for c in left)
            value = total if value is None else min(value, total)
            if value == 2 * len(cands) - 1:
                break
        return value

    return best(tuple(words if secrets is None else secrets))


@pytest.mark.parametrize("game, overrides, sample", [("mastermind", {"pegs": 3, "colours": 3}, None),
                                                     ("mastermind", {"pegs": 2, "colours": 4}, None),
                                                     ("bulls_and_cows", {"length": 2}, 14),
                                                     ("bulls_and_cows", {"length": 3}, 9)])
def test_exact_search_matches_brute_force(game, overrides, sample):
    """MinTotal of all secrets, or of a random sample of them with every guess allowed."""
    from pipeline.feedback.matrix import game_matrix
    from pipeline.proofs.exact.solver import ExactSolver as CheckerExact
    from pipeline.search.exact.solver import ExactSolver
    from pipeline.search.matrix import Matrix

    g = builtin_game(game, **overrides)
    codes = game_matrix(g)
    cands = np.arange(len(g.secrets), dtype=np.int32)
    if sample:
        cands = np.sort(np.random.default_rng(5).choice(cands, sample, replace=False)).astype(np.int32)
    expected = brute_min_total_by_respond(g.guesses, g.answering.response, tuple(g.secrets[i] for i in cands))
    assert ExactSolver(Matrix(codes, g.secret_of_guess, g.n_codes)).min_total(cands)[0] == expected
    checker_codes = checker.game_code_matrix(g.guesses, g.secrets, g.alphabet, g.answer)
    solver = CheckerExact(checker_codes, checker.symbols(g.guesses, g.alphabet), g.guess_of_secret, g.n_codes,
                          len(g.alphabet), False)
    assert solver.min_total(cands, None, None) == expected
    if (game, overrides.get("pegs")) == ("mastermind", 3):
        assert expected == 73


def test_upper_bound_tree_replays_with_peg_answers():
    from pipeline.feedback.matrix import game_matrix
    from pipeline.search.apmintotal.value import apmintotal
    from pipeline.search.matrix import Matrix
    from pipeline.search.tree import statistics, verify

    g = builtin_game("mastermind", pegs=3, colours=4)
    result = apmintotal(Matrix(game_matrix(g), g.secret_of_guess, g.n_codes), breadth=5)
    tree = result.tree(list(g.guesses), g.answering.text)
    assert all(k.endswith("W") and "B" in k for k in tree.children)
    assert verify(tree, g.guesses, g.secrets, g.answering.response) == result.total == statistics(tree)["total"]
    assert result.total >= brute_min_total_by_respond(g.secrets, g.answering.response)


# ---- the whole proof and the checker -------------------------------------------------------------------------


def test_prove_small_mastermind_and_verify(tmp_path, ray_session):
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.proofs.certificates.optimal import CertificateError, verify_certificate
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    cfg = compose_config([f"paths.outputs={tmp_path}", "progress=false", "experiment=prove", "game=mastermind",
                             "game.pegs=3", "game.colours=3"])
    game = load_game(cfg.game)
    folder = run_stage(cfg.stage, cfg, game, ArtifactStore(tmp_path)).path
    result = verify_certificate(folder, game)
    assert result["ub"] == 73 and result["complete"]
    wordle_rules = load_game(compose_config(["game=mastermind", "game.pegs=3", "game.colours=3",
                                                "game.answer=wordle"]).game)
    with pytest.raises(CertificateError, match="answers"):
        verify_certificate(folder, wordle_rules)


# ---- the assistant -------------------------------------------------------------------------------------------


def test_play_mastermind_bad_input_keeps_the_session():
    lines = ["1173 1b", "112 1b", "3B1W", "1122 2b3w", "1122 1b1w", "list"]
    run = run_cli("play", "game=mastermind", "tree=none", stdin="\n".join(lines) + "\n")
    assert run.returncode == 0, run.stderr
    out = run.stdout
    assert "error: '1173' uses '7', not in mastermind's symbols '123456'" in out
    assert "error: '112' has 3 symbols, not 4" in out
    assert "error: 3B1W is impossible" in out
    assert "error: 2B3W is impossible" in out
    left = sum(1 for s in builtin_game("mastermind").secrets if pegs.mastermind("1122", s) == (1, 1))
    assert f"1122 1B1W\ncandidates: {left} of 1296 left" in out
    assert f"{left} candidates:" in out


def test_play_bulls_and_cows_refuses_repeated_digits():
    run = run_cli("play", "game=bulls_and_cows", "game.length=3", "tree=none", stdin="112 1b\n012 1b1c\n")
    assert "error: '112' repeats a digit" in run.stdout
    left = sum(1 for s in builtin_game("bulls_and_cows", length=3).secrets if pegs.bulls_and_cows("012", s) == (1, 1))
    assert f"012 1B1C\ncandidates: {left} of 720 left" in run.stdout


@pytest.mark.slow
def test_solve_mastermind():
    run = run_cli("solve", "game=mastermind", "secret=3456", "tree=none")
    assert run.returncode == 0, run.stderr
    rows = [line.split() for line in run.stdout.splitlines() if len(line.split()) == 2 and line[0].isdigit()]
    assert rows[-1] == ["3456", "4B0W"]
    assert all(pegs.pair_text(Answering("mastermind", 4).code(g, "3456"), 4, "mastermind") == a for g, a in rows)
    assert run.stdout.rstrip().endswith(f"solved in {len(rows)} guesses")


def test_random_pairs_agree_on_full_mastermind():
    g = builtin_game("mastermind")
    m = answer_matrix(g.encoded_guesses(), g.encoded_secrets(), "mastermind")
    rng = random.Random(3)
    for _ in range(300):
        i, j = rng.randrange(1296), rng.randrange(1296)
        assert m[i, j] == g.answering.code(g.guesses[i], g.secrets[j])
    row = m[g.guess_index["1123"]]
    naive = [naive_pegs("1123", s) for s in g.secrets]
    assert row.tolist() == [b * 5 + w for b, w in naive]
