"""Re-deriving elimination bounds on every core: one checker process per worker, each with its own bounds.

Deep levels (V_3 and up) are a recursion in Python over small numba kernels and use one core; the
openers are independent, so the checker splits them into chunks over a process pool.  Workers are
started fresh (spawn) with one numba thread each and rebuild the code matrix from the word lists
themselves: nothing is shared with the process that asks, or with the prover.
"""

import os
from concurrent.futures import ProcessPoolExecutor
from multiprocessing import get_context

import numpy as np

CHUNKS_PER_WORKER = 4  # smaller chunks even out openers of very different cost
_worker: dict = {}


def _start(game) -> None:
    from pipeline.proofs.answer import code_matrix, symbols
    from pipeline.proofs.bounds import LowerBounds
    from pipeline.proofs.hard_bounds import HardLowerBounds

    codes = code_matrix(game.guesses, game.secrets, game.alphabet)
    bounds = LowerBounds(codes, game.guess_of_secret, game.n_codes)
    hard = HardLowerBounds(bounds, symbols(game.guesses, game.alphabet), len(game.alphabet)) if game.hard_mode else None
    _worker.update(bounds=bounds, hard=hard)


def opener_values(bounds, hard, level: int, rule: str, openers, budget: int) -> list[int]:
    """V_level(g, S) of each opener (hard-mode bounds when rule is "hard"), early exit above `budget`."""
    if rule == "hard":
        return [int(hard.opener(g, level, budget=budget)) for g in openers]
    return [int(v) for v in bounds.openers(openers, level, budget=budget)]


def _chunk(job) -> list[int]:
    level, rule, openers, budget = job
    return opener_values(_worker["bounds"], _worker["hard"], level, rule, openers, budget)


def chunks(openers: list[int], workers: int) -> list[list[int]]:
    n = max(1, min(len(openers), workers * CHUNKS_PER_WORKER))
    return [list(part) for part in np.array_split(np.asarray(openers, dtype=np.int64), n) if len(part)]


def pooled_values(game, jobs: list[tuple[int, str, list[int], int]], workers: int) -> list[list[int]]:
    """opener_values of each job (level, rule, openers, budget), spread over `workers` processes."""
    parts = [chunks(openers, workers) for _, _, openers, _ in jobs]
    split = [(level, rule, part, budget) for (level, rule, _, budget), pieces in zip(jobs, parts) for part in pieces]
    saved = os.environ.get("NUMBA_NUM_THREADS")
    os.environ["NUMBA_NUM_THREADS"] = "1"  # read by each worker's numba at import: one core per worker
    try:
        with ProcessPoolExecutor(workers, mp_context=get_context("spawn"), initializer=_start,
                                 initargs=(game,)) as pool:
            results = iter(list(pool.map(_chunk, split)))
    finally:
        if saved is None:
            os.environ.pop("NUMBA_NUM_THREADS", None)
        else:
            os.environ["NUMBA_NUM_THREADS"] = saved
    return [[value for _ in pieces for value in next(results)] for pieces in parts]
