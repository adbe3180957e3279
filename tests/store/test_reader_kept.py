"""Kept reader states (:class:`bot.store.reader.ReaderCache`, SQLite files only) survive the commits
that cannot change them — a held request's hold and release, a person's own *Mark read* (carried
over) — and never survive one by another connection, even when it lands right after ours."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from contextlib import AbstractContextManager, contextmanager
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import Connection, event, insert

from bot.store import Store, db
from bot.store.models import HeldRequest, ReadingProgress
from bot.store.reader import ReaderCache


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "kept.db"


@pytest.fixture
def store(path: Path) -> Iterator[Store]:
    with Store.from_url(f"sqlite:///{path}") as s:
        yield s


def reads(store: Store) -> list[str]:
    """The reader statements ``store``'s engine runs from now on (appended as they run)."""
    seen: list[str] = []

    def executing(_conn: Any, _cursor: Any, statement: str, *_: Any) -> None:
        if "json_group_array" in statement:
            seen.append(statement)

    event.listen(store.engine, "before_cursor_execute", executing)
    return seen


def outside_read(path: Path, user: str, post: str) -> None:
    """Another program marks ``post`` read for ``user`` in ``T1`` (plain sqlite3, not SQLAlchemy)."""
    other = sqlite3.connect(path)
    with other:
        other.execute(
            "INSERT INTO reading_progress (team_id, user_id, post_id, read_at) VALUES ('T1', ?, ?, ?)",
            (user, post, "2026-12-06 10:00:00.000000"),
        )
    other.close()


def test_a_held_requests_hold_and_release_keep_every_state(store: Store) -> None:
    store.mark_read("T1", "U1", ["a"])
    first, second = store.reader_state("T1", "U1"), store.reader_state("T1", "U2")
    statements = reads(store)
    batcher = store.held_batch()
    held = batcher.hold("T1", "payload=%7B%7D", "application/x-www-form-urlencoded")
    batcher.release(held)
    since, until = datetime.now(UTC) - timedelta(days=1), datetime.now(UTC) + timedelta(days=1)
    deadline = time.monotonic() + 5
    while store.held_requests(since, until) and time.monotonic() < deadline:  # the release is batched
        time.sleep(0.01)
    assert store.held_requests(since, until) == []
    time.sleep(ReaderCache.CHECK_EVERY_S * 1.5)  # the watch's look is due: it sees the commits, ours
    assert store.reader_state("T1", "U1") is first
    assert store.reader_state("T1", "U2") is second
    assert statements == []


def test_another_programs_read_after_a_hold_shows_within_the_check_interval(store: Store, path: Path) -> None:
    assert store.reader_state("T1", "U1").read == frozenset()
    store.held_batch().hold("T1", "payload=%7B%7D", "application/x-www-form-urlencoded")
    outside_read(path, "U1", "b")
    store.held_batch().hold("T1", "payload=%7B%7D", "application/x-www-form-urlencoded")
    time.sleep(ReaderCache.CHECK_EVERY_S * 1.5)
    assert store.reader_state("T1", "U1").read == {"b"}


def racing(cache: ReaderCache, path: Path, **bracket: Any) -> Any:
    """An ``around_commit`` for :func:`bot.store.db.write_connection`: :meth:`ReaderCache.bracket`
    with another program's commit landing right after ours, before the bracket looks again."""

    @contextmanager
    def around(conn: Connection) -> Iterator[None]:
        with cache.bracket(conn, **bracket):
            yield  # our commit
            outside_read(path, "U1", "late")

    def made(conn: Connection) -> AbstractContextManager[None]:
        return around(conn)

    return made


def test_a_commit_landing_right_after_a_held_requests_is_seen_at_once(store: Store, path: Path) -> None:
    assert store.reader_state("T1", "U1").read == frozenset()
    cache = store._cache()
    assert cache is not None
    with db.write_connection(store.engine, racing(cache, path, elsewhere=True)) as conn:
        conn.execute(insert(HeldRequest).values(tenant_id="T1", body="x", content_type="y", received_at=store.now()))
    # no wait: the watch's value is taken as seen after the bracket, so a later look would miss it
    assert store.reader_state("T1", "U1").read == {"late"}


