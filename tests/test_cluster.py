"""Cluster operation on real Ray: a loopback cluster that grows from one node to two, and on it a killed worker, a
killed driver that resumes, and two identical runs at once.  The drivers on the cluster are subprocesses, as a user
runs them (the module's one cluster spares each a Ray start); the uninterrupted reference and the resumption run in
this process, on the session's embedded Ray (tests/conftest.py)."""

import logging
import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.config.settings import PROJECT_ROOT
from tests.helpers.processes import cmdline, descendants

STAGE = ["stage=lower_bound", "game=mini_nerdle", "stage.ub=544"]
RAY = str(Path(sys.executable).with_name("ray"))
pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.2", 0))
        return s.getsockname()[1]


def pipeline_args(outputs, *extra):
    """The stage's command line; an embedded run gets 2 CPUs (a cluster's CPUs are set by `ray start`)."""
    joins = any(arg.startswith("ray.address=") for arg in extra)
    return [*STAGE, f"paths.outputs={outputs}", *([] if joins else ["ray.num_cpus=2"]), *extra]


def pipeline_cmd(outputs, *extra):
    return [sys.executable, "-m", "pipeline", *pipeline_args(outputs, *extra)]


def slow_pipeline(outputs, delay: float, *extra, env=None):
    """The same command with every task sleeping `delay` s first (tests/fault_injection.py), and its env."""
    env = dict(os.environ if env is None else env)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(Path(__file__).parent), env.get("PYTHONPATH")]))
    return [sys.executable, "-m", "fault_injection", str(delay), *pipeline_args(outputs, *extra)], env


def funnel_of(stdout: str):
    folder = Path(stdout.strip().splitlines()[-1])
    return pq.read_table(folder / "funnel.parquet"), folder


def run_here(outputs):
    """The stage run in this process on the session's Ray, as the command line runs it: its artifact."""
    from pipeline.config.compose import compose_config
    from pipeline.games.catalog import load_game
    from pipeline.runtime.store import ArtifactStore
    from pipeline.stages.runner import run_stage

    cfg = compose_config([*pipeline_args(outputs), "progress=false"])
    return run_stage(cfg.stage, cfg, load_game(cfg.game), ArtifactStore(outputs))


@pytest.fixture(scope="module")
def reference(tmp_path_factory, ray_session):
    """The funnel of an uninterrupted embedded run."""
    return pq.read_table(run_here(tmp_path_factory.mktemp("ref")).file("funnel.parquet"))


def wait_for(predicate, timeout=120, what="condition"):
    deadline = time.time() + timeout
    while time.time() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out waiting for {what}")


def node_environment(base: Path, name: str, token: str) -> dict:
    """A node's own HOME holding its copy of the cluster token, handed over as RAY_AUTH_TOKEN_PATH the
    way docker/ does (file_mounts / the operator's Secret): a node that cannot read it cannot join."""
    home = base / f"home-{name}"
    token_file = home / ".ray-auth" / "token"
    token_file.parent.mkdir(parents=True)
    token_file.write_text(token)
    token_file.chmod(0o600)
    env = {k: v for k, v in os.environ.items() if k not in ("RAY_AUTH_TOKEN", "RAY_ADDRESS")}
    return {**env, "HOME": str(home), "RAY_USAGE_STATS_ENABLED": "0", "RAY_AUTH_MODE": "token",
            "RAY_AUTH_TOKEN_PATH": str(token_file)}


def start_node(base: Path, name: str, token: str, ip: str, *args) -> subprocess.Popen:
    """`ray start --block` for one node: its own HOME and token file, its own --temp-dir (session folder,
    sockets, logs) and its own address on the loopback interface; stopped by its pid (never `ray stop`)."""
    command = [RAY, "start", *args, "--num-cpus=1", f"--node-ip-address={ip}", f"--temp-dir={base / name}",
               "--block", "--disable-usage-stats"]
    return subprocess.Popen(command, env=node_environment(base, name, token), stdout=subprocess.DEVNULL,
                            stderr=subprocess.DEVNULL, start_new_session=True)


