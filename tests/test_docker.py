"""docker/: the image, the cluster-launcher config and the KubeRay manifests, checked against what
reads them: the launcher config against the JSON schema shipped inside Ray and Ray's own config
preparation, the RayJob against the fields and references the KubeRay controller and the kubelet
resolve (no Kubernetes runs here).  Where a Docker engine answers, the tests marked `docker`
(`make test-docker`) build the image with `make image` and run it: its layers, a proof in a
container checked on the host, a token read by another uid, and a two-container Ray cluster."""

import hashlib
import json
import os
import re
import secrets
import shlex
import shutil
import socket
import stat
import subprocess
import sys
import tarfile
import time
import tomllib
from pathlib import Path, PurePosixPath

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
    from pipeline.config.compose import compose_config

    cfg = compose_config(argv[3:])  # raises a one-line PipelineError if any override is invalid
    assert cfg.ray.address == "auto"
    assert cfg.paths.outputs == OUTPUTS_IN_IMAGE


# --- the image built and run: a Docker engine (`make test-docker`; .ci/run starts dockerd) -------------------

IMAGE = "wordle-pipeline:local"  # `make image`'s default tag
OTHER_UID = 1234  # an image user whose uid is not 1000: a host user's, say, who owns the token file
IMAGE_OTHER_UID = f"wordle-pipeline:local-uid{OTHER_UID}"
TOKEN_IN_CONTAINER = "/home/ray/.ray-auth/token"
HOOKS_IN_CONTAINER = "/opt/test-hooks"  # tests/fault_injection.py, bind-mounted: the image ships no tests
RESULT_FILES_VARY = {"manifest.json", "stage.log"}  # what a run records of itself: walls, nodes, its command
RAY = str(Path(sys.executable).with_name("ray"))


def docker(*args, check=True, timeout=600):
    proc = subprocess.run(["docker", *args], capture_output=True, text=True, timeout=timeout)
    assert proc.returncode == 0 or not check, f"docker {' '.join(args[:2])}: {proc.stderr[-3000:]}"
    return proc


@pytest.fixture(scope="session")
def engine():
    """Skips, with the reason, where no Docker engine answers."""
    if shutil.which("docker") is None:
        pytest.skip("no docker command (.ci/run installs Debian's docker.io and starts dockerd)")
    info = subprocess.run(["docker", "info"], capture_output=True, text=True, timeout=120)
    if info.returncode != 0:
        lines = info.stderr.strip().splitlines() or ["no answer"]
        pytest.skip(f"no Docker engine answers `docker info` ({lines[-1]}); .ci/run starts dockerd")


def make_image(tag: str, *settings: str) -> str:
    """`make image` as a user runs it (its Debian base made first when absent); a build whose layers are cached
    takes seconds, so every session builds from the sources it tests."""
    proc = subprocess.run(["make", "image", f"IMAGE={tag}", *settings], cwd=ROOT, capture_output=True, text=True,
                          timeout=3600)
    assert proc.returncode == 0, (proc.stdout + proc.stderr)[-4000:]
    return tag


@pytest.fixture(scope="session")
def image(engine):
    return make_image(IMAGE)


@pytest.fixture(scope="session")
def image_other_uid(image):
    """The same image for a user of uid 1234: only the layers from the user on are rebuilt."""
    return make_image(IMAGE_OTHER_UID, f"RAY_UID={OTHER_UID}")


def image_uid(image: str) -> int:
    return int(docker("run", "--rm", "--network", "none", image, "id", "-u").stdout)


def owned_by(path: Path, uid: int, mode: int) -> Path:
    os.chown(path, uid, uid)
    path.chmod(mode)
    return path


def secret_of_make_image() -> Path | None:
    """The CA bundle `make image` hands the build as its secret, if any (as make resolves it here)."""
    dry = subprocess.run(["make", "-n", "image"], cwd=ROOT, capture_output=True, text=True, check=True).stdout
    found = re.search(r"--secret id=cacert,src=(\S+)", dry)
    return Path(found.group(1)) if found else None


def layer_files(stream, digest_size: int):
    """(path parts, whether a folder, sha256 of a regular file of `digest_size` bytes else None) of every entry
    of one layer's tar stream."""
    with tarfile.open(fileobj=stream, mode="r|") as layer:
        for member in layer:
            digest = None
            if member.isfile() and member.size == digest_size:
                digest = hashlib.sha256(layer.extractfile(member).read()).hexdigest()
            yield [p for p in PurePosixPath(member.name).parts if p != "."], member.isdir(), digest


