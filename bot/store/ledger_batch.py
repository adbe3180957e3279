"""Delivery-ledger bookkeeping in batches: the claims, renewals and marks of a worker's sending
threads run in batches (group commit, :class:`bot.store.batching.Batching`).

Each row gets the statement :mod:`bot.store.ledger` uses for it alone, in workspace order, so each
stays exactly-once and each caller learns whether *its* row changed. On PostgreSQL each kind of
change is one statement of a fixed shape (the keys as one JSON parameter), run on the flusher's own
connection (:class:`~bot.store.batching.DriverConnection`) and committed on its own (autocommit:
one round trip, no ``BEGIN``/``COMMIT``; every answer is its own row's, so nothing joins the
statements), and its callers are answered as soon as it returns; SQLite writes
row by row in the batch's transaction. The calls not yet answered when a batch fails run again
call by call through the :class:`Store`. A thread with a batch of its own (a queue message's
DMs, :mod:`bot.digest.dm_batch`) runs the same statements itself on a connection of a small
:class:`DriverPool` (:meth:`BatchedLedgerStore.claim_many`, :meth:`~BatchedLedgerStore.mark_many`,
:meth:`~BatchedLedgerStore.dm_reads_many`): no flusher thread, no hand-off. Times are aware UTC;
durations seconds.

A speed layer that does not change what is delivered (each row keeps its own exactly-once
statement); needed by ``benchmarks/fanout_queue.py`` (4 workers, 200 workspaces at 2.5 posts a
second = 500/s allowed, target rate ratio >= 0.90): 0.54 with the ledger calls one by one, 0.44
with the DM reads unbatched too (docs/benchmarks.md, "Speed layers and the benchmarks that need them").
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Any, cast

from sqlalchemy import String, Table, bindparam, literal, select, update
from sqlalchemy.dialects import postgresql, sqlite

from bot.store import Delivery, Store, db
from bot.store.batching import Batching, DriverConnection, json_rows, rows_json
from bot.store.dm_reads import DmReadBatcher, DmReads, PrefetchedDmReads
from bot.store.ledger import KEY_COLUMNS, Key, LedgerRepo, mark_values, new_row, settle, takeover
from bot.store.models import DigestDelivery

log = logging.getLogger(__name__)

_TABLE: Table = DigestDelivery
_KEY_COLUMNS = (*KEY_COLUMNS, "claimed_by")


@dataclass
class _Call:
    kind: str  # 'claim' | 'renew' | 'sent' | 'skipped'
    key: Key
    claimed_by: str
    args: dict[str, Any]
    done: threading.Event | None = None  # its batch's (:meth:`Batching._enqueue`)
    answered: bool = False
    result: Any = None
    error: BaseException | None = None

    def extra(self) -> str | None:
        """What a mark sets besides its time: a sent mark's message ts, a skipped one's ``error``."""
        if self.kind == "sent":
            return cast(str | None, self.args["message_ts"])
        if self.kind == "skipped":
            return (LedgerRepo.SKIPPED_PREFIX + str(self.args["reason"]))[:1000]
        return None


class LedgerBatcher(Batching):
    """Runs ledger calls of many threads as batches; thread-safe. ``clock``: aware UTC now.
    :meth:`close` flushes and stops the flusher."""

    name = "ledger-batcher"

    def __init__(self, store: Store, *, clock: Callable[[], datetime] = db.utcnow):
        self.store = store
        self._clock = clock
        self._dialect = store.engine.dialect.name
        driver = DriverConnection(store.engine, custom_plans=True) if self._dialect == "postgresql" else None
        if driver is not None:
            self._pg_claim = driver.prepare(_pg_claim_statement())
            self._pg_marks = {kind: driver.prepare(_pg_mark_statement(kind)) for kind in ("renew", "sent", "skipped")}
        self._answer_early = self._dialect == "postgresql"  # each statement commits on its own
        super().__init__(driver)

    def run(self, kind: str, key: Key, claimed_by: str, **args: Any) -> Any:
        """Run a call of ``kind`` in the next batch and return, once it committed, what the
        :class:`Store` method would: ``'claim'`` (``stale_after_s``, ``max_attempts``) the claimed
        row as a :class:`Delivery` or None; ``'renew'``, ``'sent'`` (``message_ts``) and
        ``'skipped'`` (``reason``) whether the claim was settled."""
        return self._submit(_Call(kind, key, claimed_by, args))

    def _flush(self, batch: list[_Call]) -> None:
        batch.sort(key=lambda c: c.key)  # workspace order: the same lock order in every process
        now = self._clock()
        if self.driver is not None:  # PostgreSQL
            self._run_batch(self.driver.rows, batch, now)
            return
        with db.write_connection(self.store.engine) as s:
            self._run_batch(lambda stmt, params=None: list(s.execute(stmt, params)), batch, now)

    def _run_batch(self, rows: Callable[..., list[Any]], batch: list[_Call], now: datetime) -> None:
        """The claims, then each kind of mark, through ``rows(statement, params)``."""
        claims = [c for c in batch if c.kind == "claim"]
        if claims:
            self._claims(rows, claims, now)
        for kind in ("renew", "sent", "skipped"):
            calls = [c for c in batch if c.kind == kind]
            if calls:
                self._marks(rows, kind, calls, now)

    def _answer(self, call: _Call, result: Any) -> None:
        """Set ``call``'s answer; on PostgreSQL (its statement committed) it is final."""
        call.result = result
        call.answered = self._answer_early

    def _claims(self, rows: Callable[..., list[Any]], claims: list[_Call], now: datetime) -> None:
        """One INSERT … ON CONFLICT DO NOTHING for the claims; a key that had a row tries a take-over."""
        first = {c.key: c for c in reversed(claims)}  # the first claimant of a key in the batch
        if self._dialect == "postgresql":
            result = rows(self._pg_claim, {"rows": _rows(first.values()), "now": now})
        else:
            new = [new_row(c.key, c.claimed_by, now, status="claimed", attempts=1) for c in first.values()]
            result = rows(sqlite.insert(_TABLE).values(new).on_conflict_do_nothing().returning(*_RETURNED))
        inserted = {(r.team_id, r.destination, r.track_id, r.period): r.id for r in result}
        later = []
        for call in claims:
            row_id = inserted.pop(call.key, None) if first.get(call.key) is call else None
            if row_id is None:
                later.append(call)
                continue
            self._answer(call, _claimed(row_id, call, now, 1))
        for call in later:
            stmt = takeover(call.key, call.claimed_by, now, call.args["stale_after_s"], call.args["max_attempts"])
            row = next(iter(rows(stmt.returning(DigestDelivery.c.id, DigestDelivery.c.attempts))), None)
            self._answer(call, None if row is None else _claimed(row.id, call, now, row.attempts))

    def _marks(self, rows: Callable[..., list[Any]], kind: str, calls: list[_Call], now: datetime) -> None:
        """One UPDATE … FROM json_to_recordset(…) RETURNING for the calls of one ``kind``, each row only while
        claimed by that call's claimant (SQLite: one UPDATE … RETURNING per call)."""
        if self._dialect != "postgresql":
            for c in calls:
                stmt = settle(c.key, c.claimed_by, **mark_values(kind, now, c.extra()))
                c.result = len(rows(stmt.returning(_TABLE.c.id))) == 1
            return
        params = {"rows": _rows(calls, extra=True), "now": now}
        done = {tuple(r) for r in rows(self._pg_marks[kind], params)}
        for c in calls:
            self._answer(c, (*c.key, c.claimed_by) in done)

    def run_here(self, calls: list[_Call], driver: DriverConnection | None) -> None:
        """Run ``calls`` as one batch in the calling thread (each call's ``result`` as :meth:`run`
        returns it): on ``driver`` (PostgreSQL, a connection only this thread uses meanwhile), else
        in one SQLite transaction. When the batch fails, the calls it did not answer run one by one
        through the store; their errors are raised."""
        calls.sort(key=lambda c: c.key)  # workspace order: the same lock order in every process
        now = self._clock()
        try:
            if driver is not None:
                self._run_batch(driver.rows, calls, now)
            else:
                with db.write_connection(self.store.engine) as s:
                    self._run_batch(lambda stmt, params=None: list(s.execute(stmt, params)), calls, now)
                for call in calls:
                    call.answered = True
        except Exception:
            log.warning("a batch of %d ledger calls failed; running them one by one", len(calls), exc_info=True)
            for call in calls:
                if not call.answered:
                    call.result = self._one(call)

    def _one(self, call: _Call) -> Any:
        store, key = self.store, call.key
        if call.kind == "claim":
            return store.delivery(*key) if store.claim_delivery(*key, claimed_by=call.claimed_by, **call.args) else None
        if call.kind == "renew":
            return store.renew_claim(*key, claimed_by=call.claimed_by)
        if call.kind == "sent":
            return store.mark_sent(*key, message_ts=call.args["message_ts"], claimed_by=call.claimed_by)
        return store.mark_skipped(*key, reason=call.args["reason"], claimed_by=call.claimed_by)


