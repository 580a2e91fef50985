"""Test-only fault injection: the pipeline's command line with every task sleeping first, so a test can
kill a worker or the driver while tasks are in flight. Production code knows nothing of it.

    PYTHONPATH=<repo>/tests python -m fault_injection <seconds> <pipeline arguments...>

The sleep wraps the task function in the driver; Ray workers unpickle the wrapper from this module, which
they can import because they inherit the driver's PYTHONPATH.  A `-m` sweep's points are drivers running in Ray
workers, out of reach of the command above: for them, `slow_tasks_from_environment` is a Ray
`worker_process_setup_hook` (tests/test_docker.py submits a job with it).
"""

import functools
import os
import sys
import time

DELAY_VARIABLE = "PIPELINE_TEST_TASK_DELAY"


def delayed(seconds: float, fn, item, *shared):
    """fn(item, *shared), after sleeping `seconds`."""
    time.sleep(seconds)
    return fn(item, *shared)


def slow_tasks(seconds: float) -> None:
    """Make every executor in this process run its tasks through `delayed`."""
    from pipeline.runtime.executors import Executor

    original = Executor.map

    def slow_map(self, fn, *args, **kwargs):
        return original(self, functools.partial(delayed, seconds, fn), *args, **kwargs)

    Executor.map = slow_map


def slow_tasks_from_environment() -> None:
    """As a Ray worker_process_setup_hook: every worker of the job slows its tasks by $PIPELINE_TEST_TASK_DELAY s."""
    slow_tasks(float(os.environ[DELAY_VARIABLE]))


if __name__ == "__main__":
    import fault_injection  # the wrapper must pickle as fault_injection.delayed, not __main__.delayed

    fault_injection.slow_tasks(float(sys.argv[1]))
    from pipeline.app.commands import main

    sys.exit(main(sys.argv[2:]))
