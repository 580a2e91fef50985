"""Can a class be solved within 4 or 5 guesses: the prover's Within (search/solvable/within.py) and the checker's Feasibility
(proofs/solvable/within.py) against the scalar brute force of test_shallow.py, on tiny games where the limit binds, normal
and hard mode; planted off-by-ones must make each disagree."""

import numpy as np
import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.proofs.game.answer import symbols
from pipeline.proofs.game.hard_mode import Rule
from pipeline.proofs.solvable import within as feasibility
from pipeline.proofs.solvable.within import Feasibility
from pipeline.search.solvable import within
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.solvable.shallow import Shallow
from tests.test_shallow import Brute, _text, cases, games  # noqa: F401  (games: the fixture)

LEFTS = (3, 4, 5)


def verdicts(game, lefts=LEFTS):
    """[(left, truth, prover, checker)] over every class of test_shallow.cases."""
    codes = game_matrix(game)
    brute = Brute(game)
    words = game.encoded_guesses() if game.hard_mode else None
    prover = within.Within(Shallow(codes, game.n_codes, np.ones(codes.shape[1], dtype=bool), words), words)
    checker = Feasibility(codes, symbols(game.guesses, game.alphabet), game.guess_of_secret, game.n_codes,
                          len(game.alphabet), game.hard_mode)
    out = []
    for history, members in cases(game, codes):
        text = frozenset((game.guesses[g], _text(game, g, members[0])) for g, _ in history) if game.hard_mode else \
            frozenset()
        state, rule = initial_state(game.length), Rule(game.length, len(game.alphabet))
        for g, c in history:
            state, rule = update_state(*state, checker.words[g], c), rule.after(checker.words[g], c)
        for left in lefts:
            truth = brute.solvable(tuple(game.secrets[s] for s in members), left, text)
            out.append((left, truth, prover.solvable(members, left, state if game.hard_mode else None),
                        checker.within(members, left, rule if game.hard_mode else None)))
    return out


def wrong(game, which: int) -> int:
    """How many verdicts of the prover (which=2) or the checker (which=3) differ from brute force."""
    return sum(row[which] != row[1] for row in verdicts(game))


@pytest.mark.parametrize("name", ["ight", "ight hard", "mastermind 3x3"])
def test_both_match_brute_force_with_four_and_five_left(games, name):  # noqa: F811
    rows = verdicts(games[name])
    assert [row for row in rows if row[2] != row[1] or row[3] != row[1]] == []
    if name.startswith("ight"):  # four guesses bind here: some classes are solved in time and some are not
        assert {row[1] for row in rows if row[0] == 4} == {True, False}


def test_planted_parts_with_one_guess_too_many_are_caught(games, monkeypatch):  # noqa: F811
    """A guess's parts solved within `left` instead of `left - 1` (the guess itself not counted)."""
    true_parts = within.Within.parts_solvable
    monkeypatch.setattr(within.Within, "parts_solvable",
                        lambda self, g, members, left, state: true_parts(self, g, members, left + 1, state))
    assert wrong(games["ight hard"], 2) > 0


def test_planted_hard_mode_rule_left_out_is_caught(games, monkeypatch):  # noqa: F811
    """Every guess taken to be legal at four or more guesses left (the hard-mode rule forgotten above the kernels)."""
    monkeypatch.setattr(within.Within, "legal", lambda self, state: np.arange(self.shallow.codes.shape[0]))
    assert wrong(games["ight hard"], 2) > 0


def test_checker_planted_parts_with_one_guess_too_many_are_caught(games, monkeypatch):  # noqa: F811
    """The checker's search at four or more left, its parts solved within `left` instead of `left - 1`."""
    true_after = Feasibility.after
    monkeypatch.setattr(Feasibility, "after", lambda self, g, cands, left, rule: true_after(self, g, cands, left + 1,
                                                                                           rule))
    assert wrong(games["ight hard"], 3) > 0
    assert wrong(games["ight"], 3) > 0


def test_checker_planted_hard_mode_rule_left_out_is_caught(games, monkeypatch):  # noqa: F811
    """The checker taking every guess to be legal at four or more left (its kernels below still apply the rule)."""
    monkeypatch.setattr(Feasibility, "legal", lambda self, rule: np.arange(self.codes.shape[0]))
    assert wrong(games["ight hard"], 3) > 0


def test_checker_planted_counting_bound_one_guess_short_is_caught(games, monkeypatch):  # noqa: F811
    """The checker's counting refutation with one guess fewer than it has (reach(j - 1, m) secrets for j guesses)."""
    true_reach = feasibility.reach
    monkeypatch.setattr(feasibility, "reach", lambda guesses, parts: true_reach(guesses - 1, parts))
    assert wrong(games["ight hard"], 3) > 0  # hard mode's few legal guesses make few parts: there the count binds