_RETURNED = (_TABLE.c.id, _TABLE.c.team_id, _TABLE.c.destination, _TABLE.c.track_id, _TABLE.c.period)


def _rows(calls: Iterable[_Call], extra: bool = False) -> str:
    """The ``rows`` parameter of the batch statements: per call its key and claimant (``team_id`` …
    ``claimed_by``) and, with ``extra``, :meth:`_Call.extra`."""
    return rows_json(
        dict(zip(_KEY_COLUMNS, (*c.key, c.claimed_by), strict=True)) | ({"extra": c.extra()} if extra else {})
        for c in calls
    )


def _pg_claim_statement() -> Any:
    """INSERT the claims from :func:`_rows` and ``now``, skipping keys that have a row; RETURNING them."""
    batch = json_rows("batch", _KEY_COLUMNS)
    columns = {name: batch.c[name] for name in _KEY_COLUMNS} | {
        "status": literal("claimed", String),
        "claimed_at": bindparam("now", type_=db.UTCDateTime()),
        "attempts": literal(1),
    }
    return (
        postgresql.insert(_TABLE)
        .from_select(list(columns), select(*columns.values()))
        .on_conflict_do_nothing()
        .returning(*_RETURNED)
    )


def _pg_mark_statement(kind: str) -> Any:
    """The UPDATE of the marks of ``kind`` from :func:`_rows` (with their extras) and
    ``now``, each row only while claimed by that claimant; RETURNING the keys and claimants changed."""
    batch = json_rows("batch", (*_KEY_COLUMNS, "extra"))
    now = bindparam("now", type_=db.UTCDateTime())
    return (
        update(_TABLE)
        .where(*(_TABLE.c[name] == batch.c[name] for name in _KEY_COLUMNS), _TABLE.c.status == "claimed")
        .values(**mark_values(kind, now, batch.c.extra))
        .returning(*(_TABLE.c[name] for name in _KEY_COLUMNS))
    )


