"""Engines, connections, the UTC datetime column type, running the migrations and a lock shared by
every process, on SQLite or PostgreSQL (psycopg 3). SQLite engines turn on foreign keys, WAL and a
busy timeout, and open write transactions with ``BEGIN IMMEDIATE`` so that concurrent writers
queue instead of failing.
"""

from __future__ import annotations

import hashlib
import logging
import os
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from sqlalchemy import Connection, DateTime, Engine, create_engine, event, text
from sqlalchemy.engine import Dialect, make_url
from sqlalchemy.exc import ArgumentError, DBAPIError
from sqlalchemy.pool import StaticPool
from sqlalchemy.types import TypeDecorator

from bot.config import sqlalchemy_url

log = logging.getLogger(__name__)

MIGRATIONS_DIR = Path(__file__).resolve().parent / "migrations"
"""Alembic's script location, inside the package so that it ships with the wheel."""

SQLITE_BUSY_TIMEOUT_MS = 15_000
"""How long (milliseconds) an SQLite writer waits for another writer's lock before failing."""

_IMMEDIATE = "vp_sqlite_begin_immediate"

SQLITE_POOL_SIZE = 64
"""Connections an SQLite file engine keeps open: as many as the threads that read at once
(:data:`bot.slack.lazy.THREADS`), so that reads do not open (and configure) new ones."""


class UTCDateTime(TypeDecorator[datetime]):
    """A timezone-aware UTC timestamp on every backend: binds convert to UTC (naive is taken as
    UTC), results are aware UTC. PostgreSQL stores ``timestamptz``; SQLite the UTC wall time as
    ISO text (which sorts correctly)."""

    impl = DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        value = as_utc(value)
        return value.replace(tzinfo=None) if value is not None and dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        return as_utc(value)


def as_utc(value: datetime | None) -> datetime | None:
    """``value`` as an aware UTC datetime (a naive one is taken to be UTC already)."""
    if value is None:
        return None
    return value.replace(tzinfo=UTC) if value.tzinfo is None else value.astimezone(UTC)


def utcnow() -> datetime:
    """The current time, timezone-aware, in UTC."""
    return datetime.now(UTC)


def make_engine(url: str, **kwargs: Any) -> Engine:
    """An :class:`~sqlalchemy.Engine` for a ``DATABASE_URL`` (``postgres://`` uses psycopg 3,
    :func:`bot.config.sqlalchemy_url`). An SQLite file's directory is created if missing (a
    warning names it, so a mistyped path is seen); an
    in-memory one gets one shared connection. ``kwargs`` go to :func:`sqlalchemy.create_engine`.
    Raises :class:`sqlalchemy.exc.ArgumentError` for an unparseable URL and :class:`ValueError`
    for a backend other than SQLite or PostgreSQL."""
    url = sqlalchemy_url(url)
    parsed = make_url(url)
    backend = parsed.get_backend_name()
    if backend not in ("sqlite", "postgresql"):
        raise ValueError(f"unsupported database backend {backend!r}: use sqlite or postgresql")
    # hide_parameters: SQL errors never carry bound values (tokens); pre-ping only a server's connections.
    options: dict[str, Any] = {"pool_pre_ping": backend == "postgresql", "hide_parameters": True}
    if backend == "sqlite":
        options["connect_args"] = {"check_same_thread": False}
        database = parsed.database or ""
        if database in ("", ":memory:") or "mode=memory" in str(parsed.query):
            options["poolclass"] = StaticPool
        else:
            options.update(pool_size=SQLITE_POOL_SIZE, max_overflow=SQLITE_POOL_SIZE // 4)
            if not database.startswith("file:"):
                _make_sqlite_folder(Path(database).expanduser())
    options.update(kwargs)
    engine = create_engine(parsed, **options)
    if backend == "sqlite":
        _configure_sqlite(engine)
    return engine


def _make_sqlite_folder(database: Path) -> None:
    """Create the folder of the SQLite file ``database`` if missing (a WARNING names it). Raises
    :class:`sqlalchemy.exc.ArgumentError` saying ``cannot open the database at …: <reason>`` when it
    cannot be made (a path under a file, no permission): the CLI's database error, not an
    ``OSError`` a caller could take for the network (QA round 8: ``serve`` blamed Slack)."""
    folder, reason = database.absolute().parent, None
    try:
        folder = database.resolve().parent
        if folder.is_dir():
            return
        blocker = next((p for p in (folder, *folder.parents) if p.exists()), None)
        if blocker is not None and not blocker.is_dir():
            reason = f"{blocker} is a file, not a folder"
        else:
            folder.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        reason = f"{exc.strerror} ({exc.filename})" if exc.strerror and exc.filename else str(exc)
    if reason is not None:  # raised outside the except: no OSError in its context to misread
        raise ArgumentError(f"cannot open the database at {database}: {reason}")
    log.warning("made the folder %s for the SQLite database %s", folder, database.name)


def _configure_sqlite(engine: Engine) -> None:
    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_conn: Any, _record: Any) -> None:
        # We BEGIN ourselves: pysqlite's lazy BEGIN makes read-then-write fail with SQLITE_BUSY.
        dbapi_conn.isolation_level = None
        cursor = dbapi_conn.cursor()
        try:
            cursor.execute(f"PRAGMA busy_timeout = {SQLITE_BUSY_TIMEOUT_MS}")
            cursor.execute("PRAGMA foreign_keys = ON")
            cursor.execute("PRAGMA journal_mode = WAL")
            cursor.execute("PRAGMA synchronous = NORMAL")
        finally:
            cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(conn: Connection) -> None:
        conn.exec_driver_sql("BEGIN IMMEDIATE" if conn.get_execution_options().get(_IMMEDIATE) else "BEGIN")


