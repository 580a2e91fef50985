"""The tasks a proof fans out, shared by the stages that close classes (prove, leaderboard): each worker's
solvers for a matrix, the fan-out that drops them afterwards, one class's bound, a survivor's certificate entry and
what a certificate says of its game.  A stage imports these from here, never from another stage."""

from pipeline.runtime import worker_cache
from pipeline.search.bounds.closure import ClassSettings, ClassSolvers, bound_class
from pipeline.search.matrix import Matrix
from pipeline.stages.base import StageContext


def task_solvers(matrix: Matrix):
    """The ClassSolvers of this matrix for one task (a context manager): those of this process's previous task
    when its matrix was the same (runtime/worker_cache.py), else new ones; their memos are emptied when the
    task ends, so every task starts afresh (same results as new solvers) and an idle process keeps no memo."""
    return worker_cache.lent(lambda: ClassSolvers(matrix), arrays=matrix.arrays(), extra=matrix.n_codes,
                             release=ClassSolvers.reset)


def fan_out_tasks(ctx: StageContext, fn, jobs: list, shared: tuple, label: str) -> list:
    """ctx.fan_out of tasks that take their solvers from `task_solvers`; then the solvers cached in this
    process (by tasks the in-process executor ran here) are dropped with the arrays they hold."""
    if not jobs:
        return []
    try:
        return ctx.fan_out(fn, jobs, shared, label=label)
    finally:
        worker_cache.forget()


def class_task(job, matrix: Matrix, settings: ClassSettings):
    """(bound, method) of one response class, job = (members, target, hard-mode state, history: the opener as a
    tuple of guess indices, or None): `bound_class` with this worker's solvers and the proof's `settings`."""
    members, target, hard_state, history = job
    with task_solvers(matrix) as solvers:
        return bound_class(solvers, settings, members, target, hard_state=hard_state, history=history)


def survivor_entry(word, classes, results, targets) -> dict:
    """A survivor's certificate entry: its classes with their bounds, their sum and the opener's value."""
    return {"opener": word, "classes": [
        {"response": colours, "size": len(m), "bound": bound, "method": method,
         **({"target": targets[colours]} if colours in targets else {})}
        for (colours, m, _), (bound, method) in zip(classes, results)]}


def game_claims(game) -> dict:
    """What a certificate says of its game: rules, answering function and shape, list digests and sizes."""
    return {
        "game": game.name, "hard_mode": game.hard_mode, "max_guesses": game.max_guesses,
        **({} if game.answer == "wordle" else {"answer": game.answer, "length": game.length,
                                               "n_symbols": len(game.alphabet)}),
        "guesses_sha256": game.guesses_digest, "secrets_sha256": game.secrets_digest,
        "n_guesses": len(game.guesses), "n_secrets": len(game.secrets)}
