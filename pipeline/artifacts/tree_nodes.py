"""Convert the exact search's (guess, {code: subtree}) form into the shared strategy Tree."""

import numpy as np

from pipeline import PipelineError
from pipeline.search.tree import Tree, verify


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


def replayed_exact_tree(nodes, game, codes, value: int) -> Tree:
    """exact_tree of a whole-game search result, refused (an internal error) unless every secret replays
    through it to the total the search reported."""
    tree = exact_tree(nodes, game, codes)
    if verify(tree, game.guesses, game.secrets, game.answering.response) != value:
        raise PipelineError(f"internal error: the exact tree of {tree.guess} does not replay to {value}")
    return tree
