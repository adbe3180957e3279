"""A held click's change written with its hold (:class:`bot.store.held_batch.MarkRead`), on SQLite
and PostgreSQL: committed in the hold's transaction, what it marked told by the ticket, several
people's in one batch (each one's kept reader state carried over on an SQLite file), the use case's
own write then skipped (``written_before``); a release goes with the next hold's batch."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event

from bot.store import Store
from bot.store.batching import Batching
from bot.store.held_batch import MarkRead
from tests.waits import PATIENCE_S, wait_until

EVER = (datetime(2000, 1, 1, tzinfo=UTC), datetime(2100, 1, 1, tzinfo=UTC))


def _gated(batcher: Any) -> threading.Event:
    """Hold ``batcher``'s next batches until the returned gate is set (the calls meanwhile queue)."""
    gate = threading.Event()
    flush = batcher._flush
    batcher._flush = lambda batch: (gate.wait(PATIENCE_S), flush(batch))
    return gate


def test_a_holds_mark_read_is_committed_with_it_and_says_what_it_marked(store: Store, store_url: str) -> None:
    store.mark_read("T1", "U1", ["old"])
    ticket = store.held_batch().hold_later("T1", "body", "text/plain", MarkRead("T1", "U1", ("old", "new")))
    assert ticket.marked(timeout=PATIENCE_S) == {"new"}  # "old" was read before
    with Store.from_url(store_url, migrate=False) as other:  # another connection sees both, committed
        assert other.read_posts("T1", "U1") == {"old", "new"}
        assert [body for _i, body, _c in other.held_requests(*EVER)] == ["body"]


def test_a_batch_writes_each_persons_reads_and_answers_each_ticket(store: Store) -> None:
    batcher = store.held_batch()
    store.mark_read("T1", "U2", ["b"])
    gate = _gated(batcher)
    first = batcher.hold_later("T1", "first", "text/plain")  # its batch is being written while the rest queue
    wait_until(lambda: not batcher._pending, what="the first batch taken")
    tickets = [
        batcher.hold_later("T1", "a", "text/plain", MarkRead("T1", "U1", ("a",))),
        batcher.hold_later("T1", "b", "text/plain", MarkRead("T1", "U2", ("b",))),
        batcher.hold_later("T1", "c", "text/plain", MarkRead("T1", "U1", ("c",))),
    ]
    batches = batcher.batches
    gate.set()
    first.wait(PATIENCE_S)
    assert [t.marked(PATIENCE_S) for t in tickets] == [{"a"}, set(), {"c"}]
    assert batcher.batches == batches + 2  # the three in one transaction
    assert store.read_posts("T1", "U1") == {"a", "c"} and store.read_posts("T1", "U2") == {"b"}


def test_a_failed_hold_fails_its_mark_read_too(store: Store) -> None:
    batcher = store.held_batch()
    body: Any = None  # NOT NULL: the hold's insert fails
    ticket = batcher.hold_later("T1", body, "text/plain", MarkRead("T1", "U1", ("p",)))
    with pytest.raises(Exception):  # noqa: B017  # whatever the database says
        ticket.marked(PATIENCE_S)
    assert store.read_posts("T1", "U1") == set()  # rolled back with the hold
    assert store.held_requests(*EVER) == []


def test_the_use_case_answers_from_what_the_hold_wrote_without_writing_again(store: Store) -> None:
    ticket = store.held_batch().hold_later("T1", "b", "text/plain", MarkRead("T1", "U1", ("p",)))
    marked = ticket.marked(PATIENCE_S)
    writes: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda _c, _cur, sql, *_: writes.append(sql))
    with store.written_before("T1", "U1", marked):
        assert "p" not in store.reader_state("T1", "U1").read  # as before the click
        assert store.reader_state("T1", "U2").read == frozenset()  # another person's: untouched
        assert store.mark_read("T1", "U1", ["p"]) == {"p"}  # as if written now
        assert "p" in store.reader_state("T1", "U1").read  # from then on, read
    assert not [sql for sql in writes if "reading_progress" in sql and sql.lstrip().upper().startswith("INSERT")]
    assert store.mark_read("T1", "U1", ["p"]) == set()  # outside: a write as always, nothing new


def test_a_release_goes_with_the_next_holds_batch(store: Store, store_url: str) -> None:
    batcher = store.held_batch()
    gone = batcher.hold("T1", "gone", "text/plain")
    batches = batcher.batches
    batcher.release(gone)  # no batch of its own now
    time.sleep(0.05)
    assert batcher.batches == batches and [i for i, _b, _c in store.held_requests(*EVER)] == [gone]
    kept = batcher.hold("T1", "kept", "text/plain")
    assert batcher.batches == batches + 1  # one transaction: the hold and the release
    assert [i for i, _b, _c in store.held_requests(*EVER)] == [kept]


def test_a_release_alone_is_written_within_twice_the_linger(store: Store) -> None:
    batcher = store.held_batch()
    gone = batcher.hold("T1", "gone", "text/plain")
    released = time.monotonic()
    batcher.release(gone)
    wait_until(lambda: store.held_requests(*EVER) == [], what="the release written on its own", every=0.01)
    assert time.monotonic() - released < 2 * Batching.LINGER_S + 1.0


@pytest.fixture
def file_store(tmp_path: Path) -> Iterator[Store]:
    with Store.from_url(f"sqlite:///{tmp_path / 'kept.db'}") as s:
        yield s


def test_on_an_sqlite_file_a_batch_carries_each_readers_kept_state_over(file_store: Store) -> None:
    store = file_store
    store.mark_read("T1", "U1", ["a"])
    states = {user: store.reader_state("T1", user) for user in ("U1", "U2", "U3")}
    statements: list[str] = []
    event.listen(
        store.engine,
        "before_cursor_execute",
        lambda _c, _cur, sql, *_: statements.append(sql) if "json_group_array" in sql else None,
    )
    batcher = store.held_batch()
    gate = _gated(batcher)
    first = batcher.hold_later("T1", "first", "text/plain")
    wait_until(lambda: not batcher._pending, what="the first batch taken")
    tickets = [
        batcher.hold_later("T1", "1", "text/plain", MarkRead("T1", "U1", ("b",))),
        batcher.hold_later("T1", "2", "text/plain", MarkRead("T1", "U2", ("c",))),
        batcher.hold_later("T1", "3", "text/plain", MarkRead("T1", "U1", ("d",))),
    ]
    gate.set()
    first.wait(PATIENCE_S)
    for ticket in tickets:
        ticket.marked(PATIENCE_S)
    assert store.reader_state("T1", "U1").read == {"a", "b", "d"}  # both of U1's, carried over in order
    assert store.reader_state("T1", "U2").read == {"c"}
    assert store.reader_state("T1", "U3") is states["U3"]  # kept: no one else's state dropped
    assert statements == []  # every state above from the cache
