"""Can a class be solved within 4 or 5 guesses: the prover's Within (search/solvable/within.py) and the checker's Feasibility
(proofs/solvable/within.py) against the scalar brute force of test_shallow.py, on tiny games where the limit binds, normal
and hard mode; planted off-by-ones must make each disagree.  The brute force answers each question once for the module
(`questions`); every test, the planted slips too, asks the prover or the checker the same questions again."""

from dataclasses import dataclass

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
GAMES = ("ight", "ight hard", "mastermind 3x3")


@dataclass(frozen=True)
class Question:
    """Can `members` be solved within `left` guesses: in hard mode from the prover's `state` and the checker's
    `rule` (None in normal mode), and the brute force's answer."""

    members: np.ndarray
    left: int
    state: tuple | None
    rule: Rule | None
    truth: bool


def asked(game) -> list[Question]:
    """Every class of test_shallow.cases with each of LEFTS guesses left, answered by the brute force."""
    codes, brute, words = game_matrix(game), Brute(game), symbols(game.guesses, game.alphabet)
    out = []
    for history, members in cases(game, codes):
        text = frozenset((game.guesses[g], _text(game, g, members[0])) for g, _ in history) if game.hard_mode else \
            frozenset()
        state, rule = initial_state(game.length), Rule(game.length, len(game.alphabet))
        for g, c in history:
            state, rule = update_state(*state, words[g], c), rule.after(words[g], c)
        for left in LEFTS:
            truth = brute.solvable(tuple(game.secrets[s] for s in members), left, text)
            out.append(Question(members, left, state if game.hard_mode else None, rule if game.hard_mode else None,
                                truth))
    return out


@pytest.fixture(scope="module")
def questions(games):  # noqa: F811
    return {name: asked(games[name]) for name in GAMES}


def prover_of(game):
    """The prover's verdict on a Question (a new Within, so a slip planted in its class applies)."""
    codes = game_matrix(game)
    words = game.encoded_guesses() if game.hard_mode else None
    prover = within.Within(Shallow(codes, game.n_codes, np.ones(codes.shape[1], dtype=bool), words), words)
    return lambda q: prover.solvable(q.members, q.left, q.state)


def checker_of(game):
    """The checker's verdict on a Question (a new Feasibility: its memo starts empty)."""
    checker = Feasibility(game_matrix(game), symbols(game.guesses, game.alphabet), game.guess_of_secret,
                          game.n_codes, len(game.alphabet), game.hard_mode)
    return lambda q: checker.within(q.members, q.left, q.rule)


def disagrees(game, questions, side) -> bool:
    """Whether `side` (prover_of or checker_of) answers some question otherwise than the brute force."""
    verdict = side(game)
    return any(verdict(q) != q.truth for q in questions)


@pytest.mark.slow
@pytest.mark.parametrize("name", GAMES)
def test_both_match_brute_force_with_four_and_five_left(games, questions, name):  # noqa: F811
    game, asked_here = games[name], questions[name]
    prover, checker = prover_of(game), checker_of(game)
    assert [(q.left, q.truth) for q in asked_here if prover(q) != q.truth or checker(q) != q.truth] == []
    if name.startswith("ight"):  # four guesses bind here: some classes are solved in time and some are not
        assert {q.truth for q in asked_here if q.left == 4} == {True, False}


def test_planted_parts_with_one_guess_too_many_are_caught(games, questions, monkeypatch):  # noqa: F811
    """A guess's parts solved within `left` instead of `left - 1` (the guess itself not counted)."""
    true_parts = within.Within.parts_solvable
    monkeypatch.setattr(within.Within, "parts_solvable",
                        lambda self, g, members, left, state: true_parts(self, g, members, left + 1, state))
    assert disagrees(games["ight hard"], questions["ight hard"], prover_of)


def test_planted_hard_mode_rule_left_out_is_caught(games, questions, monkeypatch):  # noqa: F811
    """Every guess taken to be legal at four or more guesses left (the hard-mode rule forgotten above the kernels)."""
    monkeypatch.setattr(within.Within, "legal", lambda self, state: np.arange(self.shallow.codes.shape[0]))
    assert disagrees(games["ight hard"], questions["ight hard"], prover_of)


def test_checker_planted_parts_with_one_guess_too_many_are_caught(games, questions, monkeypatch):  # noqa: F811
    """The checker's search at four or more left, its parts solved within `left` instead of `left - 1`."""
    true_after = Feasibility.after
    monkeypatch.setattr(Feasibility, "after", lambda self, g, cands, left, rule: true_after(self, g, cands, left + 1,
                                                                                           rule))
    assert disagrees(games["ight hard"], questions["ight hard"], checker_of)
    assert disagrees(games["ight"], questions["ight"], checker_of)


def test_checker_planted_hard_mode_rule_left_out_is_caught(games, questions, monkeypatch):  # noqa: F811
    """The checker taking every guess to be legal at four or more left (its kernels below still apply the rule)."""
    monkeypatch.setattr(Feasibility, "legal", lambda self, rule: np.arange(self.codes.shape[0]))
    assert disagrees(games["ight hard"], questions["ight hard"], checker_of)


def test_checker_planted_counting_bound_one_guess_short_is_caught(games, questions, monkeypatch):  # noqa: F811
    """The checker's counting refutation with one guess fewer than it has (reach(j - 1, m) secrets for j guesses)."""
    true_reach = feasibility.reach
    monkeypatch.setattr(feasibility, "reach", lambda guesses, parts: true_reach(guesses - 1, parts))
    assert disagrees(games["ight hard"], questions["ight hard"], checker_of)  # hard mode's few legal guesses make
    # few parts: there the count binds
