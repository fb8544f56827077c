# The README's two set-up commands: `make run` (the main job) and `make test` (the whole suite).
# Both build a private virtual environment in .venv from a clean clone; nothing else is needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp

.PHONY: run test bench venv clean

$(STAMP): pyproject.toml setup.py solver/sprouts/_core.c
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(STAMP)

venv: $(STAMP)

# Main job: solve 0*8 on the embedded store in ./sproutsdb-data and print its outcome and nimber.
run: $(STAMP)
	$(BIN)/sproutsdb solve 0*8

# Whole test suite (slow exhaustive runs are marked `slow` and left to bench/).
test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow"

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/store.py

clean:
	rm -rf $(VENV) build *.egg-info
