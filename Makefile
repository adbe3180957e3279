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
