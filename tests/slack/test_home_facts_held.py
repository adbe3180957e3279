"""App Home's kept facts (:class:`bot.slack.home_facts.HomeFacts`) over the held-request batcher's
commits on its own connection (:meth:`bot.slack.home_facts.HomeFacts.around_raw_commit`, issue 43):
a batch is told apart from another connection's commit, so it drops nobody's facts, and a commit by
another connection made before the batch still does."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.slack.home_facts import HomeFacts, PersonFacts
from bot.store import Store


@pytest.fixture
def path(tmp_path: Path) -> Path:
    return tmp_path / "home.db"


@pytest.fixture
def store(path: Path) -> Iterator[Store]:
    with Store.from_url(f"sqlite:///{path}") as s:
        yield s


def _counted(facts: HomeFacts) -> list[tuple[str, str]]:
    reads: list[tuple[str, str]] = []
    read = facts._read

    def counting(team: str, user: str) -> PersonFacts:
        reads.append((team, user))
        return read(team, user)

    facts._read = counting  # type: ignore[method-assign]
    return reads


def _open(facts: HomeFacts, store: Store, user: str) -> PersonFacts:
    state = store.reader_state("T1", user)
    return facts.person("T1", user, state.read, state.follows, state.budget)


def test_a_held_batch_drops_no_ones_kept_facts(store: Store) -> None:
    store.follow("T1", "U1", "pd")
    facts = HomeFacts(store)
    assert facts.keeping
    reads = _counted(facts)
    kept = _open(facts, store, "U1")
    store.held_batch().hold("T1", "a click", "text/plain")
    assert _open(facts, store, "U1") is kept
    assert reads == [("T1", "U1")]  # read once, at the first open


def test_a_commit_by_another_connection_before_a_batch_drops_them(store: Store, path: Path) -> None:
    store.follow("T1", "U1", "pd")
    facts = HomeFacts(store)
    reads = _counted(facts)
    _open(facts, store, "U1")
    with sqlite3.connect(path) as other:
        other.execute("UPDATE track_follows SET followed_at = '2020-01-01 00:00:00.000000' WHERE user_id = 'U1'")
    store.held_batch().hold("T1", "a click", "text/plain")
    _open(facts, store, "U1")
    assert reads == [("T1", "U1"), ("T1", "U1")]  # read again