def _claimed(row_id: int, call: _Call, now: datetime, attempts: int) -> Delivery:
    row = new_row(call.key, call.claimed_by, now, status="claimed", attempts=attempts)
    return Delivery(id=row_id, **row, sent_at=None, message_ts=None, error=None)


class DriverPool:
    """Up to ``size`` :class:`DriverConnection` s (opened on first use, kept) lent to the threads
    that run their own batches (:meth:`BatchedLedgerStore.claim_many` and the like): a thread
    holds one for a statement, so no flusher thread and no hand-off between threads is needed.
    ``custom_plans``: as :class:`DriverConnection`'s. Thread-safe; :meth:`close` closes them all."""

    def __init__(self, engine: Any, size: int = 4, *, custom_plans: bool = False):
        self.engine = engine
        self.size = size
        self.custom_plans = custom_plans
        self._free: list[DriverConnection] = []
        self._opened = 0
        self._closed = False
        self._cond = threading.Condition()

    @contextmanager
    def connection(self) -> Iterator[DriverConnection]:
        """A connection for the calling thread alone until the block ends (waits while all are lent)."""
        with self._cond:
            while not self._free and self._opened >= self.size:
                self._cond.wait()
            if self._free:
                driver = self._free.pop()
            else:
                driver = DriverConnection(self.engine, custom_plans=self.custom_plans)
                self._opened += 1
        try:
            yield driver
        finally:
            with self._cond:
                closed = self._closed
                if not closed:
                    self._free.append(driver)
                self._cond.notify()
            if closed:
                driver.close()

    def close(self) -> None:
        """Close the connections not lent out (a lent one is closed as it comes back)."""
        with self._cond:
            self._closed = True
            free, self._free = self._free, []
        for driver in free:
            driver.close()


