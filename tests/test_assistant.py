"""The assistant: input parsing, the session state machine, and `play` / `solve` driven through the real CLI."""

import json
import os
import subprocess
import sys

import pytest

from pipeline.formats.trees import from_lines
from pipeline.assistant.parse import Entry, InputError, parse_colours, parse_line
from pipeline.assistant.session import Session
from pipeline.assistant.strategy import Strategy, find_tree, load_tree_file
from pipeline.config.settings import PROJECT_ROOT
from pipeline import PipelineError
from pipeline.games.answer import feedback
from pipeline.games.catalog import builtin_game
from pipeline.games.constraints import hard_mode_allowed
from pipeline.search.tree import from_json, to_json

WORDS = ["abbey", "abbot", "about", "above", "abyss", "allot", "alloy", "atoll", "babel", "bloat", "tabby", "table"]


def pipeline(*args, stdin="", outputs=None):
    extra = [f"paths.outputs={outputs}"] if outputs else []
    env = {k: v for k, v in os.environ.items() if k != "NO_COLOR"}
    return subprocess.run([sys.executable, "-m", "pipeline", *args, *extra], input=stdin, capture_output=True,
                          text=True, cwd=PROJECT_ROOT, timeout=300, env=env)


@pytest.fixture
def word_list(tmp_path):
    path = tmp_path / "words.txt"
    path.write_text("\n".join(WORDS + ["Proper", "it's"]) + "\n")
    return path


def play_out(session: Session, secret: str, first: str | None = None) -> list[tuple[str, str]]:
    """The rows the session's strategy plays against `secret` (optionally forcing the opener)."""
    session.reset()
    while not session.solved:
        word = first if first and not session.rows else session.suggestion().word
        session.play(word, feedback(word, secret))
    return session.history


# ---- parsing -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["02100", "bgybb", "BGYBB", "wgyww", "xgyxx", ".!?..", "-g?__", "0 2 1 0 0",
                                  "\u2b1b\U0001f7e9\U0001f7e8\u2b1c\u2b1b",
                                  "\u2b1b\U0001f7e9\ufe0f\U0001f7e8\u2b1b\u2b1b"])
def test_colour_notations(text):
    assert parse_colours(text, 5) == "02100"


@pytest.mark.parametrize("text,message", [
    ("0210", "have 4 symbols; the game's words have 5"),
    ("0z10q", "unknown colour symbols 'q', 'z'"),
])
def test_bad_colours(text, message):
    with pytest.raises(InputError, match=message):
        parse_colours(text, 5)


def test_lines():
    assert parse_line("  ", 5) is None and parse_line("# note", 5) is None
    assert parse_line("UNDO", 5) == Entry(command="undo") and parse_line("?", 5) == Entry(command="help")
    assert parse_line("Salet bgybb", 5) == Entry(word="salet", colours="02100")
    assert parse_line("xyzzy! 02100", 5) == Entry(word="xyzzy", colours="02100", force=True)
    assert parse_line("02100", 5) == Entry(colours="02100")  # colours for the suggested guess
    assert parse_line("0 2 1 0 0", 5) == Entry(colours="02100")
    assert parse_line("10007 02100", 5) == Entry(word="10007", colours="02100")  # primel: digits both sides
    with pytest.raises(InputError, match="type a guess and its colours"):
        parse_line("salet", 5)


# ---- the session ---------------------------------------------------------------------------------------------


def test_session_candidates_undo_reset(mini_nerdle):
    session = Session(Strategy(mini_nerdle))
    secret = mini_nerdle.secrets[123]
    rows = play_out(session, secret)
    assert session.solved and rows[-1] == (secret, "222222")
    for guess, colours in rows[:-1]:  # every row kept exactly the secrets that answer it so
        assert feedback(guess, secret) == colours
    assert session.candidate_words() == [secret]
    session.undo()
    assert not session.solved and secret in session.candidate_words()
    with pytest.raises(InputError, match="hard mode|not an allowed guess"):
        session.play("1+1=02", "000000")
    session.reset()
    assert len(session.candidates) == len(mini_nerdle.secrets)
    with pytest.raises(InputError, match="nothing to undo"):
        session.undo()


