"""A person's Wordle assistant: `python -m pipeline play` and `python -m pipeline solve`.

parse.py     what a person types (guess + colours, commands)
session.py   the state machine: rows, candidates, undo/reset, suggestions (no I/O)
strategy.py  where suggestions come from: a stored strategy tree, else greedy on the spot
explain.py   the words printed after each row
terminal.py  coloured tiles and the progress indicator
app.py       the two commands
"""

from pipeline.compiled.cache import use_kernel_cache

use_kernel_cache()  # before any kernel of this room is defined
