"""Held requests (:mod:`bot.slack.held`) in batches: the holds and releases of many request threads
share one write transaction (group commit, :class:`bot.store.batching.Batching`).

A hold waits for the commit of its batch (the ack goes after it: a change acknowledged is a change
stored), in the request's thread (:meth:`HeldBatcher.hold`) or, through :meth:`HeldBatcher.hold_later`'s
:class:`HeldTicket`, wherever its ack is sent from (the Socket Mode door: no thread of its own waits
per held request); a release does not wait, it is deleted with the next hold's batch (or on its own
within a second; lost in a crash, the request is answered again at the next start, which every held
use case tolerates). A hold may carry its request's change (:class:`MarkRead`: a *Mark read* click),
written in the same transaction (issue 43: the click's own write transaction and a release's
transaction of its own were 0.54 ms and ~0.3 ms of a click's CPU, ``benchmarks/clicks.py``); on
SQLite the batch's statements run on the transaction's sqlite3 connection, compiled once
(:class:`~bot.store.batching.SqliteStatement`), and on an SQLite file that connection is the
flusher's own, kept for the batcher's life, its ``BEGIN IMMEDIATE`` and ``COMMIT`` sent on it
(:meth:`HeldBatcher._flush_kept`: no SQLAlchemy check-out, begin, commit and check-in a batch). A speed layer needed by
``benchmarks/slow_slack.py --mix`` (200 people, Slack at 1 s; docs/benchmarks.md): with a write
transaction of its own per hold and per release, SQLite's write lock was the acks' largest wait
(about 9 in 10 of an ack thread's samples) and 140 of 2,652 acks took over 3 s.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator
from contextlib import ExitStack
from dataclasses import dataclass
from typing import Any

from sqlalchemy import Connection, bindparam, delete, insert

from bot.store.base import StoreCore
from bot.store.batching import Batching, SqliteStatement
from bot.store.models import HeldRequest
from bot.store.reader import raw_commit_watchers
from bot.store.reading import mark_read_carry

log = logging.getLogger(__name__)

_HOLD = insert(HeldRequest).returning(HeldRequest.c.id, sort_by_parameter_order=True)
_RELEASE = delete(HeldRequest).where(HeldRequest.c.id == bindparam("id"))


@dataclass(frozen=True, slots=True)
class MarkRead:
    """A held click's effect, written in its hold's transaction (before the ack): ``posts`` (current
    post ids, checked) marked read for ``user`` in ``team``, as :meth:`bot.store.reading.ReadingRepo.mark_read`
    writes them (its rows and its reminders cancelled). ``wrote``: called with ``(team, user)`` on
    the batcher's thread once they are committed (the app's App Home facts told that person read
    something, :meth:`bot.slack.home_facts.HomeFacts.wrote`: the writes go past its watch of
    statements, and no one else's kept facts are dropped); None: nothing."""

    team: str
    user: str
    posts: tuple[str, ...]
    wrote: Callable[[str, str], None] | None = None


@dataclass
class _Call:
    row: dict[str, Any] | None = None  # a hold: the HeldRequest's values
    release: int | None = None  # a release: the held request's id
    effect: MarkRead | None = None  # a hold's effect, written with it
    marked: frozenset[str] = frozenset()  # the effect's posts not read before (committed once answered)
    cancelled: dict[str, int] | None = None  # per post of the effect: its reminders the write cancelled
    done: threading.Event | None = None
    answered: bool = False
    result: Any = None
    error: BaseException | None = None