def stop_node(node: subprocess.Popen, grace: float = 5) -> None:
    """SIGTERM to the node's process group, then SIGKILL after `grace` s: a head that once had a second node
    takes about 30 s to stop on SIGTERM alone, and the test's folders are removed anyway."""
    os.killpg(node.pid, signal.SIGTERM)
    try:
        node.wait(timeout=grace)
    except subprocess.TimeoutExpired:
        os.killpg(node.pid, signal.SIGKILL)
        node.wait(timeout=60)


def node_addresses(address: str, env: dict) -> list[str]:
    """The addresses of the cluster's live nodes, as Ray reports them to a driver."""
    probe = ("import sys, ray; ray.init(address=sys.argv[1], logging_level='ERROR'); "
             "print(*sorted(n['NodeManagerAddress'] for n in ray.nodes() if n['Alive']))")
    proc = subprocess.run([sys.executable, "-c", probe, address], env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    return proc.stdout.split()


@contextmanager
def loopback_head(name: str):
    """A head on 127.0.0.2 (its own HOME, token file and --temp-dir) and a way to join a node from 127.0.0.3;
    yields (address, the driver's environment, the nodes started, add_node) and stops every node it started."""
    port, base = free_port(), Path(f"/tmp/pipeline-{name}-{os.getpid()}")
    token = secrets.token_hex(32)
    nodes = [start_node(base, "head", token, "127.0.0.2", "--head", f"--port={port}", "--include-dashboard=false")]
    address, env = f"127.0.0.2:{port}", node_environment(base, "driver", token)

    def add_node() -> None:
        """Join the second node (once: a later call finds it started)."""
        if len(nodes) == 1:
            nodes.append(start_node(base, "node", token, "127.0.0.3", f"--address={address}"))

    try:
        wait_for(lambda: subprocess.run([RAY, "status", f"--address={address}"], env=env,
                                        capture_output=True).returncode == 0, what="the head node")
        yield address, env, nodes, add_node
    finally:
        for node in reversed(nodes):
            stop_node(node)
        shutil.rmtree(base, ignore_errors=True)


@pytest.fixture(scope="module")
def module_head():
    """The module's one cluster: its head, then its second node once a test joins it (a head costs seconds to
    start and to stop)."""
    with loopback_head("ray") as head:
        yield head


@pytest.fixture(scope="module")
def loopback_cluster(module_head):
    """A head on 127.0.0.2 and a second node joining it from 127.0.0.3, each with its own HOME, token file
    (RAY_AUTH_TOKEN_PATH, as docker/ distributes it) and --temp-dir, so nothing is read from another
    node's files and a node whose token path is wrong cannot join.

    Isolation choice: one loopback address per node rather than a network namespace. Linux routes all of
    127.0.0.0/8 to `lo`, which needs no privileges nor iproute2; a namespace has its own `lo` and would
    reach the head only through a veth pair with non-loopback addresses. Not 127.0.0.1: Ray replaces
    that (and "localhost") by the host's routable address, so the cluster would leave the loopback range.
    Returns the address, the driver's environment (its own HOME and token file too) and the nodes' processes;
    the module's tests share it, after the test that grows it from one node (module_head)."""
    address, env, nodes, add_node = module_head
    add_node()
    wait_for(lambda: "2.0 CPU" in subprocess.run([RAY, "status", f"--address={address}"], env=env,
                                                 capture_output=True, text=True).stdout, what="two nodes")
    assert node_addresses(address, env) == ["127.0.0.2", "127.0.0.3"]
    return address, env, nodes


@pytest.fixture
def one_node_cluster(module_head):
    """The module's head on 127.0.0.2 with one CPU, before its second node joins, and `add_node()` to join it from
    127.0.0.3 (each node as in loopback_cluster).  Returns (address, the driver's environment, add_node)."""
    address, env, nodes, add_node = module_head
    assert len(nodes) == 1, "the second node joined before this test (it runs first in the module)"
    return address, env, add_node


def test_a_fan_out_raises_its_tasks_in_flight_when_a_node_joins(one_node_cluster, tmp_path):
    import json

    address, env, add_node = one_node_cluster
    env = {**env, "PYTHONPATH": os.pathsep.join(filter(None, [str(Path(__file__).parent), str(PROJECT_ROOT),
                                                                 env.get("PYTHONPATH")]))}
    driver = subprocess.Popen([sys.executable, "-m", "growing_cluster", address, str(tmp_path)], env=env,
                              stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    wait_for(lambda: (tmp_path / "started").exists() or driver.poll() is not None, what="the fan-out's first task")
    add_node()
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err
    run = json.loads(out.strip().splitlines()[-1])
    assert run["results"] == [3 * i for i in range(16)]
    round_ = run["round"]
    assert round_["in_flight_limits"] == [2, 4]  # one CPU: 2 in flight; the joined node's CPU: 4
    assert (round_["cluster_cpus"], round_["max_in_flight"], round_["ray_tasks"]) == (2.0, 4, 16)
    assert len(run["nodes"]) == 2


def test_two_node_loopback_cluster_gives_the_embedded_result(loopback_cluster, reference, tmp_path):
    address, env, _ = loopback_cluster
    # tasks of a warm cache take milliseconds: one node could run them all; half a second each spreads them
    command, env = slow_pipeline(tmp_path, 0.5, f"ray.address={address}", env=env)
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    funnel, folder = funnel_of(proc.stdout)
    assert funnel.equals(reference)
    import json

    nodes = json.loads((folder / "manifest.json").read_text())["fan_out"]["nodes"]
    assert len(nodes) == 2  # tasks ran on both nodes


def busy_workers(nodes: list[subprocess.Popen]) -> list[int]:
    """The cluster's Ray workers (below its nodes' processes) running a task of the stage now."""
    return [pid for node in nodes for pid in descendants(node.pid) if cmdline(pid).startswith(b"ray::lower_bound-V")]


def test_killed_worker_is_retried_and_the_artifact_is_identical(loopback_cluster, reference, tmp_path):
    address, env, nodes = loopback_cluster
    cmd, env = slow_pipeline(tmp_path, 0.5, f"ray.address={address}", env=env)
    driver = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    worker = wait_for(lambda: busy_workers(nodes), what="a running task")
    os.kill(worker[0], signal.SIGKILL)
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err
    assert funnel_of(out)[0].equals(reference)


def test_killed_driver_resumes_finished_shards(loopback_cluster, reference, tmp_path, caplog):
    address, env, _ = loopback_cluster
    cmd, env = slow_pipeline(tmp_path, 0.5, f"ray.address={address}", env=env)
    driver = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    shards = tmp_path / "lower_bound"
    wait_for(lambda: len(list(shards.glob(".shards-*/lower_bound-V1/*.shard.npz"))) >= 3, what="three finished shards")
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    assert not list(shards.glob("[!.]*/manifest.json"))  # nothing published
    caplog.set_level(logging.INFO)
    resumed = run_here(tmp_path)
    assert "resumed from an earlier run" in caplog.text
    assert pq.read_table(resumed.file("funnel.parquet")).equals(reference)
    assert not list(shards.glob(".shards-*"))  # cleaned once published


def test_two_identical_runs_at_once_do_not_corrupt_each_other(loopback_cluster, reference, tmp_path):
    address, env, _ = loopback_cluster
    runs = [subprocess.Popen(pipeline_cmd(tmp_path, f"ray.address={address}"), env=env, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True) for _ in range(2)]
    outs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs
    for out, _ in outs:
        assert funnel_of(out)[0].equals(reference)
    assert len([p for p in (tmp_path / "lower_bound").iterdir() if not p.name.startswith(".")]) == 1


def test_a_sweep_runs_its_points_at_once_on_the_cluster(loopback_cluster, tmp_path):
    """tests/test_sweeps.py's eight points (one bad), each a driver on the head, their tasks on both nodes."""
    from test_sweeps import check_summary, overlapped, sweep

    address, env, _ = loopback_cluster
    outputs = tmp_path / "out"
    rows = check_summary(sweep(outputs, f"ray.address={address}", env=env), outputs)
    assert overlapped(rows)
