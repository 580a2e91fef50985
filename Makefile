# make run   — create .venv, install, run the main job
# make test  — create .venv, install, run the whole test suite (FFXIVrdle's tests skip without its lists)
# make test-ffxivrdle SHARED_DATA=<dir>  — only the tests that need FFXIVrdle's lists, read from <dir>/ffxivrdle
# make browser — Debian's headless Chromium (as root), for the catalogue page's browser test
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?= --durations=15
SHARED_DATA ?= $(or $(PIPELINE_SHARED_DATA),../shared/data)

.PHONY: install run test test-install test-ffxivrdle bench data-verify data-rebuild data-fetch words browser clean

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
	$(PY) -m pytest -q -m "not fresh_install" $(PYTEST_ARGS)

# A bundle checked by a plain pip install in a fresh venv (downloads every dependency: minutes)
test-install: install
	$(PY) -m pytest -q -m fresh_install $(PYTEST_ARGS)

test-ffxivrdle: install
	PIPELINE_SHARED_DATA=$(abspath $(SHARED_DATA)) $(PY) -m pytest -q -m needs_ffxivrdle $(PYTEST_ARGS)

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
