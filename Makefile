# Two commands on a fresh machine (Python 3.11+; Node.js/npm optional, for the contract tests):
#   make run    installs into .venv and starts the local console (no Slack workspace needed)
#   make test   installs into .venv (+ Prism from tests/contract/package-lock.json) and runs the tests
VENV ?= .venv
PY := $(VENV)/bin/python

.PHONY: run test install install-test bench

$(PY):
	python3 -m venv $(VENV)
	$(PY) -m pip install -q --upgrade pip

install: $(PY)
	$(PY) -m pip install -q -e .

install-test: $(PY)
	$(PY) -m pip install -q -e '.[test]'
	@if command -v npm >/dev/null 2>&1; then \
		npm ci --prefix tests/contract --no-audit --no-fund --loglevel=error; \
	else echo "npm not found: the contract tests against Prism will be skipped"; fi

run: install
	$(VENV)/bin/vllm-path console

test: install-test
	$(PY) -m pytest

bench: install-test
	$(PY) benchmarks/relevance.py
	$(PY) benchmarks/search_speed.py
	$(PY) benchmarks/command_latency.py
	$(PY) benchmarks/fanout.py

# Digest fan-out through the task queue: 1 clock + 4 worker processes on Redis and PostgreSQL,
# 100,000 DMs over 200 workspaces against a rate-limited stand-in Slack (~4 min); prints one JSON
# line last. BENCH_FANOUT_ARGS="--messages 10000" for a quicker run, "--kill" to SIGKILL a worker.
.PHONY: bench-fanout
bench-fanout: install-test
	$(PY) benchmarks/fanout_queue.py $(BENCH_FANOUT_ARGS)
