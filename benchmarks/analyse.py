"""Coach benchmark: `analyse` of SALET, CRONY, CIGAR (secret CIGAR) and `top 10` along that game, original Wordle.

After start-up (game, code matrix, exact solver; timed apart), the analysis of the three rows is timed with no
stored artifact (the first row's best value is the published optimum; V*(SALET) is solved), then `top 10` at
each position of the game (the first row scans within its budget).  Targets: analyse <= 2 s, top 10 <= 1 s.
Wall times are only meaningful on an idle host; the 1-minute load average is printed.  Prints one JSON object.
Run: .venv/bin/python benchmarks/analyse.py
"""

import json
import os
import tempfile
import time

import numpy as np

from pipeline.assistant.analysis import analyse, rows_from_secret
from pipeline.assistant.ranking import top_guesses
from pipeline.assistant.values import Valuer
from pipeline.feedback.matrix import game_matrix
from pipeline.games.answer import colours_to_code
from pipeline.games.catalog import builtin_game


def main() -> None:
    started = time.perf_counter()
    game = builtin_game("wordle_original")
    valuer = Valuer(game, game_matrix(game), 2.0, tempfile.mkdtemp())
    startup = time.perf_counter() - started
    rows = rows_from_secret(game, "cigar", ["salet", "crony", "cigar"])
    started = time.perf_counter()
    result = analyse(valuer, rows, "cigar")
    analyse_s = time.perf_counter() - started
    tops, cand = [], np.arange(len(game.secrets), dtype=np.int32)
    for i, (word, colours) in enumerate(rows):
        started = time.perf_counter()
        found, examined = top_guesses(valuer, cand, None, game.max_guesses - i, 10, i == 0, seconds=1.0)
        tops.append({"row": i + 1, "candidates": len(cand), "seconds": round(time.perf_counter() - started, 3),
                     "examined": examined, "first": game.guesses[found[0][0]] if found else None})
        g = game.guess_index[word]
        cand = cand[valuer.codes[g][cand] == colours_to_code(colours)]
    print(json.dumps({"startup_s": round(startup, 3), "analyse_s": round(analyse_s, 3),
                      "rows": [(r.guess, r.expected(r.played), r.expected(r.best), r.played.kind) for r in result.rows],
                      "top10": tops, "load_1min": os.getloadavg()[0]}, indent=2))


if __name__ == "__main__":
    main()
