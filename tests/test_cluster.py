"""Cluster operation on real Ray: a two-node loopback cluster, a killed worker, a killed driver
that resumes, and two identical runs at once. The stage runs in subprocesses, as a user runs it."""

import os
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pyarrow.parquet as pq
import pytest

from pipeline.config import PROJECT_ROOT

STAGE = ["stage=lower_bound", "game=mini_nerdle", "stage.ub=544"]
RAY = str(Path(sys.executable).with_name("ray"))
pytestmark = [pytest.mark.cluster, pytest.mark.slow]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
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


@pytest.fixture(scope="module")
def reference(tmp_path_factory):
    """The funnel of an uninterrupted embedded run."""
    proc = subprocess.run(pipeline_cmd(tmp_path_factory.mktemp("ref")), capture_output=True, text=True, check=True)
    return funnel_of(proc.stdout)[0]


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


@pytest.fixture
def loopback_cluster():
    """`ray start --head` plus a second node joining it, both on 127.0.0.1 but each with its own HOME
    and --temp-dir (nothing read from another node's files); stopped by their pids. Yields the address
    and the driver's environment (its own HOME and token file too)."""
    port, base = free_port(), Path(f"/tmp/pipeline-ray-{os.getpid()}")
    token = secrets.token_hex(32)
    common = ["--num-cpus=1", "--node-ip-address=127.0.0.1", "--block", "--disable-usage-stats"]
    head = subprocess.Popen([RAY, "start", "--head", f"--port={port}", "--include-dashboard=false",
                             f"--temp-dir={base / 'head'}", *common], env=node_environment(base, "head", token),
                            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    nodes = [head]
    try:
        address = f"127.0.0.1:{port}"
        env = node_environment(base, "driver", token)
        wait_for(lambda: subprocess.run([RAY, "status", f"--address={address}"], env=env,
                                        capture_output=True).returncode == 0, what="the head node")
        nodes.append(subprocess.Popen([RAY, "start", f"--address={address}", f"--temp-dir={base / 'node'}", *common],
                                      env=node_environment(base, "node", token), stdout=subprocess.DEVNULL,
                                      stderr=subprocess.DEVNULL, start_new_session=True))
        wait_for(lambda: "2.0 CPU" in subprocess.run([RAY, "status", f"--address={address}"], env=env,
                                                     capture_output=True, text=True).stdout, what="two nodes")
        yield address, env
    finally:
        for node in reversed(nodes):
            os.killpg(node.pid, signal.SIGTERM)
        for node in nodes:
            node.wait(timeout=60)
        shutil.rmtree(base, ignore_errors=True)


def test_two_node_loopback_cluster_gives_the_embedded_result(loopback_cluster, reference, tmp_path):
    address, env = loopback_cluster
    # tasks of a warm cache take milliseconds: one node could run them all; half a second each spreads them
    command, env = slow_pipeline(tmp_path, 0.5, f"ray.address={address}", env=env)
    proc = subprocess.run(command, env=env, capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    funnel, folder = funnel_of(proc.stdout)
    assert funnel.equals(reference)
    import json

    nodes = json.loads((folder / "manifest.json").read_text())["fan_out"]["nodes"]
    assert len(nodes) == 2  # tasks ran on both nodes


def test_killed_worker_is_retried_and_the_artifact_is_identical(reference, tmp_path):
    cmd, env = slow_pipeline(tmp_path, 1.0)
    driver = subprocess.Popen(cmd, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              text=True, start_new_session=True)
    worker = wait_for(lambda: subprocess.run(["pgrep", "-f", "ray::lower_bound-V1"], capture_output=True,
                                             text=True).stdout.split(), what="a running task")
    os.kill(int(worker[0]), signal.SIGKILL)
    out, err = driver.communicate(timeout=600)
    assert driver.returncode == 0, err
    assert funnel_of(out)[0].equals(reference)


def test_killed_driver_resumes_finished_shards(reference, tmp_path):
    cmd, env = slow_pipeline(tmp_path, 0.5)
    driver = subprocess.Popen(cmd, env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                              start_new_session=True)
    shards = tmp_path / "lower_bound"
    wait_for(lambda: len(list(shards.glob(".shards-*/lower_bound-V1/*.shard.npz"))) >= 3, what="three finished shards")
    os.killpg(driver.pid, signal.SIGKILL)
    driver.wait()
    assert not list(shards.glob("[!.]*/manifest.json"))  # nothing published
    proc = subprocess.run(pipeline_cmd(tmp_path), capture_output=True, text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr
    assert "resumed from an earlier run" in proc.stderr
    funnel, folder = funnel_of(proc.stdout)
    assert funnel.equals(reference)
    assert not list(shards.glob(".shards-*"))  # cleaned once published


def test_two_identical_runs_at_once_do_not_corrupt_each_other(reference, tmp_path):
    runs = [subprocess.Popen(pipeline_cmd(tmp_path), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
            for _ in range(2)]
    outs = [run.communicate(timeout=600) for run in runs]
    assert [run.returncode for run in runs] == [0, 0], outs
    for out, _ in outs:
        assert funnel_of(out)[0].equals(reference)
    assert len([p for p in (tmp_path / "lower_bound").iterdir() if not p.name.startswith(".")]) == 1
