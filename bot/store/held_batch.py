"""Held requests (:mod:`bot.slack.held`) in batches: the holds and releases of many request threads
share one write transaction (group commit, :class:`bot.store.batching.Batching`).

A hold waits for the commit of its batch (the ack goes after it: a change acknowledged is a change
stored), in the request's thread (:meth:`HeldBatcher.hold`) or, through :meth:`HeldBatcher.hold_later`'s
:class:`HeldTicket`, wherever its ack is sent from (the Socket Mode door: no thread of its own waits
per held request); a release does not wait, it is deleted with the next batch (lost in a crash, the request
is answered again at the next start, which every held use case tolerates). A speed layer needed by
``benchmarks/slow_slack.py --mix`` (200 people, Slack at 1 s; docs/benchmarks.md): with a write
transaction of its own per hold and per release, SQLite's write lock was the acks' largest wait
(about 9 in 10 of an ack thread's samples) and 140 of 2,652 acks took over 3 s.
"""

from __future__ import annotations

import logging
import threading
from dataclasses import dataclass
from typing import Any

from sqlalchemy import delete, insert

from bot.store.base import StoreCore, changed
from bot.store.batching import Batching
from bot.store.models import HeldRequest

log = logging.getLogger(__name__)


@dataclass
class _Call:
    row: dict[str, Any] | None = None  # a hold: the HeldRequest's values
    release: int | None = None  # a release: the held request's id
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

    def __copy__(self) -> HeldTicket:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> HeldTicket:
        return self


class HeldBatcher(Batching):
    """Holds (:meth:`hold`, waits for the commit) and releases (:meth:`release`, does not wait) of
    ``store``'s held requests, many threads' in one transaction per batch. Thread-safe;
    :meth:`close` (called by the store's ``close``) writes what is pending and stops the flusher."""

    name = "held-batcher"

    def __init__(self, store: StoreCore):
        self.store = store
        super().__init__()

    def hold(self, tenant: str, body: str, content_type: str) -> int:
        """Keep an acknowledged request (``body`` as Slack sent it, ``content_type`` its header) until
        :meth:`release`: its id once committed with the next batch. Raises what the database raises."""
        return self.hold_later(tenant, body, content_type).wait()

    def hold_later(self, tenant: str, body: str, content_type: str) -> HeldTicket:
        """:meth:`hold` without waiting: the ticket of the hold, committed with the next batch
        (:meth:`HeldTicket.wait`: its id, or the database's error). Never raises; when the batcher
        is closed (the process is stopping) the hold is written on its own before this returns."""
        now = self.store._now()  # the store's clock
        call = _Call(row=dict(tenant_id=tenant[:32], body=body, content_type=content_type[:100], received_at=now))
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

    def release(self, request_id: int) -> None:
        """Delete the held request ``request_id`` with the next batch, without waiting. Never raises."""
        try:
            self._enqueue(_Call(release=request_id))
        except RuntimeError:  # closed: on its own
            self._one(_Call(release=request_id))

    def _flush(self, batch: list[_Call]) -> None:
        holds = [(c, c.row) for c in batch if c.row is not None]
        gone = [c.release for c in batch if c.release is not None]
        with self.store._write_elsewhere() as s:  # the store's own write transaction; no reader table
            stmt = insert(HeldRequest).returning(HeldRequest.c.id, sort_by_parameter_order=True)
            ids = list(s.scalars(stmt, [row for _c, row in holds])) if holds else []
            if gone:
                changed(s, delete(HeldRequest).where(HeldRequest.c.id.in_(gone)))
        for (call, _row), request_id in zip(holds, ids, strict=True):
            call.result = request_id
        for call in batch:
            call.answered = True

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
