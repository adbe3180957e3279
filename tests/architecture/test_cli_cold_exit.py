"""What a cold ``vllm-path search`` / ``ask`` no longer does (issue 43: ``search nixl`` <= 2x and
``ask speculative`` <= 4x the CPU of ``import slack_bolt``, ``benchmarks/cli_cold.py``):

- build the catalog models' validators: the models defer them to their first validation
  (``defer_build``), and a process that reads the kept catalog (``bot.domain.search.cache``)
  validates none; a cold search so never imports pydantic's plugin loader either (it scans every
  installed package's entry points);
- walk its whole heap in the interpreter's last collection: a brief command (``bot.cli.main.BRIEF``)
  ends with its objects frozen (``gc.freeze``); a long-lived one (the collector back on) does not.

Each check runs the ``vllm-path`` entry point (:func:`bot.cli.run`) in a fresh interpreter, whose
first ``atexit`` hook (so the last to run, after ``run`` returned) reports what the process holds."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from bot.store import migrate
from tests.waits import PATIENCE_S

REPO = Path(__file__).resolve().parents[2]

_RUN = """
import atexit, gc, json, sys

def _report():
    models = sys.modules.get("bot.domain.catalog.models")
    prompts = sys.modules.get("bot.domain.catalog.prompts")
    classes = [getattr(models, n) for n in dir(models)] + [getattr(prompts, "Prompt", None)] if models else []
    built = sorted(set(c.__name__ for c in classes if getattr(c, "__pydantic_complete__", False)))
    report = {{
        "built": built,
        "plugin_loader": "pydantic.plugin._loader" in sys.modules,
        "frozen": gc.get_freeze_count(),
        "gc_enabled": gc.isenabled(),
    }}
    print("REPORT " + json.dumps(report), file=sys.stderr)

atexit.register(_report)
sys.argv = ["vllm-path", *{argv!r}]
from bot.cli import run
run()
"""


def _run(argv: list[str], tmp_path: Path) -> tuple[subprocess.CompletedProcess[str], dict[str, Any]]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("SLACK_", "DATABASE_URL", "REDIS_URL"))}
    env |= {"DATABASE_URL": f"sqlite:///{tmp_path / 'vp.db'}", "HOME": str(tmp_path), "PYTHONPATH": str(REPO)}
    env.pop("CATALOG_DIR", None)
    done = subprocess.run(
        [sys.executable, "-c", _RUN.format(argv=argv)],
        cwd=tmp_path,
        env=env,
        capture_output=True,
        text=True,
        timeout=PATIENCE_S,
    )
    lines = [line for line in done.stderr.splitlines() if line.startswith("REPORT ")]
    assert lines, done.stderr[-2000:]
    return done, json.loads(lines[-1].removeprefix("REPORT "))


def test_a_cold_search_builds_no_catalog_validator_and_ends_frozen(tmp_path: Path) -> None:
    _run(["search", "nixl"], tmp_path)  # keeps the catalog and index (unless a run did already)
    done, report = _run(["search", "nixl"], tmp_path)
    assert done.returncode == 0 and done.stdout.startswith("1. "), done.stderr[-2000:]
    assert report["built"] == []
    assert report["plugin_loader"] is False
    assert report["gc_enabled"] is False and report["frozen"] > 10_000


def test_a_cold_ask_builds_no_catalog_validator_and_ends_frozen(tmp_path: Path) -> None:
    migrate(f"sqlite:///{tmp_path / 'vp.db'}")  # as a reader's second run finds it
    _run(["ask", "speculative"], tmp_path)
    done, report = _run(["ask", "speculative"], tmp_path)
    assert done.returncode == 0 and "Speculative decoding" in done.stdout, done.stderr[-2000:]
    assert report["built"] == []
    assert report["gc_enabled"] is False and report["frozen"] > 10_000


def test_a_failed_brief_command_keeps_its_exit_code(tmp_path: Path) -> None:
    done, report = _run(["search", "nixl", "--limit", "0"], tmp_path)  # a usage error
    assert done.returncode == 2 and "--limit" in done.stderr
    assert report["frozen"] > 0


def test_a_long_lived_command_ends_as_before(tmp_path: Path) -> None:
    done, report = _run(["catalog", "check"], tmp_path)  # not brief: the collector back on
    assert done.returncode == 0, done.stderr[-2000:]
    assert report["gc_enabled"] is True and report["frozen"] == 0