class HeldTicket:
    """A hold on its way (:meth:`HeldBatcher.hold_later`): :meth:`wait` for its id once committed.
    Copies as itself (Bolt deep-copies a request's context for its lazy listeners). Thread-safe."""

    __slots__ = ("_call",)

    def __init__(self, call: _Call):
        self._call = call

    def done(self) -> bool:
        """True once the hold is committed or has failed (:meth:`wait` then returns at once)."""
        return self._call.done is not None and self._call.done.is_set()

    def wait(self, timeout: float | None = None) -> int:
        """The held request's id once its batch is committed (None ``timeout``: however long that
        takes). Raises what the database raised, or ``TimeoutError`` after ``timeout`` seconds."""
        done = self._call.done
        if done is not None and not done.wait(timeout):
            raise TimeoutError("the hold is not committed yet")
        if self._call.error is not None:
            raise self._call.error
        return int(self._call.result)

    def marked(self, timeout: float | None = None) -> frozenset[str]:
        """Once committed (as :meth:`wait`, raising as it does): the posts of the hold's
        :class:`MarkRead` that were not read before (empty without one)."""
        self.wait(timeout)
        return self._call.marked

    def cancelled(self, timeout: float | None = None) -> dict[str, int] | None:
        """Once committed (as :meth:`wait`, raising as it does): how many pending reminders of each
        post of the hold's :class:`MarkRead` its write cancelled (``{post id: count}``, 0: none, as
        SQLite's row count says), or None when that was not counted (no effect, or written on
        PostgreSQL). Lets the click's answer name a
        cancelled reminder without reading the reminders again (issue 43: two reads, 0.73 ms of a
        *Mark read* click's 1.64 ms, ``benchmarks/clicks.py``)."""
        self.wait(timeout)
        return self._call.cancelled

    def __copy__(self) -> HeldTicket:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> HeldTicket:
        return self


