"""Fixtures for the digest tests: the real catalog, real databases (SQLite, PostgreSQL), a real
HTTP stand-in for Slack, and runtimes wired to them."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from bot.config import DEFAULT_CATALOG_DIR, Settings
from bot.domain.catalog import Catalog
from bot.runtime import CatalogHolder, Runtime
from bot.store import Store
from tests.dbutil import DB_KINDS, migrated_database_url
from tests.standin import SlackStandIn

TEAM = "T0DIGEST"


@pytest.fixture(scope="session")
def holder() -> CatalogHolder:
    """The repository's catalog, loaded once (with its search index)."""
    return CatalogHolder(DEFAULT_CATALOG_DIR)


@pytest.fixture(scope="session")
def catalog(holder: CatalogHolder) -> Catalog:
    return holder.catalog


@pytest.fixture
def standin() -> Iterator[SlackStandIn]:
    with SlackStandIn(team_id=TEAM) as s:
        yield s


# Each test gets its own database, copied from the session's migrated template (tests.dbutil):
# Store.from_url still runs the migrations on it and finds them done.
@pytest.fixture(params=DB_KINDS)
def db_url(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[str]:
    with migrated_database_url(request.param, tmp_path) as url:
        yield url


@pytest.fixture
def sqlite_url(tmp_path: Path) -> Iterator[str]:
    with migrated_database_url("sqlite", tmp_path) as url:
        yield url


@pytest.fixture
def pg_url(tmp_path: Path) -> Iterator[str]:
    with migrated_database_url("postgres", tmp_path) as url:
        yield url


def settings_for(db_url: str, standin: SlackStandIn | None, **extra: object) -> Settings:
    """Settings for one workspace (``xoxb-test``) against the stand-in, ignoring any .env."""
    values: dict[str, object] = {
        "database_url": db_url,
        "slack_bot_token": "xoxb-test",
        "slack_app_token": None,
        "slack_client_id": None,
        "slack_client_secret": None,
        "slack_api_url": None,
    }
    if standin is not None:
        values["slack_api_url"] = standin.api_url
    values.update(extra)
    return Settings(_env_file=None, **values)  # type: ignore[call-arg]


def make_runtime(db_url: str, standin: SlackStandIn | None, holder: CatalogHolder, **extra: object) -> Runtime:
    """A runtime on a migrated store for ``db_url`` sharing the session's catalog holder."""
    store = Store.from_url(db_url)
    runtime = Runtime(settings_for(db_url, standin, **extra), store, holder)
    runtime.record_catalog_version()
    return runtime


@pytest.fixture
def runtime(db_url: str, standin: SlackStandIn, holder: CatalogHolder) -> Iterator[Runtime]:
    rt = make_runtime(db_url, standin, holder)
    try:
        yield rt
    finally:
        rt.store.close()


@pytest.fixture
def sqlite_runtime(sqlite_url: str, standin: SlackStandIn, holder: CatalogHolder) -> Iterator[Runtime]:
    rt = make_runtime(sqlite_url, standin, holder)
    try:
        yield rt
    finally:
        rt.store.close()
