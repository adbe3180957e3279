"""The catch-up's judgement (:meth:`bot.digest.clock.DigestClock.catch_up`): which digests are
due now, still to be sent, and why late; pure functions of ledger rows and aware datetimes."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, TypeGuard

from bot.digest.jobs import FAR_FUTURE
from bot.domain.schedule import in_window
from bot.store import DM_TRACK, Delivery

MAX_RETRY_WAIT_S = 15 * 60.0
"""The longest wait between two attempts of a failed send (the back-off's ceiling)."""

MISSED_AFTER_S = 120.0
"""A due digest nobody claimed this many seconds after its time is a missed slot (a WARNING)."""


def lateness(row: Delivery | None, fire: datetime, now: datetime) -> str | None:
    """Why a due delivery is late, or None when simply due: ``'missed slot, due <fire>'`` (no claim
    :data:`MISSED_AFTER_S` after its time), ``'stale claim of <claimant>'``, ``'retry n after …'``."""
    if row is None:
        if (now - fire).total_seconds() > MISSED_AFTER_S:
            return f"missed slot, due {fire.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
        return None
    if row.status == "claimed":
        return f"stale claim of {row.claimed_by}"
    return f"retry {row.attempts + 1} after {(row.error or 'a failure')[:120]}"


def retry_wait_s(attempts: int, retry_failed_after_s: float) -> float:
    """Seconds after its last claim before retrying a send that failed ``attempts`` times:
    ``retry_failed_after_s`` doubled per attempt, at most :data:`MAX_RETRY_WAIT_S`."""
    doubled = retry_failed_after_s * 2.0 ** min(max(0, attempts - 1), 30)
    return max(retry_failed_after_s, min(doubled, MAX_RETRY_WAIT_S))


def unsettled(
    row: Delivery | None, now: datetime, *, stale_after_s: float, max_attempts: int, retry_failed_after_s: float
) -> bool:
    """Whether a ledger row (or None) leaves the delivery to be done now: no row; a claim at least
    ``stale_after_s`` old; a failure with attempts left (``max_attempts``) once
    :func:`retry_wait_s` passed since its last claim."""
    if row is None:
        return True
    age = (now - row.claimed_at).total_seconds()
    if row.status == "claimed":
        return age >= stale_after_s
    if row.status == "failed":
        return row.attempts < max_attempts and age >= retry_wait_s(row.attempts, retry_failed_after_s)
    return False


def eligible(
    fire: datetime | None, changed_at: datetime, now: datetime, tz: str, min_window_s: float
) -> TypeGuard[datetime]:
    """``fire`` is due: after the row's last change ``changed_at`` and within its catch-up window
    (the rest of that ISO week in ``tz``, at least ``min_window_s``)."""
    return fire is not None and fire > changed_at and in_window(fire, now, tz, min_window_s)


@dataclass(frozen=True)
class Due:
    """A digest due now: ledger ``key``, subscription id (None: a DM), ``fire``, :func:`lateness`."""

    key: tuple[str, str, str, str]
    sub_id: int | None
    fire: datetime
    why: str | None


def due_now(
    store: Any, now: datetime, min_window_s: float, is_unsettled: Callable[[Delivery | None, datetime], bool]
) -> list[Due]:
    """Every active digest of ``store`` whose latest time is :func:`eligible` and row ``is_unsettled``."""
    candidates: list[tuple[tuple[str, str, str, str], int | None, datetime]] = []
    rows = [
        (sub.schedule, sub.updated_at, (sub.team_id, sub.channel_id, sub.track_id), sub.id)
        for sub in store.active_subscriptions()
    ]
    rows += [
        (dm.schedule, dm.updated_at, (dm.team_id, dm.user_id, DM_TRACK), None)
        for dm in store.dm_recipients(at=FAR_FUTURE)
    ]
    for schedule, changed_at, dest, sub_id in rows:
        fire = schedule.latest_fire(now)
        if eligible(fire, changed_at, now, schedule.timezone, min_window_s):
            candidates.append(((*dest, schedule.period_of(fire)), sub_id, fire))
    ledger: dict[tuple[str, str, str, str], Delivery] = {}
    for period in {key[3] for key, _sub, _fire in candidates}:
        for row in store.deliveries(period=period):
            ledger[(row.team_id, row.destination, row.track_id, row.period)] = row
    return [
        Due(key, sub_id, fire, lateness(ledger.get(key), fire, now))
        for key, sub_id, fire in candidates
        if is_unsettled(ledger.get(key), now)
    ]
