"""Argument checks shared by the store's aggregates; each returns its value or raises
:class:`ValueError` naming the argument, before the database is touched."""

from __future__ import annotations

import re
from collections.abc import Iterable
from datetime import datetime
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.domain.schedule import WeeklySchedule

_PERIOD = re.compile(r"^\d{4}-W(0[1-9]|[1-4]\d|5[0-3])$")


def check_id(value: str, what: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{what} must be a non-empty string, got {value!r}")
    return value


def check_ids(values: Iterable[str], what: str) -> list[str]:
    if isinstance(values, str):
        raise ValueError(f"{what} must be an iterable of ids, not a single string")
    return list(dict.fromkeys(check_id(v, what) for v in values))


def check_timezone(value: str) -> str:
    try:
        if not isinstance(value, str) or not value:
            raise ValueError
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError):
        raise ValueError(f"timezone must be an IANA name such as 'Europe/Paris', got {value!r}") from None
    return value


def check_steps(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 3:
        raise ValueError(f"steps_per_week must be 1, 2 or 3, got {value!r}")
    return value


def check_minutes(value: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int) or not 1 <= value <= 10_000:
        raise ValueError(f"minutes a week must be a whole number 1..10000, got {value!r}")
    return value


def check_aware(value: datetime, what: str) -> datetime:
    if not isinstance(value, datetime) or value.tzinfo is None or value.utcoffset() is None:
        raise ValueError(f"{what} must be a timezone-aware datetime, got {value!r}")
    return value


def check_period(value: str) -> str:
    if not isinstance(value, str) or not _PERIOD.match(value):
        raise ValueError(f"period must be an ISO week like '2026-W49', got {value!r}")
    return value


def check_reason(value: str) -> str:
    return check_id(value, "reason")[:500]


def schedule_columns(schedule: WeeklySchedule) -> dict[str, Any]:
    """The three columns (``weekday``, ``at_time``, ``timezone``) of a validated schedule."""
    if not isinstance(schedule, WeeklySchedule):
        raise ValueError(f"schedule must be a WeeklySchedule, got {schedule!r}")
    return {"weekday": schedule.weekday, "at_time": schedule.at_time, "timezone": schedule.timezone}
