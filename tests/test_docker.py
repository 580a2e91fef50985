"""docker/: the image, the cluster-launcher config and the KubeRay manifests, checked against what
reads them (no Docker engine or Kubernetes runs here): the launcher config against the JSON schema
shipped inside Ray and Ray's own config preparation, the RayJob against the fields and references
the KubeRay controller and the kubelet resolve."""

import json
import os
import re
import shlex
import stat
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest
import yaml
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
DOCKER = ROOT / "docker"
OUTPUTS_IN_IMAGE = "/opt/pipeline/outputs"  # WORKDIR/outputs: the default paths.outputs inside the image

# Fields of KubeRay's ray.io/v1 types (operator >= 1.6) that these manifests may use; kubectl's strict
# validation rejects any other name, and the controller ignores fields it does not know.
RAYJOB_SPEC_FIELDS = {"entrypoint", "submissionMode", "activeDeadlineSeconds", "backoffLimit", "submitterConfig",
                      "shutdownAfterJobFinishes", "ttlSecondsAfterFinished", "rayClusterSpec", "runtimeEnvYAML",
                      "entrypointNumCpus", "submitterPodTemplate", "metadata", "suspend"}
RAYCLUSTER_SPEC_FIELDS = {"rayVersion", "authOptions", "headGroupSpec", "workerGroupSpecs",
                          "enableInTreeAutoscaling", "autoscalerOptions", "headServiceAnnotations", "suspend"}
HEAD_GROUP_FIELDS = {"rayStartParams", "template", "serviceType", "headService", "enableIngress"}
WORKER_GROUP_FIELDS = {"groupName", "replicas", "minReplicas", "maxReplicas", "numOfHosts", "rayStartParams",
                       "template", "scaleStrategy", "suspend"}


def load(name):
    return yaml.safe_load((DOCKER / name).read_text())


def instructions():
    """The Dockerfile as (INSTRUCTION, arguments) pairs, continuation lines joined, comments dropped."""
    text = re.sub(r"\\\n", " ", (DOCKER / "Dockerfile").read_text())
    lines = [line.strip() for line in text.splitlines() if line.strip() and not line.lstrip().startswith("#")]
    return [(line.split(None, 1)[0].upper(), line.split(None, 1)[1]) for line in lines]


def first_index(pairs, predicate):
    return next(i for i, pair in enumerate(pairs) if predicate(*pair))


def pins():
    """docker/constraints.txt as {canonical name: version}."""
    found = {}
    for line in (DOCKER / "constraints.txt").read_text().splitlines():
        if line.strip() and not line.startswith("#"):
            name, version = line.split("==")  # exact pins only
            assert canonicalize_name(name) not in found, name
            found[canonicalize_name(name)] = version.strip()
    return found


def pyproject_dependencies():
    return [Requirement(d) for d in tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["dependencies"]]


def registry_qualified(image: str) -> bool:
    """`host[:port]/path:tag`: the first component names a registry (a dot, a port or localhost)."""
    first, _, rest = image.partition("/")
    return bool(rest) and ("." in first or ":" in first or first == "localhost") and ":" in rest


# --- the image -------------------------------------------------------------------------------------


def build_args() -> dict:
    """{name: default} of the Dockerfile's build arguments that have one."""
    return dict(a.split("=", 1) for op, a in instructions() if op == "ARG" and "=" in a)


def test_image_base_is_a_build_argument_defaulting_to_the_python_the_constraints_were_frozen_from():
    """python:3.11-slim for users with Docker Hub; `make image` hands a Debian base (docker/debian-base.sh) instead.
    Either base's Python gets a venv, so Debian's own Python (which refuses pip installs) works as well."""
    steps = instructions()
    assert steps[:2] == [("ARG", f"BASE=python:{sys.version_info.major}.{sys.version_info.minor}-slim"),
                         ("FROM", "${BASE}")]
    venv = next(a for op, a in steps if op == "RUN" and "-m venv" in a)
    assert venv.startswith('python3 -m venv "$VIRTUAL_ENV"')
    env = " ".join(a for op, a in steps if op == "ENV")
    assert "VIRTUAL_ENV=/opt/venv" in env and "PATH=/opt/venv/bin:$PATH" in env
    base = (DOCKER / "debian-base.sh").read_text()
    assert "--include=python3,python3-venv" in base and "suite=${2:-bookworm}" in base  # bookworm: Python 3.11


