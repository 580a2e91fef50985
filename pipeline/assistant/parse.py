"""What a person types into the assistant: a guess and its colours, or a command.

Colour symbols (any mix, case-insensitive):

    grey    0  b (black)  w (white)  x  .  -  _  ⬛ ⬜
    yellow  1  y  ?  🟨
    green   2  g  !  🟩

so `salet 02100`, `salet bgybb` and `salet .!?..` are the same row.  Spaces
inside the colours are ignored (`salet 0 2 1 0 0`, pasted squares).  A word
ending in `!` (`xyzzy! 02100`) asks to use a word that is not in the list
(word-list games only).  Colours alone (`02100`) are for the suggested guess.

Peg games answer with counts instead of colours: `1122 2B1W` (Mastermind:
black, white), `1234 1B2C` (Bulls and Cows: bulls, cows); also `2b 1w`,
`1w2b`, `2B` (no whites), `0`, or two numbers `2 1`.  The answer alone is
for the suggested guess.
"""

from dataclasses import dataclass

GREY_SYMBOLS = "0bwx.-_\u2b1b\u2b1c"
YELLOW_SYMBOLS = "1y?\U0001f7e8"
GREEN_SYMBOLS = "2g!\U0001f7e9"
SYMBOL_COLOUR = {**{s: "0" for s in GREY_SYMBOLS}, **{s: "1" for s in YELLOW_SYMBOLS},
                 **{s: "2" for s in GREEN_SYMBOLS}}
IGNORED = "\ufe0f \t"  # emoji variation selector, spaces

COMMANDS = {"undo": "undo", "u": "undo", "reset": "reset", "new": "reset", "quit": "quit", "exit": "quit",
            "q": "quit", "help": "help", "h": "help", "?": "help", "list": "list", "ls": "list"}

COLOUR_HELP = "0/b/w/x/. grey, 1/y/? yellow, 2/g/! green"


class InputError(ValueError):
    """A line the assistant cannot use; its message is one line for the person."""


@dataclass(frozen=True)
class Entry:
    command: str | None = None  # undo, reset, quit, help, list; None for a row
    word: str | None = None  # None: the suggested guess
    colours: str | None = None  # "02100"
    force: bool = False  # word given with a trailing "!"


def parse_colours(text: str, length: int) -> str:
    """Normalise a colour string to digits, e.g. ".g?.." -> "02100"; InputError if it is not `length` colours."""
    symbols = [ch for ch in text.lower() if ch not in IGNORED]
    unknown = sorted({ch for ch in symbols if ch not in SYMBOL_COLOUR})
    if unknown:
        listed = ", ".join(repr(ch) for ch in unknown)
        raise InputError(f"unknown colour symbol{'s' if len(unknown) > 1 else ''} {listed} in {text!r}; "
                         f"use {COLOUR_HELP}")
    if len(symbols) != length:
        raise InputError(f"colours {text!r} have {len(symbols)} symbols; the game's words have {length}")
    return "".join(SYMBOL_COLOUR[ch] for ch in symbols)


def looks_like_colours(text: str) -> bool:
    return bool(text) and all(ch in SYMBOL_COLOUR or ch in IGNORED for ch in text.lower())


def _peg_entry(text: str, tokens: list[str], length: int, answering) -> Entry:
    """A peg game's row: `<guess> <answer>`, or the answer alone (for the suggested guess)."""
    from pipeline.games.pegs import ImpossibleAnswer

    try:
        return Entry(colours=answering.text(answering.parse(text)))
    except ImpossibleAnswer as err:
        raise InputError(str(err)) from None
    except ValueError as err:
        alone = InputError(str(err))
    word = tokens[0].lower()
    force = word.endswith("!") and len(word) > 1
    word = word[:-1] if force else word
    if len(tokens) == 1 and len(word) == length:
        raise InputError(f"{text!r}: type a guess and its answer, e.g. `{word} "
                         f"{answering.text(length + 2)}`, or `help`")
    if len(tokens) == 1:
        raise alone
    try:
        said = answering.parse(" ".join(tokens[1:]))
    except ImpossibleAnswer as err:
        raise InputError(str(err)) from None
    except ValueError:
        raise alone from None
    return Entry(word=word, colours=answering.text(said), force=force)  # the session checks the word


def parse_line(line: str, length: int, answering=None) -> Entry | None:
    """The Entry for one input line (None for a blank line or a # comment).

    `answering` (the game's `Answering`) is needed for peg games only; without it the answer is colours."""
    text = line.strip()
    if not text or text.startswith("#"):
        return None
    tokens = text.split()
    if len(tokens) == 1 and tokens[0].lower() in COMMANDS:
        return Entry(command=COMMANDS[tokens[0].lower()])
    if answering is not None and answering.kind != "wordle":
        return _peg_entry(text, tokens, length, answering)
    if looks_like_colours(text) and (len(tokens) == 1 or len(tokens[0].rstrip("!")) != length):
        return Entry(colours=parse_colours(text, length))  # colours alone, for the suggested guess
    if len(tokens) == 1:
        raise InputError(f"{text!r}: type a guess and its colours, e.g. `salet 02100`, or `help`")
    word, force = tokens[0].lower(), False
    if word.endswith("!") and len(word) > 1:
        word, force = word[:-1], True
    return Entry(word=word, colours=parse_colours("".join(tokens[1:]), length), force=force)
