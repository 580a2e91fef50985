"""The constraint view of responses: what a (guess, colours) history says about the secret, letter by letter.

docs/algorithms.md §1 ("What a response tells a person").  For one guess x at
positions i with colours c_i:

- green at i:   the secret has x at i;
- yellow at i:  the secret does not have x at i, and contains x;
- grey at i, x not green/yellow elsewhere in the guess: the secret has no x;
- grey at i, x green/yellow elsewhere: the secret does not have x at i and
  contains x *exactly* (green + yellow copies of x) times;
- otherwise x occurs *at least* (green + yellow copies) times.

A history is the conjunction of its rows, kept in the same form: letters
fixed at positions, letters excluded at positions, and a lower and upper
bound on each letter's count.  For a response the answering function can
actually produce, `matches` selects exactly the words w with
feedback(guess, w) == colours (tests/test_constraints.py checks this with
hypothesis); the pipeline itself filters with the code matrix, and this view
is what the assistant explains to a person.

Hard mode (NYT rules) is the weaker rule on the *next guess*: every green
stays in place and every revealed letter appears at least as often as it was
revealed (green + yellow copies) in any one earlier row; yellow positions and
grey letters may be reused.  `hard_mode_rule` gives it as a Constraints.
"""

from collections import Counter
from dataclasses import dataclass, field

import numpy as np

from pipeline.games.answer import GREEN, GREY, YELLOW

NUMBER_WORDS = ("no", "one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten", "eleven")


