"""The one place that starts, joins and closes Ray, and checks its settings first.

Bad settings must fail in seconds with one clear line: `num_cpus=0` would wait
forever for a CPU, `max_in_flight=0` would wait on nothing, and an unreachable
`address` makes `ray.init` retry for minutes.  `check_ray_config` refuses them
before anything runs; `ensure_ray` calls it again (library callers).
"""

import atexit
import logging
import os
import socket

from pipeline.config.settings import RayConfig
from pipeline import PipelineError

_owned = False
CONNECT_TIMEOUT_S = 3.0  # a reachable head answers a TCP connect in well under this
MIN_OBJECT_STORE_BYTES = 78_643_200  # Ray refuses a smaller object store (75 MiB)
DEFAULT_GCS_PORT = 6379


def _at_least(name: str, value, low: int) -> None:
    if value is not None and (isinstance(value, bool) or not isinstance(value, int) or value < low):
        raise PipelineError(f"ray.{name} must be at least {low}, got {value!r}")


def check_ray_values(cfg: RayConfig) -> None:
    """Refuse values that would hang or crash Ray (no network access)."""
    _at_least("num_cpus", cfg.num_cpus, 1)
    _at_least("max_in_flight", cfg.max_in_flight, 1)
    _at_least("max_retries", cfg.max_retries, 0)
    _at_least("task_memory_mb", cfg.task_memory_mb, 1)
    _at_least("object_store_memory", cfg.object_store_memory, MIN_OBJECT_STORE_BYTES)
    address = str(cfg.address or "").strip()
    if not address:
        raise PipelineError("ray.address is empty; use local, auto or host:port")
    if address != "local" and cfg.num_cpus is not None:
        raise PipelineError("ray.num_cpus applies to the embedded Ray only (ray.address=local); "
                            "a cluster's CPUs are set by `ray start --num-cpus`")


def split_address(address: str) -> tuple[str, int]:
    """(host, port) of `host:port`, `ray://host:port` or a bare host (Ray's default GCS port)."""
    text = address.split("://", 1)[1] if "://" in address else address
    host, colon, port = text.rpartition(":")
    if not colon:
        return text, DEFAULT_GCS_PORT
    if not host or not port.isdigit() or not 0 < int(port) < 65536:
        raise PipelineError(f"ray.address={address!r} is not host:port (or local, auto)")
    return host.strip("[]"), int(port)


def check_reachable(address: str, timeout: float = CONNECT_TIMEOUT_S) -> None:
    """A short TCP connect, then one gRPC health check, instead of minutes of Ray's own retries.

    The TCP connect alone is not enough: a firewall or proxy may accept any connection and never answer
    (or answer as a web server); a Ray head answers the standard gRPC health check at once."""
    host, port = split_address(address)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            pass
    except OSError as err:
        reason = f"no answer within {timeout:g}s" if isinstance(err, TimeoutError) else (err.strerror or str(err))
        _unreachable(address, host, port, reason)
    problem = grpc_problem(f"{host}:{port}", timeout)
    if problem:
        _unreachable(address, host, port, problem)


def grpc_problem(target: str, timeout: float) -> str | None:
    """None if a gRPC server answers at `target` within `timeout` (any gRPC status but a transport failure)."""
    import grpc

    channel = grpc.insecure_channel(target)
    try:
        channel.unary_unary("/grpc.health.v1.Health/Check")(b"", timeout=timeout)
        return None
    except grpc.RpcError as err:
        code, details = err.code(), (err.details() or "").strip()
        if code in (grpc.StatusCode.DEADLINE_EXCEEDED, grpc.StatusCode.UNAVAILABLE):
            return f"no answer within {timeout:g}s" if code == grpc.StatusCode.DEADLINE_EXCEEDED else "unavailable"
        if "http2 header with status" in details:  # an HTTP server or proxy, not gRPC
            return f"something answers there, but not a Ray head ({details.splitlines()[0]})"
        return None  # a gRPC server that declines the health check (auth, not implemented): let Ray try
    finally:
        channel.close()


def _unreachable(address: str, host: str, port: int, reason: str) -> None:
    raise PipelineError(f"ray.address={address}: cannot reach a Ray head at {host}:{port} ({reason}); "
                        "start one with `ray start --head` or use ray.address=local")


def check_ray_config(cfg: RayConfig, connect: bool = True) -> None:
    """All of Ray's settings, and (for host:port) that the head answers, before any work starts."""
    check_ray_values(cfg)
    address = cfg.address
    if address == "auto":  # Ray reads RAY_ADDRESS first, else the local machine's running cluster
        address = os.environ.get("RAY_ADDRESS", "auto")
    if connect and address not in ("local", "auto"):
        check_reachable(address)


def ensure_ray(cfg: RayConfig) -> None:
    """Start an embedded Ray (address=local) or join a cluster; reuse a session already open."""
    global _owned
    import ray

    if ray.is_initialized():
        return
    check_ray_config(cfg)
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_UV_RUN_RUNTIME_ENV", "0")
    # Ray enables token auth for a new local cluster and warns about it on every start; the default is kept.
    logging.getLogger("ray._private.authentication.authentication_token_setup").setLevel(logging.ERROR)
    from ray._private import utils as ray_utils

    from pipeline.processes.signals import after_ray_start, held, ray_keeps_ours

    with held():  # a signal while Ray starts waits until it is up (and shut down at exit), then stops the run
        try:
            with ray_keeps_ours(ray_utils):
                if cfg.address == "local":
                    ray.init(address="local", num_cpus=cfg.num_cpus, object_store_memory=cfg.object_store_memory,
                             include_dashboard=False, logging_level=logging.WARNING, log_to_driver=True)
                else:
                    ray.init(address=cfg.address, logging_level=logging.WARNING)
        except (ConnectionError, ValueError, RuntimeError) as err:
            first = str(err).strip().splitlines()[0] if str(err).strip() else type(err).__name__
            raise PipelineError(f"cannot start or join Ray at ray.address={cfg.address}: {first}") from None
        _owned = True
        atexit.register(close_ray)  # once per process: the jobs of a sweep share the session
        after_ray_start()  # ray.init's C++ SIGTERM handler prints a stack dump: the command line's handlers again


def close_ray() -> None:
    """Shut down Ray if this process started or joined it (a test's shared session is left alone)."""
    global _owned
    if _owned:
        import ray

        ray.shutdown()
        _owned = False
