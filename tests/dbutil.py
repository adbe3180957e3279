"""Fresh, throw-away databases for tests: SQLite files and PostgreSQL databases.

Use from any test folder::

    from tests.dbutil import DB_KINDS, fresh_database_url

    @pytest.fixture(params=DB_KINDS)
    def db_url(request, tmp_path):
        with fresh_database_url(request.param, tmp_path) as url:
            yield url

For speed, a test session can migrate one database per kind and call :func:`reset_database`
before each test (a fresh PostgreSQL database costs about a second; emptying one, milliseconds).

``'sqlite'`` gives a file URL under ``tmp_path``. ``'postgres'`` creates ``vp_test_<random>`` on
the server named by ``TEST_DATABASE_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``,
trust auth) through an AUTOCOMMIT connection, and drops it (forcing other sessions off) at the
end; when the server cannot be reached the test is skipped with the reason.
"""

from __future__ import annotations

import os
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url

from bot.config import sqlalchemy_url
from bot.store.db import make_engine

DEFAULT_TEST_DATABASE_URL = "postgresql://postgres@127.0.0.1:5432/test"

DB_KINDS = ("sqlite", pytest.param("postgres", marks=pytest.mark.postgres))
"""Parameters for a fixture that runs each test on SQLite and on PostgreSQL."""


def admin_url() -> str:
    """The PostgreSQL server's maintenance URL (``TEST_DATABASE_URL``), psycopg 3 driver."""
    return sqlalchemy_url(os.environ.get("TEST_DATABASE_URL") or DEFAULT_TEST_DATABASE_URL)


@lru_cache(maxsize=1)
def postgres_unavailable() -> str | None:
    """None if the test PostgreSQL server answers, else why not (checked once per session)."""
    url = admin_url()
    engine = create_engine(url, connect_args={"connect_timeout": 3})
    try:
        with engine.connect() as conn:
            conn.exec_driver_sql("SELECT 1")
        return None
    except Exception as exc:  # any failure means "not usable here"
        shown = make_url(url).render_as_string(hide_password=True)
        return f"PostgreSQL not reachable at {shown}: {type(exc).__name__}: {str(exc).strip()[:200]}"
    finally:
        engine.dispose()


def skip_without_postgres() -> None:
    """Skip the calling test with the reason when PostgreSQL is unreachable, or fail it when
    ``POSTGRES_REQUIRED=1`` (CI sets it, so a broken server cannot pass as skipped tests)."""
    reason = postgres_unavailable()
    if reason is None:
        return
    if os.environ.get("POSTGRES_REQUIRED") == "1":
        pytest.fail(reason + " (POSTGRES_REQUIRED=1)", pytrace=False)
    pytest.skip(reason)


@contextmanager
def fresh_database_url(kind: str, tmp_path: Path, template: str | None = None) -> Iterator[str]:
    """Yield the URL of a new, empty database of ``kind`` (``'sqlite'`` | ``'postgres'``);
    with ``template`` (PostgreSQL only), a copy of that database instead of an empty one.

    The PostgreSQL database is dropped on exit; calls ``pytest.skip`` when the server is not
    reachable. Raises ValueError for another ``kind``.
    """
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / f'vp_test_{uuid.uuid4().hex[:8]}.db'}"
        return
    if kind != "postgres":
        raise ValueError(f"unknown database kind {kind!r}")
    skip_without_postgres()
    name = f"vp_test_{uuid.uuid4().hex[:12]}"
    admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT")
    try:
        with admin.connect() as conn:
            copy = f' TEMPLATE "{template}"' if template else ""
            conn.exec_driver_sql(f'CREATE DATABASE "{name}"{copy}')
        try:
            yield make_url(admin_url()).set(database=name).render_as_string(hide_password=False)
        finally:
            with admin.connect() as conn:
                conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        admin.dispose()


def reset_database(url: str, keep: tuple[str, ...] = ("alembic_version",)) -> None:
    """Delete every row of every table except ``keep`` (the schema stays; ids restart)."""
    engine = make_engine(url)
    try:
        tables = [t for t in inspect(engine).get_table_names() if t not in keep]
        if not tables:
            return
        with engine.begin() as conn:
            if engine.dialect.name == "postgresql":
                names = ", ".join(f'"{t}"' for t in tables)
                conn.exec_driver_sql(f"TRUNCATE {names} RESTART IDENTITY CASCADE")
            else:
                for table in tables:
                    conn.exec_driver_sql(f'DELETE FROM "{table}"')
    finally:
        engine.dispose()
