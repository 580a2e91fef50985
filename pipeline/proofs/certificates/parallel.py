"""Re-deriving bounds on every core: one checker process per worker, each with its own bounds and exact solver.

Deep levels (V_3 and up) and exact solves are a recursion in Python over small numba kernels and use one
core; openers and closure classes are independent, so the checker spreads them over a process pool.  Workers are
started fresh (spawn) with one numba thread each and rebuild the code matrix from the word lists
themselves: nothing is shared with the process that asks, or with the prover.
"""

import time

import numpy as np

from pipeline.processes.pool import STILL_RUNNING, process_pool
from pipeline.proofs.exact.solver import INFEASIBLE

CHUNKS_PER_WORKER = 4  # smaller chunks even out openers of very different cost
MAX_CHUNK = 48  # openers per chunk at most: a chunk's values are kept (journal.py) only once it is done
SAY_EVERY_SECONDS = 30.0  # a progress line this often while checks keep finishing
PROGRESS_PREFIX = "checked "  # how those lines start (they reach logs, not only terminals)
SOLVABLE = -1  # class_value of a class claimed INFEASIBLE that some strategy solves in the guesses left
ONE_NUMBA_THREAD = {"NUMBA_NUM_THREADS": "1"}  # read by each worker's numba at import: one core per worker
_worker: dict = {}


def _start(game, generators=None) -> None:
    """A worker's own bounds and exact solver; `generators`: the certificate's symmetry generators, verified by
    the process that asks and already found to be transpositions (stabiliser.py), or None."""
    from pipeline.proofs.game.answer import game_code_matrix, n_codes_of, symbols
    from pipeline.proofs.bounds.lower import LowerBounds
    from pipeline.proofs.exact.solver import ExactSolver
    from pipeline.proofs.bounds.hard import HardLowerBounds
    from pipeline.proofs.symmetry.stabiliser import ProductSymmetry
    from pipeline.proofs.certificates.tree import answer_of

    answer, words = answer_of(game), symbols(game.guesses, game.alphabet)
    n_codes = n_codes_of(answer, game.length)
    codes = game_code_matrix(game.guesses, game.secrets, game.alphabet, answer)
    bounds = LowerBounds(codes, game.guess_of_secret, n_codes)
    hard = HardLowerBounds(bounds, words, len(game.alphabet)) if game.hard_mode else None
    symmetry = ProductSymmetry(generators, words, len(game.alphabet)) if generators else None
    exact = ExactSolver(codes, words, game.guess_of_secret, n_codes, len(game.alphabet), game.hard_mode, symmetry)
    _worker.update(bounds=bounds, hard=hard, exact=exact)


def class_value(bounds, hard, exact, job) -> int:
    """A closure class's bound re-derived by the method it claims: job = (opener index, members, method,
    level, guesses left or None, budget); LB_j stop early above the budget, an exact solve at it.  A claim of
    INFEASIBLE (no strategy within the guesses left) is decided as such: INFEASIBLE, or SOLVABLE when a strategy
    exists."""
    g, members, method, level, left, budget = job
    if method == "LB":
        return bounds.lb(members, level, budget=budget - 1)[0]
    if method == "hard LB":
        return hard.lb(members, hard.start().after(hard.words[g], int(bounds.codes[g, members[0]])), level,
                       budget=budget - 1)[0]
    rule = exact.start_rule()
    if rule is not None:  # the class is what is left after the opener's response
        rule = rule.after(exact.words[g], int(bounds.codes[g, members[0]]))
    if budget >= INFEASIBLE and left is not None:  # the claim: no strategy solves the class in the guesses left
        return INFEASIBLE if exact.unsolvable(members, left, rule) else SOLVABLE
    return exact.min_total(members, left, rule, beta=budget, history=(g,) if exact.symmetry is not None else None)


def _class_job(job) -> int:
    return class_value(_worker["bounds"], _worker["hard"], _worker["exact"], job)


def opener_values(bounds, hard, level: int, rule: str, openers, budget: int) -> list[int]:
    """V_level(g, S) of each opener (hard-mode bounds when rule is "hard"), early exit above `budget`."""
    if rule == "hard":
        return [int(hard.opener(g, level, budget=budget)) for g in openers]
    return [int(v) for v in bounds.openers(openers, level, budget=budget)]


def _chunk(job) -> list[int]:
    level, rule, openers, budget = job
    return opener_values(_worker["bounds"], _worker["hard"], level, rule, openers, budget)


