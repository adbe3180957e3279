"""Group commit for many threads: a flusher thread runs the calls they submit in batches."""

from __future__ import annotations

import json
import logging
import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Iterable
from typing import Any

from sqlalchemy import Engine, String, bindparam, column, func
from sqlalchemy.sql import ClauseElement

log = logging.getLogger(__name__)


def json_rows(name: str, columns: tuple[str, ...]) -> Any:
    """``json_to_recordset(:rows) AS name(col VARCHAR, …)``: a FROM item of the parameter ``rows``,
    a JSON array of objects with those keys (:func:`rows_json`; PostgreSQL). One JSON text costs
    psycopg far less to send than an array parameter per column."""
    from sqlalchemy.dialects import postgresql  # here: a cold CLI command on SQLite never loads the dialect

    typed = [column(c, String) for c in columns]
    rows = bindparam("rows", type_=postgresql.JSON)
    return func.json_to_recordset(rows).table_valued(*typed).render_derived(name=name, with_types=True)


def rows_json(rows: Iterable[dict[str, Any]]) -> str:
    """The ``rows`` parameter of a :func:`json_rows` statement: ``rows`` as one JSON text."""
    return json.dumps(list(rows), separators=(",", ":"))


class DriverConnection:
    """A flusher's own PostgreSQL connection, in autocommit, held for the batcher's life: a batch
    statement is compiled once from SQLAlchemy Core (:meth:`prepare`) and each run of it is one
    round trip through psycopg, a server-side prepared statement, without SQLAlchemy's work per
    execution or a pool check-out (the fan-out profile's largest share of a worker's CPU). Only the
    flusher thread uses it. The connection comes from the engine (its settings and events), is
    detached from the pool, and is closed after any error: the next batch opens another.

    A batch is a few rows joined to tables on their primary or unique keys, but a prepared
    statement's generic plan, made once per connection, assumes 100 rows from ``json_to_recordset``
    and the table sizes of that moment: made while a table still looked small, it scans the whole
    table on every later run (seen in ``make bench-fanout``: 1.3-1.6 ms of PostgreSQL CPU per DM
    instead of 0.6). So the session plans by keys (:data:`PLAN_BY_KEYS`: a LEFT JOIN from the
    batch becomes a nested loop of index lookups), and with ``custom_plans`` (for a table that
    grows as the batches write it: the ledger) plans each run from the table's size then."""

    PLAN_BY_KEYS = ("SET enable_seqscan = off", "SET enable_hashjoin = off", "SET enable_mergejoin = off")
    """The session settings of a batcher's connection: index lookups in nested loops, whatever
    the tables' statistics said when a statement was planned."""

    CUSTOM_PLANS = "SET plan_cache_mode = force_custom_plan"
    """Added with ``custom_plans``: no plan kept from one run to the next."""

    def __init__(self, engine: Engine, *, custom_plans: bool = False):
        self.engine = engine
        self.settings = (*self.PLAN_BY_KEYS, self.CUSTOM_PLANS) if custom_plans else self.PLAN_BY_KEYS
        self._fairy: Any = None
        self._conn: Any = None

    def prepare(self, statement: ClauseElement) -> tuple[str, dict[str, Any]]:
        """``statement`` compiled once for psycopg: its SQL (``%(name)s`` parameters) and the values
        of the parameters it holds itself (its literals)."""
        compiled = statement.compile(dialect=self.engine.dialect)
        return str(compiled), compiled.params

    def rows(
        self, statement: tuple[str, dict[str, Any]] | ClauseElement, params: dict[str, Any] | None = None
    ) -> list[Any]:
        """Run ``statement`` (from :meth:`prepare`, with ``params``; or a Core statement, compiled
        now) and return its rows as named tuples (``[]`` when it returns none). Raises psycopg's
        errors (the connection is then closed)."""
        from psycopg.rows import namedtuple_row

        sql, own = self.prepare(statement) if isinstance(statement, ClauseElement) else statement
        conn = self._connection()
        try:
            with conn.cursor(row_factory=namedtuple_row) as cur:
                cur.execute(sql, {**own, **(params or {})}, prepare=True)
                return cur.fetchall() if cur.description is not None else []
        except BaseException:
            self.close()
            raise

    def _connection(self) -> Any:
        if self._fairy is None:
            fairy = self.engine.raw_connection()
            conn: Any = fairy.dbapi_connection  # psycopg's own connection
            fairy.detach()  # ours until closed: the pool may open another in its place
            if conn.info.transaction_status != 0:  # not idle (psycopg.pq.TransactionStatus.IDLE)
                conn.rollback()
            conn.autocommit = True
            for setting in self.settings:
                conn.execute(setting)
            self._fairy, self._conn = fairy, conn
        return self._conn

    def close(self) -> None:
        """Close the connection (a later :meth:`rows` opens another)."""
        fairy, self._fairy, self._conn = self._fairy, None, None
        if fairy is not None:
            try:
                fairy.close()
            except Exception:  # already broken: nothing to give back
                log.debug("closing a batcher's connection failed", exc_info=True)