def test_pip_gets_the_ca_bundle_only_as_a_build_secret():
    """The two steps that reach PyPI mount the optional secret `cacert` and point pip at it for that step only;
    no COPY or ADD brings a certificate, and no ENV names one."""
    steps = instructions()
    pip_steps = [a for op, a in steps if op == "RUN" and "pip install" in a]
    assert len(pip_steps) == 2
    for args in pip_steps:
        assert args.startswith("--mount=type=secret,id=cacert ")
        assert "if [ -s /run/secrets/cacert ]; then export PIP_CERT=/run/secrets/cacert; fi" in args
    assert not [a for op, a in steps if op in ("COPY", "ADD") and ("cert" in a or ".pem" in a or ".crt" in a)]
    assert "CERT" not in " ".join(a for op, a in steps if op == "ENV")
    make = (ROOT / "Makefile").read_text()
    assert "--secret id=cacert$(comma)src=$(CA_BUNDLE)" in make


def test_image_installs_rsync_and_ssh_for_the_cluster_launcher():
    runs = " ".join(args for op, args in instructions() if op == "RUN")
    install = re.search(r"apt-get install ([^&;]*)", runs).group(1).split()
    assert {"rsync", "openssh-client"} <= set(install)


def test_dependencies_are_installed_from_exact_pins_before_the_code_is_copied():
    steps = instructions()
    deps = first_index(steps, lambda op, a: op == "RUN" and re.search(r"pip install .*-r \S*constraints\.txt", a))
    code_copy = first_index(steps, lambda op, a: op == "COPY" and "constraints.txt" not in a)
    assert deps < code_copy
    copied = [a.split()[0] for op, a in steps[:deps] if op == "COPY"]
    assert copied == ["docker/constraints.txt"]  # nothing else invalidates the dependency layer
    code_install = next(a for op, a in steps[code_copy:] if op == "RUN" and "pip install" in a)
    assert " -e " not in f" {code_install} " and "--no-deps" in code_install and "pip check" in code_install
    for op, args in steps:
        if op == "COPY":
            sources = [a for a in args.split() if not a.startswith("--")][:-1]
            assert sources and all((ROOT / source).exists() for source in sources), args


def test_constraints_pin_every_dependency_within_pyproject_ranges():
    pinned = pins()
    for requirement in pyproject_dependencies():
        version = pinned[canonicalize_name(requirement.name)]
        assert requirement.specifier.contains(version), (requirement, version)
    assert load("rayjob.yaml")["spec"]["rayClusterSpec"]["rayVersion"] == pinned["ray"]


def test_image_runs_as_a_non_root_user_who_owns_a_warm_numba_cache_and_no_anonymous_volume():
    """The cache is compiled once the package is installed and before the user exists (so another RAY_UID rebuilds
    only the user's layer), then handed to the user with HOME."""
    steps = instructions()
    assert not [a for op, a in steps if op == "VOLUME"]
    user_at = first_index(steps, lambda op, a: op == "USER")
    assert steps[user_at][1] not in {"root", "0"}
    env = " ".join(a for op, a in steps if op == "ENV")
    cache = re.search(r"NUMBA_CACHE_DIR=(\S+)", env).group(1)
    home = re.search(r"HOME=(\S+)", env).group(1)  # declared: the launcher reads HOME from the image's Env
    assert cache.startswith(home + "/")
    code = first_index(steps, lambda op, a: op == "RUN" and "pip install" in a and "/tmp/src" in a)
    warm = first_index(steps, lambda op, a: op == "RUN" and "warm-kernels.sh" in a)
    useradd = first_index(steps, lambda op, a: op == "RUN" and "useradd" in a)
    assert code < warm < useradd < user_at
    assert "RAY_UID" not in " ".join(a for _, a in steps[:useradd - 1])  # the uid invalidates nothing above
    assert steps[useradd - 1] == ("ARG", "RAY_UID=1000")
    chown = steps[useradd][1].split("&&")[-1].split()
    assert chown[:3] == ["chown", "-R", f"{steps[user_at][1]}:{steps[user_at][1]}"] and '"$HOME"' in chown
    assert "NUMBA_CPU_NAME=generic" in env  # a cache that holds on every node's CPU


