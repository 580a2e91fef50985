"""docker/: static checks of the image and cluster manifests (no Docker engine runs here)."""

import re
import shlex
import shutil
import subprocess
import tomllib

import pytest
import yaml
from packaging.requirements import Requirement

from pipeline.config import PROJECT_ROOT

DOCKER = PROJECT_ROOT / "docker"
IMAGE = "pipeline-ray:0.1.0"


def pyproject_requirement(name):
    deps = tomllib.loads((PROJECT_ROOT / "pyproject.toml").read_text())["project"]["dependencies"]
    return next(Requirement(d) for d in deps if Requirement(d).name == name)


def dockerfile():
    return (DOCKER / "Dockerfile").read_text()


def test_image_python_and_pinned_ray_match_pyproject():
    text = dockerfile()
    assert re.search(r"^FROM python:3\.11", text, re.M)
    ray_pin = re.search(r'"ray\[default\]==([\d.]+)"', text).group(1)
    assert pyproject_requirement("ray").specifier.contains(ray_pin)
    rayjob = yaml.safe_load((DOCKER / "rayjob.yaml").read_text())
    assert rayjob["spec"]["rayClusterSpec"]["rayVersion"] == ray_pin
    from pipeline import __version__

    assert IMAGE.endswith(__version__)


def test_image_turns_off_usage_stats_and_uv_propagation():
    text = dockerfile()
    assert "RAY_USAGE_STATS_ENABLED=0" in text and "RAY_ENABLE_UV_RUN_RUNTIME_ENV=0" in text
    for line in text.splitlines():
        if line.startswith("COPY "):
            assert (PROJECT_ROOT / line.split()[1]).exists(), line


def test_cluster_launcher_has_docker_section_shm_and_token_auth():
    cluster = yaml.safe_load((DOCKER / "cluster.yaml").read_text())
    docker = cluster["docker"]
    assert docker["image"] == IMAGE
    options = " ".join(docker["run_options"])
    shm = re.search(r"--shm-size=(\d+)g", options)
    assert shm and int(shm.group(1)) >= 2
    assert "RAY_AUTH_MODE=token" in options and "RAY_AUTH_TOKEN=" in options
    assert "/opt/pipeline/outputs" in options  # artifacts on a volume every node and the driver share


def test_rayjob_sets_auth_on_every_node_and_runs_a_valid_entrypoint():
    job = yaml.safe_load((DOCKER / "rayjob.yaml").read_text())
    spec = job["spec"]["rayClusterSpec"]
    containers = [spec["headGroupSpec"]["template"]["spec"]["containers"][0]] + [
        g["template"]["spec"]["containers"][0] for g in spec["workerGroupSpecs"]]
    for container in containers:
        assert container["image"] == IMAGE
        env = {e["name"]: e for e in container["env"]}
        assert env["RAY_AUTH_MODE"]["value"] == "token" and "RAY_AUTH_TOKEN" in env
        assert any(m["mountPath"] == "/dev/shm" for m in container["volumeMounts"])
    argv = shlex.split(job["spec"]["entrypoint"])
    assert argv[:3] == ["python", "-m", "pipeline"]
    from pipeline.cli import compose

    cfg = compose(argv[3:])  # exits with a one-line error if any override is invalid
    assert cfg.ray.address == "auto"


def _engine_available():
    return shutil.which("docker") is not None and subprocess.run(
        ["docker", "info"], capture_output=True).returncode == 0


@pytest.mark.skipif(not _engine_available(), reason="no Docker engine on this machine (checked statically above)")
def test_image_builds_where_an_engine_exists():
    subprocess.run(["docker", "build", "-f", str(DOCKER / "Dockerfile"), "-t", IMAGE, str(PROJECT_ROOT)], check=True)
