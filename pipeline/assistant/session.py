"""The assistant's state machine, free of any input/output: rows played, candidates left, undo, suggestions."""

import math
from dataclasses import dataclass

import numpy as np

from pipeline.assistant.parse import InputError
from pipeline.assistant.strategy import Strategy, Suggestion
from pipeline.feedback.matrix import answer_matrix
from pipeline.games.encoding import encode_words
from pipeline.games.constraints import Constraints, hard_mode_violation, history_constraints, show


@dataclass(frozen=True)
class Row:
    guess: str
    colours: str  # the answer's text: "02100" (Wordle), "2B1W" (Mastermind), "1B2C" (Bulls and Cows)
    before: np.ndarray  # candidate secret indices before this row
    after: np.ndarray  # ... and after it
    listed: bool  # the guess is in the game's allowed list

    @property
    def bits(self) -> float:
        """Information gained: log2(|C before| / |C after|) (inf if nothing is left)."""
        return math.log2(len(self.before) / len(self.after)) if len(self.after) else math.inf


class Session:
    """One game in progress.  `allow_unlisted`: words outside the list may be played when asked (`word!`)."""

    def __init__(self, strategy: Strategy, allow_unlisted: bool = False):
        self.strategy = strategy
        self.game = strategy.game
        self.allow_unlisted = allow_unlisted
        self.rows: list[Row] = []
        self.all_candidates = np.arange(len(self.game.secrets), dtype=np.int64)
        self._suggestions: dict[tuple, Suggestion] = {}
        self._strategies = {self.game.hard_mode: strategy}  # by hard mode: switching back keeps the tree

    # ---- state ---------------------------------------------------------------------------------------------

    @property
    def history(self) -> list[tuple[str, str]]:
        return [(r.guess, r.colours) for r in self.rows]

    @property
    def candidates(self) -> np.ndarray:
        return self.rows[-1].after if self.rows else self.all_candidates

    def candidate_words(self) -> list[str]:
        return [self.game.secrets[int(i)] for i in self.candidates]

    @property
    def solved(self) -> bool:
        won = bool(self.rows) and self.game.answering.parse(self.rows[-1].colours) == self.game.answering.win
        return won and len(self.rows[-1].after) == 1

    @property
    def inconsistent(self) -> bool:
        return bool(self.rows) and len(self.candidates) == 0

    def constraints(self) -> Constraints:
        return history_constraints(self.history, self.game.length)

    def suggestion(self) -> Suggestion:
        key = tuple(self.history)
        if key not in self._suggestions:
            self._suggestions[key] = self.strategy.suggest(self.history, self.candidates)
        return self._suggestions[key]

    # ---- changes -------------------------------------------------------------------------------------------

    def check_guess(self, word: str, force: bool = False) -> bool:
        """InputError if `word` cannot be played now; returns whether it is in the allowed list."""
        game = self.game
        if len(word) != game.length:
            raise InputError(f"{word!r} has {len(word)} symbols, not {game.length}")
        stray = sorted({ch for ch in word if ch not in game.alphabet})
        if stray:
            raise InputError(f"{word!r} uses {', '.join(map(repr, stray))}, not in {game.name}'s symbols "
                             f"{game.alphabet!r}")
        if game.answer == "bulls_and_cows" and len(set(word)) < len(word):
            raise InputError(f"{word!r} repeats a digit: bulls and cows guesses have {game.length} different digits")
        listed = word in game.guess_index
        if not listed and not (force and self.allow_unlisted):
            if self.allow_unlisted:
                raise InputError(f"{word!r} is not in the word list; type `{word}! <colours>` to use it anyway")
            raise InputError(f"{word!r} is not an allowed guess in {game.name}")
        if game.hard_mode:
            problem = hard_mode_violation(word, self.history)
            if problem:
                raise InputError(f"hard mode does not allow {word!r}: {problem}")
        return listed

    def play(self, word: str | None, colours: str, force: bool = False) -> Row:
        """Add a row (word None = the current suggestion).  InputError if it cannot be played."""
        if self.solved:
            raise InputError("this game is solved; `undo` the last row or `reset` for a new game")
        if word is None:
            suggestion = self.suggestion()
            if suggestion.word is None:
                raise InputError("there is no suggestion to give colours for; type the guess too, or `undo`")
            word = suggestion.word
        if self.game.answer == "wordle" and len(colours) != self.game.length:
            raise InputError(f"colours {colours!r} have {len(colours)} symbols; the guess has {self.game.length}")
        listed = self.check_guess(word, force)
        before = self.candidates
        if len(before):
            guess_codes = answer_matrix(encode_words([word], self.game.alphabet), self.strategy.enc_secrets[before],
                                        self.game.answer)[0]
            after = before[guess_codes == self.game.answering.parse(colours)]
        else:
            after = before
        row = Row(word, colours, before, after, listed)
        self.rows.append(row)
        return row

    def hard_mode_problem(self) -> str | None:
        """Why the rows played so far break hard mode (the first row that does), or None."""
        for i, row in enumerate(self.rows):
            problem = hard_mode_violation(row.guess, self.history[:i])
            if problem:
                return f"row {i + 1} ({row.guess}) breaks it: {problem}"
        return None

    def set_hard_mode(self, on: bool) -> None:
        """Play on in hard mode (on) or normal mode; InputError if the rows so far break hard mode.

        The other mode's strategy has no stored tree (a tree is made for one mode) unless it is the mode the
        session began in."""
        if on and self.hard_mode_problem():
            raise InputError(f"cannot switch to hard mode: {self.hard_mode_problem()}")
        if on == self.game.hard_mode:
            return
        if on not in self._strategies:
            import dataclasses

            self._strategies[on] = Strategy(dataclasses.replace(self.game, hard_mode=on))
        self.strategy = self._strategies[on]
        self.game = self.strategy.game
        self._suggestions.clear()

    def undo(self) -> Row:
        if not self.rows:
            raise InputError("nothing to undo")
        return self.rows.pop()

    def reset(self) -> None:
        self.rows.clear()


def hard_mode_note(session: Session) -> str | None:
    """What hard mode requires of the next guess, in words (None outside hard mode or before the first row)."""
    if not session.game.hard_mode or not session.rows:
        return None
    from pipeline.games.constraints import count_phrase, hard_mode_rule, join_or

    rule = hard_mode_rule(session.history, session.game.length)
    keep = [f"{show(s)} in position {p + 1}" for p, s in sorted(rule.fixed.items())]
    greens = {s: sum(1 for v in rule.fixed.values() if v == s) for s in rule.at_least}
    use = [(show(s) if n == 1 else f"{count_phrase(n, 'at least')} {show(s)}")
           for s, n in rule.at_least.items() if n > greens[s]]
    parts = ([f"keep {join_or(keep, 'and')}"] if keep else []) + ([f"use {join_or(use, 'and')}"] if use else [])
    return "the next guess must " + " and ".join(parts) if parts else None
