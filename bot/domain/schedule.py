"""A weekly schedule, the one value object for "every <weekday> at <HH:MM> in <IANA zone>".

Pure. Calendar arithmetic is APScheduler's ``CronTrigger`` and :mod:`zoneinfo` (no hand-rolled DST
rules); times are aware datetimes; weekday 0 = Monday … 6 = Sunday (``date.weekday()``).
"""

from __future__ import annotations

import re
from datetime import UTC, datetime, timedelta
from typing import TYPE_CHECKING, Annotated
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AfterValidator, BaseModel, ConfigDict

if TYPE_CHECKING:
    from apscheduler.triggers.cron import CronTrigger

DEFAULT_WEEKDAY = 0
"""Monday: the weekday of a digest when none is given."""
DEFAULT_TIME = "09:00"
"""The local time of a digest when none is given."""
WEEKDAY_NAMES = ("mon", "tue", "wed", "thu", "fri", "sat", "sun")
"""APScheduler 3 ``day_of_week`` names for 0=Monday … 6=Sunday (its numbers differ from cron's)."""
_HHMM = re.compile(r"^([01]\d|2[0-3]):[0-5]\d$")


def _check_weekday(value: int) -> int:
    if not 0 <= value <= 6:
        raise ValueError("weekday must be 0 (Monday) … 6 (Sunday)")
    return value


def _check_time(value: str) -> str:
    if not _HHMM.match(value):
        raise ValueError("at_time must be HH:MM (00:00-23:59)")
    return value


def _check_zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise ValueError(f"unknown time zone {value!r}") from exc
    return value


_Weekday = Annotated[int, AfterValidator(_check_weekday)]
_AtTime = Annotated[str, AfterValidator(_check_time)]
_Zone = Annotated[str, AfterValidator(_check_zone)]


class WeeklySchedule(BaseModel):
    """Every ``weekday`` (0-6) at ``at_time`` (``HH:MM``, 24 h, local) in ``timezone`` (IANA).
    Immutable; raises ``pydantic.ValidationError`` for a bad part."""

    model_config = ConfigDict(frozen=True)

    weekday: _Weekday = DEFAULT_WEEKDAY
    at_time: _AtTime = DEFAULT_TIME
    timezone: _Zone = "UTC"

    @classmethod
    def of(
        cls, weekday: int | None, at_time: str | None, timezone: str, fallback: WeeklySchedule | None = None
    ) -> WeeklySchedule:
        """The schedule with the parts given; ``None`` parts come from ``fallback``, else Monday 09:00."""
        base = fallback or cls(timezone=timezone)
        return cls(
            weekday=base.weekday if weekday is None else weekday, at_time=at_time or base.at_time, timezone=timezone
        )

    def next_fire(self, now: datetime) -> datetime | None:
        """The next time this schedule fires strictly after ``now`` (aware), in its zone."""
        return next_fire(self.weekday, self.at_time, self.timezone, now)

    def latest_fire(self, now: datetime) -> datetime | None:
        """The latest time this schedule fired not after ``now`` (aware), in its zone."""
        return latest_fire(self.weekday, self.at_time, self.timezone, now)

    def period_of(self, fire: datetime) -> str:
        """The ledger period (ISO week in this schedule's zone, ``2026-W49``) of ``fire``."""
        return period_of(fire, self.timezone)

    @property
    def trigger(self) -> CronTrigger:
        """APScheduler's weekly ``CronTrigger`` for this schedule (cached per schedule)."""
        return trigger_for(self.weekday, self.at_time, self.timezone)

    @property
    def signature(self) -> str:
        """The schedule as text, ``mon 09:00 Europe/Berlin`` (stored as a clock job's name)."""
        return signature(self.weekday, self.at_time, self.timezone)


class ScheduleParts(BaseModel):
    """The parts of a schedule a person typed (``None``: left out), validated like
    :class:`WeeklySchedule` (``pydantic.ValidationError``), so :meth:`resolve` cannot fail."""

    model_config = ConfigDict(frozen=True)

    weekday: _Weekday | None = None
    at_time: _AtTime | None = None
    timezone: _Zone | None = None

    def resolve(self, zone: str, fallback: WeeklySchedule | None = None) -> WeeklySchedule:
        """Typed parts, else ``fallback``'s (its zone too), else Monday 09:00 in IANA ``zone``."""
        return WeeklySchedule.of(
            self.weekday, self.at_time, self.timezone or (fallback.timezone if fallback else zone), fallback=fallback
        )