@contextmanager
def write_connection(
    engine: Engine, around_commit: Callable[[Connection], AbstractContextManager[None]] | None = None
) -> Iterator[Connection]:
    """One short write transaction on a Core connection: commits on success, rolls back on any
    exception. On SQLite it takes the write lock up front (``BEGIN IMMEDIATE``, waiting up to
    :data:`SQLITE_BUSY_TIMEOUT_MS`), so no other writer overtakes its reads. ``around_commit``: a
    context entered with the connection just before the commit and left after it (the connection
    still checked out; :meth:`bot.store.reader.ReaderCache.bracket`)."""
    with engine.connect() as conn:
        conn = conn.execution_options(**{_IMMEDIATE: True})
        if around_commit is None:
            with conn.begin():
                yield conn
            return
        trans = conn.begin()
        try:
            yield conn
        except BaseException:
            trans.rollback()
            raise
        with around_commit(conn):
            trans.commit()


@contextmanager
def read_connection(engine: Engine) -> Iterator[Connection]:
    """One short read transaction on a Core connection (``BEGIN`` deferred on SQLite, begun by the
    first statement); rolled back when the block ends."""
    with engine.connect() as conn:
        yield conn


MIGRATION_LOCK_ID = 0x766C6C6D70617468  # "vllmpath": PostgreSQL advisory lock key
"""Serialises concurrent migrations (a web process and the clock starting together)."""

_MIGRATE_IN_PROCESS = threading.Lock()  # Alembic's ``context``/``op`` proxies are process-global

HEAD_REVISION = "i46_0002"
"""The newest migration's revision, Alembic's ``head`` (a test keeps the two equal)."""


def at_head(engine: Engine) -> bool:
    """Whether ``alembic_version`` holds exactly :data:`HEAD_REVISION` (False without the table): the
    check that spares a start Alembic's import, which ``benchmarks/cli_cold.py`` needs (``vllm-path
    ask speculative`` took 5.2-5.4x ``import slack_bolt`` running Alembic's upgrade at head, target
    <= 5x)."""
    with engine.connect() as conn:
        try:
            rows = conn.exec_driver_sql("SELECT version_num FROM alembic_version").all()
        except DBAPIError:
            return False
    return [tuple(row) for row in rows] == [(HEAD_REVISION,)]


def migrate(url: str | Engine, revision: str = "head") -> None:
    """Run Alembic's ``upgrade`` to ``revision`` against ``url`` (a ``DATABASE_URL`` or an engine,
    needed for in-memory SQLite), with the migrations shipped in this package. Idempotent, and
    safe when several processes start at once: one transaction holding a PostgreSQL advisory lock
    (SQLite: the write lock). Already at head (:func:`at_head`), Alembic is not imported. Raises
    SQLAlchemy/Alembic errors on failure (the transaction is rolled back)."""
    engine = url if isinstance(url, Engine) else make_engine(url)
    try:
        if revision == "head" and at_head(engine):
            return
        from alembic import command  # deferred: Alembic, Mako and the scripts (~0.1 s) only to upgrade
        from alembic.config import Config

        cfg = Config()
        cfg.set_main_option("script_location", str(MIGRATIONS_DIR))
        with _MIGRATE_IN_PROCESS, engine.connect() as conn:
            conn = conn.execution_options(**{_IMMEDIATE: True})
            with conn.begin():
                if conn.dialect.name == "postgresql":
                    conn.exec_driver_sql(f"SELECT pg_advisory_xact_lock({MIGRATION_LOCK_ID})")
                cfg.attributes["connection"] = conn
                command.upgrade(cfg, revision)
    finally:
        if engine is not url:
            engine.dispose()


_memory_locks: dict[str, threading.Lock] = {}
_memory_guard = threading.Lock()


@contextmanager
def shared_lock(engine: Engine, name: str) -> Iterator[None]:
    """Hold the lock ``name`` across every process on ``engine``'s database while the block runs (no
    time-out), for work that must not run twice at once (refreshing a rotating Slack token: a
    refresh token works once). The threads of one process queue on a process-wide lock first, so
    that one thread per process at most waits for the shared one (on PostgreSQL each waiter holds
    a pooled connection: twenty request threads waiting there would leave the holder none for its
    own work). PostgreSQL: a session-level advisory lock keyed by a hash of the name; SQLite: an
    exclusive ``flock`` on a file beside the database (``<db>.locks/<hash>``), or only the
    process-wide lock for an in-memory one."""
    with _memory_guard:
        local = _memory_locks.setdefault(f"{engine.url.render_as_string()} {name}", threading.Lock())
    with local:
        digest = hashlib.sha256(name.encode()).digest()
        if engine.dialect.name == "postgresql":
            key = {"k": int.from_bytes(digest[:8], "big", signed=True)}  # pg_advisory_lock's signed 64 bits
            with engine.connect() as conn:
                conn.execute(text("SELECT pg_advisory_lock(:k)"), key)
                try:
                    yield
                finally:
                    conn.execute(text("SELECT pg_advisory_unlock(:k)"), key)
                    conn.commit()
            return
        database = engine.url.database
        if not database or database == ":memory:":
            yield
            return
        import fcntl  # POSIX; SQLite shared between processes lives on one machine

        folder = Path(database + ".locks")
        folder.mkdir(exist_ok=True)
        fd = os.open(folder / digest.hex()[:16], os.O_RDWR | os.O_CREAT, 0o600)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            yield
        finally:
            fcntl.flock(fd, fcntl.LOCK_UN)
            os.close(fd)