def chunks(openers: list[int], workers: int) -> list[list[int]]:
    """At least CHUNKS_PER_WORKER chunks per worker, of at most MAX_CHUNK openers (what a stop may lose)."""
    n = max(1, min(len(openers), max(workers * CHUNKS_PER_WORKER, -(-len(openers) // MAX_CHUNK))))
    return [list(part) for part in np.array_split(np.asarray(openers, dtype=np.int64), n) if len(part)]


def checker_pool(workers: int, initializer, initargs: tuple):
    """A spawn pool of `workers` checker processes, one numba thread each, that end with the block however it
    ends (a signal, an error): pipeline/processes/pool.py."""
    return process_pool(workers, initializer, initargs, env=ONE_NUMBA_THREAD)


def _pool(game, workers: int, run, generators=None):
    """run(pool) with a checker_pool of `workers` processes (`generators`: the symmetry their exact solvers use,
    see _start)."""
    with checker_pool(workers, _start, (game, generators)) as pool:
        return run(pool)


def counted(results, total: int, what: str, say, every: float = SAY_EVERY_SECONDS, clock=time.monotonic):
    """Yield `results`, saying `checked done/total what (pct), ETA` at most every `every` seconds: a check that
    runs for an hour is not silent.  A STILL_RUNNING among them (a pool's heartbeat) is not a result: it says
    `checked done/total what (pct), still working, none finished for …` at most as often."""
    started = last = finished = clock()
    done = 0
    for result in results:
        if result is STILL_RUNNING:
            now = clock()
            if say is not None and now - last >= every:
                last = now
                say(f"{PROGRESS_PREFIX}{done}/{total} {what} ({100 * done // total}%), still working, none "
                    f"finished for {minutes(now - finished)}")
            continue
        done += 1
        yield result
        now = finished = clock()
        if say is not None and now - last >= every and done < total:
            last = now
            say(f"{PROGRESS_PREFIX}{done}/{total} {what} ({100 * done // total}%), "
                f"ETA {minutes((now - started) / done * (total - done))}")


def minutes(seconds: float) -> str:
    return f"{int(seconds // 60)}m{int(seconds % 60):02d}s"


def kept(results, items, keep):
    """Yield `results`, handing each with its item to keep(item, result) first (None: nothing kept; a pool's
    STILL_RUNNING passes through)."""
    items = iter(items)
    for result in results:
        if result is not STILL_RUNNING and keep is not None:
            keep(next(items), result)
        yield result


def pooled_values(game, jobs: list[tuple[int, str, list[int], int]], workers: int, say=None,
                  keep=None) -> list[list[int]]:
    """opener_values of each job (level, rule, openers, budget), spread over `workers` processes: chunks of the
    deepest level first, so that the cheap, even chunks of low levels fill the workers' last gaps.  keep(chunk,
    its values) as each chunk is done (journal.py)."""
    parts = [chunks(openers, workers) for _, _, openers, _ in jobs]
    split = [(level, rule, part, budget) for (level, rule, _, budget), pieces in zip(jobs, parts) for part in pieces]
    order = sorted(range(len(split)), key=lambda i: -split[i][0])
    ordered = [split[i] for i in order]
    values = _pool(game, workers, lambda pool: list(counted(
        kept(pool.map(_chunk, ordered, SAY_EVERY_SECONDS), ordered, keep), len(split), "chunks of eliminated openers",
        say)))
    by_piece = dict(zip(order, values))
    results = iter(by_piece[i] for i in range(len(split)))
    return [[value for _ in pieces for value in next(results)] for pieces in parts]


def pooled_class_values(game, jobs: list[tuple], workers: int, say=None, generators=None, keep=None) -> list[int]:
    """class_value of each job, largest classes first over `workers` processes, in job order (`generators`: the
    certificate's verified symmetry generators, for the exact solves); keep(job, value) as each is done."""
    order = sorted(range(len(jobs)), key=lambda i: -len(jobs[i][1]))
    ordered = [jobs[i] for i in order]
    values = _pool(game, workers, lambda pool: list(counted(
        kept(pool.map(_class_job, ordered, SAY_EVERY_SECONDS), ordered, keep), len(jobs), "class bounds", say)),
        generators)
    out = [0] * len(jobs)
    for i, value in zip(order, values):
        out[i] = value
    return out
