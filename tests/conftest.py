"""Shared fixtures: fresh databases (SQLite and PostgreSQL) and a runtime on the real catalog."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.dbutil import DB_KINDS, fresh_database_url


@pytest.fixture(params=DB_KINDS)
def any_db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    """A new, empty database: an SQLite file, then (second run) a fresh PostgreSQL database."""
    with fresh_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def runtime(any_db_url: str):
    """A :class:`bot.runtime.Runtime` on the repo's catalog and a fresh database."""
    from bot.config import Settings
    from bot.runtime import Runtime

    rt = Runtime.create(Settings(database_url=any_db_url, _env_file=None))
    yield rt
    rt.store.close()
