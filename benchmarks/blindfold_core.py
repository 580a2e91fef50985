"""Blindfold Wordle benchmark: pair generation speed, the f* = 6 proof, and the
uniqueness of the answer-word 6-set.  Prints one JSON document on stdout
(progress goes to stderr).

    python benchmarks/blindfold_core.py [--game wordle_nyt_apr2022] [--skip-unique]
        [--time-limit 900] [--unique-time-limit 600] [--threads N]
"""

import argparse
import json
import os
import sys
import time

import numpy as np

# HiGHS prints a banner on stdout; keep stdout for the JSON only
_JSON_OUT = os.fdopen(os.dup(1), "w")
os.dup2(2, 1)

from pipeline.blindfold import pairs as blindfold_pairs  # noqa: E402
from pipeline.blindfold.model import solve_blindfold  # noqa: E402

KNOWN_SETS = ["combo fatty grrrl spuds venge whilk", "catty frond rumba spill verge whack"]


def load(game_name):
    try:
        from pipeline.feedback.matrix import game_matrix
        from pipeline.games.catalog import builtin_game

        game = builtin_game(game_name)
        return list(game.guesses), list(game.secrets), game.encoded_secrets(), game_matrix(game)
    except ImportError:  # catalog not available: read the NYT lists directly
        from pathlib import Path

        from pipeline.feedback.kernel import code_matrix, encode_words

        data = Path(__file__).resolve().parents[1] / "data" / "wordle"
        secrets = sorted((data / "nyt_answers.txt").read_text().split())
        guesses = sorted((data / "nyt_guesses_apr2022.txt").read_text().split())
        alphabet = "abcdefghijklmnopqrstuvwxyz"
        enc_s = encode_words(secrets, alphabet)
        return guesses, secrets, enc_s, code_matrix(encode_words(guesses, alphabet), enc_s)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--game", default="wordle_nyt_apr2022")
    ap.add_argument("--time-limit", type=float, default=900.0)
    ap.add_argument("--unique-time-limit", type=float, default=600.0)
    ap.add_argument("--threads", type=int, default=None)
    ap.add_argument("--skip-unique", action="store_true")
    args = ap.parse_args()
    report = {"game": args.game}

    t = time.perf_counter()
    guesses, secrets, enc_secrets, codes = load(args.game)
    report["matrix_seconds"] = round(time.perf_counter() - t, 3)
    report["n_guesses"], report["n_secrets"] = codes.shape
    gidx = {w: k for k, w in enumerate(guesses)}
    answers = np.array(sorted(gidx[w] for w in secrets), dtype=np.int64)

    # --- pair generation, one round (numba compiled by a warm-up call first)
    blindfold_pairs.seed_pairs(enc_secrets[:50])
    ct = blindfold_pairs.transpose_codes(codes[:, :50])
    blindfold_pairs.separators(ct, *blindfold_pairs.seed_pairs(enc_secrets[:50]))
    blindfold_pairs.unseparated_pairs(codes[:, :50], [0])
    timing = {}
    t = time.perf_counter()
    seeds = blindfold_pairs.seed_pairs(enc_secrets)
    timing["seed_pairs"] = time.perf_counter() - t
    t = time.perf_counter()
    codes_t = blindfold_pairs.transpose_codes(codes)
    indptr, _ = blindfold_pairs.separators(codes_t, *seeds)
    timing["separators_of_seeds"] = time.perf_counter() - t
    five = [gidx[w] for w in "catty frond rumba spill verge".split()]
    t = time.perf_counter()
    classes = blindfold_pairs.unseparated_classes(codes, five)
    class_pairs = blindfold_pairs.unseparated_pairs(codes, five)
    ip2, _ = blindfold_pairs.separators(codes_t, *class_pairs)
    timing["classes_and_their_separators"] = time.perf_counter() - t
    report["pair_generation"] = {
        "seed_pairs": int(len(seeds[0])),
        "seed_nonzeros": int(indptr[-1]),
        "classes_of_5_words": len(classes),
        "pairs_in_those_classes": int(len(class_pairs[0])),
        "seconds": {k: round(v, 3) for k, v in timing.items()},
        "round_seconds": round(sum(timing.values()), 3),
    }
    print(json.dumps(report["pair_generation"]), file=sys.stderr)

    # --- known sets
    report["known_sets"] = {
        words: blindfold_pairs.separates_all(codes, [gidx[w] for w in words.split()]) for words in KNOWN_SETS
    }

    # --- f* proof: answer-word warm start (upper bound), then all guesses (lower bound)
    def log(r):
        print(
            f"round {r.round}: pairs {r.pairs} (+{r.pairs_added}) rows {r.rows} cols {r.columns} "
            f"nnz {r.nonzeros} obj {r.objective} bound {r.dual_bound:.3f} {r.status} "
            f"{r.solver_seconds:.1f}s {[guesses[g] for g in r.chosen]} classes {r.unseparated_classes}",
            file=sys.stderr,
            flush=True,
        )

    t = time.perf_counter()
    res = solve_blindfold(
        codes,
        seeds=seeds,
        warm_columns=answers,
        time_limit=args.time_limit,
        threads=args.threads,
        log=log,
    )
    proof = res.summary()
    proof["chosen_words"] = [guesses[g] for g in res.chosen]
    proof["wall_seconds"] = round(time.perf_counter() - t, 3)
    proof["rounds_log"] = [_round(r, guesses) for r in res.round_log]
    if res.warm is not None:
        proof["warm"]["chosen_words"] = [guesses[g] for g in res.warm.chosen]
        proof["warm"]["rounds_log"] = [_round(r, guesses) for r in res.warm.round_log]
    report["f_star_proof"] = proof
    print(json.dumps({k: v for k, v in proof.items() if k not in ("rounds_log", "warm")}), file=sys.stderr)

    # --- answers only: the 6-set is unique (excluding any of its words needs > 6)
    if not args.skip_unique and res.warm is not None and res.warm.f_star is not None:
        warm = res.warm
        base = [int(g) for g in warm.chosen]
        checks = []
        for g in base:
            t = time.perf_counter()
            r = solve_blindfold(
                codes,
                seeds=(warm.pairs_i, warm.pairs_j),
                seed_limit=None,
                columns=answers,
                exclude=[g],
                time_limit=args.unique_time_limit,
                threads=args.threads,
                log=log,
            )
            item = {
                "excluded": guesses[g],
                "f_star": r.f_star,
                "lower_bound": r.lower_bound,
                "proven_optimal": r.proven_optimal,
                "more_than_6_proven": r.lower_bound > warm.f_star,
                "rounds": r.rounds,
                "pairs": int(len(r.pairs_i)),
                "solver_seconds": round(sum(r.solver_seconds), 3),
                "seconds": round(time.perf_counter() - t, 3),
                "stop_reason": r.stop_reason,
            }
            print(json.dumps(item), file=sys.stderr, flush=True)
            checks.append(item)
        report["answers_only_uniqueness"] = {
            "set": [guesses[g] for g in base],
            "unique": all(c["more_than_6_proven"] for c in checks),
            "checks": checks,
        }

    _JSON_OUT.write(json.dumps(report, indent=1) + "\n")
    _JSON_OUT.flush()


def _round(r, guesses):
    return {
        "round": r.round,
        "pairs": r.pairs,
        "pairs_added": r.pairs_added,
        "rows": r.rows,
        "columns": r.columns,
        "nonzeros": r.nonzeros,
        "objective": r.objective,
        "dual_bound": r.dual_bound,
        "status": r.status,
        "solver_seconds": round(r.solver_seconds, 3),
        "prep_seconds": round(r.prep_seconds, 3),
        "chosen": [guesses[g] for g in r.chosen],
        "unseparated_classes": r.unseparated_classes,
    }


if __name__ == "__main__":
    main()
