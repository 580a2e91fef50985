"""The checker's own stabiliser of a history of guesses, by canonical forms (written apart from the prover).

Assumption, checked: every verified generator of the certificate is one transposition of two symbols (positions
unchanged) or of two positions (symbols unchanged).  Transpositions generate the whole symmetric group on each
block of symbols (positions) they link, so the group G is the product of those symmetric groups, acting on words
as new[i] = sym[old[pos[i]]].  Generators of another shape are refused with one line (`NotAProduct`): the
checker then uses no symmetry below the root, and claims nothing from it.

The elements of G fixing every history word h_j are found directly: for each position permutation pos of G, the
requirement sym[h_j[pos[i]]] = h_j[i] fixes sym on A, the symbols of the history, and must be a one-to-one map
within symbol blocks; the symbols outside A may be permuted freely within their block.  Two guesses share an
orbit of that stabiliser exactly when they have the same canonical form: the least, over the admissible pos, of
the word read through pos with A's symbols mapped as forced and the free symbols renamed, in order of first
appearance, to the smallest free symbols of their block (the least image over the free renamings).

Use (exact.py): an element fixing every guess played so far maps the candidate set onto itself, since
a(h_j, sigma s) = a(sigma h_j, sigma s) = a(h_j, s), so a guess and its images have the same value there and
one guess per orbit is searched.  In hard mode only symbol maps (pos the identity) are used: they fix every
symbol of the history, hence the hard-mode rule, and carry the rule after (g, r) to the rule after (sigma g, r).
"""

from itertools import permutations, product

import numpy as np

MAX_POSITION_MAPS = 40_320  # position groups above 8! elements are refused


class NotAProduct(ValueError):
    pass


def _swap(perm: np.ndarray) -> tuple[int, int] | None:
    """The two items a permutation exchanges; None for the identity; NotAProduct for anything else."""
    moved = np.flatnonzero(perm != np.arange(len(perm)))
    if len(moved) == 0:
        return None
    if len(moved) == 2 and perm[moved[0]] == moved[1]:
        return int(moved[0]), int(moved[1])
    raise NotAProduct("a generator is not a transposition of two symbols or of two positions")


def _classes(size: int, swaps: list[tuple[int, int]]) -> list[list[int]]:
    """The blocks of range(size) the swaps link (each sorted)."""
    label = list(range(size))
    for a, b in swaps:
        old, new = max(label[a], label[b]), min(label[a], label[b])
        label = [new if x == old else x for x in label]
    return [[x for x in range(size) if label[x] == root] for root in sorted(set(label))]


class ProductSymmetry:
    """Stabiliser orbits for the certificate's verified generators ({"symbols", "positions"} dicts) over the
    game's guesses (`words`: rows of symbol indices)."""

    def __init__(self, generators: list[dict], words: np.ndarray, n_symbols: int):
        sym_swaps, pos_swaps = [], []
        length = words.shape[1]
        for gen in generators:
            s = _swap(np.asarray(gen["symbols"]))
            p = _swap(np.asarray(gen["positions"]))
            if (s is None) == (p is None):
                raise NotAProduct("a generator moves both symbols and positions, or neither")
            (sym_swaps if s is not None else pos_swaps).append(s if s is not None else p)
        if n_symbols ** length >= 2**62:
            raise NotAProduct("words too long to key")
        self.block_of = np.zeros(n_symbols, dtype=np.int64)
        self.blocks = _classes(n_symbols, sym_swaps)
        for b, members in enumerate(self.blocks):
            self.block_of[members] = b
        position_blocks = [b for b in _classes(length, pos_swaps) if len(b) > 1]
        count = 1
        for b in position_blocks:
            count *= len(list(permutations(b)))
        if count > MAX_POSITION_MAPS:
            raise NotAProduct(f"more than {MAX_POSITION_MAPS} position permutations")
        self.positions = []
        for images in product(*(permutations(b) for b in position_blocks)):
            pos = np.arange(length)
            for block, image in zip(position_blocks, images):
                pos[block] = image
            self.positions.append(pos)
        self.generators = [{"symbols": list(g["symbols"]), "positions": list(g["positions"])} for g in generators]
        self.words = np.asarray(words, dtype=np.int64)
        self.n_symbols, self.length = n_symbols, length
        self.moves_anything = len(self.positions) > 1 or any(len(b) > 1 for b in self.blocks)
        self.cache: dict[tuple, np.ndarray | None] = {}

    def _forced(self, history: np.ndarray, pos: np.ndarray) -> dict[int, int] | None:
        """sym on the history's symbols that with pos fixes each history word, or None when there is none."""
        sym: dict[int, int] = {}
        for word in history:
            for i in range(self.length):
                a, b = int(word[pos[i]]), int(word[i])
                if sym.setdefault(a, b) != b or self.block_of[a] != self.block_of[b]:
                    return None
        return sym if len(set(sym.values())) == len(sym) else None

    def _canonical(self, pos: np.ndarray, sym: dict[int, int]) -> np.ndarray:
        """Key of the least image of each guess under the elements with this pos (free symbols renamed)."""
        read = self.words[:, pos]
        n = len(read)
        image = np.empty_like(read)
        fixed = np.full(self.n_symbols, -1, dtype=np.int64)
        for a, b in sym.items():
            fixed[a] = b
        free_of = np.full((len(self.blocks), max(len(b) for b in self.blocks)), -1, dtype=np.int64)
        for b, block in enumerate(self.blocks):  # a block's free symbols, ascending: the names given in turn
            free = [x for x in block if fixed[x] < 0]
            free_of[b, :len(free)] = free
        renamed = np.full((n, self.n_symbols), -1, dtype=np.int64)
        used = np.zeros((n, len(self.blocks)), dtype=np.int64)
        rows = np.arange(n)
        for i in range(self.length):
            x = read[:, i]
            out = fixed[x]
            free = out < 0
            if free.any():
                r, xs = rows[free], x[free]
                known = renamed[r, xs]
                fresh = known < 0
                blocks = self.block_of[xs[fresh]]
                slots = used[r[fresh], blocks]
                names = free_of[blocks, slots]
                renamed[r[fresh], xs[fresh]] = names
                used[r[fresh], blocks] += 1
                out[free] = renamed[r, xs]
            image[:, i] = out
        return image @ (self.n_symbols ** np.arange(self.length - 1, -1, -1, dtype=np.int64))

    def representatives(self, history, hard_mode: bool = False) -> np.ndarray | None:
        """Boolean mask of one guess per orbit of the stabiliser of the history (the least index of each), or
        None when that stabiliser is trivial.  Only symbol maps in hard mode."""
        key = (frozenset(int(h) for h in history), hard_mode)
        if key in self.cache:
            return self.cache[key]
        played = self.words[sorted(key[0])]
        keys = None
        identity = np.arange(self.length)
        for pos in ([identity] if hard_mode else self.positions):
            sym = self._forced(played, pos)
            if sym is None:
                continue
            canonical = self._canonical(pos, sym)
            keys = canonical if keys is None else np.minimum(keys, canonical)
        _, first = np.unique(keys, return_index=True)
        mask = np.zeros(len(self.words), dtype=np.bool_)
        mask[first] = True
        self.cache[key] = None if mask.all() else mask
        return self.cache[key]
