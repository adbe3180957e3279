"""The held-request batcher's own SQLite connection (:meth:`bot.store.held_batch.HeldBatcher._flush_kept`,
issue 43): on an SQLite file its batches run on one connection kept for its life (no pool check-out
per batch), a commit by another connection before a batch still drops the kept reader states, and
a broken connection is replaced (the batch that met it written on its own)."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.store import Store
from bot.store.held_batch import MarkRead

EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "held.db"


@pytest.fixture
def file_store(path: Path) -> Iterator[Store]:
    with Store.from_url(f"sqlite:///{path}") as s:
        yield s


def test_batches_on_an_sqlite_file_check_out_no_pooled_connection(file_store: Store, path: Path) -> None:
    batcher = file_store.held_batch()
    batcher.hold("T1", "first", "text/plain")  # its connection opened
    checkouts: list[Any] = []
    event.listen(file_store.engine.pool, "checkout", lambda *args: checkouts.append(args))
    ids = [batcher.hold("T1", f"body {i}", "text/plain") for i in range(5)]
    marked = batcher.hold_later("T1", "click", "text/plain", MarkRead("T1", "U1", ("p1",))).marked()
    for request_id in ids:
        batcher.release(request_id)
    assert checkouts == []
    assert marked == {"p1"}
    with sqlite3.connect(path) as other:  # committed: another connection sees them
        bodies = {row[0] for row in other.execute("SELECT body FROM held_requests")}
        read = other.execute("SELECT post_id FROM reading_progress WHERE user_id = 'U1'").fetchall()
    assert {"first", "click", *(f"body {i}" for i in range(5))} <= bodies
    assert read == [("p1",)]


def test_a_commit_by_another_connection_before_a_batch_is_not_taken_for_the_batchs(
    file_store: Store, path: Path
) -> None:
    store = file_store
    store.mark_read("T1", "U1", ["a"])
    assert store.reader_state("T1", "U1").read == {"a"}  # kept
    with sqlite3.connect(path) as other:  # not through this process's stores
        other.execute(
            "INSERT INTO reading_progress (team_id, user_id, post_id, read_at) VALUES ('T1', 'U1', 'b', ?)",
            (datetime(2026, 12, 1).isoformat(sep=" "),),
        )
    store.held_batch().hold("T1", "right after", "text/plain")  # its commit's looks come first
    assert store.reader_state("T1", "U1").read == {"a", "b"}


def test_a_broken_kept_connection_is_replaced(file_store: Store) -> None:
    batcher = file_store.held_batch()
    batcher.hold("T1", "first", "text/plain")
    batcher._sqlite.close()  # as a connection the database dropped
    second = batcher.hold("T1", "second", "text/plain")  # its batch failed, then written on its own
    third = batcher.hold("T1", "third", "text/plain")
    assert [(i, b) for i, b, _c in file_store.held_requests(*EVER)][-2:] == [(second, "second"), (third, "third")]
    assert batcher._sqlite is not None
