"""An opener's ApMinTotal strategy with the response classes that break the guess limit searched again, wider.

Under a guess limit ApMinTotal(S, n) with a given opener is infeasible as soon as one response class of the opener
has no strategy within Best_n at every node that finishes in the guesses left (a narrow breadth misses some in hard
mode: on the 3158-answer list within 6 guesses, n = 10 finds none for any of the 10 best-ranked openers).  The
opener's classes are independent (each has its own candidates, hard-mode state and the limit minus one guess), so
only the classes that break the limit need a wider search:

- each class C of the opener is searched at the breadth n (ApMinTotal(C, n), in its hard-mode state, with one
  guess fewer) and, while its strategy breaks the limit, again at the next breadth of `ladder(n, cap)` (3, 10, 30,
  100, … above n, then `cap` itself); it keeps the first strategy that meets the limit;
- the opener has no strategy as soon as a class meets the limit at no breadth up to `cap` (the classes are taken
  smallest first, so such a class is usually found before any large class is searched wide).

The strategy is the opener over its classes' strategies: a real strategy of the game (each class's tree is one
ApMinTotal found under that class's own rules), of total |S| + the classes' totals.  When no class breaks the limit
it is ApMinTotal(S, n) with that opener, node for node; with `cap` at least the number of guesses every class is
searched over all of them at the last step, so the opener then has a strategy exactly when one exists.
"""

import numpy as np

from pipeline.search.apmintotal.value import ApResult, ApSearch
from pipeline.search.hard_mode import initial_state, update_state
from pipeline.search.matrix import Matrix
from pipeline.search.partition import split

LADDER = (1, 3)  # breadths of the ladder: these times the powers of ten (1, 3, 10, 30, 100, 300, …)


def ladder(breadth: int, cap: int | None) -> list[int]:
    """The wider breadths a class that breaks the limit is searched at after `breadth`: those of 1, 3, 10, 30,
    100, … above `breadth` and below `cap`, then `cap` (none when `cap` is None or not above `breadth`)."""
    if cap is None or cap <= breadth:
        return []
    steps, scale = [], 1
    while scale * LADDER[0] < cap:
        steps += [scale * m for m in LADDER if breadth < scale * m < cap]
        scale *= 10
    return steps + [cap]


def classes_after(matrix: Matrix, opener: int) -> list[tuple[int, np.ndarray]]:
    """(code, sorted secret indices) of every class but the win that `opener` splits the secrets into, by code."""
    codes, members = split(np.asarray(matrix.codes[opener]), np.arange(matrix.n_secrets, dtype=np.int64))
    return [(int(code), part) for code, part in zip(codes, members) if code != matrix.win]


def widened_strategy(matrix: Matrix, opener: int, *, breadth: int, cap: int | None, left: int, hard_mode=False,
                     max_entries=1_000_000, ranking="ExpSizeSplit") -> ApResult:
    """The opener's strategy within `left` guesses (the opener included), its classes that break the limit at
    `breadth` searched again along `ladder(breadth, cap)` (the module's docstring).  An ApResult of the given
    breadth whose `widened` counts the classes solved at each wider breadth; total None when a class finds no
    strategy at `cap`.

    Classes are taken smallest first, each up the ladder until a breadth solves it: an opener with a class that
    no breadth solves in time usually shows it in a small class, found before any large class is searched wide
    (on the 3158-answer list in hard mode such openers are settled in about a second, against 10 to 30 s for
    their large classes first).  One search per breadth serves every class (its memo holds up to `max_entries`
    sets; the result does not depend on the order, the values and trees of ApMinTotal not on its memo)."""
    classes = classes_after(matrix, opener)
    if len(classes) == 1 and classes[0][1].shape[0] == matrix.n_secrets:
        raise ValueError(f"guess {opener} leaves every secret in one class: it is no opener")
    states = class_states(matrix, opener, classes, hard_mode)
    searches = Searches(matrix, {"hard_mode": hard_mode, "max_guesses": left, "max_entries": max_entries,
                                 "ranking": ranking})
    steps = [breadth] + ladder(breadth, cap)
    found, widened = {}, {}
    for i in sorted(range(len(classes)), key=lambda i: classes[i][1].shape[0]):
        step, result = searches.first_strategy(steps, classes[i][1], states[i], left - 1)
        if result is None:
            return infeasible(breadth, opener, widened, searches.work())
        found[i] = result
        if step != breadth:
            widened[step] = widened.get(step, 0) + 1
    return joined(breadth, opener, matrix.n_secrets, [(classes[i][0], found[i]) for i in range(len(classes))],
                  widened, searches.work())


