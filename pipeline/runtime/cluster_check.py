"""Before any work goes to a Ray cluster that this process joins (ray.address=auto or host:port): say which
cluster it is, and refuse one whose workers run other code.

`ray.address=auto` joins whatever cluster runs on the host, perhaps someone else's with another Python
environment: its workers could not import this package (or would import another copy of it), and every
task would fail after minutes of retries.  One quick task, with a timeout, asks a worker for the versions
it runs; they must equal the driver's.
"""

import sys

from pipeline.config.settings import RayConfig
from pipeline import PipelineError

PROBE_TIMEOUT_S = 30.0  # a worker process starts and imports the package in a few seconds, even on a busy host


def code_versions() -> dict:
    """What must be the same on the driver and every worker: this package (its version and the digest of its
    sources), Ray and Python's minor version."""
    import ray

    import pipeline

    from pipeline.compiled.cache import source_digest

    return {"pipeline": pipeline.__version__, "source": source_digest(), "ray": ray.__version__,
            "python": f"{sys.version_info.major}.{sys.version_info.minor}"}


def worker_versions(timeout: float) -> dict:
    """A worker's code_versions(), from one task that needs no CPU; one-line errors for a worker that cannot
    import this package or does not answer within `timeout` seconds."""
    import ray

    probe = ray.remote(num_cpus=0, max_retries=0)(code_versions)
    ref = probe.remote()
    try:
        return ray.get(ref, timeout=timeout)
    except ray.exceptions.GetTimeoutError:
        ray.cancel(ref, force=True)
        raise PipelineError(f"the cluster's workers did not answer within {timeout:g}s (no worker could start, or "
                            "every CPU is held by other jobs)") from None
    except Exception as err:  # the worker could not unpickle the probe: it cannot import this package
        lines = [ln for ln in str(err).splitlines() if "Error" in ln] or [type(err).__name__]
        raise PipelineError(f"the cluster's workers cannot run this package ({lines[-1].strip()}); install the "
                            "same pipeline on every node, or use ray.address=local") from None


def mismatch(driver: dict, worker: dict) -> str | None:
    """The first difference between the driver's and a worker's versions, as words, or None."""
    names = {"pipeline": "pipeline", "source": "pipeline sources (digest)", "ray": "Ray", "python": "Python"}
    for key, name in names.items():
        if driver.get(key) != worker.get(key):
            return f"the cluster's workers run {name} {worker.get(key)}, this driver {driver.get(key)}"
    return None


def cluster_summary(address: str) -> str:
    """One line naming the joined cluster: its address, Ray version, live nodes and CPUs."""
    import ray

    nodes = sum(1 for node in ray.nodes() if node.get("Alive"))
    cpus = int(ray.cluster_resources().get("CPU", 0))
    joined = ray.get_runtime_context().gcs_address
    via = f" (ray.address={address})" if address != joined else ""
    return f"joined the Ray cluster at {joined}{via}: Ray {ray.__version__}, {nodes} node(s), {cpus} CPU(s)"


def check_cluster(cfg: RayConfig, timeout: float = PROBE_TIMEOUT_S, say=None, driver: dict | None = None) -> None:
    """Join the cluster at cfg.address (the session stays open for the run), say which it is, and refuse it
    (closing the session) unless its workers run the driver's versions (`driver`, by default this process's
    code_versions()) of this package, Ray and Python."""
    from pipeline.runtime.ray_session import close_ray, ensure_ray

    ensure_ray(cfg)
    (say or (lambda line: print(line, file=sys.stderr)))(cluster_summary(cfg.address))
    try:
        different = mismatch(driver or code_versions(), worker_versions(timeout))
    except PipelineError as err:
        close_ray()
        raise PipelineError(f"ray.address={cfg.address}: {err}") from None
    if different:
        close_ray()
        raise PipelineError(f"ray.address={cfg.address}: {different}; install the same versions on every node, "
                            "or use ray.address=local")
