"""Cluster cuts: rows that lift the blindfold covering LP above the pair rows alone.

*Families.*  A family is a set S of secrets; the cuts are valid for any set, the ones read from the letters are
those likely to bind: one-position families (words equal except in one position, _ILLS) and anagram groups (the
same multiset of letters), each of at least MIN_FAMILY words (a family of two is its pair row again).

*Sees.*  For a guess g, the *chosen class* of S under g is its largest feedback class of S, ties broken by the
smallest feedback code (a fixed rule).  g *sees* w in S when w is outside g's chosen class.

*Validity.*  If w != w' of S are both unseen by every guess of a set T, then under every g in T both lie in g's
chosen class, one class, so they get the same feedback from every guess of T: T does not separate them.  Hence a
separating set leaves at most one word of S unseen:  sum_{w in S} y_w >= |S| - 1  with  y_w <= sum_{g sees w} x_g
and 0 <= y_w <= 1 (x the chosen set's indicator, y_w = 1 when some chosen guess sees w).  The tie-break matters:
with "unseen" meaning "in a largest class", two words in two tied largest classes are unseen yet separated.

*In a cube* (fixed guesses F): narrow S guess by guess to the words in the chosen class of what is left under each
guess of F (`narrow`).  The set left lies in one class under every guess of F, so F sees none of it, and the cut on
that set (any set is a family) binds the guesses outside F alone.

*The LP* (`certified_lp_with_cuts`): min sum x over the available guesses, x >= 0; pair rows sum_{g sep p} x_g >= 1;
link rows sum_{g sees w} x_g - y_w >= 0; cut rows sum_{w in S} y_w >= |S| - 1; 0 <= y <= 1.  A separating set
that contains F gives a feasible point, so the LP value (plus |F|) is a lower bound on f*.

*Certified bound.*  From HiGHS's row duals, negatives set to 0: u_p (pair rows), v_S (cut rows), z_w (link rows)
clipped to z_w <= v_S, and t_w = v_S - z_w >= 0.  Let load_g = sum_{p: g sep p} u_p + sum_{w: g sees w} z_w and
lam = max(1, max_g load_g).  For any feasible (x, y):
    lam * sum x >= sum_g x_g load_g = sum_p u_p sum_{g sep p} x_g + sum_w z_w sum_{g sees w} x_g
                >= sum_p u_p + sum_w z_w y_w = sum_p u_p + sum_S v_S sum_{w in S} y_w - sum_w t_w y_w
                >= sum_p u_p + sum_S v_S (|S| - 1) - sum_w t_w,
using u, z, v, t >= 0, the rows and y_w <= 1.  So (sum u + sum_S (|S| - 1) v_S - sum t) / lam (at least 0) is at
most the LP value whatever the solver's tolerances: the bound returned (sums in floating point, far below the
cubes' PRUNE_MARGIN)."""

from __future__ import annotations

import highspy
import numpy as np

MIN_FAMILY = 3  # the fewest words of a family read from the letters


def one_position_families(enc_secrets: np.ndarray, *, min_size: int = MIN_FAMILY) -> list[np.ndarray]:
    """For each position, the groups of secrets equal in every other position (at least `min_size` words)."""
    enc = np.asarray(enc_secrets, dtype=np.int64)
    found = []
    for position in range(enc.shape[1]):
        others = np.delete(enc, position, axis=1)
        found += _groups(others, min_size)
    return found


def anagram_families(enc_secrets: np.ndarray, *, min_size: int = MIN_FAMILY) -> list[np.ndarray]:
    """The groups of secrets with the same multiset of letters (at least `min_size` words)."""
    return _groups(np.sort(np.asarray(enc_secrets, dtype=np.int64), axis=1), min_size)


def _groups(keys: np.ndarray, min_size: int) -> list[np.ndarray]:
    """The indices of the rows sharing a key row, groups of at least `min_size`, each ascending."""
    if not len(keys):
        return []
    _, labels = np.unique(keys, axis=0, return_inverse=True)
    labels = labels.ravel()
    order = np.argsort(labels, kind="stable")
    starts = np.flatnonzero(np.r_[True, np.diff(labels[order]) != 0])
    parts = np.split(order, starts[1:])
    return [np.sort(part) for part in parts if len(part) >= min_size]


def families(enc_secrets: np.ndarray, *, max_families: int | None = None, min_size: int = MIN_FAMILY
             ) -> list[np.ndarray]:
    """One-position families and anagram groups of the secrets, without repeats, the largest first (ties: in the
    order found), at most `max_families` of them (None: all)."""
    found, seen = [], set()
    for family in one_position_families(enc_secrets, min_size=min_size) + anagram_families(enc_secrets,
                                                                                            min_size=min_size):
        key = tuple(int(w) for w in family)
        if key not in seen:
            seen.add(key)
            found.append(family)
    found.sort(key=len, reverse=True)  # stable: ties keep the order found
    return found if max_families is None else found[:max_families]


def chosen_codes(codes_t: np.ndarray, members, columns) -> np.ndarray:
    """For each guess of `columns`, the feedback code of its chosen class of `members`: the largest class, ties
    broken by the smallest code."""
    block = np.asarray(codes_t)[np.asarray(members, dtype=np.int64)][:, np.asarray(columns, dtype=np.int64)]
    block = block.astype(np.int64)
    n_codes = int(block.max(initial=0)) + 1
    keys = (np.arange(block.shape[1])[None, :] * n_codes + block).ravel()
    counts = np.bincount(keys, minlength=block.shape[1] * n_codes).reshape(block.shape[1], n_codes)
    return counts.argmax(axis=1)  # argmax returns the first (smallest code) of tied largest classes


