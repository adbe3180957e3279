"""The catch-up's judgement of one ledger row: still to be sent now, and why it is late.

Pure functions of a :class:`bot.store.Delivery` row (or its absence), the scheduled time and
now (aware datetimes), used by :meth:`bot.digest.clock.DigestClock.catch_up`.
"""

from __future__ import annotations

from datetime import UTC, datetime

from bot.store import Delivery

MAX_RETRY_WAIT_S = 15 * 60.0
"""The longest wait between two attempts of a failed send (the back-off's ceiling)."""

MISSED_AFTER_S = 120.0
"""A due digest nobody has claimed this many seconds after its time is a missed slot (logged at
WARNING with its channel); sooner, its cron job is probably just about to send it."""


def lateness(row: Delivery | None, fire: datetime, now: datetime) -> str | None:
    """Why a due delivery is late, or None when it is simply due now (its cron job may be
    about to send it): ``'missed slot, due <fire>'`` (no claim and the time passed more than
    :data:`MISSED_AFTER_S` ago: the clock was down or behind), ``'stale claim of <claimant>'``
    (a sender died), ``'retry n'`` (an earlier attempt failed)."""
    if row is None:
        if (now - fire).total_seconds() > MISSED_AFTER_S:
            return f"missed slot, due {fire.astimezone(UTC):%Y-%m-%d %H:%M} UTC"
        return None
    if row.status == "claimed":
        return f"stale claim of {row.claimed_by}"
    return f"retry {row.attempts + 1} after {(row.error or 'a failure')[:120]}"

def retry_wait_s(attempts: int, retry_failed_after_s: float) -> float:
    """Seconds to wait after the last claim of a send that failed ``attempts`` times before
    trying again: ``retry_failed_after_s`` doubled per attempt (1, 2, 4, ... times), at most
    :data:`MAX_RETRY_WAIT_S` (never below ``retry_failed_after_s``)."""
    doubled = retry_failed_after_s * 2.0 ** min(max(0, attempts - 1), 30)
    return max(retry_failed_after_s, min(doubled, MAX_RETRY_WAIT_S))


def unsettled(row: Delivery | None, now: datetime, *, stale_after_s: float, max_attempts: int,
              retry_failed_after_s: float) -> bool:
    """Whether a ledger row (or its absence) leaves the delivery to be done now: no row; a
    claim at least ``stale_after_s`` old (its sender died); a failure with attempts left
    (``max_attempts``; :data:`bot.store.ledger.NO_ATTEMPT_LIMIT` by default, the catch-up window
    ends the retries with the period) once :func:`retry_wait_s` passed since its last claim.
    A refused send (Slack said no for good) pauses its subscription, so it is not due."""
    if row is None:
        return True
    age = (now - row.claimed_at).total_seconds()
    if row.status == "claimed":
        return age >= stale_after_s
    if row.status == "failed":
        return (row.attempts < max_attempts
                and age >= retry_wait_s(row.attempts, retry_failed_after_s))
    return False
