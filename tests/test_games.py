"""Games: every shipped list's count and digest, generated sets, and each bad list."""

import logging

import pytest

from pipeline.config import GameConfig, WordListConfig
from pipeline.errors import PipelineError
from pipeline.games.catalog import builtin_game, game_config, load_game
from pipeline.games.digest import sorted_sha256

COUNTS = {
    "wordle_original": (2315, 12972),
    "wordle_nyt_feb2022": (2309, 12947),
    "wordle_nyt_mar2022": (2309, 12972),
    "wordle_nyt_apr2022": (2309, 12974),
    "wordle_nyt_aug2022": (2309, 14855),
    "wordle_nyt_jul2023": (3158, 14855),
    "primel": (8363, 8363),
    "nerdle": (17723, 17723),
    "midi_nerdle": (6661, 6661),
    "mini_nerdle": (206, 206),
    "ffxivrdle": (168, 849),
}


@pytest.mark.parametrize("name", sorted(COUNTS))
def test_list_counts_digests_and_order(name):
    game = builtin_game(name)
    cfg = game_config(name)
    assert (len(game.secrets), len(game.guesses)) == COUNTS[name]
    assert game.secrets_digest == cfg.secrets.sha256 == sorted_sha256(game.secrets)
    assert game.guesses_digest == cfg.guesses.sha256
    assert list(game.secrets) == sorted(game.secrets) and list(game.guesses) == sorted(game.guesses)
    assert set(game.secrets) <= set(game.guesses)
    assert (game.secret_of_guess >= 0).sum() == len(game.secrets)


def test_published_digests_are_the_ones_in_data_md():
    assert builtin_game("wordle_original").secrets_digest.startswith("f40e47975cf3")
    assert builtin_game("nerdle").secrets_digest.startswith("8789ee0df862")
    assert "4*7=28" in builtin_game("mini_nerdle").secrets


def test_nyt_lists_differ_from_original_as_documented():
    original, apr = builtin_game("wordle_original"), builtin_game("wordle_nyt_apr2022")
    assert set(original.secrets) - set(apr.secrets) == {"agora", "fibre", "lynch", "pupal", "slave", "wench"}
    assert set(apr.guesses) - set(original.guesses) == {"koran", "quran"}


def test_shipped_files_match_provenance():
    from pipeline.config import PROJECT_ROOT
    from pipeline.games.sources import verify

    assert verify(PROJECT_ROOT / "data") == []


def _words_game(tmp_path, secrets, guesses=None, **extra):
    s = tmp_path / "secrets.txt"
    s.write_text("\n".join(secrets) + "\n")
    g = WordListConfig()
    if guesses is not None:
        (tmp_path / "guesses.txt").write_text("\n".join(guesses) + "\n")
        g = WordListConfig(path=str(tmp_path / "guesses.txt"))
    return GameConfig(name="t", secrets=WordListConfig(path=str(s)), guesses=g, **extra)


def test_words_game_any_length_and_secrets_are_guesses(tmp_path):
    game = load_game(_words_game(tmp_path, ["planet", "stream", "Planet"], ["planet", "stream", "zygote"], length=6))
    assert game.secrets == ("planet", "stream") and game.length == 6 and game.n_codes == 3**6
    everything = load_game(_words_game(tmp_path, ["planet", "stream"], ["planet", "stream", "zygote"],
                                       length=6, secrets_are_guesses=True))
    assert everything.secrets == everything.guesses == ("planet", "stream", "zygote")


def test_keep_matching_only_skips_other_lines(tmp_path):
    cfg = _words_game(tmp_path, ["apple", "apples", "it's", "Bravo", "crane"], keep_matching_only=True)
    assert load_game(cfg).secrets == ("apple", "bravo", "crane")


def test_duplicates_are_dropped_with_a_warning(tmp_path, caplog):
    with caplog.at_level(logging.WARNING, logger="pipeline"):
        game = load_game(_words_game(tmp_path, ["crane", "crane", "slate"]))
    assert game.secrets == ("crane", "slate")
    assert "dropped 1 duplicate" in caplog.text


@pytest.mark.parametrize("secrets,guesses,message", [
    (["crane", "slates"], None, "mixes lengths"),
    (["crane", "sl4te"], None, "outside the game's alphabet"),
    (["crane", "slate"], ["crane", "trace"], "not allowed guesses"),
    ([], None, "empty"),
])
def test_bad_lists_give_one_clear_error(tmp_path, secrets, guesses, message):
    with pytest.raises(PipelineError, match=message) as err:
        load_game(_words_game(tmp_path, secrets, guesses))
    assert "\n" not in str(err.value)


def test_missing_file_and_digest_mismatch(tmp_path):
    with pytest.raises(PipelineError, match="not found: /nowhere/x.txt"):
        load_game(GameConfig(name="t", secrets=WordListConfig(path="/nowhere/x.txt")))
    with pytest.raises(PipelineError, match="digest mismatch"):
        load_game(_words_game(tmp_path, ["crane"]).__class__(
            name="t", secrets=WordListConfig(path=str(tmp_path / "secrets.txt"), sha256="0" * 64)))
    with pytest.raises(PipelineError, match="expected 2315"):
        builtin_game("wordle_original", secrets={"path": str(tmp_path / "secrets.txt")})


def test_ffxivrdle_missing_says_which_files_are_needed(tmp_path):
    with pytest.raises(PipelineError, match="answers.txt .168 words. and guesses.txt .849 words."):
        load_game(game_config("ffxivrdle", secrets={"path": str(tmp_path / "ffxivrdle/answers.txt")}))


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(PipelineError, match="unknown game 'wordel'.*wordle_original"):
        builtin_game("wordel")