def test_the_warm_up_compiles_both_code_widths_and_leaves_no_ray_state_in_the_image():
    """The image warms with the script `make install` runs, which covers Nerdle's uint16 codes (mini_nerdle) and
    Wordle's uint8 ones (a game of Wordle answers), each with in-process and with Ray tasks (writable and read-only
    arrays: two specialisations of some kernels), and the same step removes the ~/.ray and /tmp/ray its embedded
    Ray leaves, so no auth token or session folder is left in any layer."""
    steps = instructions()
    script = (DOCKER / "warm-kernels.sh").read_text()
    assert "game=mini_nerdle" in script and "game=words" in script
    assert "for executor in local ray; do" in script and 'ray.executor="$executor"' in script
    assert "warm-kernels.sh" in (ROOT / "Makefile").read_text()
    warm = next(a for op, a in steps if op == "RUN" and "warm-kernels.sh" in a)
    assert '"$HOME/.ray"' in warm and "/tmp/ray" in warm
    ray_state = [a for op, a in steps if op in ("COPY", "ADD") and (".ray" in a or "auth_token" in a)]
    assert not ray_state
    workdir = [a for op, a in steps if op == "WORKDIR"][-1]
    assert f"{workdir}/outputs" == OUTPUTS_IN_IMAGE


# --- ray up docker/cluster.yaml --------------------------------------------------------------------


def test_cluster_config_passes_rays_schema_and_config_preparation():
    import jsonschema
    import ray
    from ray.autoscaler._private.util import prepare_config, validate_config

    schema = json.loads((Path(ray.__file__).parent / "autoscaler" / "ray-schema.json").read_text())
    config = load("cluster.yaml")
    jsonschema.validate(config, schema)
    prepared = prepare_config(config)  # what `ray up` does before starting anything
    validate_config(prepared)
    assert prepared["max_workers"] == len(config["provider"]["worker_ips"]) == config["max_workers"]


def test_cluster_image_is_the_pushed_registry_image_of_this_version():
    from pipeline import __version__

    image = load("cluster.yaml")["docker"]["image"]
    assert registry_qualified(image), image
    assert image.rsplit(":", 1)[1] == __version__


def test_cluster_token_is_a_shipped_file_not_a_remotely_expanded_variable():
    config = load("cluster.yaml")
    options = config["docker"]["run_options"]
    assert not [o for o in options if "$" in o]  # expanded by each remote host's shell, not yours
    env = dict(o.split(None, 1)[1].split("=", 1) for o in options if o.startswith("-e "))
    assert env["RAY_AUTH_MODE"] == "token" and "RAY_AUTH_TOKEN" not in env
    assert list(config["file_mounts"].values()) == ["~/.ray/pipeline_auth_token"]  # the file every node gets
    assert config["auth"]["ssh_private_key"]  # the head's autoscaler SSHes to the workers with it


class _RecordingSSH:
    """Stands in for the launcher's SSH runner: records the command it would run on the host."""

    def __init__(self):
        self.commands = []

    def run(self, cmd, **_):
        self.commands.append(cmd)


def _where_the_launcher_runs(command, container):
    """'host' or 'container': what Ray's own DockerCommandRunner does with a setup command."""
    from ray.autoscaler._private.command_runner import DockerCommandRunner

    runner = DockerCommandRunner.__new__(DockerCommandRunner)
    runner.ssh_command_runner, runner.container_name = _RecordingSSH(), container
    runner.docker_cmd, runner.home_dir = "docker", "/home/ray"
    runner.run(command, run_env="auto")
    return "host" if runner.ssh_command_runner.commands == [command] else "container"


def image_user_uid():
    """{name: uid} of the users the Dockerfile creates, build arguments at their defaults."""
    args = build_args()
    adds = [shlex.split(step) for op, a in instructions() if op == "RUN" and "useradd" in a
            for step in a.split("&&") if step.split()[0] == "useradd"]
    uid = {argv[-1]: argv[argv.index("--uid") + 1] for argv in adds}
    return {name: int(args[value[1:]] if value.startswith("$") else value) for name, value in uid.items()}