def sees(codes_t: np.ndarray, members, columns) -> np.ndarray:
    """sees[w, g]: whether guess columns[g] sees members[w] (outside its chosen class of `members`)."""
    block = np.asarray(codes_t)[np.asarray(members, dtype=np.int64)][:, np.asarray(columns, dtype=np.int64)]
    return block != chosen_codes(codes_t, members, columns)[None, :]


def narrow(codes_t: np.ndarray, members, fixed) -> np.ndarray:
    """The words of `members` left after keeping, guess by guess of `fixed`, those in its chosen class of what is
    left: one class under every guess of `fixed` (module docstring)."""
    left = np.asarray(members, dtype=np.int64)
    for guess in fixed:
        if len(left) < 2:
            break
        left = left[~sees(codes_t, left, [int(guess)])[:, 0]]
    return left


def cut_rows(codes_t: np.ndarray, family_list, columns, fixed=()) -> list[tuple[np.ndarray, np.ndarray]]:
    """The cuts of a cube: for each family narrowed by `fixed` to at least two words, (its words, sees matrix
    over `columns`); the row is sum y >= len(words) - 1."""
    rows = []
    for family in family_list:
        left = narrow(codes_t, family, fixed)
        if len(left) >= 2:
            rows.append((left, sees(codes_t, left, columns)))
    return rows


def certified_lp_with_cuts(codes_t, ui, uj, avail, indptr, indices, cuts) -> tuple[float | None, float, str]:
    """(HiGHS's LP value, the certified dual bound, HiGHS's status) of covering the pairs (ui, uj) with `avail`
    under the cut rows `cuts` (`cut_rows` over `avail`); (indptr, indices): the pairs' separators among `avail`
    (`pairs.separators`).  The certificate: module docstring."""
    n_x, n_pairs = len(avail), len(ui)
    words = [len(left) for left, _ in cuts]
    h = _build_lp(n_x, n_pairs, indptr, indices, cuts)
    h.run()
    status = h.modelStatusToString(h.getModelStatus())
    objective = float(h.getInfo().objective_function_value) if status == "Optimal" else None
    duals = np.asarray(h.getSolution().row_dual, dtype=np.float64)
    n_rows = n_pairs + sum(words) + len(cuts)
    if h.getInfo().dual_solution_status < 1 or len(duals) != n_rows:
        duals = np.zeros(n_rows)
    duals = np.maximum(duals, 0.0)
    u, z, v = duals[:n_pairs], duals[n_pairs:n_pairs + sum(words)], duals[n_pairs + sum(words):]
    v_per_word = np.repeat(v, words)
    z = np.minimum(z, v_per_word)
    t = v_per_word - z
    load = np.bincount(indices, weights=np.repeat(u, np.diff(indptr)), minlength=n_x)
    if cuts:
        seen = np.vstack([matrix for _, matrix in cuts])
        load = load + z @ seen
    value = float(u.sum() + (v * (np.array(words) - 1)).sum() - t.sum()) if cuts else float(u.sum())
    return objective, max(0.0, value / max(1.0, float(load.max(initial=0.0)))), status


def _build_lp(n_x, n_pairs, indptr, indices, cuts) -> highspy.Highs:
    """The LP of the module docstring: columns x (n_x) then y (one per word of each cut); rows: pairs, links,
    cuts, in that order."""
    n_y = sum(len(left) for left, _ in cuts)
    h = highspy.Highs()
    h.setOptionValue("output_flag", False)
    h.setOptionValue("threads", 1)
    h.addVars(n_x, np.zeros(n_x), np.full(n_x, highspy.kHighsInf))
    h.changeColsCost(n_x, np.arange(n_x, dtype=np.int32), np.ones(n_x))
    if n_y:
        h.addVars(n_y, np.zeros(n_y), np.ones(n_y))
    if n_pairs:
        h.addRows(n_pairs, np.ones(n_pairs), np.full(n_pairs, highspy.kHighsInf), int(indptr[-1]),
                  indptr[:-1].astype(np.int32), indices.astype(np.int32), np.ones(int(indptr[-1])))
    if not n_y:
        return h
    seen = np.vstack([matrix for _, matrix in cuts])
    starts, entries, values = [], [], []
    for w in range(n_y):  # link row: sum_{g sees w} x_g - y_w >= 0
        starts.append(len(entries))
        cols = np.flatnonzero(seen[w])
        entries += [*cols.tolist(), n_x + w]
        values += [1.0] * len(cols) + [-1.0]
    h.addRows(n_y, np.zeros(n_y), np.full(n_y, highspy.kHighsInf), len(entries), np.array(starts, dtype=np.int32),
              np.array(entries, dtype=np.int32), np.array(values))
    first = n_x
    for left, _ in cuts:  # cut row: sum_{w in S} y_w >= |S| - 1
        h.addRow(float(len(left) - 1), highspy.kHighsInf, len(left), np.arange(first, first + len(left),
                                                                                   dtype=np.int32),
                 np.ones(len(left)))
        first += len(left)
    return h
