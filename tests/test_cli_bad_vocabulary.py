"""(QA) A malformed ``answers.yaml`` or ``vocabulary.yaml`` printed a Python traceback from ``ask``,
``search`` and ``console``; every command now says what is wrong in one line per problem, exit 1.
Run as a person would: the installed ``vllm-path`` script in a subprocess."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from bot.locations import DEFAULT_CATALOG_DIR

SCRIPT = Path(sys.executable).with_name("vllm-path")


@pytest.mark.parametrize("args", [["ask", "spec"], ["search", "spec"]])
def test_a_malformed_answers_file_is_one_error_line_not_a_traceback(tmp_path: Path, args: list[str]) -> None:
    catalog = tmp_path / "catalog"
    shutil.copytree(DEFAULT_CATALOG_DIR, catalog, ignore=shutil.ignore_patterns("__pycache__", ".*"))
    with (catalog / "answers.yaml").open("a", encoding="utf-8") as f:
        f.write("  bad: [\n")
    env = {**os.environ, "CATALOG_DIR": str(catalog), "DATABASE_URL": f"sqlite:///{tmp_path / 'db.sqlite'}"}
    done = subprocess.run([str(SCRIPT), *args], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stderr[-2000:]
    assert "Traceback" not in done.stderr
    assert done.stderr.startswith("error: answers.yaml: not valid YAML at line")
