"""Fixtures for the store tests: every test runs on SQLite and on PostgreSQL.

``db_url`` is a new, empty database per test (for the migration tests); ``store_url`` is a database
migrated once per session and emptied before each test (fast); ``store`` is a :class:`Store` on it
with a :class:`FakeClock`.
"""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from bot.store import Store, migrate
from tests.dbutil import DB_KINDS, fresh_database_url, reset_database


class FakeClock:
    """A settable UTC clock for :class:`Store` (``clock=``)."""

    def __init__(self, start: datetime = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += timedelta(seconds=seconds)


@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """The URL of a new, empty database (SQLite file, then a fresh PostgreSQL database)."""
    with fresh_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture(scope="session", params=DB_KINDS)
def migrated_url(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with fresh_database_url(request.param, tmp_path_factory.mktemp("store")) as url:
        migrate(url)
        yield url


@pytest.fixture
def store_url(migrated_url: str) -> str:
    """A migrated database with no rows."""
    reset_database(migrated_url)
    return migrated_url


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture
def store(store_url: str, clock: FakeClock) -> Iterator[Store]:
    """A :class:`Store` (client id ``CLIENT1``, fake clock) on an empty migrated database."""
    s = Store.from_url(store_url, migrate=False, client_id="CLIENT1", clock=clock)
    try:
        yield s
    finally:
        s.close()
