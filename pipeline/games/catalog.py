"""Turn a game config into a Game: read or generate its lists, check them, pin their digests."""

from pipeline.config.settings import GameConfig
from pipeline import PipelineError
from pipeline.games import generators
from pipeline.games.game import ANSWERS, Game
from pipeline.games.lists import check_digest, clean, read_words

MIN_LENGTH, MAX_LENGTH = 4, 11
# per source, the lengths it may have: 1 symbol is no game; 10 distinct digits at most; Nerdle's generator's own
LENGTHS = {"mastermind": (2, 11), "bulls_and_cows": (2, 10), "nerdle": generators.NERDLE_LENGTHS}
DIGITS = "0123456789"
MAX_SYMBOLS = 256  # words are encoded one byte per symbol (games/encoding.py)
MEMORY_SHARE = 2  # a game's feedback matrix may take at most 1/MEMORY_SHARE of the machine's memory


def _generated(cfg: GameConfig) -> list[str]:
    if cfg.source == "primes":
        return generators.primes(cfg.length)
    if cfg.source == "nerdle":
        return generators.nerdle_equations(cfg.length)
    if cfg.source == "mastermind":
        return generators.mastermind_codes(cfg.pegs, cfg.colours)
    if cfg.source == "bulls_and_cows":
        return generators.distinct_digit_strings(cfg.length)
    raise PipelineError(f"game {cfg.name}: unknown source {cfg.source!r} "
                        "(lists, primes, nerdle, mastermind or bulls_and_cows)")


def _rules(cfg: GameConfig) -> tuple[int, str]:
    """(length, alphabet) of the game, checked: Mastermind's come from game.pegs and game.colours."""
    if cfg.answer not in ANSWERS:
        raise PipelineError(f"game {cfg.name}: unknown answer {cfg.answer!r} (one of {', '.join(ANSWERS)})")
    if cfg.hard_mode and cfg.answer != "wordle":
        raise PipelineError(f"game {cfg.name}: game.hard_mode=true is a Wordle rule; {cfg.answer} has no hard mode")
    length, alphabet = cfg.length, cfg.alphabet
    if cfg.source == "mastermind":
        if not 2 <= cfg.colours <= 9:
            raise PipelineError(f"game {cfg.name}: game.colours={cfg.colours} outside 2–9 (colours are digits 1–9)")
        length, alphabet = cfg.pegs, DIGITS[1:cfg.colours + 1]
    if cfg.source == "bulls_and_cows":
        alphabet = DIGITS
    low, high = LENGTHS.get(cfg.source, (MIN_LENGTH, MAX_LENGTH))
    if not low <= length <= high:
        what = "game.pegs" if cfg.source == "mastermind" else "length"
        raise PipelineError(f"game {cfg.name}: {what} {length} outside {low}–{high}")
    if len(set(alphabet)) > MAX_SYMBOLS:
        raise PipelineError(f"game {cfg.name}: game.alphabet has {len(set(alphabet))} symbols, more than the "
                            f"{MAX_SYMBOLS} a game may have (one byte per symbol)")
    return length, alphabet


def human_bytes(size: float) -> str:
    """1.5 GiB, 93.1 GiB, 12.0 TiB: a size as a person reads it."""
    units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB", "ZiB", "YiB")
    for unit in units:
        if size < 1024 or unit == units[-1]:
            return f"{size:.1f} {unit}" if unit != "B" else f"{int(size)} B"
        size /= 1024


def matrix_bytes(n_guesses: int, n_secrets: int, answer: str, length: int) -> int:
    """Bytes of the |G| x |S| feedback matrix, one code per cell in the smallest unsigned type holding every
    response (3^L colour codes, or at most (L+1)^2 peg answers).  Worked out here, not by the answering
    function, so that loading a game for the independent checker imports none of the prover's code."""
    n_codes = 3 ** length if answer == "wordle" else (length + 1) ** 2
    return n_guesses * n_secrets * (1 if n_codes <= 256 else 2 if n_codes <= 65536 else 4)