def image_layers(image: str, digest_size: int) -> list[list]:
    """Every layer of `image` (`docker save`), bottom first, as the list of its files (layer_files): a file
    removed by a later layer is still in the layer that added it, and still in the image."""
    save = subprocess.Popen(["docker", "save", image], stdout=subprocess.PIPE)
    layers, order = {}, []
    with tarfile.open(fileobj=save.stdout, mode="r|") as outer:
        for member in outer:
            if member.name == "manifest.json":
                order = json.load(outer.extractfile(member))[0]["Layers"]
            elif member.isfile() and (member.name.endswith("layer.tar") or member.name.startswith("blobs/")):
                try:
                    layers[member.name] = list(layer_files(outer.extractfile(member), digest_size))
                except tarfile.ReadError:  # an OCI blob that is not a layer (a config, a manifest)
                    continue
    assert save.wait() == 0 and order
    return [layers[name] for name in order]


def is_ray_state_or_secret(parts: list[str], folder: bool) -> bool:
    """~/.ray, /tmp/ray, a token file, or a file under /run/secrets (BuildKit leaves the empty mount point)."""
    return (".ray" in parts or parts[:2] == ["tmp", "ray"] or any("auth_token" in p for p in parts)
            or (parts[:2] == ["run", "secrets"] and not folder))


@pytest.mark.docker
def test_no_layer_of_the_image_holds_ray_state_a_token_or_the_build_secret(image):
    """Every file of every layer (not only the final view: a file a later layer removes is still shipped):
    no ~/.ray, /tmp/ray or token file, nothing under /run/secrets, and above the base no file with the bytes of
    the CA bundle `make image` passed as a secret; the history and the environment name no token or cert."""
    history = docker("history", "--no-trunc", "--format", "{{.CreatedBy}}", image).stdout
    assert "auth_token" not in history and "RAY_AUTH_TOKEN" not in history
    assert not re.search(r"(?<![:0-9a-f])[0-9a-f]{32,}", history)  # no hex secret (a `file:<digest>` is a COPY's)
    env = json.loads(docker("image", "inspect", "--format", "{{json .Config.Env}}", image).stdout)
    assert not [e for e in env if e.startswith(("RAY_AUTH_TOKEN", "PIP_CERT", "REQUESTS_CA_BUNDLE"))]
    secret = secret_of_make_image()
    secret_digest = hashlib.sha256(secret.read_bytes()).hexdigest() if secret else None
    layers = image_layers(image, secret.stat().st_size if secret else -1)
    base = docker("image", "inspect", "--format", '{{index .Config.Labels "org.opencontainers.image.base.name"}}',
                  image).stdout.strip()
    base_layers = int(docker("image", "inspect", "--format", "{{len .RootFS.Layers}}", base).stdout)
    assert 0 < base_layers < len(layers)
    assert not [parts for layer in layers for parts, folder, _ in layer if is_ray_state_or_secret(parts, folder)]
    above_base = layers[base_layers:]
    assert not [parts for layer in above_base for parts, _, digest in layer if digest and digest == secret_digest]
    cache = [parts for layer in layers for parts, _, _ in layer if parts[:4] == ["home", "ray", ".cache", "numba"]]
    assert [p for p in cache if p[-1].endswith(".nbi")] and [p for p in cache if p[-1].endswith(".nbc")]