@dataclass
class Constraints:
    """What is known about a secret of `length` symbols (positions are 0-based here, 1-based in words)."""

    length: int
    fixed: dict[int, str] = field(default_factory=dict)  # position -> symbol there
    excluded: dict[int, set[str]] = field(default_factory=dict)  # position -> symbols not there
    at_least: dict[str, int] = field(default_factory=dict)  # symbol -> minimum count
    at_most: dict[str, int] = field(default_factory=dict)  # symbol -> maximum count (0 = absent)
    order: list[str] = field(default_factory=list)  # symbols in order of first mention (for explanations)
    conflicts: list[str] = field(default_factory=list)  # contradictions found while combining

    # ---- building -------------------------------------------------------------------------------------------

    def _mention(self, symbol: str) -> None:
        if symbol not in self.order:
            self.order.append(symbol)

    def fix(self, position: int, symbol: str) -> None:
        self._mention(symbol)
        old = self.fixed.get(position)
        if old is not None and old != symbol:
            self.conflicts.append(f"position {position + 1} cannot be both {show(old)} and {show(symbol)}")
        self.fixed.setdefault(position, symbol)

    def exclude(self, position: int, symbol: str) -> None:
        self._mention(symbol)
        self.excluded.setdefault(position, set()).add(symbol)

    def need(self, symbol: str, low: int = 0, high: int | None = None) -> None:
        """Tighten the count bounds of `symbol` to [low, high]."""
        self._mention(symbol)
        if low > self.at_least.get(symbol, 0):
            self.at_least[symbol] = low
        if high is not None and high < self.at_most.get(symbol, self.length):
            self.at_most[symbol] = high
        if self.at_least.get(symbol, 0) > self.at_most.get(symbol, self.length):
            self.conflicts.append(
                f"{show(symbol)} cannot occur both at least {self.at_least[symbol]} and at most "
                f"{self.at_most[symbol]} times")

    def combine(self, other: "Constraints") -> "Constraints":
        """The conjunction of two constraint sets (a new object)."""
        if other.length != self.length:
            raise ValueError(f"cannot combine constraints of lengths {self.length} and {other.length}")
        out = self.copy()
        for symbol in other.order:
            out._mention(symbol)
        for position, symbol in sorted(other.fixed.items()):
            out.fix(position, symbol)
        for position, symbols in sorted(other.excluded.items()):
            for symbol in sorted(symbols):
                out.exclude(position, symbol)
        for symbol in other.order:
            if symbol in other.at_least or symbol in other.at_most:
                out.need(symbol, other.at_least.get(symbol, 0), other.at_most.get(symbol))
        out.conflicts.extend(c for c in other.conflicts if c not in out.conflicts)
        return out

    def copy(self) -> "Constraints":
        return Constraints(self.length, dict(self.fixed), {p: set(s) for p, s in self.excluded.items()},
                           dict(self.at_least), dict(self.at_most), list(self.order), list(self.conflicts))

    # ---- testing words ---------------------------------------------------------------------------------------

    def matches(self, word: str) -> bool:
        """True if `word` satisfies every constraint."""
        if len(word) != self.length:
            return False
        for position, symbol in self.fixed.items():
            if word[position] != symbol:
                return False
        for position, symbols in self.excluded.items():
            if word[position] in symbols:
                return False
        counts = Counter(word)
        for symbol, low in self.at_least.items():
            if counts[symbol] < low:
                return False
        for symbol, high in self.at_most.items():
            if counts[symbol] > high:
                return False
        return True

    def violation(self, word: str) -> str | None:
        """The first constraint `word` breaks, in words (None if it satisfies them all)."""
        if len(word) != self.length:
            return f"it has {len(word)} symbols, not {self.length}"
        for position, symbol in sorted(self.fixed.items()):
            if word[position] != symbol:
                return f"position {position + 1} must be {show(symbol)}"
        for position, symbols in sorted(self.excluded.items()):
            if word[position] in symbols:
                return f"position {position + 1} cannot be {show(word[position])}"
        counts = Counter(word)
        for symbol in self.order:
            low, high = self.at_least.get(symbol, 0), self.at_most.get(symbol)
            if counts[symbol] < low:
                return f"it must contain {count_phrase(low, 'at least')} {show(symbol)}"
            if high is not None and counts[symbol] > high:
                return f"it must not contain {show(symbol)}" if high == 0 else \
                    f"it may contain {count_phrase(high, 'at most')} {show(symbol)}"
        return None

    def mask(self, encoded: np.ndarray, alphabet: str) -> np.ndarray:
        """Vectorised `matches` over words encoded as (n, length) symbol indices into `alphabet`."""
        index = {ch: i for i, ch in enumerate(alphabet)}
        ok = np.ones(encoded.shape[0], dtype=bool)
        for position, symbol in self.fixed.items():
            ok &= encoded[:, position] == index.get(symbol, -1)
        for position, symbols in self.excluded.items():
            for symbol in symbols:
                if symbol in index:
                    ok &= encoded[:, position] != index[symbol]
        for symbol in set(self.at_least) | set(self.at_most):
            counts = (encoded == index.get(symbol, -1)).sum(axis=1)
            ok &= counts >= self.at_least.get(symbol, 0)
            if symbol in self.at_most:
                ok &= counts <= self.at_most[symbol]
        return ok

    # ---- explaining ------------------------------------------------------------------------------------------

    def phrases(self) -> list[str]:
        """One phrase per symbol, e.g. "A in position 2", "exactly two T, in position 1", "no S, E or T"."""
        out, absent = [], []
        for symbol in self.order:
            if self.at_most.get(symbol) == 0:
                absent.append(symbol)
                continue
            phrase = self._symbol_phrase(symbol)
            if phrase:
                out.append(phrase)
        if absent:
            out.append("no " + join_or([show(s) for s in absent]))
        return out

    def _symbol_phrase(self, symbol: str) -> str:
        greens = sorted(p for p, s in self.fixed.items() if s == symbol)
        nots = sorted(p for p, s in self.excluded.items() if symbol in s and p not in self.fixed)
        low = max(self.at_least.get(symbol, 0), len(greens))
        high = self.at_most.get(symbol)
        if high is not None and high == low:
            head = f"{count_phrase(low, 'exactly')} {show(symbol)}"
        elif high is not None:
            head = f"between {low} and {high} {show(symbol)}"
        elif low > len(greens) or (low and not greens):
            head = f"{count_phrase(low, 'at least')} {show(symbol)}"
        elif greens:
            head = show(symbol)
        else:
            head = f"{show(symbol)} maybe"
        parts = [head]
        if greens:
            parts.append(positions_phrase("in", greens, "and"))
        if nots:
            parts.append(positions_phrase("not in", nots, "or"))
        if head == show(symbol):  # "A in position 2", not "A, in position 2"
            return " ".join(parts[:2]) + "".join(", " + p for p in parts[2:])
        return ", ".join(parts)

    def describe(self) -> str:
        """The phrases joined into one line ("nothing yet" when empty)."""
        phrases = self.phrases()
        return "; ".join(phrases) if phrases else "nothing yet"


