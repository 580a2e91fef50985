"""The one place that starts, joins and closes Ray."""

import atexit
import logging
import os

from pipeline.config import RayConfig

_owned = False


def ensure_ray(cfg: RayConfig) -> None:
    """Start an embedded Ray (address=local) or join a cluster; reuse a session already open."""
    global _owned
    import ray

    if ray.is_initialized():
        return
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    # Ray enables token auth for a new local cluster and warns about it on every start; the default is kept.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
    if cfg.address == "local":
        ray.init(address="local", num_cpus=cfg.num_cpus, object_store_memory=cfg.object_store_memory,
                 include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
    else:
        ray.init(address=cfg.address, logging_level=logging.WARNING)
    _owned = True
    atexit.register(close_ray)  # once per process: the jobs of a sweep share the session


def close_ray() -> None:
    """Shut down Ray if this process started or joined it (a test's shared session is left alone)."""
    global _owned
    if _owned:
        import ray

        ray.shutdown()
        _owned = False