class SqliteStatement:
    """A Core ``statement`` compiled once for sqlite3 (``?`` parameters; ``column_keys``: an
    insert's columns), run on the DBAPI connection of a transaction SQLAlchemy began and commits
    (its events and brackets as for any other), without SQLAlchemy's work per execution: a
    batcher's statements cost it ~0.1 ms each that way (``benchmarks/clicks.py``'s held-request
    batcher). Values go through the columns' bind processors for ``dialect`` (the engine's: its
    type implementations, e.g. SQLite's fixed-width datetime text), as SQLAlchemy's would."""

    def __init__(self, statement: ClauseElement, dialect: Any, column_keys: list[str] | None = None):
        compiled: Any = statement.compile(dialect=dialect, column_keys=column_keys)  # an SQLCompiler
        own, binds = compiled.params, compiled.binds
        self.sql = str(compiled)
        self._order = [
            (name, own.get(name), binds[name].type.dialect_impl(dialect).bind_processor(dialect))
            for name in compiled.positiontup or ()
        ]

    def params(self, values: dict[str, Any]) -> tuple[Any, ...]:
        """The positional parameters of ``values`` (by name; a literal of the statement's own when absent)."""
        out = []
        for name, own, process in self._order:
            value = values.get(name, own)
            out.append(value if process is None else process(value))
        return tuple(out)


