"""The delivery ledger: one row per (team, destination, track, ISO week) digest, claimed before
it is sent so that it goes out exactly once, whatever the number of clocks and workers. The
statements are module functions so that :mod:`bot.store.ledger_batch` runs the same ones."""

from __future__ import annotations

from collections import Counter
from datetime import datetime, timedelta
from typing import Any

from sqlalchemy import ColumnElement, Update, and_, or_, select, update

from bot.store.base import StoreCore, changed
from bot.store.models import DigestDelivery
from bot.store.snapshots import Delivery
from bot.store.subscriptions import set_cursor_in
from bot.store.validate import check_id, check_period, check_reason

NO_ATTEMPT_LIMIT = 2**31 - 1
"""``max_attempts`` for "no limit": a failed send is retried until its period (ISO week) is over,
with the catch-up's back-off (:func:`bot.digest.due.retry_wait_s`)."""

REFUSED_PREFIX = "refused: "
"""``error`` prefix of a ``'failed'`` row Slack refused for good (:meth:`LedgerRepo.mark_refused`)."""

Key = tuple[str, str, str, str]
"""A ledger key: (team, destination, track or ``'*'``, ISO week)."""
KEY_COLUMNS = ("team_id", "destination", "track_id", "period")


def delivery_key(team: str, destination: str, track: str, period: str) -> ColumnElement[bool]:
    """The WHERE clause of the ledger row at that key."""
    return and_(
        DigestDelivery.c.team_id == team,
        DigestDelivery.c.destination == destination,
        DigestDelivery.c.track_id == track,
        DigestDelivery.c.period == period,
    )


def new_row(key: Key, claimed_by: str, now: datetime, **values: Any) -> dict[str, Any]:
    """The columns of a new ledger row at ``key`` claimed by ``claimed_by`` at ``now``, and ``values``."""
    return {**dict(zip(KEY_COLUMNS, key, strict=True)), "claimed_at": now, "claimed_by": claimed_by, **values}


def takeover(key: Key, claimed_by: str, now: datetime, stale_after_s: float, max_attempts: int) -> Update:
    """The UPDATE that claims the row at ``key`` when it was left ``'claimed'`` longer than
    ``stale_after_s`` seconds or ``'failed'`` after fewer than ``max_attempts``."""
    stale = and_(
        DigestDelivery.c.status == "claimed", DigestDelivery.c.claimed_at < now - timedelta(seconds=stale_after_s)
    )
    retry = and_(DigestDelivery.c.status == "failed", DigestDelivery.c.attempts < max_attempts)
    return (
        update(DigestDelivery)
        .where(delivery_key(*key), or_(stale, retry))
        .values(status="claimed", claimed_at=now, claimed_by=claimed_by, attempts=DigestDelivery.c.attempts + 1)
    )


def settle(key: Key, claimed_by: str | None, **values: Any) -> Update:
    """The UPDATE setting ``values`` on the claimed row at ``key`` (only ``claimed_by``'s, if given)."""
    cond = [delivery_key(*key), DigestDelivery.c.status == "claimed"]
    if claimed_by is not None:
        cond.append(DigestDelivery.c.claimed_by == claimed_by)
    return update(DigestDelivery).where(*cond).values(**values)


def mark_values(kind: str, now: Any, extra: Any) -> dict[str, Any]:
    """What a mark of ``kind`` sets on a claimed row: ``'renew'`` the claim time, ``'sent'``
    (``extra``: the message ts), ``'skipped'`` (``extra``: the ``error``); values or SQL expressions."""
    if kind == "renew":
        return {"claimed_at": now}
    if kind == "sent":
        return {"status": "sent", "sent_at": now, "message_ts": extra}
    return {"status": "sent", "sent_at": now, "message_ts": None, "error": extra}


def _check_claim(team: str, destination: str, track: str, period: str, claimed_by: str) -> Key:
    for value, what in ((team, "team"), (destination, "destination"), (track, "track"), (claimed_by, "claimed_by")):
        check_id(value, what)
    return team, destination, track, check_period(period)


