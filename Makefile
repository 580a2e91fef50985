# make run   — create .venv, install, run the main job
# make test  — create .venv, install, run the whole test suite (FFXIVrdle's tests skip without its lists)
# make test-ffxivrdle SHARED_DATA=<dir>  — only the tests that need FFXIVrdle's lists, read from <dir>/ffxivrdle
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python
PYTEST_ARGS ?= --durations=15
SHARED_DATA ?= $(or $(PIPELINE_SHARED_DATA),../shared/data)

.PHONY: install run test test-ffxivrdle bench data-verify data-rebuild data-fetch words clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip uninstall --quiet --yes pipeline 2>/dev/null || true  # the distribution's name until 0.1.0
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.warm

# Compile the numba kernels once, into numba's on-disk cache: a tiny proof and a solved game on Mini Nerdle
# (uint16 codes, as Nerdle) and on 60 Wordle answers (uint8 codes, as Wordle); the time it took is printed.
WARM_DIR ?= /tmp/pipeline-warm-up
$(VENV)/.warm: $(VENV)/.installed
	@echo "compiling the numba kernels once (several minutes); later runs start at once"
	@rm -rf $(WARM_DIR) && mkdir -p $(WARM_DIR) && head -60 data/wordle/original_answers.txt > $(WARM_DIR)/words.txt
	@start=$$(date +%s) && \
	$(PY) -m pipeline experiment=prove_wordle game=mini_nerdle ray.executor=local progress=false \
	    paths.outputs=$(WARM_DIR)/out hydra.run.dir=$(WARM_DIR)/run > /dev/null && \
	$(PY) -m pipeline experiment=prove_wordle game=words game.secrets.path=$(WARM_DIR)/words.txt ray.executor=local \
	    progress=false paths.outputs=$(WARM_DIR)/out hydra.run.dir=$(WARM_DIR)/run > /dev/null && \
	$(PY) -m pipeline solve game=mini_nerdle secret=28/7=4 paths.outputs=$(WARM_DIR)/out > /dev/null && \
	$(PY) -m pipeline solve game=words game.secrets.path=$(WARM_DIR)/words.txt secret=$$(head -1 $(WARM_DIR)/words.txt) \
	    paths.outputs=$(WARM_DIR)/out > /dev/null && \
	echo "kernels compiled in $$(( $$(date +%s) - start )) s"
	@rm -rf $(WARM_DIR)
	touch $@

run: install
	$(PY) -m pipeline experiment=prove_wordle

test: install
	$(PY) -m pytest -q $(PYTEST_ARGS)

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

clean:
	rm -rf $(VENV) outputs/*/ outputs/.runs
