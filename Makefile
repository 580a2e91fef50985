# make run   — create .venv, install, run the main job
# make test  — create .venv, install, run the whole test suite (FFXIVrdle's tests skip without its lists); CI runs it
# make check — the fast part of the suite for developers (≤ 3 min on 2 cores): leaves out the tests marked slow,
#              cluster or fresh_install, stops at the first failure
# make test-ffxivrdle SHARED_DATA=<dir>  — only the tests that need FFXIVrdle's lists, read from <dir>/ffxivrdle
# make browser — Debian's headless Chromium (as root), for the catalogue page's browser test
# make image — the Ray node image (docker/Dockerfile), IMAGE=wordle-pipeline:local, from a Debian base it makes
# make test-docker — the tests that build and run the image (a Docker engine; minutes)
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?= --durations=15
# make test / make check run in TEST_WORKERS pytest-xdist processes, each given whole files (0: one process)
TEST_WORKERS ?= 2
SHARED_DATA ?= $(or $(PIPELINE_SHARED_DATA),../shared/data)

.PHONY: install run test check test-install test-ffxivrdle test-docker image bench data-verify data-rebuild data-fetch words \
	browser clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip uninstall --quiet --yes pipeline 2>/dev/null || true  # the distribution's name until 0.1.0
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.warm

# Compile the numba kernels once (Nerdle's uint16 codes and Wordle's uint8), as the image does
$(VENV)/.warm: $(VENV)/.installed
	sh docker/warm-kernels.sh $(PY) data/wordle/original_answers.txt
	touch $@

run: install
	$(PY) -m pipeline experiment=prove_wordle

test: install
	$(PY) -m pytest -q -n $(TEST_WORKERS) --dist loadfile -m "not fresh_install and not docker" $(PYTEST_ARGS)

check: install
	$(PY) -m pytest -q -x -n $(TEST_WORKERS) --dist loadfile -m "not slow and not cluster and not docker and not fresh_install" $(PYTEST_ARGS)

# A bundle checked by a plain pip install in a fresh venv (downloads every dependency: minutes)
test-install: install
	$(PY) -m pytest -q -m fresh_install $(PYTEST_ARGS)

test-ffxivrdle: install
	PIPELINE_SHARED_DATA=$(abspath $(SHARED_DATA)) $(PY) -m pytest -q -m needs_ffxivrdle $(PYTEST_ARGS)

# The image builds and runs for real: a container's proof checked on the host, a two-container Ray cluster that
# loses its worker mid-sweep (tests/test_docker.py; skipped, with the reason, where no Docker engine answers)
test-docker: install
	PIPELINE_REQUIRE_DOCKER=1 $(PY) -m pytest -q -m docker $(PYTEST_ARGS)

# The Ray node image.  BASE_IMAGE is docker/Dockerfile's base: by default one made here from Debian's packages
# by debootstrap (as root, once; cached as DEBIAN_BASE), as no Docker Hub is needed; BASE_IMAGE=python:3.11-slim
# where Docker Hub is reachable.  CA_BUNDLE (default: pip's own, $PIP_CERT or its config's cert, if any) reaches
# pip in the build as a BuildKit secret, never in a layer.  RAY_UID: the image user's uid and gid.
IMAGE ?= wordle-pipeline:local
DEBIAN_BASE ?= pipeline-base:bookworm
BASE_IMAGE ?= $(DEBIAN_BASE)
RAY_UID ?= 1000
PIP_CONFIG_CERT = $(shell $(PYTHON) -m pip config list 2>/dev/null | sed -n "s/^global.cert='\(.*\)'$$/\1/p")
CA_BUNDLE ?= $(or $(PIP_CERT),$(PIP_CONFIG_CERT))
comma := ,
# A client that builds with BuildKit (the Dockerfile's RUN --mount): docker with its buildx plugin, else Debian's
# docker.io client (20.10, BuildKit built in), which a newer client without buildx earlier on PATH may shadow
DOCKER ?= $(shell if docker buildx version > /dev/null 2>&1 || [ ! -x /usr/bin/docker ]; then echo docker; \
    else echo /usr/bin/docker; fi)
image:
	@if [ "$(BASE_IMAGE)" = "$(DEBIAN_BASE)" ] && ! docker image inspect $(DEBIAN_BASE) > /dev/null 2>&1; then \
	    sh docker/debian-base.sh $(DEBIAN_BASE); fi
	DOCKER_BUILDKIT=1 $(DOCKER) build -f docker/Dockerfile --build-arg BASE=$(BASE_IMAGE) --build-arg RAY_UID=$(RAY_UID) \
	    $(if $(CA_BUNDLE),--secret id=cacert$(comma)src=$(CA_BUNDLE)) -t $(IMAGE) .

bench: install
	for b in benchmarks/*.py; do [ $$b = benchmarks/timing.py ] || $(PY) $$b || exit 1; done

data-verify: install
	$(PY) -m pipeline data verify

data-rebuild: install
	$(PY) -m pipeline data rebuild

# FFXIVrdle's lists (not shipped): downloaded from the paper authors' repository into ~/.local/share/pipeline
data-fetch: install
	$(PY) -m pipeline data fetch ffxivrdle

# Debian word lists for game=words (wamerican, wbritish, scowl tiers)
words:
	apt-get update -qq && apt-get install -y -qq wamerican wbritish scowl

# Debian's Chromium and a font, which tests/test_catalogue_page.py drives headless (skipped where it is absent)
CHROMIUM ?= /usr/bin/chromium
browser:
	@if [ -x $(CHROMIUM) ]; then echo "browser: $(CHROMIUM) is installed"; else \
	    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends \
	    chromium fonts-liberation; fi

clean:
	rm -rf $(VENV) outputs/*/ outputs/.runs
