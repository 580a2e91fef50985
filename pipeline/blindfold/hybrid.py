"""Hybrid blindfold play: k fixed guesses played without looking, then a small adaptive tree per class.

The fixed guesses F split the secrets into classes (the secrets giving the same k responses).  Each class C must
then be solved by an adaptive tree of at most d further guesses.  A secret's count of guesses is k plus the level
at which its class tree guesses it; a secret that is itself one of the fixed guesses is won when that guess is
played, and the fixed guesses that are secrets are played first (in list order), so the m-th of them is won at
guess m.  Among the k-sets whose classes all fit within d further guesses we choose the least total (sum over
secrets of guesses: the mean), then the least worst case, then the first set in list order.

Each class tree is the exact optimum (least total, then least depth) over every guess of `columns`, found by
search over the distinct splits of the class with the bound `total(p secrets) >= 2p - 1`.  The k-sets are all
enumerated when there are at most `exhaustive_sets` of them (the result is then optimal); otherwise a beam of
`beam` prefixes, extended by the guess leaving the least sum of squared class sizes, gives the candidates, which
are then evaluated exactly (the result is then the best found, not proven optimal).

Pure numpy and one numba kernel; no Ray, Hydra or Arrow."""

from dataclasses import dataclass, field
from itertools import combinations
from math import comb

import numba
import numpy as np

Dist = tuple[int, ...]  # secrets found at each further guess: (at the 1st, at the 2nd, ...)


@dataclass
class HybridResult:
    fixed: list[int]  # rows of the codes matrix (guess indices), secrets first
    depth: int
    worst_case: int
    total: int
    distribution: dict[int, int]  # guesses -> secrets won with that many
    class_sizes: dict[int, int]  # class size -> classes of that size (the fixed guesses that are secrets excluded)
    exhaustive: bool
    sets_evaluated: int
    feasible_sets: int = 0
    notes: list[str] = field(default_factory=list)


def _total(dist: Dist) -> int:
    return sum((level + 1) * n for level, n in enumerate(dist))


def _rank(dist: Dist) -> tuple[int, int]:
    return _total(dist), len(dist)


def _merge(root_found: bool, children: list[Dist]) -> Dist:
    """The distribution of a node that finds one secret (or none) and has these subtrees one level down."""
    levels = max((len(d) for d in children), default=0)
    below = [sum(d[i] for d in children if i < len(d)) for i in range(levels)]
    return (int(root_found), *below)


def _canonical(sub: np.ndarray, win: int) -> np.ndarray:
    """Each row of `sub` (guesses x class members) as its split: member j labelled by the first member with the
    same response, and the member the guess wins labelled -1; equal rows split the class alike."""
    first = np.argmax(sub[:, :, None] == sub[:, None, :], axis=2)
    return np.where(sub == win, -1, first)


def _splits(sub: np.ndarray, win: int) -> list[tuple[int, tuple[tuple[int, ...], ...]]]:
    """The distinct splits of a class by the rows of `sub` (guesses x class members): (winner position or -1,
    non-winning parts as tuples of member positions), splits that make progress only."""
    rows, marker = np.unique(sub, axis=0), win
    if sub.shape[1] <= 64:  # beyond, the members x members comparison grows large: dedupe below only
        rows, marker = np.unique(_canonical(rows, win), axis=0), -1
    seen, out = set(), []
    for row in rows.tolist():
        winner = row.index(marker) if marker in row else -1
        parts: dict[int, list[int]] = {}
        for j, label in enumerate(row):
            if j != winner:
                parts.setdefault(label, []).append(j)
        split = (winner, tuple(sorted(tuple(p) for p in parts.values())))
        if (winner >= 0 or len(parts) > 1) and split not in seen:
            seen.add(split)
            out.append(split)
    return out


def class_tree(codes: np.ndarray, members: tuple[int, ...], depth: int, win: int, memo: dict) -> Dist | None:
    """The distribution of the best adaptive tree solving the secrets `members` (column indices of `codes`,
    rows = allowed guesses) within `depth` guesses: least total, then least depth; None if there is none."""
    c = len(members)
    if c == 1:
        return (1,)
    if depth <= 1:
        return None
    key = (members, depth)
    if key not in memo:
        memo[key] = _best_split(codes, members, depth, win, memo)
    return memo[key]


def _best_split(codes, members, depth, win, memo) -> Dist | None:
    sub = codes[:, list(members)]
    if depth == 2:  # every non-winning part must be one secret: a guess telling all apart, a member if possible
        apart = (np.diff(np.sort(sub, axis=1), axis=1) != 0).all(axis=1)
        if not apart.any():
            return None
        wins = (sub[apart] == win).any(axis=1).any()
        return (1, len(members) - 1) if wins else (0, len(members))
    splits = _splits(sub, win)
    splits.sort(key=lambda s: sum(2 * len(p) - 1 for p in s[1]))  # the bound first: good splits early
    best = None
    for winner, parts in splits:
        if best is not None and len(members) + sum(2 * len(p) - 1 for p in parts) > _total(best):
            break
        children = []
        for part in parts:
            child = class_tree(codes, tuple(members[j] for j in part), depth - 1, win, memo)
            if child is None:
                break
            children.append(child)
        else:
            dist = _merge(winner >= 0, children)
            if best is None or _rank(dist) < _rank(best):
                best = dist
    return best


