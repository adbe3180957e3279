"""A database that cannot be opened is one clear line, not a traceback (QA): a malformed
``DATABASE_URL`` and a PostgreSQL server that does not answer, for the commands that open the
store (``ask``, ``stats``, ``console``), through the real ``vllm-path`` script."""

from __future__ import annotations

import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

EXE = str(Path(sys.executable).with_name("vllm-path"))


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.mark.parametrize("command", [["ask", "spec"], ["stats", "--team", "T1"], ["console"]])
@pytest.mark.parametrize("kind", ["malformed", "no server"])
def test_a_database_that_cannot_be_opened_is_one_line(command: list[str], kind: str, tmp_path: Path) -> None:
    url = "garbage" if kind == "malformed" else f"postgresql://someone:hunter2@127.0.0.1:{_closed_port()}/db"
    env = {**os.environ, "DATABASE_URL": url}
    done = subprocess.run(
        [EXE, *command], env=env, cwd=tmp_path, capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL
    )
    out = done.stdout + done.stderr
    assert done.returncode == 2, out[-2000:]
    assert "Traceback" not in out and "hunter2" not in out
    assert "error: the database could not be opened" in out and "check DATABASE_URL" in out
