"""Shared helpers of the catalog tests: a copy of the repo's catalog that passes `catalog check`."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from tests.evaldata import REPO

CATALOG = REPO / "catalog"


def catalog_copy(dest: Path) -> Path:
    """A copy of the repo's catalog at ``dest`` (returned), with each changelog date moved to at
    least the first day of its version's month (the data fix that issue 11 lands; a no-op once
    the data carries it), so that the copy passes ``catalog check`` on its own."""
    shutil.copytree(CATALOG, dest)
    changelog = dest / "CHANGELOG.md"

    def fix(m: re.Match[str]) -> str:
        first = f"{m.group(1)}-{m.group(2)}-01"
        return m.group(0) if m.group(3) >= first else m.group(0).replace(m.group(3), first)

    text = re.sub(
        r"^## (\d{4})\.(\d{2})\.\d+ — (\d{4}-\d{2}-\d{2})",
        fix,
        changelog.read_text(encoding="utf-8"),
        flags=re.MULTILINE,
    )
    changelog.write_text(text, encoding="utf-8")
    return dest


def run_cli(*args: str) -> subprocess.CompletedProcess[str]:
    """Run ``vllm-path ARGS`` in a subprocess (the real entry point), capturing its output."""
    return subprocess.run(
        [sys.executable, "-m", "bot.cli.main", *args],
        check=False,
        capture_output=True,
        text=True,
        cwd=REPO,
        timeout=300,
    )