def evaluate(codes: np.ndarray, fixed: tuple[int, ...], depth: int, win: int, memo: dict):
    """(total, worst case, distribution {guesses: secrets}, class sizes) of the fixed rows `fixed` followed by the
    best class trees; None if some class needs more than `depth` further guesses."""
    k = len(fixed)
    rows = codes[list(fixed)]
    won_at = {}  # a secret that is a fixed guess: won when that guess is played (those guesses come first)
    for position, s in enumerate(int(s) for s in np.flatnonzero((rows == win).any(axis=0))):
        won_at[s] = position + 1
    classes: dict[tuple, list[int]] = {}
    for s in range(codes.shape[1]):
        if s not in won_at:
            classes.setdefault(tuple(rows[:, s].tolist()), []).append(s)
    distribution: dict[int, int] = {}
    for guesses in won_at.values():
        distribution[guesses] = distribution.get(guesses, 0) + 1
    sizes: dict[int, int] = {}
    for members in classes.values():
        dist = class_tree(codes, tuple(members), depth, win, memo)
        if dist is None:
            return None
        sizes[len(members)] = sizes.get(len(members), 0) + 1
        for level, n in enumerate(dist):
            if n:
                distribution[k + level + 1] = distribution.get(k + level + 1, 0) + n
    total = sum(g * n for g, n in distribution.items())
    return total, max(distribution), dict(sorted(distribution.items())), dict(sorted(sizes.items()))


@numba.njit(cache=True)
def square_sums(codes, labels, n_labels, n_codes):
    """For every row g: the sum of squared sizes of the classes (label, code of g) over the secrets."""
    n_rows, n_secrets = codes.shape
    out = np.empty(n_rows, np.int64)
    counts = np.zeros(n_labels * n_codes, np.int64)
    for g in range(n_rows):
        total = 0
        for s in range(n_secrets):
            key = labels[s] * n_codes + codes[g, s]
            total += 2 * counts[key] + 1
            counts[key] += 1
        for s in range(n_secrets):
            counts[labels[s] * n_codes + codes[g, s]] = 0
        out[g] = total
    return out


def beam_sets(codes: np.ndarray, columns: np.ndarray, k: int, n_codes: int, beam: int) -> list[tuple[int, ...]]:
    """Up to `beam` k-sets of `columns`, grown a guess at a time keeping the prefixes with the least sum of
    squared class sizes (ties: earlier rows)."""
    prefixes = [((), np.zeros(codes.shape[1], np.int64), 1)]
    usable = codes[columns]
    for _ in range(k):
        scored = {}
        for chosen, labels, n_labels in prefixes:
            sums = square_sums(usable, labels, n_labels, n_codes)
            for i in np.argsort(sums, kind="stable")[:beam + len(chosen)]:
                g = int(columns[i])
                if g not in chosen:
                    scored.setdefault(tuple(sorted((*chosen, g))), (int(sums[i]), labels, g))
        best = sorted(scored.items(), key=lambda kv: (kv[1][0], kv[0]))[:beam]
        prefixes = []
        for chosen, (_, labels, g) in best:
            _, relabelled = np.unique(labels * n_codes + codes[g], return_inverse=True)
            prefixes.append((chosen, relabelled.astype(np.int64), int(relabelled.max()) + 1))
    return [chosen for chosen, _, _ in prefixes]


def solve_hybrid(codes: np.ndarray, columns, k: int, depth: int, win: int, n_codes: int,
                 beam: int = 20, exhaustive_sets: int = 10_000) -> HybridResult | None:
    """The best k fixed guesses among `columns` (rows of `codes`) whose classes are all solved within `depth`
    further guesses (guesses from `columns` too); None if no set examined qualifies."""
    columns = np.unique(np.asarray(columns, dtype=np.int64))
    exhaustive = enumerates(len(columns), k, exhaustive_sets)
    sets = (combinations(columns.tolist(), k) if exhaustive
            else beam_sets(codes, columns, k, n_codes, beam))
    usable = codes[columns]  # class trees guess among the columns; map rows back to guesses below
    memo, best, evaluated, feasible = {}, None, 0, 0
    for chosen in sets:
        evaluated += 1
        rows = tuple(int(np.searchsorted(columns, g)) for g in chosen)
        found = evaluate(usable, rows, depth, win, memo)
        if found is None:
            continue
        feasible += 1
        rank = (found[0], found[1], tuple(sorted(chosen)))
        if best is None or rank < best[0]:
            best = (rank, found)
    if best is None:
        return None
    (total, worst, chosen), (_, _, distribution, sizes) = best
    secrets_first = sorted(chosen, key=lambda g: (not (codes[g] == win).any(), g))
    return HybridResult(list(secrets_first), depth, worst, total, distribution, sizes, exhaustive, evaluated,
                        feasible)


def enumerates(n_columns: int, k: int, exhaustive_sets: int) -> bool:
    """Whether every k-set of the columns is tried (then the choice is optimal), rather than a beam's."""
    return comb(n_columns, k) <= exhaustive_sets


def most_secrets(n_codes: int, k: int, depth: int) -> int:
    """An upper bound on the secrets k fixed guesses and trees of `depth` further guesses can solve: at most
    n_codes**k classes, and a tree of depth d solves at most N(d) = 1 + (n_codes - 1) N(d - 1), N(1) = 1."""
    per_tree = 1
    for _ in range(depth - 1):
        per_tree = 1 + (n_codes - 1) * per_tree
    return n_codes ** k * per_tree
