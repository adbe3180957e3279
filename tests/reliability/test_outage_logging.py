"""One warning per outage, not a traceback per attempt (issue 27).

Real errors: SQLAlchemy's ``OperationalError`` from PostgreSQL refusing a connection (a closed
port), redis-py's ``ConnectionError``, logged the way the worker's parts log them (a traceback each
time), through the record factory and root-handler filter that :func:`setup_logging` installs.
(A worker wrote about 35 MB of tracebacks during a 20 s database outage.)
"""

from __future__ import annotations

import io
import logging
import socket
from collections.abc import Iterator

import pytest
import redis
from redis.backoff import NoBackoff
from redis.retry import Retry
from sqlalchemy import create_engine, text

from bot.config import Settings
from bot.logging_setup import OUTAGES, RedactSecrets, setup_logging


def _closed_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class _Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def captured(monkeypatch) -> Iterator[tuple[io.StringIO, _Clock]]:
    setup_logging(Settings(_env_file=None, slack_bot_token="xoxb-test"))  # type: ignore[call-arg]
    clock = _Clock()
    monkeypatch.setattr(OUTAGES, "clock", clock)
    monkeypatch.setattr(OUTAGES, "_last", {})
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(logging.Formatter("%(levelname)s %(name)s: %(message)s"))
    handler.addFilter(RedactSecrets())
    loggers = [logging.getLogger("tests.outage"), logging.getLogger("dramatiq.worker")]
    for logger in loggers:
        logger.addHandler(handler)
        logger.propagate = False
    try:
        yield stream, clock
    finally:
        for logger in loggers:
            logger.removeHandler(handler)
            logger.propagate = True


def _database_error() -> Exception:
    engine = create_engine(
        f"postgresql+psycopg://postgres@127.0.0.1:{_closed_port()}/x", connect_args={"connect_timeout": 2}
    )
    try:
        with engine.connect() as conn:
            conn.execute(text("select 1"))
    except Exception as exc:
        return exc
    finally:
        engine.dispose()
    raise AssertionError("a closed port answered")


def test_a_database_outage_logs_one_warning_and_no_traceback(captured) -> None:
    stream, clock = captured
    log = logging.getLogger("tests.outage")
    error = _database_error()
    for _ in range(200):  # a worker's messages failing on the database, one after the other
        try:
            raise error
        except Exception:
            log.exception("Failed to process message with unhandled exception.")
        clock.now += 0.1
    out = stream.getvalue()
    assert out.count("\n") == 1 and "Traceback" not in out, out[:2000]
    assert out.startswith("WARNING") and "the database is unreachable: OperationalError" in out
    # Quiet for a minute: the outage is over; the next one is logged again, with the count.
    clock.now += 61
    try:
        raise error
    except Exception:
        log.exception("Failed to process message with unhandled exception.")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2 and "199 error(s) of the previous outage were not logged" in lines[1]


def test_a_lost_broker_is_one_warning_too_and_other_errors_keep_their_traceback(captured) -> None:
    stream, _clock = captured
    log = logging.getLogger("tests.outage")
    # No retries: redis-py 7 retries a refused connect 3 times with back-off (seconds per ping).
    client = redis.Redis(host="127.0.0.1", port=_closed_port(), socket_connect_timeout=1, retry=Retry(NoBackoff(), 0))
    for _ in range(20):
        try:
            client.ping()
        except redis.exceptions.ConnectionError:
            log.exception("could not check the queue")
    dramatiq = logging.getLogger("dramatiq.worker.ConsumerThread(digests)")
    dramatiq.setLevel(logging.INFO)
    for _ in range(20):  # Dramatiq's own lines while the broker is away (no traceback)
        dramatiq.critical("Consumer encountered a connection error: Error 111 connecting.")
        dramatiq.info("Restarting consumer in %0.2f seconds.", 3.0)
    try:
        raise ValueError("a bug, not an outage")
    except ValueError:
        log.exception("digest failed")
    out = stream.getvalue()
    assert out.count("broker (Redis) is unreachable") == 1, out[:2000]
    assert "Consumer encountered" not in out and "Restarting consumer" not in out
    assert out.count("Traceback") == 1 and "ValueError: a bug, not an outage" in out


def test_a_missing_sqlite_table_is_a_fault_with_its_traceback_not_an_outage(captured, tmp_path) -> None:
    """SQLite says ``OperationalError`` for a missing table too (PostgreSQL: ``ProgrammingError``)."""
    stream, _clock = captured
    engine = create_engine(f"sqlite:///{tmp_path / 'x.db'}")
    try:
        with engine.connect() as conn:
            conn.execute(text("select * from reading_progress"))
    except Exception:
        logging.getLogger("tests.outage").exception("slash command failed")
    finally:
        engine.dispose()
    out = stream.getvalue()
    assert out.startswith("ERROR") and "Traceback" in out and "no such table: reading_progress" in out, out[:2000]
    assert "unreachable" not in out