def test_every_secret_is_solved_and_hard_mode_is_kept():
    game = builtin_game("mini_nerdle", hard_mode=True)
    session = Session(Strategy(game))
    for secret in game.secrets:
        rows = play_out(session, secret)
        assert rows[-1][0] == secret and len(rows) <= 6
        for k, (guess, _) in enumerate(rows):
            assert hard_mode_allowed(guess, rows[:k]), (secret, rows)


def test_suggestion_rules(mini_nerdle):
    session = Session(Strategy(mini_nerdle))
    first = session.suggestion()
    assert first.source == "published" and first.word == "4*7=28" and first.chance == pytest.approx(1 / 206)
    secret = "16/2=8"  # greedy play leaves it tied with 10-2=8: two candidates, not yet solved
    session.play(first.word, feedback(first.word, secret))
    while len(session.candidates) > 2:
        session.play(session.suggestion().word, feedback(session.suggestion().word, secret))
    assert not session.solved and session.candidate_words() == ["10-2=8", "16/2=8"]
    s = session.suggestion()
    assert s.source == "candidate" and s.word == "10-2=8" and s.candidate


# ---- strategy trees ------------------------------------------------------------------------------------------


def write_tree(outputs, game, first: str, key="fake0001", hard_mode=False):
    """A tree artifact for `game` whose opener is `first`, then greedy: routes replayed into a Tree."""
    session = Session(Strategy(game))
    text = "".join(",".join(g for g, _ in play_out(session, s, first)) + "\n" for s in game.secrets)
    tree = from_json(from_lines(text, feedback))
    folder = outputs / "upper_bound" / key
    folder.mkdir(parents=True)
    ids = {**game.identity(), "hard_mode": hard_mode}
    (folder / "tree.json").write_text(json.dumps({"game": game.name, **ids, "tree": to_json(tree)}))
    (folder / "manifest.json").write_text(json.dumps({"stage": "upper_bound", "game": {"name": game.name, **ids}}))
    return folder / "tree.json"


@pytest.fixture(scope="module")
def tree_outputs(tmp_path_factory, mini_nerdle):
    outputs = tmp_path_factory.mktemp("trees") / "outputs"
    write_tree(outputs, mini_nerdle, mini_nerdle.guesses[0])
    return outputs


def test_tree_files_are_checked(tree_outputs, mini_nerdle, word_list):
    path = tree_outputs / "upper_bound" / "fake0001" / "tree.json"
    assert load_tree_file(path, mini_nerdle).tree.guess == mini_nerdle.guesses[0]
    with pytest.raises(PipelineError, match="other word lists"):
        load_tree_file(path, builtin_game("mini_nerdle", hard_mode=True))
    with pytest.raises(PipelineError, match="not found"):
        load_tree_file(tree_outputs / "nope.json", mini_nerdle)


@pytest.mark.slow
def test_play_follows_the_tree_then_greedy(tree_outputs, mini_nerdle):
    opener = mini_nerdle.guesses[0]
    secret = "28/7=4"
    lines = f"{opener} {feedback(opener, secret)}\nundo\n4*7=28 {feedback('4*7=28', secret)}\nquit\n"
    proc = pipeline("play", "game=mini_nerdle", stdin=lines, outputs=tree_outputs)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[1].startswith("suggestions: strategy tree upper_bound/fake0001 (total ")
    suggests = [ln for ln in out if ln.startswith("suggest: ")]
    assert suggests[0].startswith(f"suggest: {opener} (strategy tree)")
    assert any(f"({source})" in suggests[1] for source in ("strategy tree", "one of the last two", "the last candidate"))
    assert suggests[2].startswith(f"suggest: {opener} (strategy tree)")  # after undo: back at the root
    assert "(strategy tree)" not in suggests[3]  # 4*7=28 leaves the tree: greedy from here
    # hard mode is a different game: the tree does not apply
    assert find_tree(builtin_game("mini_nerdle", hard_mode=True), tree_outputs) is None
    assert find_tree(mini_nerdle, tree_outputs).label == "upper_bound/fake0001"