def zone_label(timezone: str) -> str:
    """The IANA name, but ``Etc/GMT-8`` (IANA reverses the sign) as ``UTC+8``."""
    if timezone.startswith("Etc/GMT") and timezone[7:8] in ("+", "-") and timezone[8:].isdigit():
        return f"UTC{'-' if timezone[7] == '+' else '+'}{timezone[8:]}"
    return timezone


def trigger_for(weekday: int, at_time: str, timezone: str) -> CronTrigger:
    """The weekly trigger: ``weekday`` 0=Mon..6=Sun, ``at_time`` ``'HH:MM'``, IANA ``timezone``."""
    from apscheduler.triggers.cron import CronTrigger  # deferred: only the clock and the views' next fire need it

    hour, minute = (int(x) for x in at_time.split(":"))
    return CronTrigger(day_of_week=WEEKDAY_NAMES[weekday], hour=hour, minute=minute, timezone=ZoneInfo(timezone))


def signature(weekday: int, at_time: str, timezone: str) -> str:
    """A job's schedule as text (stored as the job's name to spot schedule changes)."""
    return f"{WEEKDAY_NAMES[weekday]} {at_time} {timezone}"


def latest_fire(weekday: int, at_time: str, timezone: str, now: datetime) -> datetime | None:
    """The latest scheduled time not after ``now`` (aware), in the schedule's zone (``None``: none
    in 8 days). A wall time DST repeats fires at both instants; one it skips, an hour later."""
    trigger = trigger_for(weekday, at_time, timezone)
    now = now.astimezone(UTC)  # arithmetic in UTC: local times in a repeated hour differ by fold only
    fire = trigger.get_next_fire_time(None, now - timedelta(days=8))
    latest = None
    while fire is not None and fire <= now:
        if latest is not None and fire.astimezone(UTC) <= latest.astimezone(UTC):
            break  # pragma: no cover - the trigger did not advance
        latest = fire
        fire = trigger.get_next_fire_time(fire, fire.astimezone(UTC) + timedelta(seconds=1))
    return latest


def next_fire(weekday: int, at_time: str, timezone: str, now: datetime) -> datetime | None:
    """The next scheduled time strictly after ``now`` (aware), in the schedule's zone."""
    trigger = trigger_for(weekday, at_time, timezone)
    fire: datetime | None = trigger.get_next_fire_time(None, now.astimezone(UTC) + timedelta(microseconds=1))
    return fire


def period_of(fire: datetime, timezone: str) -> str:
    """The ledger period of ``fire`` (aware): its ISO week (``2026-W49``) in IANA ``timezone``."""
    year, week, _ = fire.astimezone(ZoneInfo(timezone)).isocalendar()
    return f"{year}-W{week:02d}"


def week_end(fire: datetime, timezone: str) -> datetime:
    """The end of ``fire``'s ISO week in ``timezone`` (next Monday 00:00 local), aware."""
    local = fire.astimezone(ZoneInfo(timezone))
    monday = (local - timedelta(days=local.weekday())).date()
    return datetime.combine(monday + timedelta(days=7), datetime.min.time(), ZoneInfo(timezone))


def in_window(fire: datetime, now: datetime, timezone: str, min_window_s: float = 6 * 3600) -> bool:
    """Whether a digest due at ``fire`` may still go out at ``now``: until the end of its ISO week
    in ``timezone``, and in any case for ``min_window_s`` seconds after ``fire``."""
    return now >= fire and (now < week_end(fire, timezone) or (now - fire).total_seconds() < min_window_s)


def subscription_change(old: tuple[WeeklySchedule, bool] | None, new: tuple[WeeklySchedule, bool]) -> str:
    """What subscribing did to ``(schedule, active)``: ``new``, ``same``, ``resumed`` or ``updated``."""
    if old is None:
        return "new"
    if old == new:
        return "same"
    return "resumed" if not old[1] else "updated"
