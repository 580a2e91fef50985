"""The checker's hard-mode `Rule` (pipeline/proofs/game/hard_mode.py) against its own string-level `violation`: after one
or two answered guesses, the words the rule allows are exactly the words that break no requirement, with repeated
letters in guesses and secrets."""

import itertools

import numpy as np

from pipeline.proofs.game.hard_mode import Rule, letter_counts, violation

WORDS = ["eerie", "geese", "sheep", "tepee", "elder", "lever", "steel", "sleet", "reset", "terse", "trees", "ester",
         "egret", "greet", "there", "three", "ether", "leers", "reels", "seers", "sires", "rises", "tries", "tiers"]


def colours(guess: str, secret: str) -> str:
    """Wordle's answer: greens first, then yellows while the secret has unmatched copies of the letter."""
    out, left = ["0"] * len(guess), {}
    for i, (g, s) in enumerate(zip(guess, secret)):
        if g == s:
            out[i] = "2"
        else:
            left[s] = left.get(s, 0) + 1
    for i, g in enumerate(guess):
        if out[i] == "0" and left.get(g, 0) > 0:
            out[i], left[g] = "1", left[g] - 1
    return "".join(out)


def code_of(answer: str) -> int:
    return sum(int(c) * 3**i for i, c in enumerate(answer))


def test_rule_allows_exactly_the_words_that_break_nothing():
    alphabet = sorted(set("".join(WORDS)))
    words = np.array([[alphabet.index(x) for x in w] for w in WORDS], dtype=np.int16)
    counts = letter_counts(words, len(alphabet))
    rng = np.random.default_rng(7)
    checked = binding = 0
    for secret in WORDS:
        for first, second in itertools.islice(itertools.permutations(WORDS, 2), int(rng.integers(0, 40)), None, 37):
            history, rule = [], Rule(5, len(alphabet))
            for guess in (first, second):
                answer = colours(guess, secret)
                history.append((guess, answer))
                rule = rule.after(words[WORDS.index(guess)], code_of(answer))
                allowed = rule.allowed(words, counts)
                expected = np.array([violation(w, history) is None for w in WORDS])
                assert (allowed == expected).all(), (secret, history)
                checked += 1
                binding += int((~expected).any())
    assert checked > 500 and binding > 100  # the rule forbids something in many of them