class LedgerRepo(StoreCore):
    """Claims, settlements and reads of ledger rows."""

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
        """Claim the right to send one digest (``destination``: channel or user id; ``track``: id or
        ``'*'`` for a DM digest; ``period``: ISO week ``'2026-W49'``; ``claimed_by``: ``'host:pid'``).

        True for exactly one caller: the one whose INSERT creates the row (the UNIQUE key decides,
        across processes), or whose UPDATE takes over a row left ``'claimed'`` longer than
        ``stale_after_s`` seconds or ``'failed'`` after fewer than ``max_attempts`` attempts
        (:data:`NO_ATTEMPT_LIMIT`). A ``'sent'`` row is never claimed again. Raises ValueError
        for bad arguments.
        """
        key = _check_claim(team, destination, track, period, claimed_by)
        if stale_after_s < 0:
            raise ValueError(f"stale_after_s must be >= 0, got {stale_after_s!r}")
        now = self._now()
        with self._write() as s:
            if self._inserted(s, DigestDelivery, new_row(key, claimed_by, now, status="claimed", attempts=1)):
                return True
            return changed(s, takeover(key, claimed_by, now, stale_after_s, max_attempts)) == 1

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
        """Record a claimed delivery as sent (``message_ts``: Slack's ts of the message); with
        ``claimed_by``, only that claimant's claim. True if a ``'claimed'`` row became ``'sent'``."""
        key = (team, destination, track, period)
        return self._change(settle(key, claimed_by, **mark_values("sent", self._now(), message_ts))) == 1

    def mark_sent_at_cursor(
        self,
        team: str,
        destination: str,
        track: str,
        period: str,
        message_ts: str | None,
        *,
        subscription_id: int,
        cursor: int,
        catalog_version: str | None,
        claimed_by: str | None = None,
    ) -> bool:
        """Like :meth:`mark_sent`, and in the same transaction set the subscription's cursor to
        ``cursor`` (>= 0) and record ``catalog_version`` (unless None); nothing moves unless a
        claim was marked."""
        if isinstance(cursor, bool) or not isinstance(cursor, int) or cursor < 0:
            raise ValueError(f"cursor must be an int >= 0, got {cursor!r}")
        now = self._now()
        with self._write() as s:
            key = (team, destination, track, period)
            if changed(s, settle(key, claimed_by, **mark_values("sent", now, message_ts))) != 1:
                return False
            set_cursor_in(s, subscription_id, cursor, catalog_version, now)
            return True

    def mark_failed(
        self, team: str, destination: str, track: str, period: str, error: str, *, claimed_by: str | None = None
    ) -> bool:
        """Record a claimed delivery as failed with ``error`` (at most 1000 characters); it may be
        claimed again while ``attempts < max_attempts``. True if a claim was marked."""
        key = (team, destination, track, period)
        return self._change(settle(key, claimed_by, status="failed", error=str(error)[:1000])) == 1

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
        """Record a claimed delivery that Slack refused for good (``code`` such as
        ``'channel_not_found'``): ``'failed'``, ``error`` ``'refused: <code>: <detail>'``. True if marked."""
        check_id(code, "code")
        return self.mark_failed(
            team, destination, track, period, error=f"{REFUSED_PREFIX}{code}: {detail}", claimed_by=claimed_by
        )

    def refusals(self) -> dict[str, int]:
        """``{Slack error code: ledger rows}`` marked by :meth:`mark_refused`, all workspaces and periods."""
        refused = (DigestDelivery.c.status == "failed", DigestDelivery.c.error.like(REFUSED_PREFIX + "%"))
        errors = self._scalars(select(DigestDelivery.c.error).where(*refused))
        return dict(Counter(str(e)[len(REFUSED_PREFIX) :].split(":", 1)[0].strip() or "unknown" for e in errors))

    SKIPPED_PREFIX = "skipped: "
    """``error`` prefix of a ``'sent'`` row with no message (:meth:`skip_delivery`, :meth:`mark_skipped`)."""

    def skip_delivery(self, team: str, destination: str, track: str, period: str, reason: str, claimed_by: str) -> bool:
        """Settle a period without posting (e.g. snoozed ahead of time): insert the row as
        ``'sent'`` with ``error`` ``'skipped: <reason>'``, so no claim can succeed. True if the row
        was created, False if the key had one. Raises ValueError for bad arguments."""
        key = _check_claim(team, destination, track, period, claimed_by)
        now = self._now()
        error = self.SKIPPED_PREFIX + check_reason(reason)
        return self._insert_new(
            DigestDelivery, **new_row(key, claimed_by, now, status="sent", attempts=0, sent_at=now, error=error)
        )

    def mark_skipped(
        self, team: str, destination: str, track: str, period: str, reason: str, *, claimed_by: str | None = None
    ) -> bool:
        """Settle a claimed period without posting: ``'sent'`` with ``error`` ``'skipped: <reason>'``
        (only ``claimed_by``'s claim, if given). True if a claim was settled."""
        values = mark_values("skipped", self._now(), self.SKIPPED_PREFIX + check_reason(reason))
        return self._change(settle((team, destination, track, period), claimed_by, **values)) == 1

    def renew_claim(self, team: str, destination: str, track: str, period: str, claimed_by: str) -> bool:
        """Refresh ``claimed_at`` of ``claimed_by``'s claim right before a send, so it is not taken
        over as stale. False if the claim is no longer theirs: do not send then."""
        return self._change(settle((team, destination, track, period), claimed_by, claimed_at=self._now())) == 1

    def delivery(self, team: str, destination: str, track: str, period: str) -> Delivery | None:
        """The ledger row for that key, or None."""
        return self._snapshot(Delivery, select(DigestDelivery).where(delivery_key(team, destination, track, period)))

    def deliveries(self, period: str | None = None) -> list[Delivery]:
        """Ledger rows of every team, optionally for one ``period``, in claim order."""
        stmt = select(DigestDelivery)
        if period is not None:
            stmt = stmt.where(DigestDelivery.c.period == period)
        return self._snapshots(Delivery, stmt.order_by(DigestDelivery.c.id))
