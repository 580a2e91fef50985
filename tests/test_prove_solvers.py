"""prove's class tasks reuse their process's solvers: one build per matrix, the same bounds as new solvers."""

from types import SimpleNamespace

import numpy as np
import pytest

from pipeline.feedback.matrix import game_matrix
from pipeline.games.catalog import builtin_game
from pipeline.runtime import worker_cache
from pipeline.runtime.executors import shared_args
from pipeline.search.bounds import closure
from pipeline.search.bounds.lower import k_of_game
from pipeline.search.exact.solver import ExactSolver
from pipeline.search.matrix import Matrix
from pipeline.stages import proof_tasks


@pytest.fixture(autouse=True)
def empty_cache():
    worker_cache.forget()
    yield
    worker_cache.forget()


def mini_nerdle_matrix(hard: bool):
    game = builtin_game("mini_nerdle", hard_mode=hard)
    return game, game_matrix(game)


def shared_of(game, codes, max_level=5):
    """The prove stage's shared values for class_task (the matrix's arrays read-only, as a fan-out hands them
    over)."""
    settings = closure.ClassSettings(k_s=k_of_game(codes, game.n_codes), max_level=max_level, memo_bits=12,
                                     left=closure.guesses_left(game))
    return shared_args(proof_tasks.class_task, matrix=Matrix.of_game(codes, game), settings=settings)


def same_buffers(matrix):
    """The matrix as a Ray task gets it: a new Matrix of new array objects on the same buffers."""
    return Matrix(codes=matrix.codes.view(), secret_of_guess=matrix.secret_of_guess.view(), n_codes=matrix.n_codes,
                  encoded_guesses=matrix.encoded_guesses.view(), encoded_secrets=matrix.encoded_secrets.view())


def class_jobs(game, codes, opener):
    """Each class of an opener (3 members or more) twice: against a target LB_j reach, then one it misses."""
    jobs = []
    for _, members, state in closure.opener_classes(codes, game, opener):
        if len(members) >= 3:
            jobs += [(members, 2 * len(members), state, None), (members, 3 * len(members), state, None)]
    return jobs


@pytest.mark.parametrize("hard", [False, True])
def test_reused_solvers_give_the_bounds_of_new_ones(hard):
    game, codes = mini_nerdle_matrix(hard)
    shared = shared_of(game, codes)
    matrix, settings = shared
    jobs = class_jobs(game, codes, game.guess_index["4*7=28"]) + class_jobs(game, codes, game.guess_index["10-9=1"])
    reused = [proof_tasks.class_task(job, *shared) for job in jobs]
    assert len(worker_cache._CACHED) == 1  # one set of solvers served every class
    fresh = [closure.class_bound(matrix, settings, m, t, hard_state=s, history=r) for m, t, s, r in jobs]
    assert reused == fresh
    methods = {method.split()[-1] for _, method in reused}
    assert {"exact", "LB_2"} <= methods or {"exact", "LB_3"} <= methods, methods
    exact = ExactSolver(matrix, hard_mode=hard, max_guesses=settings.left)
    for (members, target, state, _), (value, method) in zip(jobs, reused):
        minimum, _ = exact.min_total(members, state=state)
        assert value == minimum if method == "exact" else target <= value <= minimum


def test_solvers_are_built_once_per_matrix_and_emptied_after_each_task(monkeypatch):
    game, codes = mini_nerdle_matrix(False)
    monkeypatch.setattr(worker_cache, "SMALL_ARRAY", 0)  # name every array by its buffer, as a big matrix is
    shared = shared_of(game, codes)
    jobs = class_jobs(game, codes, game.guess_index["4*7=28"])
    first = proof_tasks.class_task(jobs[0], *shared)
    solvers = worker_cache.cached()
    matrix, settings = shared
    again = same_buffers(matrix)  # new array objects on the same buffers: a Ray task's arguments
    assert again is not matrix and again.codes is not matrix.codes
    assert proof_tasks.class_task(jobs[0], again, settings) == first and worker_cache.cached() is solvers
    assert all(not s.memo for key, s in solvers.built.items() if key[0] == "bounds")
    elsewhere = Matrix.of_game(np.array(codes), game)  # same values, other buffers
    assert proof_tasks.class_task(jobs[0], elsewhere, settings) == first and worker_cache.cached() is not solvers


def test_fan_out_tasks_drops_the_cache_of_this_process():
    game, codes = mini_nerdle_matrix(False)
    jobs = class_jobs(game, codes, game.guess_index["4*7=28"])[:4]
    ctx = SimpleNamespace(fan_out=lambda fn, items, shared, label: [fn(item, *shared) for item in items])
    results = proof_tasks.fan_out_tasks(ctx, proof_tasks.class_task, jobs, shared_of(game, codes), "test")
    assert len(results) == 4 and worker_cache.cached() is None
    assert proof_tasks.fan_out_tasks(ctx, proof_tasks.class_task, [], (), "test") == []


def test_the_worker_cache_builds_once_per_inputs_and_releases_after_each_task():
    built, released = [], []
    small, other = np.arange(5), np.arange(6)

    def build():
        built.append(object())
        return built[-1]

    for arrays in ((small,), (small.copy(),), (other,)):
        with worker_cache.lent(build, arrays=arrays, extra=1, release=released.append) as value:
            assert value is built[-1]
    assert len(built) == 2 and released == [built[0], built[0], built[1]]  # equal small arrays name one entry
    with worker_cache.lent(build, arrays=(other,), extra=2):
        pass
    assert len(built) == 3  # another `extra`, another value
    worker_cache.forget()
    assert worker_cache.cached() is None


def test_shared_args_orders_values_by_the_task_signature():
    def task(item, a, b, c):
        return item, a, b, c

    assert shared_args(task, c=3, a=1, b=2) == (1, 2, 3)
    with pytest.raises(TypeError, match=r"missing \['c'\], unknown \['d'\]"):
        shared_args(task, a=1, b=2, d=4)
