"""Symmetries of a game: symbol and position permutations that leave its answering function unchanged.

An automorphism sigma of a game (G, S, a) is a bijection of G and of S with a(sigma g, sigma s) = a(g, s)
for every g, s.  Then sigma maps each strategy to one of the same cost, so V*(sigma g, S) = V*(g, S) and
only one opener per orbit needs a proof.  The candidates tried here are word maps built from a symbol
permutation and a position permutation, new[i] = symbols[old[positions[i]]]: one transposition of two
symbols, or of two positions, at a time.  A candidate is kept when it maps G onto G and S onto S and the
code matrix is unchanged; transpositions linking symbols (positions) already linked by kept ones are
skipped, so the kept ones generate a product of symmetric groups (Mastermind: all 6! colour and 4!
position permutations, eight generators).  Wordle's word lists admit none, so Wordle games have no
symmetries and nothing changes for them.
"""

import numpy as np


def _word_keys(words: np.ndarray, n_symbols: int) -> np.ndarray:
    """One integer per encoded word (base n_symbols), for lookups."""
    weights = n_symbols ** np.arange(words.shape[1], dtype=np.int64)
    return words.astype(np.int64) @ weights


def _index_map(words: np.ndarray, n_symbols: int, symbols: np.ndarray, positions: np.ndarray) -> np.ndarray | None:
    """Index of the image of each word under the map, or None when some image is not in `words`."""
    keys = _word_keys(words, n_symbols)
    order = np.argsort(keys)
    images = _word_keys(symbols[words[:, positions]], n_symbols)
    where = np.searchsorted(keys[order], images)
    where = np.minimum(where, len(keys) - 1)
    if not (keys[order][where] == images).all():
        return None
    return order[where].astype(np.int64)


def word_map(guesses, secrets, codes, n_symbols: int, symbols, positions):
    """(guess permutation, secret permutation) of the word map when it is an automorphism, else None."""
    symbols, positions = np.asarray(symbols), np.asarray(positions)
    on_guesses = _index_map(guesses, n_symbols, symbols, positions)
    on_secrets = None if on_guesses is None else _index_map(secrets, n_symbols, symbols, positions)
    if on_secrets is None:
        return None
    if not np.array_equal(codes[on_guesses][:, on_secrets], codes):
        return None
    return on_guesses, on_secrets


def _root(parent: list[int], x: int) -> int:
    """Union-find over a few symbols or positions."""
    while parent[x] != x:
        x = parent[x]
    return x


def find_generators(guesses: np.ndarray, secrets: np.ndarray, codes: np.ndarray, n_symbols: int) -> list[dict]:
    """Automorphisms generating the game's symbol and position symmetries: [{"symbols", "positions"}],
    each a permutation as a list of ints (symbols[x] replaces symbol x; new word[i] = old word[positions[i]])."""
    length = guesses.shape[1]
    identity_s, identity_p = np.arange(n_symbols), np.arange(length)
    found = []
    for kind, size in (("symbols", n_symbols), ("positions", length)):
        parent = list(range(size))
        for i in range(size):
            for j in range(i + 1, size):
                swap = np.arange(size)
                swap[[i, j]] = j, i
                sym, pos = (swap, identity_p) if kind == "symbols" else (identity_s, swap)
                if _root(parent, i) == _root(parent, j) or word_map(guesses, secrets, codes, n_symbols, sym,
                                                                   pos) is None:
                    continue
                parent[_root(parent, i)] = _root(parent, j)
                found.append({"symbols": sym.tolist(), "positions": pos.tolist()})
    return found


def guess_permutations(guesses, secrets, codes, n_symbols: int, generators: list[dict]) -> list[np.ndarray]:
    """Each generator as a permutation of guess indices."""
    return [word_map(guesses, secrets, codes, n_symbols, g["symbols"], g["positions"])[0] for g in generators]


def orbit_representatives(n_guesses: int, permutations: list[np.ndarray], preferred=()) -> np.ndarray:
    """For every guess, the representative of its orbit: a `preferred` guess of the orbit if any, else the
    orbit's smallest index (the alphabetically first word)."""
    label = np.arange(n_guesses)
    while True:  # propagate the least label along every generator until nothing changes
        before = label.copy()
        for perm in permutations:
            np.minimum.at(label, perm, label)
            np.minimum.at(label, np.arange(n_guesses), label[perm])
        label = label[label]
        if np.array_equal(label, before):
            break
    rep = label.copy()
    for g in preferred:
        rep[label == label[g]] = g
    return rep


def opener_representatives(guesses, secrets, codes, n_symbols: int, preferred=()) -> tuple[list[dict], np.ndarray]:
    """(generators of the game's symmetries, the representative of every guess's orbit); no generators and
    every guess its own representative for a game without symmetries."""
    generators = find_generators(guesses, secrets, codes, n_symbols)
    if not generators:
        return [], np.arange(len(guesses))
    perms = guess_permutations(guesses, secrets, codes, n_symbols, generators)
    return generators, orbit_representatives(len(guesses), perms, preferred)


def first_of_each_orbit(ordered, rep: np.ndarray) -> list[int]:
    """The guesses of `ordered` whose orbit no earlier one shares, in order."""
    seen, kept = set(), []
    for g in ordered:
        if int(rep[g]) not in seen:
            seen.add(int(rep[g]))
            kept.append(g)
    return kept
