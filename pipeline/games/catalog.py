"""Turn a game config into a Game: read or generate its lists, check them, pin their digests."""

from omegaconf import OmegaConf

from pipeline.config import CONF_DIR, GameConfig, PathsConfig
from pipeline.errors import PipelineError
from pipeline.games import generators
from pipeline.games.game import Game
from pipeline.games.lists import check_digest, clean, read_words

MIN_LENGTH, MAX_LENGTH = 4, 11


def _generated(cfg: GameConfig) -> list[str]:
    if cfg.source == "primes":
        return generators.primes(cfg.length)
    if cfg.source == "nerdle":
        return generators.nerdle_equations(cfg.length)
    raise PipelineError(f"game {cfg.name}: unknown source {cfg.source!r} (lists, primes or nerdle)")


def _secrets_and_guesses(cfg: GameConfig) -> tuple[list[str], list[str]]:
    if cfg.source != "lists":
        words = _generated(cfg)
        return words, words
    secrets = read_words(cfg.secrets.path, f"{cfg.name} secrets", cfg.missing_hint)
    guesses = read_words(cfg.guesses.path, f"{cfg.name} guesses", cfg.missing_hint) if cfg.guesses.path else []
    clean_words = lambda words, what: clean(words, cfg.length, cfg.alphabet, what, cfg.keep_matching_only)  # noqa: E731
    secrets = clean_words(secrets, f"{cfg.name} secrets")
    guesses = clean_words(guesses, f"{cfg.name} guesses") if guesses else list(secrets)
    return secrets, guesses


def load_game(cfg: GameConfig) -> Game:
    """Read (or generate), check and pin a game's lists."""
    if not MIN_LENGTH <= cfg.length <= MAX_LENGTH:
        raise PipelineError(f"game {cfg.name}: length {cfg.length} outside {MIN_LENGTH}–{MAX_LENGTH}")
    secrets, guesses = _secrets_and_guesses(cfg)
    check_digest(secrets, cfg.secrets.sha256, cfg.secrets.count, f"{cfg.name} secrets")
    if cfg.guesses.path or cfg.source != "lists":
        check_digest(guesses, cfg.guesses.sha256, cfg.guesses.count, f"{cfg.name} guesses")
    allowed = set(guesses)
    stray = [w for w in secrets if w not in allowed]
    if stray:
        raise PipelineError(f"{cfg.name}: {len(stray)} secret(s) are not allowed guesses, e.g. {stray[0]!r}")
    if cfg.secrets_are_guesses:
        secrets = guesses
    if cfg.max_guesses is not None and cfg.max_guesses < 1:
        raise PipelineError(f"game.max_guesses must be at least 1 (or null = unlimited), got {cfg.max_guesses}")
    secrets, excluded = _exclude(cfg, secrets)
    return Game(cfg.name, tuple(guesses), tuple(secrets), cfg.alphabet, cfg.hard_mode, cfg.max_guesses,
                excluded=excluded)


def _exclude(cfg: GameConfig, secrets: list[str]) -> tuple[list[str], tuple[str, ...]]:
    """(secrets without the words of the game.exclude file, those words sorted): answers already used are
    no longer possible secrets but stay allowed guesses.  Every word must be one of the game's secrets."""
    if not cfg.exclude:
        return secrets, ()
    words = [w.lower() for w in read_words(cfg.exclude, f"{cfg.name} exclude (game.exclude)")]
    known = set(secrets)
    unknown = [w for w in words if w not in known]
    if unknown:
        raise PipelineError(f"game.exclude {cfg.exclude}: {unknown[0]!r} is not a secret of {cfg.name}"
                            + (f" ({len(unknown)} unknown words)" if len(unknown) > 1 else ""))
    excluded = set(words)
    kept = [w for w in secrets if w not in excluded]
    if not kept:
        raise PipelineError(f"game.exclude {cfg.exclude} removes every secret of {cfg.name}")
    return kept, tuple(sorted(excluded))


def game_config(name: str, **overrides) -> GameConfig:
    """A shipped game config by name, resolved without Hydra (for scripts, benchmarks and tests)."""
    file = CONF_DIR / "game" / f"{name}.yaml"
    if not file.is_file():
        known = ", ".join(sorted(p.stem for p in file.parent.glob("*.yaml")))
        raise PipelineError(f"unknown game {name!r}; known games: {known}")
    paths = OmegaConf.merge(OmegaConf.structured(PathsConfig), OmegaConf.load(CONF_DIR / "paths" / "default.yaml"))
    root = OmegaConf.create({"paths": paths, "game": OmegaConf.load(file)})
    game = OmegaConf.merge(OmegaConf.structured(GameConfig), root.game, overrides)
    root.game = game
    return OmegaConf.to_object(root.game)


def builtin_game(name: str, **overrides) -> Game:
    """Load a shipped game by name, e.g. builtin_game("wordle_original")."""
    return load_game(game_config(name, **overrides))