@pytest.mark.docker
def test_a_proof_runs_inside_as_the_images_user_from_the_warm_cache_and_checks_on_the_host(image, tmp_path):
    """Mini Nerdle's proof (Nerdle's uint16 codes) and one over 60 Wordle answers (uint8 codes) run in a container
    with no network, as the image's user, outputs on a bind mount: they compile nothing (`docker diff`: no file of
    numba's cache added or changed), and the host's checker verifies the certificate.  (The start-up line "N kernels
    not compiled yet" still counts the loaded modules' kernels these proofs never call, hard mode's, Mastermind's,
    guess limits', and valuations.all_values, which only the tests call, so no warm-up can silence it.)"""
    uid = image_uid(image)
    assert uid != 0
    outputs = tmp_path / "outputs"
    outputs.mkdir()
    if os.geteuid() == 0:
        owned_by(outputs, uid, 0o755)
    else:  # a member of the docker group: the folder is opened to the image's user instead
        outputs.chmod(0o777)
    words = tmp_path / "words.txt"
    words.write_text("".join((ROOT / "data/wordle/original_answers.txt").read_text().splitlines(True)[:60]))
    prove = "python -m pipeline experiment=prove_wordle progress=false paths.outputs=/opt/pipeline/outputs"
    script = (f"python --version && {prove} game=mini_nerdle && "
              f"{prove} game=words game.secrets.path=/data/words.txt")
    name = f"pipeline-test-proof-{os.getpid()}"
    try:
        run = docker("run", "--name", name, "--network", "none", "--shm-size=512m",
                     "-v", f"{outputs}:{OUTPUTS_IN_IMAGE}", "-v", f"{words}:/data/words.txt:ro",
                     image, "sh", "-c", script, check=False, timeout=900)
        changed = docker("diff", name).stdout.split("\n")
    finally:
        docker("rm", "-f", name, check=False)
    assert run.returncode == 0, run.stderr[-3000:]
    assert run.stdout.startswith(f"Python {sys.version_info.major}.{sys.version_info.minor}.")  # the pins' Python
    assert not [line for line in changed if "/home/ray/.cache/numba" in line]
    (proof,) = [p for p in (outputs / "prove").iterdir() if not p.name.startswith(".") and
                json.loads((p / "certificate.json").read_text())["game"] == "mini_nerdle"]
    assert proof.stat().st_uid == uid and (proof / "certificate.json").stat().st_uid == uid
    check = subprocess.run([sys.executable, "-m", "pipeline", "verify-certificate", str(proof)], cwd=ROOT,
                           capture_output=True, text=True, timeout=600)
    assert check.returncode == 0, check.stderr[-3000:]
    assert check.stdout.startswith("ok: certificate verified — MinTotal = 544 for mini_nerdle"), check.stdout


@pytest.mark.docker
@pytest.mark.skipif(os.geteuid() != 0, reason="the token file is given another owner (chown needs root)")
def test_a_token_bind_mounted_from_another_uid_is_read_by_the_image_built_with_that_uid(image, image_other_uid,
                                                                                        tmp_path):
    """A mode-600 token owned by uid 1234 on the host, bind-mounted read-only: the image built with RAY_UID=1234
    reads it (its user is that uid), the default image's user (1000) cannot; nothing else differs."""
    (tmp_path / "token").write_text(secrets.token_hex(32))
    token = owned_by(tmp_path / "token", OTHER_UID, 0o600)

    def read(image):
        return docker("run", "--rm", "--network", "none", "-v", f"{token}:{TOKEN_IN_CONTAINER}:ro", image,
                      "sh", "-c", f"id -u && cat {TOKEN_IN_CONTAINER}", check=False)

    mine = read(image_other_uid)
    assert mine.returncode == 0, mine.stderr
    assert mine.stdout.split() == [str(OTHER_UID), token.read_text()]
    default = read(image)
    assert default.returncode != 0 and "Permission denied" in default.stderr
    assert default.stdout.split() == ["1000"]


# --- a two-container Ray cluster ----------------------------------------------------------------------------

SWEEP = ["stage=upper_bound", "game=mini_nerdle", 'stage.openers=["4*7=28"],["28/7=4"]', "stage.breadth=1,2,3",
         "progress=false"]  # six points sharing one feedback matrix
TASK_DELAY_S = 1.0  # every task of the sweep sleeps first (tests/fault_injection.py), so the kill lands mid-task
NODE_PORTS = ("node-manager-port", "object-manager-port", "dashboard-agent-listen-port", "dashboard-agent-grpc-port",
              "runtime-env-agent-port", "metrics-export-port")
HEAD_PORTS = ("port", "dashboard-port", "ray-client-server-port")
WORKER_PORTS_PER_NODE = 32


# Every port a container's Ray opens is chosen here, from ports no other Ray on the machine can take: below the
# kernel's ephemeral range (which hands out every `port=0` bind: an embedded Ray's GCS, agents, dashboard gRPC)
# and above Ray's defaults (GCS 6379, dashboard 8265 and the next 50, client 10001, worker ports 10002-19999).
RESERVED_PORTS = range(20000, 32768)


def ephemeral_ports() -> range:
    low, high = map(int, Path("/proc/sys/net/ipv4/ip_local_port_range").read_text().split())
    return range(low, high + 1)


def free_ports(count: int) -> list[int]:
    """`count` distinct ports of RESERVED_PORTS free on every interface now (the containers share the host's
    network), from a random start so that two test runs at once are unlikely to pick the same ones."""
    assert not set(RESERVED_PORTS) & set(ephemeral_ports()), "the kernel could hand out a chosen port"
    start = secrets.randbelow(len(RESERVED_PORTS))
    found = []
    for port in [*RESERVED_PORTS[start:], *RESERVED_PORTS[:start]]:
        with socket.socket() as probe:
            try:
                probe.bind(("", port))
            except OSError:
                continue
        found.append(port)
        if len(found) == count:
            return found
    raise AssertionError(f"fewer than {count} free ports in {RESERVED_PORTS}")


