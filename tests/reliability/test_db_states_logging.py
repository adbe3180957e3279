"""A database that answers but cannot write is named for what it is (issue 42).

Real errors: SQLite made full with ``PRAGMA max_page_count`` (no tiny tmpfs here), SQLite opened
read-only (``?mode=ro``: chmod 0444 does not stop root), PostgreSQL refusing a write in a read-only
transaction; PostgreSQL's ``DiskFull`` as psycopg builds it. Logged the way a worker logs them,
through the record factory and root-handler filter :func:`setup_logging` installs. Before, each
one said "the database is unreachable", which sends an operator after the network.
"""

from __future__ import annotations

import io
import logging
import os
from collections.abc import Iterator
from pathlib import Path

import psycopg
import pytest
import sqlalchemy.exc
from sqlalchemy import create_engine, text

from bot.config import Settings
from bot.logging_setup import DISK_FULL, OUTAGES, READ_ONLY, RedactSecrets, outage, setup_logging


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def captured(monkeypatch) -> Iterator[io.StringIO]:
    setup_logging(Settings(_env_file=None, slack_bot_token="xoxb-test"))  # type: ignore[call-arg]
    monkeypatch.setattr(OUTAGES, "clock", _Clock())
    monkeypatch.setattr(OUTAGES, "_last", {})
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    logger = logging.getLogger("tests.dbstate")
    logger.addHandler(handler)
    logger.propagate = False
    try:
        yield stream
    finally:
        logger.removeHandler(handler)
        logger.propagate = True


def full_sqlite_error(path: Path) -> Exception:
    """The error of an INSERT into a SQLite database that may not grow (``max_page_count``)."""
    engine = create_engine(f"sqlite:///{path}")
    try:
        with engine.begin() as conn:
            conn.execute(text("create table filler (b blob)"))
        with engine.connect() as conn:
            pages = conn.execute(text("pragma page_count")).scalar()
            conn.execute(text(f"pragma max_page_count = {pages}"))
            for _ in range(100):
                conn.execute(text("insert into filler values (zeroblob(4096))"))
                conn.commit()
    except sqlalchemy.exc.OperationalError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("the database grew past max_page_count")


def read_only_sqlite_error(path: Path) -> Exception:
    """The error of a write to a SQLite database opened read-only."""
    setup = create_engine(f"sqlite:///{path}")
    with setup.begin() as conn:
        conn.execute(text("create table t (x integer)"))
    setup.dispose()
    engine = create_engine(f"sqlite:///file:{path}?mode=ro&uri=true")
    try:
        with engine.begin() as conn:
            conn.execute(text("insert into t values (1)"))
    except sqlalchemy.exc.OperationalError as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("a read-only database took a write")


def _log_many(error: Exception, times: int = 50) -> None:
    log = logging.getLogger("tests.dbstate")
    for _ in range(times):
        try:
            raise error
        except Exception:
            log.exception("Failed to process message with unhandled exception.")


def test_a_full_sqlite_disk_is_named_as_such(captured, tmp_path) -> None:
    error = full_sqlite_error(tmp_path / "full.db")
    assert "database or disk is full" in str(error)
    _log_many(error)
    out = captured.getvalue()
    assert out.count("\n") == 1 and "Traceback" not in out, out[:2000]
    assert "the database disk is full: OperationalError" in out and "unreachable" not in out


def test_a_read_only_sqlite_database_is_named_as_such(captured, tmp_path) -> None:
    error = read_only_sqlite_error(tmp_path / "ro.db")
    assert "readonly database" in str(error)
    _log_many(error)
    out = captured.getvalue()
    assert out.count("\n") == 1 and "the database is read-only: OperationalError" in out, out[:2000]
    assert "unreachable" not in out


def test_a_read_only_postgres_transaction_is_named_as_such(captured) -> None:
    url = os.environ.get("TEST_DATABASE_URL", "postgresql://postgres@127.0.0.1:5432/test")
    engine = create_engine(
        url.replace("postgresql://", "postgresql+psycopg://", 1), connect_args={"connect_timeout": 3}
    )
    try:
        with engine.connect() as conn:
            conn.execute(text("set transaction read only"))
            conn.execute(text("create table vllm_path_never_created (x integer)"))
    except sqlalchemy.exc.OperationalError as exc:
        pytest.skip(f"PostgreSQL not reachable: {exc}")
    except sqlalchemy.exc.DBAPIError as exc:
        error: Exception = exc
    else:
        raise AssertionError("a read-only transaction took a write")
    finally:
        engine.dispose()
    assert isinstance(error, sqlalchemy.exc.InternalError)  # not an OperationalError at all
    _log_many(error)
    out = captured.getvalue()
    assert out.count("\n") == 1 and "the database is read-only: InternalError" in out, out[:2000]


def test_postgres_disk_full_is_named_as_such() -> None:
    driver = psycopg.errors.DiskFull('could not extend file "base/16384/2619": No space left on device')
    wrapped = sqlalchemy.exc.OperationalError("INSERT INTO digest_deliveries …", {}, driver)
    assert outage(wrapped) == ("the database", DISK_FULL)
    assert outage(psycopg.errors.ReadOnlySqlTransaction("cannot execute INSERT")) == ("the database", READ_ONLY)
