"""Convert the exact search's (guess, {code: subtree}) form into the shared strategy Tree."""

import numpy as np

from pipeline.search.tree import Tree


def exact_tree(nodes, game, codes, candidates=None) -> Tree:
    """Tree of an exact-search result over `candidates` (default: every secret)."""
    candidates = np.arange(len(game.secrets)) if candidates is None else np.asarray(candidates)
    guess, children = nodes
    row = codes[guess]
    tree = Tree(game.guesses[guess], len(candidates))
    for code, child in children.items():
        members = candidates[row[candidates] == code]
        tree.children[game.code_text(code)] = exact_tree(child, game, codes, members)
    return tree