def test_cluster_token_reaches_ray_owned_by_the_image_user_mode_600_whatever_the_ssh_uid():
    """file_mounts are rsynced to each host as auth.ssh_user and bind-mounted, so the shipped file keeps that
    user's uid inside the container: Ray's token (RAY_AUTH_TOKEN_PATH) must instead be a copy the container owns,
    made as root by a setup command the launcher runs on the host, owned by the image's user (uid 1000), mode 600.
    The shipped file stays readable to that user only through its group (the head's autoscaler ships it on to the
    workers), and its folder on the host is closed to other host users."""
    from ray.autoscaler.sdk import get_docker_host_mount_location

    config = load("cluster.yaml")
    container = config["docker"]["container_name"]
    env = dict(o.split(None, 1)[1].split("=", 1) for o in config["docker"]["run_options"] if o.startswith("-e "))
    token = env["RAY_AUTH_TOKEN_PATH"]
    (shipped,) = config["file_mounts"]
    assert token not in config["file_mounts"] and not token.startswith(shipped + "/")  # not a bind mount
    assert image_user_uid() == {"ray": 1000}
    (command,) = [c for c in config["setup_commands"] if token in c]
    assert _where_the_launcher_runs(command, container) == "host"
    argv = shlex.split(command)
    assert argv[:7] == ["docker", "exec", "-u", "root", container, "sh", "-c"]
    inside = [step.split() for step in argv[7].split("&&")]
    assert inside == [["chgrp", "ray", shipped], ["chmod", "640", shipped],
                      ["install", "-o", "ray", "-g", "ray", "-m", "600", shipped, token]]
    host_folder = str(Path(get_docker_host_mount_location(config["cluster_name"]) + shipped).parent)
    assert argv[8:] == ["&&", "chmod", "700", host_folder]
    assert not re.search(r"[0-9a-f]{32}", command) and "$" not in command  # no token value, nothing expanded


@pytest.mark.skipif(os.geteuid() != 0, reason="chgrp and install -o need root, as the container's root has")
def test_the_token_setup_run_as_root_leaves_the_owners_and_modes_ray_needs(tmp_path):
    """The setup command's steps run for real on a shipped file owned by another uid (an SSH user that is not
    1000) and world-readable: Ray's copy ends up uid 1000 mode 600, the shipped file group 1000 mode 640, the
    host folder 700, and the token's bytes unchanged."""
    config = load("cluster.yaml")
    env = dict(o.split(None, 1)[1].split("=", 1) for o in config["docker"]["run_options"] if o.startswith("-e "))
    token, (shipped,) = env["RAY_AUTH_TOKEN_PATH"], config["file_mounts"]
    (command,) = [c for c in config["setup_commands"] if token in c]
    argv = shlex.split(command)
    host_folder = argv[-1]
    places = {shipped: tmp_path / "mount" / "shipped", token: tmp_path / "container" / "token",
              host_folder: tmp_path / "mount"}
    places[shipped].parent.mkdir()
    places[token].parent.mkdir()
    places[shipped].write_text("secret\n")
    os.chown(places[shipped], 1234, 1234)
    os.chmod(places[shipped], 0o644)
    uid = image_user_uid()["ray"]
    steps = [step.split() for step in argv[7].split("&&")] + [argv[9:]]
    for step in steps:
        subprocess.run([str(places.get(a, str(uid) if a == "ray" else a)) for a in step], check=True)
    mine, shipped_stat = places[token].stat(), places[shipped].stat()
    assert (mine.st_uid, mine.st_gid, stat.S_IMODE(mine.st_mode)) == (uid, uid, 0o600)
    assert (shipped_stat.st_uid, shipped_stat.st_gid, stat.S_IMODE(shipped_stat.st_mode)) == (1234, uid, 0o640)
    assert stat.S_IMODE(places[host_folder].stat().st_mode) == 0o700
    assert places[token].read_text() == "secret\n"


def test_cluster_mounts_outputs_where_the_image_writes_them_and_keeps_the_dashboard_local():
    config = load("cluster.yaml")
    mounts = [o.split(None, 1)[1] for o in config["docker"]["run_options"] if o.startswith("-v ")]
    assert any(m.split(":")[1] == OUTPUTS_IN_IMAGE for m in mounts)
    head = " ".join(config["head_start_ray_commands"])
    assert "--include-dashboard=true" in head and "--autoscaling-config=~/ray_bootstrap_config.yaml" in head
    host = re.search(r"--dashboard-host[= ](\S+)", head)
    assert host is None or host.group(1) in {"127.0.0.1", "localhost"}  # reached through `ray dashboard`


# --- KubeRay RayJob --------------------------------------------------------------------------------


def rayjob_pods():
    """[(group kind, group spec, pod spec)] for the head and every worker group."""
    cluster = load("rayjob.yaml")["spec"]["rayClusterSpec"]
    head = cluster["headGroupSpec"]
    return [("head", head, head["template"]["spec"])] + [
        ("worker", group, group["template"]["spec"]) for group in cluster["workerGroupSpecs"]]


