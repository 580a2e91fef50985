"""The command line in a child process, as a user runs it."""

import os
import subprocess
import sys

from pipeline.config.settings import PROJECT_ROOT


def run_cli(*args, cwd=PROJECT_ROOT, stdin="", env=None, timeout=300):
    """`python -m pipeline *args` run from `cwd` with this checkout's code (PYTHONPATH), `stdin` as its input and
    `env` added to this process's variables; the finished process, its output captured as text."""
    env = {**os.environ, "PYTHONPATH": str(PROJECT_ROOT), **(env or {})}
    return subprocess.run([sys.executable, "-m", "pipeline", *args], input=stdin, capture_output=True, text=True,
                          cwd=cwd, env=env, timeout=timeout)
