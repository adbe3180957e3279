"""Fresh, throw-away databases for tests: SQLite files and PostgreSQL databases.

Use from any test folder::

    from tests.dbutil import DB_KINDS, fresh_database_url

    @pytest.fixture(params=DB_KINDS)
    def db_url(request, tmp_path):
        with fresh_database_url(request.param, tmp_path) as url:
            yield url

Most tests want a database already at the schema's head: :func:`migrated_database_url` gives a
new one per test, copied from one template migrated once per session (an SQLite file copied; a
PostgreSQL ``CREATE DATABASE ... TEMPLATE``), so Alembic runs once per session, not once per test.
Every test still gets its own database, never shared and never reused.

PostgreSQL databases are created ahead of need and dropped after use by background threads
(:class:`_PostgresPool`), so a test waits neither for its ``CREATE DATABASE`` nor for the
previous test's ``DROP DATABASE`` (each costs 0.5-3 s of server I/O on a busy machine). The
session's template and any database still pending are dropped by :func:`close_session_databases`
(called from ``tests/conftest.py`` at the end of the session).

``'sqlite'`` gives a file URL under ``tmp_path``. ``'postgres'`` creates ``vp_test_<random>`` on
the server named by ``TEST_DATABASE_URL`` (default ``postgresql://postgres@127.0.0.1:5432/test``,
trust auth) through an AUTOCOMMIT connection, and drops it (forcing other sessions off) after the
test; when the server cannot be reached the test is skipped with the reason. Only databases this
session created are ever dropped. Each PostgreSQL database made here commits without waiting for
the WAL flush (``synchronous_commit = off``: :func:`no_commit_flush`).
"""

from __future__ import annotations

import os
import shutil
import tempfile
import threading
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from functools import lru_cache
from pathlib import Path

import pytest
from sqlalchemy import create_engine, inspect
from sqlalchemy.engine import make_url
from sqlalchemy.pool import NullPool

from bot.config import sqlalchemy_url
from bot.store import Store
from bot.store.db import make_engine, write_connection
from bot.store.subscriptions import set_cursor_in

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


def no_commit_flush(name: str) -> str:
    """The statement making database ``name``'s sessions commit without waiting for the WAL flush
    (``synchronous_commit = off``): about 3 ms less per commit on this machine kind's disk, the
    same atomicity, isolation and visibility to other sessions (only a crash of the PostgreSQL
    server itself could lose the last commits, and no test crashes the shared server: the tests
    that stop a server run their own, ``tests/reliability/pgserver.py``, which runs so anyway)."""
    return f'ALTER DATABASE "{name}" SET synchronous_commit = off'


def _postgres_url(name: str) -> str:
    """The URL of database ``name`` on the test server (password kept, for connecting)."""
    return make_url(admin_url()).set(database=name).render_as_string(hide_password=False)