def test_rayjob_uses_only_fields_kuberay_reads():
    job = load("rayjob.yaml")
    assert (job["apiVersion"], job["kind"]) == ("ray.io/v1", "RayJob")
    assert set(job["spec"]) <= RAYJOB_SPEC_FIELDS, set(job["spec"]) - RAYJOB_SPEC_FIELDS
    cluster = job["spec"]["rayClusterSpec"]
    assert set(cluster) <= RAYCLUSTER_SPEC_FIELDS, set(cluster) - RAYCLUSTER_SPEC_FIELDS
    for kind, group, _ in rayjob_pods():
        allowed = HEAD_GROUP_FIELDS if kind == "head" else WORKER_GROUP_FIELDS
        assert set(group) <= allowed, set(group) - allowed
        assert all(isinstance(v, str) for v in group["rayStartParams"].values())  # map[string]string


def test_rayjob_token_auth_reaches_the_submitter_through_auth_options():
    spec = load("rayjob.yaml")["spec"]
    assert spec.get("submissionMode", "K8sJobMode") == "K8sJobMode"
    assert spec["rayClusterSpec"]["authOptions"]["mode"] == "token"
    for _, _, pod in rayjob_pods():
        for container in pod["containers"]:
            names = {e["name"] for e in container.get("env", [])}
            assert not names & {"RAY_AUTH_TOKEN", "RAY_AUTH_MODE"}  # set by the operator from its Secret


def test_rayjob_runs_one_registry_image_of_the_pinned_ray_everywhere():
    images = {c["image"] for _, _, pod in rayjob_pods() for c in pod["containers"]}
    assert images == {load("cluster.yaml")["docker"]["image"]}
    assert registry_qualified(images.pop())
    reader = load("outputs-reader.yaml")["spec"]["containers"][0]["image"]
    assert reader == load("cluster.yaml")["docker"]["image"]


def test_rayjob_outputs_claim_is_shipped_and_mounted_on_the_head_only():
    claims = {d["metadata"]["name"] for d in yaml.safe_load_all((DOCKER / "outputs-pvc.yaml").read_text())
              if d["kind"] == "PersistentVolumeClaim"}
    for kind, _, pod in rayjob_pods():
        volumes = {v["name"]: v for v in pod.get("volumes", [])}
        claimed = [v["persistentVolumeClaim"]["claimName"] for v in volumes.values() if "persistentVolumeClaim" in v]
        assert set(claimed) <= claims
        assert bool(claimed) == (kind == "head")  # ReadWriteOnce: only the driver's pod writes
        for container in pod["containers"]:
            for mount in container.get("volumeMounts", []):
                assert mount["name"] in volumes, mount  # the kubelet refuses undefined volumes
        if kind == "head":
            mounts = {m["mountPath"]: m["name"] for m in pod["containers"][0]["volumeMounts"]}
            assert "persistentVolumeClaim" in volumes[mounts[OUTPUTS_IN_IMAGE]]
            assert pod["securityContext"]["fsGroup"] == pod["securityContext"]["runAsUser"]  # claim writable
    reader = load("outputs-reader.yaml")["spec"]["volumes"][0]["persistentVolumeClaim"]["claimName"]
    assert reader in claims


def test_rayjob_is_bounded_in_time_and_scales_only_when_autoscaling_is_on():
    spec = load("rayjob.yaml")["spec"]
    assert isinstance(spec["activeDeadlineSeconds"], int) and spec["activeDeadlineSeconds"] > 0
    assert isinstance(spec["backoffLimit"], int) and spec["backoffLimit"] >= 0
    autoscaling = spec["rayClusterSpec"].get("enableInTreeAutoscaling", False)
    for group in spec["rayClusterSpec"]["workerGroupSpecs"]:
        low, want, high = group["minReplicas"], group["replicas"], group["maxReplicas"]
        assert low <= want <= high
        assert autoscaling or low == want == high  # a range without the autoscaler is never used


def test_rayjob_entrypoint_is_a_valid_pipeline_command_writing_to_the_claim():
    argv = shlex.split(load("rayjob.yaml")["spec"]["entrypoint"])
    assert argv[:3] == ["python", "-m", "pipeline"]
    from pipeline.compose import compose_config

    cfg = compose_config(argv[3:], check=False)  # raises a one-line PipelineError if any override is invalid
    assert cfg.ray.address == "auto"
    assert cfg.paths.outputs == OUTPUTS_IN_IMAGE