def test_a_commit_landing_right_after_a_carried_write_is_seen_at_once(store: Store, path: Path) -> None:
    store.mark_read("T1", "U1", ["a"])
    assert store.reader_state("T1", "U1").read == {"a"}
    cache = store._cache()
    assert cache is not None
    carry = (("T1", "U1"), lambda state: replace(state, read=state.read | {"b"}))
    with db.write_connection(store.engine, racing(cache, path, carry=carry)) as conn:
        row = dict(team_id="T1", user_id="U1", post_id="b", read_at=store.now())
        conn.execute(insert(ReadingProgress).values(**row))
    assert store.reader_state("T1", "U1").read == {"a", "b", "late"}


def test_a_persons_own_mark_read_and_unread_are_carried_over(store: Store, path: Path) -> None:
    store.mark_read("T1", "U1", ["a"])
    store.follow("T1", "U1", "spec")
    assert store.reader_state("T1", "U1").read == {"a"}
    other = store.reader_state("T1", "U2")
    statements = reads(store)
    store.mark_read("T1", "U1", ["b", "a"])
    carried = store.reader_state("T1", "U1")
    assert (carried.read, carried.follows) == ({"a", "b"}, ("spec",))
    store.mark_unread("T1", "U1", ["a", "zzz"])
    assert store.reader_state("T1", "U1").read == {"b"}
    assert store.reader_state("T1", "U2") is other  # nobody else's state changed: kept
    assert statements == []  # carried over, not read again
    store.set_lang("T1", "U3", "zh")  # not carried: every state read again
    assert store.reader_state("T1", "U2") is not other
    assert len(statements) == 1
    other = sqlite3.connect(path)  # what the database holds
    held = {post for (post,) in other.execute("SELECT post_id FROM reading_progress WHERE user_id = 'U1'")}
    other.close()
    assert store.reader_state("T1", "U1").read == held


def test_a_write_to_a_reader_table_by_another_store_of_this_process_still_shows_at_once(
    store: Store, path: Path
) -> None:
    store.mark_read("T1", "U1", ["a"])
    assert store.reader_state("T1", "U1").read == {"a"}
    engine = db.make_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            conn.execute(insert(ReadingProgress).values(team_id="T1", user_id="U1", post_id="c", read_at=store.now()))
    finally:
        engine.dispose()
    assert store.reader_state("T1", "U1").read == {"a", "c"}


def test_a_carried_write_of_a_state_not_kept_is_read_afresh(store: Store, path: Path) -> None:
    store.mark_read("T1", "U1", ["a"])  # nothing kept yet
    store.mark_read("T1", "U1", ["b"])
    assert store.reader_state("T1", "U1").read == {"a", "b"}
    outside_read(path, "U2", "c")
    time.sleep(ReaderCache.CHECK_EVERY_S * 1.5)
    store.mark_unread("T1", "U1", ["a"])  # its bracket looks first: the outside read drops all
    assert store.reader_state("T1", "U2").read == {"c"}
    assert store.reader_state("T1", "U1").read == {"b"}


def test_readers_beside_carried_writes_end_with_what_the_database_holds(store: Store, path: Path) -> None:
    store.mark_read("T1", "U1", ["a"])
    done = threading.Event()

    def reader() -> None:
        while not done.is_set():
            store.reader_state("T1", "U1")

    threads = [threading.Thread(target=reader) for _ in range(4)]
    for t in threads:
        t.start()
    try:
        for i in range(60):
            (store.mark_read if i % 2 == 0 else store.mark_unread)("T1", "U1", ["x"])
            store.mark_read("T1", "U1", [f"p{i}"])
    finally:
        done.set()
        for t in threads:
            t.join(10)
    other = sqlite3.connect(path)
    held = {post for (post,) in other.execute("SELECT post_id FROM reading_progress WHERE user_id = 'U1'")}
    other.close()
    assert store.reader_state("T1", "U1").read == held
    assert "x" not in held and len(held) == 61