class Searches:
    """One ApMinTotal search per breadth (same matrix and `options`), each made when first needed."""

    def __init__(self, matrix: Matrix, options: dict):
        self.matrix, self.options, self.by_breadth = matrix, options, {}

    def at(self, breadth: int) -> ApSearch:
        if breadth not in self.by_breadth:
            self.by_breadth[breadth] = ApSearch(self.matrix, breadth, **self.options)
        return self.by_breadth[breadth]

    def first_strategy(self, steps: list[int], members, state, left: int) -> tuple:
        """(breadth, the class's ApMinTotal strategy) at the first of `steps` whose strategy finds every member
        within `left` guesses, else (None, None)."""
        for step in steps:
            result = self.at(step).strategy(members, state=state, left=left)
            if result.feasible:
                return step, result
        return None, None

    def work(self) -> dict:
        """The memo counters (ApSearch.stats) of every search made, added up."""
        total = {}
        for search in self.by_breadth.values():
            for key, value in search.stats().items():
                total[key] = total.get(key, 0) + value
        return total


def class_states(matrix: Matrix, opener: int, classes, hard_mode) -> list:
    """The hard-mode state (greens, at_least) each class starts from after the opener (None in normal mode)."""
    if not hard_mode:
        return [None] * len(classes)
    words = np.asarray(matrix.encoded_guesses, dtype=np.uint8)
    greens, at_least = initial_state(words.shape[1])
    return [update_state(greens, at_least, words[opener], code) for code, _ in classes]


def infeasible(breadth: int, opener: int, widened: dict, work: dict) -> ApResult:
    """The result of an opener with a class that no breadth up to the cap solves in time (`work`: the searches'
    memo counters)."""
    empty = np.zeros(0, dtype=np.int64)
    return ApResult(breadth=breadth, total=None, opener=opener, node_guess=empty, node_parent=empty, node_code=empty,
                    node_size=empty, stats=work, widened=dict(widened))


def joined(breadth: int, opener: int, n_secrets: int, parts: list[tuple[int, ApResult]], widened: dict,
           work: dict) -> ApResult:
    """The opener (node 0, every secret) over its classes' trees (each class's nodes after it, its root's parent
    node 0 and its code the class's response): node arrays in from_arrays' form, of total |S| + their totals
    (`work`: the searches' memo counters)."""
    guess, parent, code, size = [np.array([opener])], [np.array([-1])], [np.array([-1])], [np.array([n_secrets])]
    offset, total = 1, n_secrets
    for response, result in parts:
        guess.append(result.node_guess)
        parent.append(np.where(result.node_parent < 0, 0, result.node_parent + offset))
        code.append(np.where(result.node_parent < 0, response, result.node_code))
        size.append(result.node_size)
        offset += result.node_guess.shape[0]
        total += result.total
    return ApResult(breadth=breadth, total=total, opener=opener, node_guess=np.concatenate(guess).astype(np.int64),
                    node_parent=np.concatenate(parent).astype(np.int64),
                    node_code=np.concatenate(code).astype(np.int64), node_size=np.concatenate(size).astype(np.int64),
                    stats=work, widened=dict(widened))
