"""The checker's view of a certificate's symmetries: claimed automorphisms, verified, and their orbits.

A certificate of a game with symmetries names generators, each a word map (a permutation `symbols` of
the alphabet's symbol indices and a permutation `positions`: new word[i] = symbols[old word[positions[i]]]),
and for some openers a representative.  Checked here from the definitions: each map sends the allowed
guesses onto themselves and the secrets onto themselves, and leaves every code of the matrix the
checker computed itself unchanged, a(sigma g, sigma s) = a(g, s).  Such a map turns any strategy into
one of the same total, so V*(sigma g, S) = V*(g, S); an opener inherits the bound of a representative
in its orbit (the orbits of the group the verified maps generate, found here by union-find).
The exact solver (exact.py) also uses the maps that fix every guess played so far (stabiliser.py): they
map the candidate set to itself, so of the guesses they relate only one needs searching.
"""

import numpy as np


class SymmetryRejected(ValueError):
    pass


def _permutation(values, size: int, what: str) -> np.ndarray:
    perm = np.asarray(values, dtype=np.int64)
    if perm.shape != (size,) or sorted(perm.tolist()) != list(range(size)):
        raise SymmetryRejected(f"{what} {values!r} is not a permutation of {size} items")
    return perm


def apply(word: str, alphabet: str, symbols: np.ndarray, positions: np.ndarray) -> str:
    """The image of one word under the map."""
    return "".join(alphabet[symbols[alphabet.index(word[p])]] for p in positions)


def image_indices(words, index: dict, alphabet: str, symbols, positions, what: str) -> np.ndarray:
    """Index of the image of each word in `index`; SymmetryRejected when an image is missing."""
    out = np.empty(len(words), dtype=np.int64)
    for i, word in enumerate(words):
        image = apply(word, alphabet, symbols, positions)
        if image not in index:
            raise SymmetryRejected(f"it maps {word!r} to {image!r}, which is not one of the {what}")
        out[i] = index[image]
    return out


def verified_map(generator: dict, game, codes: np.ndarray) -> np.ndarray:
    """The generator's permutation of guess indices, once it is checked to be an automorphism."""
    symbols = _permutation(generator["symbols"], len(game.alphabet), "symbols")
    positions = _permutation(generator["positions"], game.length, "positions")
    on_guesses = image_indices(game.guesses, game.guess_index, game.alphabet, symbols, positions, "guesses")
    on_secrets = image_indices(game.secrets, game.secret_index, game.alphabet, symbols, positions, "secrets")
    changed = codes[on_guesses][:, on_secrets] != codes
    if changed.any():
        g, s = (int(x[0]) for x in np.nonzero(changed))
        raise SymmetryRejected(f"it changes the answer to {game.guesses[g]!r} for secret {game.secrets[s]!r}")
    return on_guesses


def orbit_labels(n: int, maps: list[np.ndarray]) -> np.ndarray:
    """A label per guess, equal exactly for guesses in one orbit of the group the maps generate."""
    parent = list(range(n))

    def root(x: int) -> int:
        while parent[x] != x:
            parent[x] = parent[parent[x]]
            x = parent[x]
        return x

    for perm in maps:
        for g, image in enumerate(perm.tolist()):
            a, b = root(g), root(image)
            if a != b:
                parent[a] = b
    return np.array([root(g) for g in range(n)], dtype=np.int64)


def check_symmetry(claim: dict, game, codes: np.ndarray) -> tuple[dict[str, str], list[np.ndarray]]:
    """({opener: representative}, the verified maps) of the certificate's symmetry claim, each pair checked
    to share an orbit of verified automorphisms; SymmetryRejected naming the first fault."""
    maps = []
    for k, generator in enumerate(claim["generators"]):
        try:
            maps.append(verified_map(generator, game, codes))
        except SymmetryRejected as err:
            raise SymmetryRejected(f"generator {k + 1} is not an automorphism: {err}") from None
    label = orbit_labels(len(game.guesses), maps)
    pairs = {}
    for entry in claim["openers"]:
        opener, rep = entry["opener"], entry["representative"]
        if opener in pairs or opener == rep:
            raise SymmetryRejected(f"opener {opener!r} is listed twice or as its own representative")
        if label[game.guess_index[opener]] != label[game.guess_index[rep]]:
            raise SymmetryRejected(f"{rep!r} is not in the orbit of opener {opener!r} under the generators")
        pairs[opener] = rep
    return pairs, maps