class BatchedLedgerStore(PrefetchedDmReads):
    """A :class:`Store` whose claims, renewals, and marks ``sent`` and ``skipped`` with a
    ``claimed_by`` go through a :class:`LedgerBatcher`; ``delivery`` answers first from the
    claim this process just made; DM reads as :class:`PrefetchedDmReads`; all else is the store's."""

    def __init__(self, store: Store, batcher: LedgerBatcher | None = None, reads: DmReadBatcher | None = None):
        self._store = store
        self.batcher = batcher or LedgerBatcher(store)
        self.reads = reads or DmReadBatcher(store)
        self._claims: dict[Key, Delivery] = {}
        self._claims_lock = threading.Lock()
        self._local = threading.local()
        postgres = store.engine.dialect.name == "postgresql"
        self._read_pool = DriverPool(store.engine) if postgres else None
        self._ledger_pool = DriverPool(store.engine, custom_plans=True) if postgres else None

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    @contextmanager
    def _driver(self, pool: DriverPool | None) -> Iterator[DriverConnection | None]:
        if pool is None:
            yield None
        else:
            with pool.connection() as driver:
                yield driver

    def dm_reads_many(self, people: list[tuple[str, str]]) -> dict[tuple[str, str], DmReads]:
        """``people``'s :class:`DmReads` by (team, user), one statement in the calling thread
        (PostgreSQL; SQLite: the store's reads). Raises the database's errors."""
        with self._driver(self._read_pool) as driver:
            return self.reads.read_many(people, driver)

    def claim_many(
        self, keys: list[Key], claimed_by: str, stale_after_s: float, max_attempts: int
    ) -> dict[Key, Delivery]:
        """Claim each of ``keys`` as :meth:`claim_delivery` would, in one batch run by the calling
        thread; the claimed ones' rows by key (a key missing: not claimed). Raises the database's errors."""
        if stale_after_s < 0:
            raise ValueError(f"stale_after_s must be >= 0, got {stale_after_s!r}")
        args = {"stale_after_s": stale_after_s, "max_attempts": max_attempts}
        calls = [_Call("claim", key, claimed_by, args) for key in dict.fromkeys(keys)]
        with self._driver(self._ledger_pool) as driver:
            self.batcher.run_here(calls, driver)
        return {c.key: c.result for c in calls if c.result is not None}

    def mark_many(self, kind: str, marks: list[tuple[Key, Any]], claimed_by: str) -> set[Key]:
        """Settle ``claimed_by``'s claims in one batch run by the calling thread: ``kind`` ``'sent'``
        (each mark's value: the message ts), ``'skipped'`` (the reason) or ``'renew'`` (None), as
        :meth:`mark_sent`, :meth:`mark_skipped` and :meth:`renew_claim` would; the keys changed."""
        name = {"sent": "message_ts", "skipped": "reason", "renew": "unused"}[kind]
        calls = [_Call(kind, key, claimed_by, {name: value}) for key, value in marks]
        if not calls:
            return set()
        for call in calls:
            self._forget(call.key)
        with self._driver(self._ledger_pool) as driver:
            self.batcher.run_here(calls, driver)
        return {c.key for c in calls if c.result}

    def claim_delivery(
        self,
        team: str,
        destination: str,
        track: str,
        period: str,
        claimed_by: str,
        stale_after_s: float = 600,
        max_attempts: int = 3,
    ) -> bool:
        """See :meth:`Store.claim_delivery` (batched)."""
        if stale_after_s < 0:
            raise ValueError(f"stale_after_s must be >= 0, got {stale_after_s!r}")
        key = (team, destination, track, period)
        row = self.batcher.run("claim", key, claimed_by, stale_after_s=stale_after_s, max_attempts=max_attempts)
        if row is None:
            return False
        with self._claims_lock:
            self._claims[key] = row
        return True

    def delivery(self, team: str, destination: str, track: str, period: str) -> Delivery | None:
        """The ledger row: the one this process just claimed (taken once), else the database's."""
        with self._claims_lock:
            row = self._claims.pop((team, destination, track, period), None)
        return row if row is not None else self._store.delivery(team, destination, track, period)

    def renew_claim(self, team: str, destination: str, track: str, period: str, claimed_by: str) -> bool:
        """See :meth:`Store.renew_claim` (batched)."""
        return bool(self.batcher.run("renew", (team, destination, track, period), claimed_by))

    def mark_sent(
        self,
        team: str,
        destination: str,
        track: str,
        period: str,
        message_ts: str | None = None,
        *,
        claimed_by: str | None = None,
    ) -> bool:
        """See :meth:`Store.mark_sent` (batched with a claimant)."""
        key = (team, destination, track, period)
        self._forget(key)
        if claimed_by is None:
            return self._store.mark_sent(*key, message_ts)
        return bool(self.batcher.run("sent", key, claimed_by, message_ts=message_ts))

    def mark_skipped(
        self, team: str, destination: str, track: str, period: str, reason: str, *, claimed_by: str | None = None
    ) -> bool:
        """See :meth:`Store.mark_skipped` (batched with a claimant)."""
        key = (team, destination, track, period)
        self._forget(key)
        if claimed_by is None:
            return self._store.mark_skipped(*key, reason)
        return bool(self.batcher.run("skipped", key, claimed_by, reason=reason))

    def mark_failed(self, team: str, destination: str, track: str, period: str, *args: Any, **kwargs: Any) -> bool:
        """See :meth:`Store.mark_failed` (not batched: failures are rare)."""
        self._forget((team, destination, track, period))
        return self._store.mark_failed(team, destination, track, period, *args, **kwargs)

    def mark_refused(self, team: str, destination: str, track: str, period: str, *args: Any, **kwargs: Any) -> bool:
        """See :meth:`Store.mark_refused` (not batched)."""
        self._forget((team, destination, track, period))
        return self._store.mark_refused(team, destination, track, period, *args, **kwargs)

    def _forget(self, key: Key) -> None:
        with self._claims_lock:
            self._claims.pop(key, None)

    def close(self) -> None:
        """Stop the batchers and close the pools' connections (the store itself is closed by its owner)."""
        self.batcher.close()
        self.reads.close()
        for pool in (self._read_pool, self._ledger_pool):
            if pool is not None:
                pool.close()