def node_command(ip: str, ports: list[int], *role: str) -> list[str]:
    """`ray start --block` on `ip` with every port it opens chosen here (none of Ray's fixed defaults, which a
    Ray on the host may hold), one CPU, a small object store."""
    named = [f"--{name}={port}" for name, port in zip(NODE_PORTS, ports)]
    workers = ",".join(map(str, ports[len(NODE_PORTS):]))
    return ["ray", "start", "--block", f"--node-ip-address={ip}", "--num-cpus=1", "--object-store-memory=200000000",
            "--disable-usage-stats", *named, f"--worker-port-list={workers}", *role]


def start_container(image: str, name: str, token: Path, command: list[str], *mounts: str) -> None:
    """A detached container on the host's network (no Docker bridge: every address is the host's loopback) that
    reads the cluster token from a read-only bind mount and can import tests/fault_injection.py."""
    hooks = f"{ROOT / 'tests' / 'fault_injection.py'}:{HOOKS_IN_CONTAINER}/fault_injection.py:ro"
    docker("run", "-d", "--name", name, "--network", "host", "--shm-size=512m", "-e", "RAY_AUTH_MODE=token",
           "-e", f"RAY_AUTH_TOKEN_PATH={TOKEN_IN_CONTAINER}", "-v", f"{token}:{TOKEN_IN_CONTAINER}:ro",
           "-e", f"PYTHONPATH={HOOKS_IN_CONTAINER}", "-v", hooks, *mounts, image, *command)


def wait_for(predicate, timeout: float, what: str):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        found = predicate()
        if found:
            return found
        time.sleep(0.2)
    raise AssertionError(f"timed out after {timeout:.0f}s waiting for {what}")


@pytest.fixture
def container_cluster(image_other_uid, tmp_path):
    """A Ray head container on 127.0.0.4 and a worker container on 127.0.0.5, both `--network host` (no Docker
    bridge: every address is on the host's loopback; not 127.0.0.1 itself, which Ray replaces by the host's
    routable address, as tests/test_cluster.py says), every port from RESERVED_PORTS, with token auth: the token
    a mode-600 file owned by the image user's uid (1234, not 1000), bind-mounted read-only; the head's outputs
    on a bind mount.  Yields the outputs folder, the dashboard's address, the ray CLI's
    environment on the host and the containers' names; removes both containers."""
    (tmp_path / "token").write_text(secrets.token_hex(32))
    token = owned_by(tmp_path / "token", OTHER_UID, 0o600)
    outputs = tmp_path / "cluster-outputs"
    outputs.mkdir()
    owned_by(outputs, OTHER_UID, 0o755)
    per_node = len(NODE_PORTS) + WORKER_PORTS_PER_NODE
    ports = free_ports(len(HEAD_PORTS) + 2 * per_node)
    head_ports, worker_ports = ports[:-per_node], ports[-per_node:]
    gcs, dashboard, client = head_ports[:len(HEAD_PORTS)]
    head_ip, worker_ip = "127.0.0.4", "127.0.0.5"
    names = {role: f"pipeline-test-{role}-{os.getpid()}" for role in ("head", "worker")}
    env = {**{k: v for k, v in os.environ.items() if k not in ("RAY_ADDRESS", "RAY_AUTH_TOKEN")},
           "RAY_AUTH_MODE": "token", "RAY_AUTH_TOKEN_PATH": str(token)}
    try:
        start_container(image_other_uid, names["head"], token, node_command(
            head_ip, head_ports[len(HEAD_PORTS):], "--head", f"--port={gcs}", "--include-dashboard=true",
            f"--dashboard-host={head_ip}", f"--dashboard-port={dashboard}", f"--ray-client-server-port={client}"),
            "-v", f"{outputs}:{OUTPUTS_IN_IMAGE}")
        start_container(image_other_uid, names["worker"], token,
                        node_command(worker_ip, worker_ports, f"--address={head_ip}:{gcs}"))
        wait_for(lambda: "2.0 CPU" in subprocess.run([RAY, "status", f"--address={head_ip}:{gcs}"], env=env,
                                                     capture_output=True, text=True).stdout,
                 timeout=240, what="the worker container to join the head container")
        assert node_addresses(names["head"]) == [head_ip, worker_ip]  # loopback only, as started
        yield outputs, f"http://{head_ip}:{dashboard}", env, names
    finally:
        for name in names.values():
            docker("rm", "-f", name, check=False)


