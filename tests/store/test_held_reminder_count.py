"""A held *Mark read* click's hold counts the reminders its write cancelled (issue 43): on SQLite the
ticket says how many pending reminders of each post it cancelled, and inside ``written_before`` the
use case can ask the store (``cancelled_with_hold``) instead of reading the reminders twice; on
PostgreSQL nothing is counted and the use case reads them as before."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.store import Store
from bot.store.held_batch import MarkRead
from tests.waits import PATIENCE_S


def _counts_here(store: Store) -> bool:
    return store.engine.dialect.name == "sqlite"


def test_a_holds_mark_read_counts_the_reminders_it_cancelled(store: Store) -> None:
    due = datetime.now(UTC) + timedelta(days=3)
    store.add_reminder("T1", "U1", "p", due, "UTC")
    store.add_reminder("T1", "U1", "other", due, "UTC")
    ticket = store.held_batch().hold_later("T1", "b", "text/plain", MarkRead("T1", "U1", ("p", "q")))
    assert ticket.marked(PATIENCE_S) == {"p", "q"}
    counted = ticket.cancelled(PATIENCE_S)
    if _counts_here(store):
        assert counted == {"p": 1, "q": 0}
    else:
        assert counted is None
    assert [r.post_id for r in store.reminders("T1", "U1")] == ["other"]  # p's cancelled, the other kept


def test_a_hold_without_a_change_counts_nothing(store: Store) -> None:
    ticket = store.held_batch().hold_later("T1", "b", "text/plain")
    ticket.wait(PATIENCE_S)
    assert ticket.cancelled(PATIENCE_S) is None


def test_the_count_is_told_inside_written_before_for_that_person_only(store: Store) -> None:
    store.add_reminder("T1", "U1", "p", datetime.now(UTC) + timedelta(days=1), "UTC")
    ticket = store.held_batch().hold_later("T1", "b", "text/plain", MarkRead("T1", "U1", ("p",)))
    marked, counted = ticket.marked(PATIENCE_S), ticket.cancelled(PATIENCE_S)
    assert store.cancelled_with_hold("T1", "U1", "p") is None  # outside any click's scope
    with store.written_before("T1", "U1", marked, counted):
        expected = 1 if _counts_here(store) else None
        assert store.cancelled_with_hold("T1", "U1", "p") == expected
        assert store.cancelled_with_hold("T1", "U2", "p") is None  # someone else
        assert store.cancelled_with_hold("T1", "U1", "unmarked") is None  # a post the hold did not write
        assert store.mark_read("T1", "U1", ["p"]) == {"p"}  # the use case's own mark read, skipped
        assert store.cancelled_with_hold("T1", "U1", "p") == expected  # still known after it
    assert store.cancelled_with_hold("T1", "U1", "p") is None


def test_nothing_is_told_when_the_hold_marked_nothing(store: Store) -> None:
    store.mark_read("T1", "U1", ["p"])
    ticket = store.held_batch().hold_later("T1", "b", "text/plain", MarkRead("T1", "U1", ("p",)))
    marked = ticket.marked(PATIENCE_S)
    assert marked == frozenset()
    with store.written_before("T1", "U1", marked, ticket.cancelled(PATIENCE_S)):
        assert store.cancelled_with_hold("T1", "U1", "p") is None  # not a held write: look them up
