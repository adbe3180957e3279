"""A command the console or ``ask`` answered is released before the process ends: a later ``serve``
on the same database must not answer it again (a new user's QA: every ``ask`` and each console
session's last command stayed held, and ``serve`` replayed them)."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def _held(db: Path) -> int:
    with sqlite3.connect(db) as conn:
        return int(conn.execute("SELECT count(*) FROM held_requests").fetchone()[0])


def _env(db: Path) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith("SLACK_")}
    env["DATABASE_URL"] = f"sqlite:///{db}"
    return env


def test_ask_and_the_console_leave_nothing_held(tmp_path: Path) -> None:
    db = tmp_path / "reading.db"
    cli = [sys.executable, "-m", "bot.cli.main"]
    for text in ("follow pd", "read p-eagle"):  # commands answered after the ack: held, then released
        done = subprocess.run([*cli, "ask", text], cwd=REPO, env=_env(db), capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
    assert _held(db) == 0
    script = "follow spec\nunfollow spec\nfollow spec\n"
    done = subprocess.run(
        [*cli, "console"], cwd=REPO, env=_env(db), input=script, capture_output=True, text=True, timeout=120
    )
    assert done.returncode == 0, done.stderr
    assert "spec" in done.stdout.lower() or "speculative" in done.stdout.lower()
    assert _held(db) == 0