class Batching(ABC):
    """A flusher thread that runs the calls of many threads in batches, through the subclass's
    :meth:`_flush`, falling back to :meth:`_one` per call when a batch fails (a call the flush
    already answered, its answer committed, is not run again). A call is an object with the
    attributes ``done`` (set here), ``answered``, ``result`` and ``error``.

    Each batch is every call pending when the flusher takes it (at most one per calling thread: a
    caller waits for its answer), and its callers share one ``threading.Event``, set once when the
    batch is done: one wake-up call for the batch instead of an Event set per caller (issue 43's
    fan-out profile had ``Condition.notify`` as a worker's largest leaf)."""

    name = "batcher"
    LINGER_S = 0.5
    """Seconds a call enqueued with ``wake=False`` (:meth:`_enqueue`) may wait for another's batch
    before the flusher writes it on its own (at most twice that: an idle flusher looks every
    ``LINGER_S``, so that such a call needs no wake-up of its own)."""
    LINGERS = False
    """Whether calls are ever enqueued with ``wake=False`` (the idle flusher then looks every :data:`LINGER_S`)."""

    def __init__(self, driver: DriverConnection | None = None):
        self.driver = driver  # PostgreSQL: the flusher's own connection, closed with the batcher
        self._cond = threading.Condition()
        self._pending: list[Any] = []
        self._waking = False  # a pending call wants its batch now (else they may linger)
        self._lingering_since = 0.0  # time.monotonic() when the oldest lingering call came
        self._round = threading.Event()  # the ``done`` of the calls now pending
        self._closed = False
        self._flushing = False  # a batch is being written (by the flusher or a leading caller)
        self.batches = 0  # transactions committed (a gauge for operators and benchmarks)
        self.calls = 0
        self._thread = threading.Thread(target=self._run, name=self.name, daemon=True)
        self._thread.start()

    def close(self) -> None:
        """Flush what is pending, stop the flusher thread and close its connection."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=30)
        if self.driver is not None:
            self.driver.close()

    def _enqueue(self, call: Any, wake: bool = True) -> None:
        """Add ``call`` to the next batch (its ``done``: that batch's Event). RuntimeError when closed.
        ``wake=False``: no batch is started for it; it goes with the next call's that wakes the
        flusher, or on its own after :data:`LINGER_S` (or at :meth:`close`) — for a call nobody
        waits for (a held request's release: one commit a click instead of two when clicks come one
        at a time, ``benchmarks/clicks.py``)."""
        with self._cond:
            if self._closed:
                raise RuntimeError(f"the {self.name} is closed")
            call.done = self._round
            if not self._pending:
                self._lingering_since = time.monotonic()
            self._pending.append(call)
            if wake:
                self._waking = True
                self._cond.notify_all()  # the flusher, not only a caller waiting to lead (:meth:`_lead`)

    def _submit(self, call: Any) -> Any:
        self._enqueue(call)
        call.done.wait()
        if call.error is not None:
            raise call.error
        return call.result

    def _lead(self, call: Any) -> None:
        """Write the batch holding ``call`` (enqueued with ``wake=False``) in this thread: the caller
        that waits for its answer leads its batch's commit instead of handing it to the flusher and
        back (two thread hand-offs a call; issue 43's *Mark read* click, ``benchmarks/clicks.py``).
        While another batch is being written it waits for that one; when that batch took ``call``
        (or the flusher took it meanwhile) it returns and the caller waits for ``call.done``. Calls
        that come while this one writes go in the next batch, written by the flusher."""
        with self._cond:
            while self._flushing and call.done is self._round:
                self._cond.wait(self.LINGER_S)  # told at the batch's end; the timeout only a safety net
            if call.done is not self._round or not self._pending:
                return  # taken by another batch: its ``done`` tells
            batch, self._pending, self._waking = self._pending, [], False
            done, self._round = self._round, threading.Event()
            self._flushing = True
        self._write(batch, done)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._closed and (self._flushing or not self._waking):
                    if self._flushing or not self._pending:
                        self._cond.wait(self.LINGER_S if self.LINGERS else None)
                        continue
                    left = self._lingering_since + self.LINGER_S - time.monotonic()
                    if left <= 0:
                        break
                    self._cond.wait(left)
                while self._flushing:  # closed while a caller leads a batch: after it
                    self._cond.wait()
                if not self._pending:
                    if self._closed:
                        return
                    continue  # a caller led the batch it was woken for
                batch, self._pending, self._waking = self._pending, [], False
                done, self._round = self._round, threading.Event()
                self._flushing = True
            self._write(batch, done)

    def _write(self, batch: list[Any], done: threading.Event) -> None:
        """Write ``batch`` (taken from the pending calls, ``_flushing`` set) and set its ``done``."""
        try:
            self._flush(batch)
            self.batches += 1
            self.calls += len(batch)
        except Exception:
            log.warning("a batch of %d (%s) failed; running its calls one by one", len(batch), self.name, exc_info=True)
            for call in batch:
                if call.answered:
                    continue
                try:
                    call.result = self._one(call)
                except BaseException as exc:
                    call.error = exc
        finally:
            with self._cond:
                self._flushing = False
                if self._waking or self._pending or self._closed:
                    self._cond.notify_all()  # the flusher (calls came, or closing), callers waiting to lead
            done.set()

    @abstractmethod
    def _flush(self, batch: list[Any]) -> None:
        """Run ``batch`` (pending calls), setting each call's ``result`` (and ``answered`` once it
        is committed: a failure later in the batch does not run it again)."""

    @abstractmethod
    def _one(self, call: Any) -> Any:
        """Run one call on its own (the fallback when its batch failed) and return its answer."""