def node_addresses(container: str) -> list[str]:
    """The addresses of the cluster's live nodes, as Ray reports them to a driver in `container`."""
    probe = ("import ray; ray.init(address='auto', logging_level='ERROR'); "
             "print(*sorted(n['NodeManagerAddress'] for n in ray.nodes() if n['Alive']))")
    return docker("exec", container, "python", "-c", probe, timeout=120).stdout.split()


def running_tasks(container: str) -> list[str]:
    """The Ray tasks running in a container now (its worker processes' titles, `ray::<task>`; not idle ones)."""
    top = docker("top", container, "-eo", "pid,args", check=False).stdout.splitlines()[1:]
    titles = [line.split(None, 1)[1] for line in top if len(line.split(None, 1)) == 2]
    return [t for t in titles if t.startswith("ray::") and not t.startswith("ray::IDLE")]


def result_files(outputs: Path) -> dict[str, bytes]:
    """Every published artifact's files (`<stage>/<key>/...`) but what a run records of itself (its manifest and
    log) and hidden ones (caches, claims); the sweep's own folders are no artifact."""
    return {str(f.relative_to(outputs)): f.read_bytes()
            for stage in sorted(outputs.iterdir()) if stage.is_dir() and stage.name != "sweeps"
            for f in sorted(stage.rglob("*"))
            if f.is_file() and f.name not in RESULT_FILES_VARY
            and not any(part.startswith(".") for part in f.relative_to(outputs).parts)}


def sweep_rows(outputs: Path) -> list[dict]:
    (summary,) = (outputs / "sweeps").glob("*/summary.json")
    return json.loads(summary.read_text())["rows"]


@pytest.mark.docker
@pytest.mark.skipif(os.geteuid() != 0, reason="the token and outputs are given the image user's uid (chown: root)")
def test_a_sweep_on_a_two_container_cluster_survives_a_killed_worker_with_the_embedded_artifacts(
        container_cluster, tmp_path):
    """`ray job submit` of a -m sweep to the head container; the worker container is `docker kill`ed while it runs
    one of the sweep's tasks; the job still succeeds, every point ok, and every artifact is the same bytes as the
    same sweep's run embedded on the host."""
    outputs, dashboard, env, names = container_cluster
    command = ["python", "-m", "pipeline", "-m", *SWEEP, "ray.address=auto", f"paths.outputs={OUTPUTS_IN_IMAGE}"]
    runtime_env = {"worker_process_setup_hook": "fault_injection.slow_tasks_from_environment",
                   "env_vars": {"PIPELINE_TEST_TASK_DELAY": str(TASK_DELAY_S)}}
    job = f"pipeline-test-sweep-{os.getpid()}"
    submit = subprocess.Popen([RAY, "job", "submit", f"--address={dashboard}", f"--submission-id={job}",
                               f"--runtime-env-json={json.dumps(runtime_env)}", "--", *command],
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    try:
        tasks = wait_for(lambda: running_tasks(names["worker"]) or submit.poll() is not None, timeout=600,
                         what="a task of the sweep on the worker container")
        assert submit.poll() is None, "the sweep ended before its worker could be killed"
        docker("kill", names["worker"])
        log, _ = submit.communicate(timeout=1200)
    finally:
        if submit.poll() is None:
            submit.kill()
    assert tasks and docker("inspect", "--format", "{{.State.Running}}", names["worker"]).stdout.strip() == "false"
    status = subprocess.run([RAY, "job", "status", f"--address={dashboard}", job], env=env, capture_output=True,
                            text=True, timeout=120)
    assert f"Job '{job}' succeeded" in status.stdout, log[-4000:]
    rows = sweep_rows(outputs)
    assert [row["status"] for row in rows] == ["ok"] * 6, rows
    host = tmp_path / "host-outputs"
    embedded = subprocess.run([sys.executable, "-m", "pipeline", "-m", *SWEEP, "ray.num_cpus=2",
                               f"paths.outputs={host}"], cwd=ROOT, capture_output=True, text=True, timeout=1200)
    assert embedded.returncode == 0, embedded.stderr[-3000:]
    on_cluster, on_host = result_files(outputs), result_files(host)
    assert len({name.split("/")[1] for name in on_host if name.startswith("upper_bound/")}) == 6
    assert sorted(on_cluster) == sorted(on_host)
    assert [name for name in on_host if on_cluster[name] != on_host[name]] == []
