"""The clock's start on a busy SQLite database (seen in CI: ``database is locked`` while creating
APScheduler's table, and the failed clock then blocked every later clock in the process).

* APScheduler's table is created in one ``BEGIN IMMEDIATE`` transaction: a writer that commits
  while the create waits does not make it fail.
* A clock whose start fails gives up its place: the next clock in the process starts.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

import pytest
from apscheduler.jobstores.sqlalchemy import SQLAlchemyJobStore

from bot.digest.clock import DigestClock
from bot.digest.jobs import create_jobstore_table
from bot.store.db import make_engine


def _writer_holding_the_lock(path: Path, held: threading.Event, hold_s: float) -> threading.Thread:
    """A second connection that takes the write lock, writes a row, keeps the lock ``hold_s`` and commits."""

    def run() -> None:
        conn = sqlite3.connect(path, isolation_level=None, timeout=10)
        conn.execute("BEGIN IMMEDIATE")
        conn.execute("INSERT INTO other (x) VALUES (1)")
        held.set()
        threading.Event().wait(hold_s)
        conn.execute("COMMIT")
        conn.close()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def test_the_jobstore_table_is_created_while_another_writer_commits(tmp_path: Path) -> None:
    path = tmp_path / "busy.db"
    with sqlite3.connect(path) as setup:
        setup.execute("PRAGMA journal_mode = WAL")
        setup.execute("CREATE TABLE other (x INTEGER)")
    engine = make_engine(f"sqlite:///{path}")
    try:
        with engine.connect() as reader:  # the read snapshot the old deferred BEGIN kept
            reader.exec_driver_sql("SELECT count(*) FROM other").all()
        held = threading.Event()
        writer = _writer_holding_the_lock(path, held, hold_s=0.3)
        assert held.wait(10)
        create_jobstore_table(SQLAlchemyJobStore(engine=engine))
        writer.join(10)
        with engine.connect() as conn:
            names = {r[0] for r in conn.exec_driver_sql("SELECT name FROM sqlite_master WHERE type='table'")}
        assert "apscheduler_jobs" in names
    finally:
        engine.dispose()


def test_a_clock_that_fails_to_start_lets_the_next_one_start(sqlite_runtime, monkeypatch) -> None:
    def broken(_jobstore: object) -> None:
        raise RuntimeError("disk went away")

    monkeypatch.setattr("bot.digest.clock.create_jobstore_table", broken)
    first = DigestClock(sqlite_runtime)
    with pytest.raises(RuntimeError, match="disk went away"):
        first.start()
    monkeypatch.undo()
    second = DigestClock(sqlite_runtime)
    second.start()
    try:
        assert second.scheduler is not None and second.scheduler.running
    finally:
        second.shutdown()
