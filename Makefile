# The README's two set-up commands: `make run` (the main job) and `make test` (the whole suite).
# Both build a private virtual environment in .venv from a clean clone; nothing else is needed.

PYTHON ?= python3
VENV   := .venv
BIN    := $(VENV)/bin
STAMP  := $(VENV)/.installed-stamp
RUN_STAMP := $(VENV)/.run-stamp
SOURCES := pyproject.toml setup.py $(wildcard sproutsdb/solver/sprouts/*.c sproutsdb/solver/sprouts/*.h sproutsdb/solver/cram/*.c) proto/sproutsdb/v1/sproutsdb.proto sproutsdb/codegen.py

.PHONY: run test test-each lint bench docs venv clean

# Everything: the package with its test, lint and Ray (cluster) extras.
$(STAMP): $(SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test,lint,cluster]'
	touch $(STAMP) $(RUN_STAMP)

# The package alone, for `make run`: a first run on a clean clone need not wait for the
# extras (Ray, mypy, pytest); `make test` adds them to the same environment later.
$(RUN_STAMP): $(SOURCES)
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e .
	touch $(RUN_STAMP)

venv: $(STAMP)

# Main job: serve the store in ./sproutsdb-data on 127.0.0.1:50051 (seeded on first start
# with the shipped S6 RCT table), print how to query it; Ctrl-C stops it cleanly.
run: $(RUN_STAMP)
	$(BIN)/sproutsdb serve --store sproutsdb-data --listen 127.0.0.1:50051 \
		--seed data/s6.rcttable --log-format text

# Whole test suite (slow exhaustive runs are marked `slow` and left to bench/), on two
# workers (pytest-xdist; a file's tests stay on one worker, so its fixtures are made once).
# Files are handed out in the order tests/conftest.py gives them (the longest first), not
# xdist's default of the most tests first, which left the long few-test files for the end.
# TEST_WORKERS=0 runs it in this one process. The ten slowest tests are listed at the end.
TEST_WORKERS ?= 2
test: $(STAMP)
	$(BIN)/python -m pytest -q -m "not slow" -n $(TEST_WORKERS) --dist loadfile \
		--no-loadscope-reorder --durations=10

# Each test file alone, in its own process (slow; on demand): no test needs another file.
test-each: $(STAMP)
	tests/run_each_file.sh

# Static checks (CI runs them before the tests): the pinned ruff rules of pyproject.toml, the
# formatter's verdict, and mypy --strict on the package as Python imports it (sproutsdb/).
# All three run even when one fails, so one run reports everything.
lint: $(STAMP)
	@status=0; \
	$(BIN)/ruff check . || status=1; \
	$(BIN)/ruff format --check . || status=1; \
	$(BIN)/mypy || status=1; \
	exit $$status

# The API reference, generated from the docstrings into docs/api/ (not committed): the library
# verbs (sproutsdb.ops), the games registry, the client, the solver's searches and the store.
docs: $(STAMP)
	$(BIN)/pip install --quiet pdoc
	$(BIN)/pdoc -o docs/api sproutsdb sproutsdb.ops sproutsdb.games sproutsdb.client \
		sproutsdb.solver sproutsdb.store sproutsdb.formats sproutsdb.trusted_tables
	@echo "API reference: docs/api/index.html"

bench: $(STAMP)
	$(BIN)/python bench/engine.py
	$(BIN)/python bench/store.py

clean:
	rm -rf $(VENV) build *.egg-info
