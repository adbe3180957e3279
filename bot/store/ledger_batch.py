"""Delivery-ledger bookkeeping in batches: many claims and "sent" marks, one transaction.

(The gathering and fallback machinery is :class:`bot.store.batching.Batching`; the batched
reads of a DM are :mod:`bot.store.dm_reads`. Kept because the queue benchmark needs it:
``docs/benchmarks.md``, "Stop 23: speed layers measured".)

A worker sending hundreds of digests a second would spend most of its time committing one
short transaction per claim, renewal and "sent" mark (:class:`bot.store.Store`'s ledger methods).
:class:`LedgerBatcher` collects those calls from all the sending threads of a process and runs
whatever is pending as **one transaction per batch** (group commit): the rows are written in
workspace order (team, destination), each row with the very statement the :class:`Store` uses
for it alone — the INSERT … ON CONFLICT DO NOTHING of a claim (one multi-row INSERT for all the
claims of a batch), the conditional UPDATE of a take-over, a renewal or a mark — so each row is
still individually exactly-once: a caller learns whether *its* row was claimed or marked. The
batch grows with the load by itself (while one batch commits, the next one gathers), so a lone
call waits for no timer.

On PostgreSQL each kind of change is **one statement of a fixed shape** whatever the batch size:
the batch's keys travel as array parameters and ``unnest(...)`` turns them back into rows
(``INSERT … SELECT … FROM unnest(…) ON CONFLICT DO NOTHING RETURNING``, ``UPDATE … FROM
unnest(…) … RETURNING``), so SQLAlchemy compiles each statement once per process (its compiled
cache) instead of once per batch, as a multi-row ``VALUES`` of a new length would need. SQLite
(tests, one process) writes row by row inside the batch's transaction.

If a batch's transaction fails (a lost connection, a deadlock between processes), its calls are
run again one by one through the :class:`Store`, each in its own transaction, and each caller
gets its own answer or exception.

**Reads, batched too** (:mod:`bot.store.dm_reads`): what a DM send reads about its person,
for all the sending threads at once, one read transaction and one statement per batch instead
of two transactions and five statements per DM.

:class:`BatchedLedgerStore` is a :class:`Store` whose ledger methods go through a batcher and
which delegates everything else; :class:`bot.digest.deliver.Deliverer` uses it unchanged.

Times are aware UTC datetimes; durations seconds.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any, cast

from sqlalchemy import String, Table, and_, bindparam, literal, or_, select, update
from sqlalchemy.dialects import postgresql, sqlite

from bot.store import Delivery, Store, db
from bot.store.batching import Batching, unnest_rows
from bot.store.dm_reads import DmReadBatcher, DmReads, PrefetchedDmReads
from bot.store.models import DigestDelivery

log = logging.getLogger(__name__)

Key = tuple[str, str, str, str]
"""A ledger key: (team, destination, track or ``'*'``, ISO week)."""

SKIPPED_PREFIX = Store.SKIPPED_PREFIX


@dataclass
class _Call:
    kind: str  # 'claim' | 'renew' | 'sent' | 'skipped'
    key: Key
    claimed_by: str
    args: dict[str, Any]
    done: threading.Event = field(default_factory=threading.Event)
    result: Any = None
    error: BaseException | None = None


class LedgerBatcher(Batching):
    """Runs ledger calls of many threads as batches (see the module docstring); thread-safe.

    ``store``: the :class:`Store` whose engine and ledger table are written; ``max_batch``:
    calls per transaction at most; ``clock``: aware UTC now. :meth:`close` stops the flusher
    (pending calls are flushed first).
    """

    name = "ledger-batcher"

    def __init__(self, store: Store, *, max_batch: int = 500, clock: Callable[[], datetime] = db.utcnow):
        self.store = store
        self._clock = clock
        self._dialect = store.engine.dialect.name
        if self._dialect == "postgresql":
            self._pg_claim = _pg_claim_statement()
            self._pg_marks = {kind: _pg_mark_statement(kind) for kind in ("renew", "sent", "skipped")}
        super().__init__(max_batch)

    # -- the calls (each blocks until its batch committed) --

    def claim(self, key: Key, claimed_by: str, stale_after_s: float, max_attempts: int) -> Any:
        """Like :meth:`Store.claim_delivery`; returns the claimed row as a :class:`Delivery`,
        or None when another claimant holds or finished the key."""
        if stale_after_s < 0:
            raise ValueError(f"stale_after_s must be >= 0, got {stale_after_s!r}")
        return self._submit(
            _Call("claim", key, claimed_by, {"stale_after_s": stale_after_s, "max_attempts": max_attempts})
        )

    def renew(self, key: Key, claimed_by: str) -> bool:
        """Like :meth:`Store.renew_claim`."""
        return bool(self._submit(_Call("renew", key, claimed_by, {})))

    def mark_sent(self, key: Key, claimed_by: str, message_ts: str | None) -> bool:
        """Like :meth:`Store.mark_sent` without a subscription."""
        return bool(self._submit(_Call("sent", key, claimed_by, {"message_ts": message_ts})))

    def mark_skipped(self, key: Key, claimed_by: str, reason: str) -> bool:
        """Like :meth:`Store.mark_skipped`."""
        return bool(self._submit(_Call("skipped", key, claimed_by, {"reason": reason})))

    # -- the flusher --

    def _flush(self, batch: list[_Call]) -> None:
        batch.sort(key=lambda c: c.key)  # workspace order: the same lock order in every process
        now = self._clock()
        with db.write_session(self.store.engine) as s:
            claims = [c for c in batch if c.kind == "claim"]
            if claims:
                self._claims(s, claims, now)
            for kind in ("renew", "sent", "skipped"):
                calls = [c for c in batch if c.kind == kind]
                if calls:
                    self._marks(s, kind, calls, now)

    def _claims(self, s: Any, claims: list[_Call], now: datetime) -> None:
        """One INSERT … ON CONFLICT DO NOTHING for the batch's claims; a key that already had a
        row is tried as a take-over (its own conditional UPDATE)."""
        first = {c.key: c for c in reversed(claims)}  # the first claimant of a key in the batch
        if self._dialect == "postgresql":
            firsts = list(first.values())
            result = s.execute(
                self._pg_claim,
                {
                    "team_ids": [c.key[0] for c in firsts],
                    "destinations": [c.key[1] for c in firsts],
                    "track_ids": [c.key[2] for c in firsts],
                    "periods": [c.key[3] for c in firsts],
                    "claimed_bys": [c.claimed_by for c in firsts],
                    "now": now,
                },
            )
        else:
            rows = [
                {
                    "team_id": c.key[0],
                    "destination": c.key[1],
                    "track_id": c.key[2],
                    "period": c.key[3],
                    "status": "claimed",
                    "claimed_at": now,
                    "claimed_by": c.claimed_by,
                    "attempts": 1,
                }
                for c in first.values()
            ]
            result = s.execute(
                sqlite.insert(DigestDelivery)
                .values(rows)
                .on_conflict_do_nothing()
                .returning(
                    DigestDelivery.id,
                    DigestDelivery.team_id,
                    DigestDelivery.destination,
                    DigestDelivery.track_id,
                    DigestDelivery.period,
                )
            )
        inserted = {(r.team_id, r.destination, r.track_id, r.period): r.id for r in result}
        for call in claims:
            row_id = inserted.pop(call.key, None) if first.get(call.key) is call else None
            if row_id is not None:
                call.result = _claimed(row_id, call, now, 1)
                continue
            stale = now - timedelta(seconds=call.args["stale_after_s"])
            takeover = (
                update(DigestDelivery)
                .where(
                    _key(call.key),
                    or_(
                        and_(DigestDelivery.status == "claimed", DigestDelivery.claimed_at < stale),
                        and_(DigestDelivery.status == "failed", DigestDelivery.attempts < call.args["max_attempts"]),
                    ),
                )
                .values(
                    status="claimed", claimed_at=now, claimed_by=call.claimed_by, attempts=DigestDelivery.attempts + 1
                )
                .returning(DigestDelivery.id, DigestDelivery.attempts)
            )
            row = s.execute(takeover).first()
            call.result = None if row is None else _claimed(row.id, call, now, row.attempts)

    def _marks(self, s: Any, kind: str, calls: list[_Call], now: datetime) -> None:
        """One UPDATE … FROM unnest(…) RETURNING for the batch's calls of one ``kind``: each row
        changes only while it is ``'claimed'`` by that call's claimant, and the RETURNING tells
        each call whether its row did."""
        if self._dialect != "postgresql":  # SQLite: no UPDATE … FROM unnest;
            for c in calls:  # in-process statements cost little, the commit counts
                c.result = self._mark_one(s, kind, c, now)
            return
        extras: list[str | None] = []
        for c in calls:
            extra: str | None = None
            if kind == "sent":
                extra = c.args["message_ts"]
            elif kind == "skipped":
                extra = (SKIPPED_PREFIX + str(c.args["reason"]))[:1000]
            extras.append(extra)
        rows = s.execute(
            self._pg_marks[kind],
            {
                "team_ids": [c.key[0] for c in calls],
                "destinations": [c.key[1] for c in calls],
                "track_ids": [c.key[2] for c in calls],
                "periods": [c.key[3] for c in calls],
                "claimed_bys": [c.claimed_by for c in calls],
                "extras": extras,
                "now": now,
            },
        )
        done = {(r.team_id, r.destination, r.track_id, r.period, r.claimed_by) for r in rows}
        for c in calls:
            c.result = (*c.key, c.claimed_by) in done

    def _mark_one(self, s: Any, kind: str, call: _Call, now: datetime) -> bool:
        if kind == "renew":
            changes: dict[str, Any] = {"claimed_at": now}
        elif kind == "sent":
            changes = {"status": "sent", "sent_at": now, "message_ts": call.args["message_ts"]}
        else:
            changes = {
                "status": "sent",
                "sent_at": now,
                "message_ts": None,
                "error": (SKIPPED_PREFIX + str(call.args["reason"]))[:1000],
            }
        stmt = (
            update(DigestDelivery)
            .where(_key(call.key), DigestDelivery.status == "claimed", DigestDelivery.claimed_by == call.claimed_by)
            .values(**changes)
            .execution_options(synchronize_session=False)
        )
        return bool(s.execute(stmt).rowcount == 1)

    def _one(self, call: _Call) -> None:
        store, key = self.store, call.key
        try:
            if call.kind == "claim":
                ok = store.claim_delivery(*key, claimed_by=call.claimed_by, **call.args)
                call.result = store.delivery(*key) if ok else None
            elif call.kind == "renew":
                call.result = store.renew_claim(*key, claimed_by=call.claimed_by)
            elif call.kind == "sent":
                call.result = store.mark_sent(*key, message_ts=call.args["message_ts"], claimed_by=call.claimed_by)
            else:
                call.result = store.mark_skipped(*key, reason=call.args["reason"], claimed_by=call.claimed_by)
        except BaseException as exc:
            call.error = exc


_KEY_COLUMNS = ("team_id", "destination", "track_id", "period", "claimed_by")


def _pg_claim_statement() -> Any:
    """INSERT the claims of a batch from ``unnest`` of its array parameters (``team_ids``,
    ``destinations``, ``track_ids``, ``periods``, ``claimed_bys``; ``now``), skipping keys that
    have a row; RETURNING the rows inserted."""
    batch = unnest_rows("batch", _KEY_COLUMNS)
    t = cast(Table, DigestDelivery.__table__)
    rows = select(
        batch.c.team_id,
        batch.c.destination,
        batch.c.track_id,
        batch.c.period,
        literal("claimed", String),
        bindparam("now", type_=db.UTCDateTime()),
        batch.c.claimed_by,
        literal(1),
    )
    return (
        postgresql.insert(t)
        .from_select(
            ["team_id", "destination", "track_id", "period", "status", "claimed_at", "claimed_by", "attempts"], rows
        )
        .on_conflict_do_nothing()
        .returning(t.c.id, t.c.team_id, t.c.destination, t.c.track_id, t.c.period)
    )


def _pg_mark_statement(kind: str) -> Any:
    """The UPDATE of a batch's marks of ``kind`` (``'renew'`` | ``'sent'`` | ``'skipped'``)
    from ``unnest`` of its array parameters (the key columns and ``extras``: the message ts of
    a sent mark, the reason of a skipped one); each row only while claimed by that claimant.
    RETURNING the keys and claimants of the rows changed."""
    batch = unnest_rows("batch", (*_KEY_COLUMNS, "extra"))
    t = cast(Table, DigestDelivery.__table__)
    now = bindparam("now", type_=db.UTCDateTime())
    if kind == "renew":
        changes: dict[str, Any] = {"claimed_at": now}
    elif kind == "sent":
        changes = {"status": "sent", "sent_at": now, "message_ts": batch.c.extra}
    else:
        changes = {"status": "sent", "sent_at": now, "message_ts": None, "error": batch.c.extra}
    return (
        update(t)
        .where(
            t.c.team_id == batch.c.team_id,
            t.c.destination == batch.c.destination,
            t.c.track_id == batch.c.track_id,
            t.c.period == batch.c.period,
            t.c.status == "claimed",
            t.c.claimed_by == batch.c.claimed_by,
        )
        .values(**changes)
        .returning(t.c.team_id, t.c.destination, t.c.track_id, t.c.period, t.c.claimed_by)
    )


def _key(key: Key) -> Any:
    return and_(
        DigestDelivery.team_id == key[0],
        DigestDelivery.destination == key[1],
        DigestDelivery.track_id == key[2],
        DigestDelivery.period == key[3],
    )


def _claimed(row_id: int, call: _Call, now: datetime, attempts: int) -> Delivery:
    team, destination, track, period = call.key
    return Delivery(
        id=row_id,
        team_id=team,
        destination=destination,
        track_id=track,
        period=period,
        status="claimed",
        claimed_at=now,
        claimed_by=call.claimed_by,
        attempts=attempts,
        sent_at=None,
        message_ts=None,
        error=None,
    )


class BatchedLedgerStore(PrefetchedDmReads):
    """A :class:`Store` whose ledger calls go through a :class:`LedgerBatcher`.

    ``claim_delivery``, ``renew_claim``, ``mark_sent`` (without a subscription) and
    ``mark_skipped`` are batched (a call with ``claimed_by`` unset goes to the store directly);
    ``delivery`` answers from the claim this process just made (the attempt count a sender needs
    to know whether it took over), else from the database; ``get_dm`` reads a person's DM
    settings, language, budget, follows and read posts through a :class:`DmReadBatcher`
    (batched with the other sending threads; :class:`PrefetchedDmReads`). Every other attribute
    is the store's.
    """

    def __init__(self, store: Store, batcher: LedgerBatcher | None = None, reads: DmReadBatcher | None = None):
        self._store = store
        self.batcher = batcher or LedgerBatcher(store)
        self.reads = reads or DmReadBatcher(store)
        self._claims: dict[Key, Delivery] = {}
        self._claims_lock = threading.Lock()
        self._local = threading.local()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

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
        key = (team, destination, track, period)
        row = self.batcher.claim(key, claimed_by, stale_after_s, max_attempts)
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
        return self.batcher.renew((team, destination, track, period), claimed_by)

    def mark_sent(
        self,
        team: str,
        destination: str,
        track: str,
        period: str,
        message_ts: str | None = None,
        *,
        claimed_by: str | None = None,
        subscription_id: int | None = None,
        steps: int = 0,
        catalog_version: str | None = None,
    ) -> bool:
        """See :meth:`Store.mark_sent` (batched without a subscription and with a claimant)."""
        self._forget((team, destination, track, period))
        if subscription_id is not None or claimed_by is None:
            return self._store.mark_sent(
                team,
                destination,
                track,
                period,
                message_ts,
                claimed_by=claimed_by,
                subscription_id=subscription_id,
                steps=steps,
                catalog_version=catalog_version,
            )
        return self.batcher.mark_sent((team, destination, track, period), claimed_by, message_ts)

    def mark_skipped(
        self, team: str, destination: str, track: str, period: str, reason: str, *, claimed_by: str | None = None
    ) -> bool:
        """See :meth:`Store.mark_skipped` (batched with a claimant)."""
        self._forget((team, destination, track, period))
        if claimed_by is None:
            return self._store.mark_skipped(team, destination, track, period, reason)
        return self.batcher.mark_skipped((team, destination, track, period), claimed_by, reason)

    def mark_failed(
        self, team: str, destination: str, track: str, period: str, error: str, *, claimed_by: str | None = None
    ) -> bool:
        """See :meth:`Store.mark_failed` (not batched: failures are rare)."""
        self._forget((team, destination, track, period))
        return self._store.mark_failed(team, destination, track, period, error, claimed_by=claimed_by)

    def mark_refused(
        self,
        team: str,
        destination: str,
        track: str,
        period: str,
        code: str,
        detail: str,
        *,
        claimed_by: str | None = None,
    ) -> bool:
        """See :meth:`Store.mark_refused` (not batched)."""
        self._forget((team, destination, track, period))
        return self._store.mark_refused(team, destination, track, period, code, detail, claimed_by=claimed_by)

    def _forget(self, key: Key) -> None:
        with self._claims_lock:
            self._claims.pop(key, None)

    def close(self) -> None:
        """Stop the batchers (the store itself is closed by its owner)."""
        self.batcher.close()
        self.reads.close()


__all__ = ["BatchedLedgerStore", "DmReadBatcher", "DmReads", "Key", "LedgerBatcher"]