# ---- building from responses --------------------------------------------------------------------------------


def response_constraints(guess: str, colours: str) -> Constraints:
    """The per-letter constraints of one response (colours as a "02100" string)."""
    if len(guess) != len(colours):
        raise ValueError(f"guess {guess!r} and colours {colours!r} differ in length")
    c = Constraints(len(guess))
    coloured = Counter(g for g, col in zip(guess, colours) if int(col) != GREY)
    greyed = {g for g, col in zip(guess, colours) if int(col) == GREY}
    for i, (g, col) in enumerate(zip(guess, colours)):
        col = int(col)
        if col == GREEN:
            c.fix(i, g)
        elif col == YELLOW:
            c.exclude(i, g)
        elif coloured[g]:
            c.exclude(i, g)
        else:
            c._mention(g)
    for g in dict.fromkeys(guess):
        if g in greyed:
            c.need(g, coloured[g], coloured[g])  # exact count (0 = absent)
        else:
            c.need(g, coloured[g])
    return c


def history_constraints(history, length: int) -> Constraints:
    """Conjunction of the constraints of every (guess, colours) row."""
    out = Constraints(length)
    for guess, colours in history:
        out = out.combine(response_constraints(guess, colours))
    return out


def response_problem(guess: str, colours: str) -> str | None:
    """Why no secret at all (in any word list) can give this response, when a cheap check can tell; else None.

    The game colours repeated letters left to right, so a yellow copy of a
    letter never follows a grey copy of it; and the counts the response
    requires must fit in the word.
    """
    for i, (g, col) in enumerate(zip(guess, colours)):
        if col == str(YELLOW) and any(guess[j] == g and colours[j] == str(GREY) for j in range(i)):
            return (f"a yellow {show(g)} after a grey {show(g)} cannot happen: the game colours repeated "
                    f"letters left to right, so the first copy would be the yellow one")
    c = response_constraints(guess, colours)
    if sum(c.at_least.values()) > c.length:
        return f"the colours ask for {sum(c.at_least.values())} coloured letters in a {c.length}-symbol word"
    return None


def hard_mode_rule(history, length: int) -> Constraints:
    """What NYT hard mode requires of the next guess: greens kept in place, revealed letters reused.

    Each symbol must appear at least as often as it was revealed (green +
    yellow) in any single earlier row.
    """
    rule = Constraints(length)
    for guess, colours in history:
        coloured = Counter()
        for i, (g, col) in enumerate(zip(guess, colours)):
            if int(col) == GREEN:
                rule.fix(i, g)
            if int(col) != GREY:
                coloured[g] += 1
        for g, n in coloured.items():
            rule.need(g, n)
    return rule


def hard_mode_violation(guess: str, history) -> str | None:
    """Why `guess` breaks hard mode after `history`, in words; None if it is allowed."""
    history = list(history)
    if not history:
        return None
    return hard_mode_rule(history, len(guess)).violation(guess)


def hard_mode_allowed(guess: str, history) -> bool:
    """True if NYT hard mode allows `guess` after `history` ((guess, colours) rows)."""
    return hard_mode_violation(guess, history) is None


# ---- words ---------------------------------------------------------------------------------------------------


def show(symbol: str) -> str:
    """A letter in upper case; any other symbol quoted ('3', '=')."""
    return symbol.upper() if symbol.isalpha() else f"'{symbol}'"


def count_phrase(n: int, qualifier: str) -> str:
    """"exactly two", "at least one", ..."""
    return f"{qualifier} {NUMBER_WORDS[n] if n < len(NUMBER_WORDS) else n}"


def join_or(items: list[str], word: str = "or") -> str:
    if len(items) <= 1:
        return "".join(items)
    return ", ".join(items[:-1]) + f" {word} " + items[-1]


def positions_phrase(prefix: str, positions: list[int], word: str) -> str:
    numbers = [str(p + 1) for p in positions]
    noun = "position" if len(numbers) == 1 else "positions"
    return f"{prefix} {noun} {join_or(numbers, word)}"