class HeldBatcher(Batching):
    """Holds (:meth:`hold`, waits for the commit) and releases (:meth:`release`, does not wait) of
    ``store``'s held requests, many threads' in one transaction per batch. Thread-safe;
    :meth:`close` (called by the store's ``close``) writes what is pending and stops the flusher."""

    name = "held-batcher"
    LINGERS = True  # releases go with the next hold's batch

    def __init__(self, store: StoreCore):
        self.store = store
        self._sqlite: Any = None  # the flusher's own sqlite3 connection (an SQLite file), kept
        super().__init__()

    def close(self) -> None:
        """:meth:`Batching.close`, then the flusher's own SQLite connection closed."""
        super().close()
        self._close_sqlite()

    def _close_sqlite(self) -> None:
        conn, self._sqlite = self._sqlite, None
        if conn is not None:
            try:
                conn.close()
            except Exception:  # already broken: nothing to give back
                log.debug("closing the held batcher's connection failed", exc_info=True)

    def hold(self, tenant: str, body: str, content_type: str) -> int:
        """Keep an acknowledged request (``body`` as Slack sent it, ``content_type`` its header) until
        :meth:`release`: its id once committed with the next batch. Raises what the database raises."""
        return self.hold_later(tenant, body, content_type).wait()

    def hold_later(self, tenant: str, body: str, content_type: str, effect: MarkRead | None = None) -> HeldTicket:
        """:meth:`hold` without waiting: the ticket of the hold, committed with the next batch
        (:meth:`HeldTicket.wait`: its id, or the database's error). ``effect``: the request's change,
        written in the same transaction (:meth:`HeldTicket.marked`: what it marked). Never raises;
        when the batcher is closed (the process is stopping) the hold is written on its own before
        this returns."""
        now = self.store._now()  # the store's clock
        row = dict(tenant_id=tenant[:32], body=body, content_type=content_type[:100], received_at=now)
        call = _Call(row=row, effect=effect)
        try:
            self._enqueue(call)
        except RuntimeError:  # closed: on its own, now
            call.done = threading.Event()
            try:
                call.result = self._one(call)
            except Exception as exc:
                call.error = exc
            call.done.set()
        return HeldTicket(call)

    def hold_led(self, tenant: str, body: str, content_type: str, effect: MarkRead | None = None) -> HeldTicket:
        """:meth:`hold_later`, its batch committed in this thread before this returns
        (:meth:`~bot.store.batching.Batching._lead`: a request thread that waits for its hold anyway
        leads the commit, no hand-off to the flusher and back), or by the batch being written when
        it came; the ticket is done (:meth:`HeldTicket.wait` returns at once or raises the
        database's error). Never raises."""
        now = self.store._now()
        row = dict(tenant_id=tenant[:32], body=body, content_type=content_type[:100], received_at=now)
        call = _Call(row=row, effect=effect)
        try:
            self._enqueue(call, wake=False)
        except RuntimeError:  # closed: as hold_later does
            return self.hold_later(tenant, body, content_type, effect)
        self._lead(call)
        return HeldTicket(call)

    def release(self, request_id: int) -> None:
        """Delete the held request ``request_id`` with the next hold's batch (or on its own within
        :data:`~bot.store.batching.Batching.LINGER_S`, or at :meth:`close`), without waiting: a click
        that comes while the last one is answered commits its hold and that release together. Lost
        in a crash, the request is answered again at the next start. Never raises."""
        try:
            self._enqueue(_Call(release=request_id), wake=False)
        except RuntimeError:  # closed: on its own
            self._one(_Call(release=request_id))

    def _flush(self, batch: list[_Call]) -> None:
        holds = [(c, c.row) for c in batch if c.row is not None]
        gone = [c.release for c in batch if c.release is not None]
        effects = [c for c, _row in holds if c.effect is not None]
        store: Any = self.store  # a Store: its reader and reading parts
        cache = store._cache() if not self._closed else None  # an SQLite file's (kept connection: flusher only)
        if cache is not None:
            ids = self._flush_kept(cache, [row for _c, row in holds], gone, effects)
        else:
            ids = self._flush_pooled(holds, gone, effects)
        for (call, _row), request_id in zip(holds, ids, strict=True):
            call.result = request_id
        for call in batch:
            call.answered = True
        for effect in _effects(effects):
            if effect.wrote is not None:
                try:
                    effect.wrote(effect.team, effect.user)
                except Exception:  # a cache's bookkeeping: never the commit's failure
                    log.warning("a held click's write could not be told to the App Home facts", exc_info=True)

    def _flush_kept(self, cache: Any, rows: list[dict[str, Any]], gone: list[int], effects: list[_Call]) -> list[int]:
        """:meth:`_flush`'s transaction on an SQLite file: on the flusher's own sqlite3 connection,
        kept for the batcher's life (configured by the engine's ``connect`` event, then detached from
        its pool, as :class:`~bot.store.batching.DriverConnection` on PostgreSQL), ``BEGIN IMMEDIATE``
        and ``COMMIT`` sent on it, the commit inside the reader cache's
        :meth:`~bot.store.reader.ReaderCache.bracket_dbapi` and each of the engine's
        :func:`~bot.store.reader.raw_commit_watchers` (App Home's facts): what SQLAlchemy's
        transaction did, without its check-out, begin, commit and check-in per batch (issue 43: the
        batcher's CPU a click from 0.56-0.90 ms to 0.38-0.60 ms, *Mark read* from 1.63x the no-op's to
        1.48x, ``benchmarks/clicks.py``, docs/benchmarks.md). Closed after any error (the next
        batch opens another). Returns the holds' ids."""
        store: Any = self.store
        conn = self._sqlite
        if conn is None:
            fairy = store._engine.raw_connection()  # the engine's connect event: WAL, busy timeout, no lazy BEGIN
            conn = fairy.dbapi_connection
            fairy.detach()
            self._sqlite = conn
        try:
            conn.execute("BEGIN IMMEDIATE")
            try:
                made = _sqlite_statements(store._engine.dialect, store)
                ids = self._statements_sqlite(conn, made, rows, gone, effects)
                carries = [mark_read_carry(e.team, e.user, e.posts) for e in _effects(effects)]
                # the people's kept reader states carried over their reads, the others kept (none: no reader table)
                bracket = (
                    cache.bracket_dbapi(conn, carries=carries) if carries else cache.bracket_dbapi(conn, elsewhere=True)
                )
                watchers = list(raw_commit_watchers(store._engine))
                with bracket:
                    if len(watchers) == 1:  # the app's App Home facts (one ExitStack less a batch)
                        with watchers[0].around_raw_commit(conn):
                            conn.execute("COMMIT")
                    else:
                        with ExitStack() as around:
                            for watcher in watchers:
                                around.enter_context(watcher.around_raw_commit(conn))
                            conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    conn.execute("ROLLBACK")
                raise
        except BaseException:
            self._close_sqlite()
            raise
        return ids

    def _flush_pooled(
        self, holds: list[tuple[_Call, dict[str, Any]]], gone: list[int], effects: list[_Call]
    ) -> list[int]:
        """:meth:`_flush`'s transaction on a connection of the store's pool (PostgreSQL, an in-memory
        SQLite database, or once the batcher is closed): the holds' ids."""
        store: Any = self.store
        if effects:  # the people's kept reader states carried over their reads, the others kept
            writing = store._write_carrying([mark_read_carry(e.team, e.user, e.posts) for e in _effects(effects)])
        else:
            writing = self.store._write_elsewhere()  # the store's own write transaction; no reader table
        with writing as s:
            if s.dialect.name == "sqlite":
                ids = self._write_sqlite(s, [row for _c, row in holds], gone, effects)
            else:
                ids = list(s.scalars(_HOLD, [row for _c, row in holds])) if holds else []
                if gone:  # one statement built once, run for each id (an IN list was built and compiled each time)
                    s.execute(_RELEASE, [{"id": request_id} for request_id in gone])
                for call in effects:
                    effect = call.effect
                    assert effect is not None
                    call.marked = frozenset(store._mark_read_rows(s, effect.team, effect.user, effect.posts))
        return ids

    def _write_sqlite(
        self, s: Connection, rows: list[dict[str, Any]], gone: list[int], effects: list[_Call]
    ) -> list[int]:
        """:meth:`_flush_pooled`'s statements on SQLite, run on the transaction's sqlite3 connection
        (the transaction, its ``BEGIN IMMEDIATE`` and commit are SQLAlchemy's): the holds' ids."""
        made = _sqlite_statements(s.dialect, self.store)
        return self._statements_sqlite(s.connection.dbapi_connection, made, rows, gone, effects)

    def _statements_sqlite(
        self, dbapi: Any, made: _SqliteStatements, rows: list[dict[str, Any]], gone: list[int], effects: list[_Call]
    ) -> list[int]:
        """The batch's statements on the sqlite3 connection ``dbapi``, in its write transaction,
        compiled once (:class:`~bot.store.batching.SqliteStatement`): the holds' ids."""
        ids = [int(dbapi.execute(made.hold.sql, made.hold.params(row)).lastrowid) for row in rows]
        if gone:
            dbapi.executemany(made.release.sql, [made.release.params({"id": i}) for i in gone])
        now = self.store._now() if effects else None  # one clock reading for the batch's reads
        for call in effects:
            effect = call.effect
            assert effect is not None
            key = {"team_id": effect.team, "user_id": effect.user, "read_at": now}
            marked = set()
            for post in effect.posts:
                if dbapi.execute(made.read.sql, made.read.params({**key, "post_id": post})).fetchall():
                    marked.add(post)
            cancelled = {}
            for post in effect.posts:  # no reminder of a post read; how many, counted for the answer
                params = made.cancel.params({"team": effect.team, "user": effect.user, "post": post})
                cancelled[post] = max(0, int(dbapi.execute(made.cancel.sql, params).rowcount))
            call.marked, call.cancelled = frozenset(marked), cancelled
        return ids

    def _one(self, call: _Call) -> Any:
        """``call`` in a transaction of its own (a failed release is logged: at worst the next start
        answers the request again)."""
        try:
            self._flush([call])
        except Exception:
            if call.row is not None:
                raise
            log.warning("could not release held request %s", call.release, exc_info=True)
        return call.result


def _effects(calls: list[_Call]) -> Iterator[MarkRead]:
    """The :class:`MarkRead` of each of ``calls`` that has one, in order."""
    return (c.effect for c in calls if c.effect is not None)


@dataclass(frozen=True, slots=True)
class _SqliteStatements:
    hold: SqliteStatement
    release: SqliteStatement
    read: SqliteStatement  # :meth:`bot.store.reading.ReadingRepo.mark_read`'s insert, one post a run
    cancel: SqliteStatement  # and its reminders cancelled (``:team``, ``:user``, ``:post``)


_SQLITE: list[_SqliteStatements] = []


def _sqlite_statements(dialect: Any, store: Any) -> _SqliteStatements:
    """The held batcher's statements compiled for SQLite, once."""
    if not _SQLITE:
        read, cancel = store._mark_read_statements()
        hold = insert(HeldRequest)
        _SQLITE.append(
            _SqliteStatements(
                SqliteStatement(hold, dialect, ["tenant_id", "body", "content_type", "received_at"]),
                SqliteStatement(_RELEASE, dialect),
                SqliteStatement(read, dialect, ["team_id", "user_id", "post_id", "read_at"]),
                SqliteStatement(cancel, dialect),
            )
        )
    return _SQLITE[0]