class _PostgresPool:
    """Fresh PostgreSQL databases made ahead of need, and used ones dropped, by background threads.

    ``template`` is the database each is copied from (None: PostgreSQL's default, an empty
    database). :meth:`take` returns the name of a database never handed out before (waiting for
    one when none is ready); :meth:`give_back` queues a used one for ``DROP DATABASE ... WITH
    (FORCE)``; :meth:`close` drops every database the pool made and still holds. A failed
    ``CREATE`` is raised by the next :meth:`take` (RuntimeError); a failed ``DROP`` is tried again
    by :meth:`close`. The thread connects per statement (no pooled connection kept open, so a
    forked child inherits none).
    """

    AHEAD = 3
    """Databases kept ready beyond the ones in use."""

    THREADS = 2
    """Background threads issuing the statements: the server's I/O (a ``CREATE DATABASE`` or a
    ``DROP DATABASE`` takes 0.5-3 s on a busy machine) overlaps, and short tests wait less."""

    MAX_PENDING_DROPS = 40
    """Past this many used databases waiting (about 8 MB each), dropping comes before making the
    next one ready; below it, drops wait for a moment when enough databases are ready."""

    def __init__(self, template: str | None) -> None:
        self.template = template
        self._cond = threading.Condition()
        self._ready: list[str] = []
        self._drops: list[str] = []
        self._failed_drops: list[str] = []
        self._waiting = 0
        self._error: BaseException | None = None
        self._closed = False
        self._threads: list[threading.Thread] = []

    def _execute(self, *statements: str) -> None:
        admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT", poolclass=NullPool)
        try:
            with admin.connect() as conn:
                for sql in statements:
                    conn.exec_driver_sql(sql)
        finally:
            admin.dispose()

    def _create(self) -> str:
        name = f"vp_test_{uuid.uuid4().hex[:12]}"
        copy = f' TEMPLATE "{self.template}"' if self.template else ""
        self._execute(f'CREATE DATABASE "{name}"{copy}', no_commit_flush(name))
        return name

    def _drop(self, name: str) -> None:
        self._execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')

    def _next_job(self) -> tuple[str, str | None] | None:
        """Under the lock: ('create', None), ('drop', name) or None when closed."""
        while True:
            if self._closed:
                return None
            short = len(self._ready) < self.AHEAD + self._waiting and self._error is None
            if self._drops and (not short or len(self._drops) > self.MAX_PENDING_DROPS):
                return "drop", self._drops.pop(0)
            if short:
                return "create", None
            self._cond.wait()

    def _run(self) -> None:
        while True:
            with self._cond:
                job = self._next_job()
            if job is None:
                return
            kind, name = job
            if kind == "drop":
                assert name is not None
                try:
                    self._drop(name)
                except Exception:  # tried again by close(); no test fails for it
                    with self._cond:
                        self._failed_drops.append(name)
                continue
            try:
                made = self._create()
            except BaseException as exc:  # handed to the test that waits for a database
                with self._cond:
                    self._error = exc
                    self._cond.notify_all()
                continue
            with self._cond:
                self._ready.append(made)
                self._cond.notify_all()

    def take(self) -> str:
        with self._cond:
            if not self._threads:
                self._threads = [
                    threading.Thread(target=self._run, name=f"vp-test-databases-{i}", daemon=True)
                    for i in range(self.THREADS)
                ]
                for thread in self._threads:
                    thread.start()
            self._waiting += 1
            self._cond.notify_all()
            try:
                while not self._ready:
                    if self._error is not None:
                        error, self._error = self._error, None
                        raise RuntimeError(f"could not create a test database: {error}") from error
                    self._cond.wait()
                return self._ready.pop(0)
            finally:
                self._waiting -= 1
                self._cond.notify_all()

    def give_back(self, name: str) -> None:
        with self._cond:
            self._drops.append(name)
            self._cond.notify_all()

    def close(self) -> None:
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        for thread in self._threads:
            thread.join(timeout=120)
        with self._cond:
            names = self._ready + self._drops + self._failed_drops
            self._ready, self._drops, self._failed_drops = [], [], []
        for name in names:
            self._drop(name)


_POOLS: dict[str | None, _PostgresPool] = {}
_TEMPLATES: dict[str, str] = {}  # kind -> SQLite template file | PostgreSQL template database
_LOCK = threading.Lock()


def _pool(template: str | None) -> _PostgresPool:
    with _LOCK:
        if template not in _POOLS:
            _POOLS[template] = _PostgresPool(template)
        return _POOLS[template]


def _session_template(kind: str) -> str:
    """The session's migrated template of ``kind``: an SQLite file path or a PostgreSQL database
    name (``vp_tmpl_<random>``), made (and migrated with Alembic) on first use."""
    with _LOCK:
        if kind in _TEMPLATES:
            return _TEMPLATES[kind]
        from bot.store import migrate

        if kind == "sqlite":
            path = Path(tempfile.mkdtemp(prefix="vp_tmpl_")) / "template.db"
            migrate(f"sqlite:///{path}")
            _TEMPLATES[kind] = str(path)
        else:
            name = f"vp_tmpl_{uuid.uuid4().hex[:10]}"
            admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT", poolclass=NullPool)
            try:
                with admin.connect() as conn:
                    conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
                    conn.exec_driver_sql(no_commit_flush(name))
            finally:
                admin.dispose()
            _TEMPLATES[kind] = name  # recorded before migrating, so that it is dropped either way
            engine = make_engine(_postgres_url(name), poolclass=NullPool)
            try:
                migrate(engine)
            finally:
                engine.dispose()  # CREATE DATABASE ... TEMPLATE needs nobody connected to it
        return _TEMPLATES[kind]


