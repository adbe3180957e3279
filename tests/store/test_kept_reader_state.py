"""``Store.kept_reader_state``: the reader state the store keeps, without reading the database; the
same object while nothing changed, never one from before a change (what
:mod:`bot.slack.kept_answers` keys answers with)."""

from __future__ import annotations

import sqlite3
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.store import Store
from bot.store.reader import ReaderCache


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "kept.db"


@pytest.fixture
def store(path: Path) -> Iterator[Store]:
    with Store.from_url(f"sqlite:///{path}") as s:
        yield s


def test_nothing_until_read_then_the_same_object_until_a_change(store: Store) -> None:
    store.mark_read("T1", "U1", ["a"])
    assert store.kept_reader_state("T1", "U1") is None  # never read: nothing read here either
    state = store.reader_state("T1", "U1")
    assert store.kept_reader_state("T1", "U1") is state
    assert store.kept_reader_state("T1", "U1") is state
    store.follow("T1", "U1", "spec")
    after = store.kept_reader_state("T1", "U1")
    assert after is not state and (after is None or after.follows == ("spec",))
    assert store.reader_state("T1", "U1").follows == ("spec",)


def test_another_programs_commit_is_not_hidden(store: Store, path: Path) -> None:
    state = store.reader_state("T1", "U1")
    other = sqlite3.connect(path)
    with other:
        other.execute(
            "INSERT INTO reading_progress (team_id, user_id, post_id, read_at) VALUES ('T1', 'U1', 'b', ?)",
            ("2026-12-06 10:00:00.000000",),
        )
    other.close()
    time.sleep(ReaderCache.CHECK_EVERY_S * 2)
    assert store.kept_reader_state("T1", "U1") is None
    assert store.reader_state("T1", "U1").read == frozenset({"b"}) != state.read


def test_nothing_is_kept_on_a_database_without_a_reader_cache() -> None:
    with Store.from_url("sqlite://") as memory:  # in memory (StaticPool): no cache
        memory.reader_state("T1", "U1")
        assert memory.kept_reader_state("T1", "U1") is None