def check_fits(cfg: GameConfig, n_guesses: int, n_secrets: int, length: int, estimated: bool = False) -> None:
    """Refuse a game whose feedback matrix cannot fit in this machine's memory, before anything is allocated."""
    from pipeline.config.validation import total_memory

    total, size = total_memory(), matrix_bytes(n_guesses, n_secrets, cfg.answer, length)
    if total and size > total / MEMORY_SHARE:
        about = "about " if estimated else ""
        raise PipelineError(f"game {cfg.name}: {about}{n_guesses:,} guesses x {n_secrets:,} secrets make a "
                            f"{human_bytes(size)} feedback matrix, more than half of this machine's "
                            f"{human_bytes(total)} memory (the most a game may take); choose a smaller game")


def _secrets_and_guesses(cfg: GameConfig, length: int) -> tuple[list[str], list[str]]:
    """The game's lists, generated or read; a list too big for memory is refused before it is generated or used."""
    if cfg.source != "lists":
        count = generators.generated_count(cfg.source, length, cfg.pegs, cfg.colours)
        if count is not None:
            check_fits(cfg, count, count, length, estimated=cfg.source == "primes")
        words = _generated(cfg)
        check_fits(cfg, len(words), len(words), length)
        return words, words
    skipped = None
    if cfg.keep_matching_only:  # a dictionary's other lines are skipped; a lookalike of a game word is refused
        skipped = lambda word: len(word) != cfg.length or not set(word) <= set(cfg.alphabet)  # noqa: E731
    secrets = read_words(cfg.secrets.path, f"{cfg.name} secrets", cfg.missing_hint, skipped)
    guesses = read_words(cfg.guesses.path, f"{cfg.name} guesses", cfg.missing_hint, skipped) if cfg.guesses.path \
        else []
    clean_words = lambda words, what: clean(words, cfg.length, cfg.alphabet, what, cfg.keep_matching_only)  # noqa: E731
    secrets = clean_words(secrets, f"{cfg.name} secrets")
    guesses = clean_words(guesses, f"{cfg.name} guesses") if guesses else list(secrets)
    check_fits(cfg, len(guesses), len(guesses) if cfg.secrets_are_guesses else len(secrets), length)
    return secrets, guesses


def load_game(cfg: GameConfig) -> Game:
    """Read (or generate), check and pin a game's lists."""
    length, alphabet = _rules(cfg)
    secrets, guesses = _secrets_and_guesses(cfg, length)
    check_digest(secrets, cfg.secrets.sha256, cfg.secrets.count, f"{cfg.name} secrets")
    if cfg.guesses.path or cfg.source != "lists":
        check_digest(guesses, cfg.guesses.sha256, cfg.guesses.count, f"{cfg.name} guesses")
    allowed = set(guesses)
    stray = [w for w in secrets if w not in allowed]
    if stray:
        raise PipelineError(f"{cfg.name}: {len(stray)} secret(s) are not allowed guesses, e.g. {stray[0]!r}")
    if cfg.secrets_are_guesses:
        secrets = guesses
    repeated = next((w for w in guesses if len(set(w)) < len(w)), None) if cfg.answer == "bulls_and_cows" else None
    if repeated:
        raise PipelineError(f"{cfg.name}: bulls and cows needs words without repeated symbols, not {repeated!r}")
    secrets, excluded = _exclude(cfg, secrets)
    return Game(cfg.name, tuple(guesses), tuple(secrets), alphabet, cfg.hard_mode, cfg.max_guesses, cfg.answer,
                extra={"source": cfg.source, "files": _files_read(cfg)}, excluded=excluded)


def _files_read(cfg: GameConfig) -> dict[str, dict]:
    """The list files the game was read from, by role (secrets, guesses, exclude): absolute path, size and the
    sha256 of their exact bytes.  Provenance a proof folder keeps beside the lists it writes out
    (pipeline/artifacts/stored_game.py); none for a generated game."""
    import hashlib
    from pathlib import Path

    paths = {"secrets": cfg.secrets.path, "guesses": cfg.guesses.path} if cfg.source == "lists" else {}
    paths["exclude"] = cfg.exclude
    files = {}
    for role, path in paths.items():
        if path:
            data = Path(path).read_bytes()
            files[role] = {"path": str(Path(path).resolve()), "bytes": len(data),
                           "sha256": hashlib.sha256(data).hexdigest()}
    return files


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


def builtin_game(name: str, **overrides) -> Game:
    """Load a shipped game by name, e.g. builtin_game("wordle_original")."""
    from pipeline.config.compose import game_config

    return load_game(game_config(name, **overrides))