@contextmanager
def _postgres_database(template: str | None) -> Iterator[str]:
    skip_without_postgres()
    pool = _pool(template)
    name = pool.take()
    try:
        yield _postgres_url(name)
    finally:
        pool.give_back(name)


@contextmanager
def fresh_database_url(kind: str, tmp_path: Path, template: str | None = None) -> Iterator[str]:
    """Yield the URL of a new, empty database of ``kind`` (``'sqlite'`` | ``'postgres'``);
    with ``template`` (PostgreSQL only), a copy of that database instead of an empty one.

    The PostgreSQL database is dropped after use; calls ``pytest.skip`` when the server is not
    reachable. Raises ValueError for another ``kind``.
    """
    if kind == "sqlite":
        yield f"sqlite:///{tmp_path / f'vp_test_{uuid.uuid4().hex[:8]}.db'}"
        return
    if kind != "postgres":
        raise ValueError(f"unknown database kind {kind!r}")
    with _postgres_database(template) as url:
        yield url


def migrated_sqlite_url(tmp_path: Path, name: str = "migrated.db") -> str:
    """The URL of ``tmp_path / name``, a new copy of the session's migrated SQLite file (a file
    at the schema's head, as after ``migrate`` on an empty one). Nothing to clean up."""
    target = tmp_path / name
    shutil.copyfile(_session_template("sqlite"), target)
    return f"sqlite:///{target}"


@contextmanager
def migrated_database_url(kind: str, tmp_path: Path) -> Iterator[str]:
    """Yield the URL of a new database of ``kind`` already migrated to the schema's head: a copy
    of the session's migrated SQLite file under ``tmp_path``, or a PostgreSQL database created from
    the session's migrated template (dropped after use; ``pytest.skip`` when the server is not
    reachable). Its rows are those the migrations write, as after ``migrate`` on an empty one.
    Raises ValueError for another ``kind``.
    """
    if kind == "sqlite":
        yield migrated_sqlite_url(tmp_path, f"vp_test_{uuid.uuid4().hex[:8]}.db")
        return
    if kind != "postgres":
        raise ValueError(f"unknown database kind {kind!r}")
    skip_without_postgres()
    with _postgres_database(_session_template("postgres")) as url:
        yield url


def close_session_databases() -> None:
    """Drop every PostgreSQL database this session made and still holds (ready, used, and the
    template), and delete the SQLite template; a server gone away is ignored (nothing to clean)."""
    with _LOCK:
        pools = list(_POOLS.values())
        _POOLS.clear()
        templates = dict(_TEMPLATES)
        _TEMPLATES.clear()
    try:
        for pool in pools:
            pool.close()
        if "postgres" in templates:
            admin = create_engine(admin_url(), isolation_level="AUTOCOMMIT", poolclass=NullPool)
            try:
                with admin.connect() as conn:
                    conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{templates["postgres"]}" WITH (FORCE)')
            finally:
                admin.dispose()
    except Exception:  # the server went away; nothing left to clean there
        pass
    if "sqlite" in templates:
        shutil.rmtree(Path(templates["sqlite"]).parent, ignore_errors=True)


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


def set_cursor(store: Store, sub_id: int, cursor: int, catalog_version: str | None = None) -> bool:
    """Test set-up: put subscription ``sub_id``'s cursor at ``cursor`` (and record
    ``catalog_version`` unless None), as a sent mark does; False if there is no such subscription."""
    with write_connection(store.engine) as s:
        return set_cursor_in(s, sub_id, cursor, catalog_version, store.now())
