# make run   — create .venv, install, run the main job
# make test  — create .venv, install, run the whole test suite
PYTHON ?= python3
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: install run test bench data-verify data-rebuild words clean

$(VENV)/.installed: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(PY) -m pip install --quiet --upgrade pip
	$(PY) -m pip install --quiet -e '.[test]'
	touch $@

install: $(VENV)/.installed

run: install
	$(PY) -m pipeline experiment=prove_wordle

test: install
	$(PY) -m pytest -q

bench: install
	for b in benchmarks/*.py; do [ $$b = benchmarks/timing.py ] || $(PY) $$b || exit 1; done

data-verify: install
	$(PY) -m pipeline data verify

data-rebuild: install
	$(PY) -m pipeline data rebuild

# Debian word lists for game=words (wamerican, wbritish, scowl tiers)
words:
	apt-get update -qq && apt-get install -y -qq wamerican wbritish scowl

clean:
	rm -rf $(VENV) outputs/*/ outputs/.runs