def test_solve_uses_the_tree(tree_outputs, mini_nerdle):
    proc = pipeline("solve", "game=mini_nerdle", "secret=28/7=4", outputs=tree_outputs)
    assert proc.returncode == 0, proc.stderr
    rows = proc.stdout.splitlines()[1:-1]
    assert rows[0].split()[0] == mini_nerdle.guesses[0] and rows[-1] == "28/7=4 222222"
    assert proc.stdout.splitlines()[-1] == f"solved in {len(rows)} guesses"


# ---- the command line ----------------------------------------------------------------------------------------


def test_play_a_full_game_to_a_win(mini_nerdle, tmp_path):
    secret = mini_nerdle.secrets[57]
    rows = play_out(Session(Strategy(mini_nerdle)), secret)
    stdin = "".join(f"{g} {c}\n" for g, c in rows[:-1]) + "222222\n"  # the last row: colours alone
    proc = pipeline("play", "game=mini_nerdle", "tree=none", stdin=stdin, outputs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout.splitlines()
    assert out[0] == "mini_nerdle: 6 symbols, 206 possible secrets"
    assert "\x1b[" not in proc.stdout  # no colour codes when not on a terminal
    for guess, colours in rows:
        assert f"{guess} {colours}" in out
    assert out[-1] == f"solved in {len(rows)} guesses! (`reset` for a new game, `quit` to leave)"


def test_words_game_bad_input_undo_and_inconsistency(word_list, tmp_path):
    stdin = "\n".join([
        "abbey 0000",  # colours of the wrong length
        "abbey 0q000",  # unknown colour symbol
        "abbeys 00000",  # wrong word length
        "zzzzz 00000",  # not in the list
        "zzzzz! 00000",  # ... used anyway
        "tabby 00000",  # no T, A, B or Y: every word has an A, so nothing fits
        "undo",
        "tabby 11100",
        "list",
        "frobnicate",
        "quit",
        "abbey 22222",  # after quit: never read
    ]) + "\n"
    proc = pipeline("play", "game=words", f"game.secrets.path={word_list}", stdin=stdin, outputs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "words: 5 symbols, 12 possible secrets" in out
    assert "error: colours '0000' have 4 symbols; the game's words have 5" in out
    assert "error: unknown colour symbol 'q' in '0q000'" in out
    assert "error: 'abbeys' has 6 symbols, not 5" in out
    assert "error: 'zzzzz' is not in the word list; type `zzzzz! <colours>` to use it anyway" in out
    assert "zzzzz 00000\nlearned: no Z\ncandidates: 12 of 12 left (0.00 bits gained" in out
    assert "candidates: none — no secret of words fits all these colours" in out
    assert "undone: tabby 00000" in out
    assert "learned: at least one T, not in position 1; at least one A, not in position 2; " \
           "exactly one B, not in positions 3 or 4; no Y" in out
    assert "candidates: 2 of 12 left (2.58 bits gained, 2.58 in all): about, bloat" in out
    assert "error: 'frobnicate': type a guess and its colours" in out
    assert "abbey 22222" not in out.split("> quit")[1]


def test_wordle_explains_repeated_letters_and_enforces_hard_mode(tmp_path):
    stdin = "salet 00002\ncrane 00000\nundo\ntutti 10201\nundo\nspeed 00010\n"
    proc = pipeline("play", "game=wordle_original", "game.hard_mode=true", "tree=none", stdin=stdin,
                    outputs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    out = proc.stdout
    assert "learned: T in position 5; no S, A, L or E" in out
    assert "hard mode: the next guess must keep T in position 5" in out
    assert "error: hard mode does not allow 'crane': position 5 must be T" in out
    assert ("learned: exactly two T, in position 3, not in positions 1 or 4; at least one I, not in position 5; "
            "no U") in out
    assert "note: a yellow E after a grey E cannot happen" in out


@pytest.mark.slow
def test_solve_command(tmp_path, mini_nerdle):
    proc = pipeline("solve", "game=mini_nerdle", "secret=28/7=4", "tree=none", outputs=tmp_path)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    rows = [ln.split() for ln in lines[1:-1]]
    assert rows[-1] == ["28/7=4", "222222"] and all(feedback(g, "28/7=4") == c for g, c in rows)
    assert lines[-1] == f"solved in {len(rows)} guesses"

    bad = pipeline("solve", "game=mini_nerdle", "secret=1+1=03", outputs=tmp_path)
    assert bad.returncode == 2 and bad.stderr.strip() == "error: '1+1=03' is not a possible secret of mini_nerdle"
    missing = pipeline("solve", "game=mini_nerdle", outputs=tmp_path)
    assert missing.returncode == 2 and missing.stderr.startswith("error: solve needs secret=<word>")
    stray = pipeline("play", "game=mini_nerdle", "colour=blue", outputs=tmp_path)
    assert stray.returncode == 2 and stray.stderr.startswith("error: unexpected argument 'colour=blue'")


@pytest.mark.parametrize("name", ["mini_nerdle", "wordle_original"])
def test_greedy_scan_agrees_with_the_valuations_module(name):
    import numpy as np

    from pipeline.assistant.strategy import greedy_choice, split_scan
    from pipeline.feedback.matrix import game_matrix
    from pipeline.search.strategies import valuations

    game = builtin_game(name)
    if name == "wordle_original":  # a slice keeps it fast
        game = type(game)(name, game.guesses[::7], game.secrets[::7], game.alphabet)
    codes = game_matrix(game)
    rng = np.random.default_rng(7)
    enc_g, enc_s = game.encoded_guesses(), game.encoded_secrets()
    for size in (3, 10, 40, len(game.secrets)):
        cands = np.sort(rng.choice(len(game.secrets), size=size, replace=False))
        vals = valuations.values(codes, game.secret_of_guess, game.n_codes, cands)
        parts, sum_sq = split_scan(enc_g, enc_s[cands], game.n_codes, len(game.alphabet))
        assert np.array_equal(-parts, vals[:, valuations.MOST_PARTS])
        assert np.array_equal(sum_sq, vals[:, valuations.EXP_SIZE_SPLIT])
        in_c = np.isin(game.secret_of_guess, cands)
        best = greedy_choice(enc_g, enc_s[cands], in_c, game.n_codes, len(game.alphabet))
        assert best == valuations.rank(codes, game.secret_of_guess, game.n_codes, cands)[0]


def test_split_scan_matches_the_scalar_answering_function():
    from collections import Counter

    import numpy as np
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from pipeline.assistant.strategy import split_scan
    from pipeline.feedback.kernel import encode_words

    @settings(max_examples=60, deadline=None)
    @given(length=st.integers(4, 7), data=st.data())
    def check(length, data):
        word = st.text(alphabet="abcd", min_size=length, max_size=length)
        guesses = data.draw(st.lists(word, min_size=1, max_size=8))
        cands = data.draw(st.lists(word, min_size=1, max_size=25, unique=True))
        parts, sum_sq = split_scan(encode_words(guesses, "abcd"), encode_words(cands, "abcd"), 3**length, 4)
        for g, p, q in zip(guesses, parts, sum_sq):
            sizes = Counter(feedback(g, c) for c in cands).values()
            assert (p, q) == (len(sizes), sum(t * t for t in sizes)), g

    check()
