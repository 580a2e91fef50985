"""Price a proof that a guess limit is infeasible (`experiment=prove_wordle game.max_guesses=4`) from a sample of
openers, prover and checker, and print it as JSON.

    python benchmarks/infeasible.py [--game wordle_original] [--max-guesses 4] [--sample 100] [--seed 0]
                                    [--modes normal hard]

Per mode (normal, hard) it draws `--sample` openers (seeded, one per symmetry orbit in normal mode, as the stage
does) and measures, in CPU seconds of this process (so other jobs on the machine change little):
- the prover: the stage's witness search per opener (search/solvable/infeasible.py's opener_witness over the opener's
  classes, counting then search/solvable/shallow.py or the exact solver), after the batch set-up (solver, probes) it pays
  once per task;
- the checker: proofs/certificates/infeasible.py's check_witness of that witness, with the checker's own code matrix.
The projection: mean seconds times the openers to prove, spread over N cores (the stage deals the openers into
batches of even size, the checker into chunks), plus the set-up each worker pays once.
"""

import argparse
import json
import random
import time

import numpy as np

from pipeline.games.catalog import builtin_game
from pipeline.feedback.matrix import game_matrix
from pipeline.proofs.game.answer import game_code_matrix
from pipeline.proofs.certificates.infeasible import check_witness, searcher
from pipeline.proofs.certificates.tree import answer_of
from pipeline.search.solvable.infeasible import opener_witness, probe_guesses, within_solvable
from pipeline.search.matrix import Matrix
from pipeline.search.solvable.within import Within
from pipeline.stages.prove_infeasible import opener_classes, representatives

CORES = (2, 8, 64)


def cpu(fn, *args):
    """(result, CPU seconds of this process)."""
    start = time.process_time()
    result = fn(*args)
    return result, time.process_time() - start


def summary(seconds: list[float]) -> dict:
    s = np.asarray(seconds)
    return {"mean_s": round(float(s.mean()), 4), "median_s": round(float(np.median(s)), 4),
            "p90_s": round(float(np.percentile(s, 90)), 4), "max_s": round(float(s.max()), 4)}


def projected(mean_s: float, setup_s: float, count: int) -> dict:
    """Wall seconds on N cores: every core pays the set-up once, then its share of the openers."""
    return {str(n): round(setup_s + mean_s * count / n) for n in CORES}


def measure(game_name: str, max_guesses: int, hard: bool, sample: int, seed: int) -> dict:
    game = builtin_game(game_name, hard_mode=hard, max_guesses=max_guesses)
    codes = game_matrix(game)
    matrix = Matrix.of_game(codes, game)
    _, rep = representatives(game, matrix)
    openers = np.flatnonzero(rep == np.arange(len(game.guesses)))
    picked = sorted(random.Random(seed).sample(list(openers), min(sample, len(openers))))
    words = game.encoded_guesses() if hard else None
    left, win = max_guesses - 1, game.n_codes - 1

    def setup():
        within = Within.of_matrix(matrix, hard)
        return within_solvable(within, left), probe_guesses(codes, game.n_codes)

    (solvable, probes), prover_setup = cpu(setup)
    opener_witness(opener_classes(codes, int(picked[0]), win, words), codes, win, left, solvable, probes)  # JIT
    prover_s, entries, ranks = [], [], []
    for g in picked:
        classes = opener_classes(codes, int(g), win, words)
        witness, seconds = cpu(opener_witness, classes, codes, win, left, solvable, probes)
        prover_s.append(seconds)
        if witness is None:
            raise SystemExit(f"opener {game.guesses[g]} has no witness within {max_guesses} guesses")
        by_size = sorted((len(m) for _, m, _ in classes), reverse=True)
        ranks.append(by_size.index(witness["size"]) + 1)
        entries.append({"opener": game.guesses[g], **witness, "response": game.code_text(witness["response"])})
    check_codes, matrix_s = cpu(game_code_matrix, game.guesses, game.secrets, game.alphabet, answer_of(game))
    search = searcher(game, check_codes)
    check_witness(entries[0], game, check_codes, search, max_guesses)  # JIT
    checker_s = [cpu(check_witness, e, game, check_codes, search, max_guesses)[1] for e in entries]
    reasons = [e["reason"] for e in entries]
    prover, checker = summary(prover_s), summary(checker_s)
    return {"mode": "hard" if hard else "normal", "openers_to_prove": len(openers), "sample": len(picked),
            "witness": {"by_counting": reasons.count("counting"), "by_search": reasons.count("search"),
                        "largest_class": ranks.count(1), "mean_size": round(float(np.mean([e["size"] for e in
                                                                                           entries])), 1)},
            "prover": {**prover, "setup_s": round(prover_setup, 2),
                       "projected_wall_s": projected(prover["mean_s"], prover_setup, len(openers))},
            "checker": {**checker, "setup_s": round(matrix_s, 2),
                        "projected_wall_s": projected(checker["mean_s"], matrix_s, len(openers))}}


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="wordle_original")
    parser.add_argument("--max-guesses", type=int, default=4)
    parser.add_argument("--sample", type=int, default=100)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--modes", nargs="+", default=["normal", "hard"], choices=["normal", "hard"])
    args = parser.parse_args()
    out = {"game": args.game, "max_guesses": args.max_guesses, "seed": args.seed,
           "load_before": round(float(open("/proc/loadavg").read().split()[0]), 2),
           "modes": [measure(args.game, args.max_guesses, mode == "hard", args.sample, args.seed)
                     for mode in args.modes]}
    out["load_after"] = round(float(open("/proc/loadavg").read().split()[0]), 2)
    print(json.dumps(out, indent=2))


if __name__ == "__main__":
    main()
