"""The days a reminder test expects, in one reader zone (:data:`ZONE`), and the reminders stored:
shared by the reminder tests of the QA rounds (``test_qa_round1*_*.py``)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo

from bot.domain.reminder_day import REMIND_AT, local_today
from tests.e2e.helpers import TEAM, USER

ZONE = "Europe/Berlin"
"""The reader's time zone in these tests (their stand-in's ``users.info`` answers it)."""


def today() -> date:
    """Today in :data:`ZONE`."""
    return local_today(datetime.now(UTC), ZONE)


def next_nine() -> date:
    """The day of the next 09:00 in :data:`ZONE`: today's while it is still before 09:00."""
    local = datetime.now(UTC).astimezone(ZoneInfo(ZONE))
    return local.date() if local.time() < REMIND_AT else local.date() + timedelta(days=1)


def pending(runtime) -> list[tuple[str, date, int]]:
    """The reader's pending reminders as (post, local day, local hour)."""
    out = []
    for r in runtime.store.reminders(TEAM, USER):
        local = r.due_at.astimezone(ZoneInfo(ZONE))
        out.append((r.post_id, local.date(), local.hour))
    return out
