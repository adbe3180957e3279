# Two commands on a fresh machine (Python 3.11+; Node.js/npm optional, for the contract tests):
#   make run    installs into .venv and starts the local console (no Slack workspace needed)
#   make test   installs into .venv (+ Prism from tests/contract/package-lock.json), runs ruff (lint
#               and format --check) and mypy (configured in pyproject.toml), then the tests
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test test-fast lint fmt install install-test bench messages

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

# Stamp files: pip runs again only when pyproject.toml (or the lock of the contract tests) is newer
# than the last successful install; `make install` / `make install-test` force it.
STAMP := $(VENV)/.installed
STAMP_TEST := $(VENV)/.installed-test
NPM_STAMP := tests/contract/node_modules/.installed

install:
	@rm -f $(STAMP)
	@$(MAKE) --no-print-directory $(STAMP)

install-test:
	@rm -f $(STAMP_TEST) $(NPM_STAMP)
	@$(MAKE) --no-print-directory $(STAMP_TEST) $(NPM_STAMP)

$(STAMP): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e .
	@touch $@

$(STAMP_TEST): pyproject.toml | $(PY)
	$(PY) -m pip install -q -e '.[test]'
	@touch $@ $(STAMP)

$(NPM_STAMP): tests/contract/package-lock.json
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tests/contract --no-audit --no-fund --loglevel=error && touch $@; \
	else echo "npm not found: the contract tests against Prism will be skipped"; fi

run: $(STAMP)
	$(VENV)/bin/vllm-path console

lint: $(STAMP_TEST)
	$(VENV)/bin/ruff check bot tests benchmarks
	$(VENV)/bin/ruff format --check bot tests benchmarks
	$(VENV)/bin/mypy

# Fix what the linter and the formatter can fix (then `make lint` says what is left).
fmt: $(STAMP_TEST)
	$(VENV)/bin/ruff check --fix bot tests benchmarks
	$(VENV)/bin/ruff format bot tests benchmarks

# The suite on PYTEST_WORKERS parallel workers (pytest-xdist): most tests wait on subprocesses,
# servers and sleeps, so more workers than cores pays. --dist loadfile keeps each test file on one
# worker: its module fixtures made once, one Prism per Prism file and one Chromium for
# tests/browser. (xdist_group/loadgroup has no effect with pytest 9.2: xdist 3.8 renames
# item._nodeid, which pytest no longer reads.) --no-loadscope-reorder hands files out in collection
# order, where tests/conftest.py puts the longest first (LONGEST_FILES; xdist's default order, by
# number of tests, left the slowest few-test files to start last). PYTEST_WORKERS=0 runs serially.
# ruff first (seconds; a finding stops it); mypy (about 15 s of CPU with no cache, most of a minute
# on a busy machine) beside pytest, its output shown after the tests': either failing fails the target.
# Bytecode is written during the tests even where the environment says not to
# (PYTHONDONTWRITEBYTECODE, set on CI's machines): otherwise every worker rewrites and compiles every
# test module, and every process a test starts (the CLI, serve, the workers: hundreds) compiles the
# app's modules again, ~0.1 s of CPU each (issue 43's make test). The files go to the ignored
# __pycache__ folders.
PYTEST_WORKERS ?= 4
test: export PYTHONDONTWRITEBYTECODE =
test: $(STAMP_TEST) $(NPM_STAMP)
	$(VENV)/bin/ruff check bot tests benchmarks
	$(VENV)/bin/ruff format --check bot tests benchmarks
	@log=$$(mktemp); $(VENV)/bin/mypy >"$$log" 2>&1 & typing=$$!; \
	echo "$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder  (and $(VENV)/bin/mypy beside it)"; \
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder; tests=$$?; \
	wait $$typing; typed=$$?; echo "$(VENV)/bin/mypy (exit $$typed):"; cat "$$log"; rm -f "$$log"; \
	[ $$tests -eq 0 ] && [ $$typed -eq 0 ]

# The quick loop while editing: no lint, no browser, no contract (Prism) and no slow tests, and
# PostgreSQL only when it is there; `make test` before you push.
test-fast: $(STAMP_TEST)
	$(PY) -m pytest -n $(PYTEST_WORKERS) --dist loadfile --no-loadscope-reorder -m "not slow and not contract" --ignore=tests/browser

# The strings' gettext catalogs: compile bot/locale/<lang>/LC_MESSAGES/vllm_path.po to .mo (commit both).
messages: $(STAMP_TEST)
	$(VENV)/bin/pybabel compile -d bot/locale -D vllm_path --statistics

bench: $(STAMP_TEST)
	$(PY) benchmarks/relevance.py
	$(PY) benchmarks/search_speed.py
	$(PY) benchmarks/command_latency.py
	$(PY) benchmarks/fanout.py

# Digest fan-out through the task queue: 1 clock + 4 worker processes on Redis and PostgreSQL,
# 100,000 DMs over 200 workspaces against a rate-limited stand-in Slack (~4 min); prints one JSON
# line last. BENCH_FANOUT_ARGS="--messages 10000" for a quicker run, "--kill" to SIGKILL a worker.
# Needs BENCH_DATABASE_URL (a PostgreSQL server; the run creates and drops its own database there)
# and BENCH_REDIS_URL (a Redis server and DB number); no defaults, so it never touches a test DB.
.PHONY: bench-fanout
bench-fanout: install-test
	$(PY) benchmarks/fanout_queue.py $(BENCH_FANOUT_ARGS)
