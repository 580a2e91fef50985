"""Load a script of benchmarks/ as a module, for the tests of its helpers."""

import importlib.util

from pipeline.config.settings import PROJECT_ROOT


def load_benchmark(name: str):
    """The module benchmarks/<name>.py, executed once per call."""
    spec = importlib.util.spec_from_file_location(name, PROJECT_ROOT / "benchmarks" / f"{name}.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module
