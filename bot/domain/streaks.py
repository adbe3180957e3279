"""Weekly reading streaks with humane rules (issue 44), pure.

Weeks are ISO weeks in the reader's own time zone (Monday 00:00 to Monday 00:00 on their clock: the
zone of their DM settings, which ``dm on`` takes from Slack's ``users.info`` ``tz``; UTC when it is
unknown or zoneinfo lacks it); a week across a daylight-saving change is an hour shorter or longer.
A week **counts** when the reader read their budget (minutes, the catalog's counted minutes of the
posts first read that week) or all that was due: the steps their plan gave them at the week's start
(:func:`bot.domain.plan.plan_reader_week` over the tracks followed by then and the posts read before
it, at their budget). A week with nothing due, a week their plan was paused, and the week they first
followed (unless it counts) are **neutral**: they never break a streak. Any other week is **missed**.
The streak is the run of counted weeks back from now (the current week adds one once it counts, and
never breaks it); a reader is *behind* by the run of missed weeks just before the current one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta, tzinfo
from typing import Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from bot.domain.budget import MIN_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.plan import ReaderWeek, reader_week

WEEK = timedelta(days=7)
MAX_WEEKS = 104
"""Weeks looked back at most: a streak is counted up to two years."""
NUDGE_BEHIND = 2
"""Missed weeks in a row after which a reader gets the one gentle nudge."""
NUDGE_EVERY = timedelta(days=14)
"""At most one nudge in this long."""

Outcome = Literal["kept", "missed", "neutral"]


@dataclass(frozen=True)
class Streak:
    """``weeks``: counted weeks in a row (0: none); ``behind``: missed weeks in a row just before
    the current week; ``this_week``: the current week counts already."""

    weeks: int
    behind: int
    this_week: bool


def reader_zone(zone: str | None) -> tzinfo:
    """The :class:`~zoneinfo.ZoneInfo` of ``zone`` (IANA, e.g. ``Asia/Shanghai``), UTC when ``zone``
    is None, empty or unknown to zoneinfo."""
    if not zone:
        return UTC
    try:
        return ZoneInfo(zone)
    except (ZoneInfoNotFoundError, ValueError):
        return UTC


def _monday(at: datetime, tz: tzinfo) -> date:
    """The local date of the Monday of the week holding ``at`` (aware) in ``tz``."""
    day = at.astimezone(tz).date()
    return day - timedelta(days=day.weekday())


def _midnight(day: date, tz: tzinfo) -> datetime:
    """``day`` 00:00 on ``tz``'s clock, as aware UTC (a midnight skipped by daylight saving: the
    first instant after it, as zoneinfo resolves it)."""
    return datetime.combine(day, time(), tzinfo=tz).astimezone(UTC)


def week_start(at: datetime, zone: str | None = None) -> datetime:
    """Monday 00:00 on ``zone``'s clock (IANA; None: UTC) of the week holding ``at`` (aware), as aware UTC."""
    tz = reader_zone(zone)
    return _midnight(_monday(at, tz), tz)


def week_outcome(
    catalog: Catalog,
    plan: ReaderWeek,
    start: datetime,
    reads: Mapping[str, datetime],
    follows: Mapping[str, datetime],
    budget: int,
    pauses: Sequence[tuple[datetime, datetime]],
    end: datetime | None = None,
) -> Outcome:
    """How the week from ``start`` to ``end`` (default: seven days on) went (see the module): ``reads``
    ``{post id: first read}``, ``follows`` ``{track id: followed at}``, ``budget`` minutes, ``pauses``
    ``(start, end)`` spans."""
    end = start + WEEK if end is None else end
    if any(a < end and b > start for a, b in pauses):
        return "neutral"
    tracks = [t for t, at in follows.items() if at < end]
    before = {p for p, at in reads.items() if at < start}
    due = {pid for _, pid in plan(tracks, before, budget)}
    this = {catalog.resolve_post_id(p) or p for p, at in reads.items() if start <= at < end}
    minutes = sum(catalog.post(p).minutes or 0 for p in this if catalog.has_post(p))
    if minutes >= budget or (due and due <= this | {catalog.resolve_post_id(p) or p for p in before}):
        return "kept"
    return "neutral" if not due or all(follows[t] >= start for t in tracks) else "missed"


def streak(
    catalog: Catalog,
    reads: Mapping[str, datetime],
    follows: Mapping[str, datetime],
    budget: int,
    pauses: Sequence[tuple[datetime, datetime]],
    now: datetime,
    horizon: int = MAX_WEEKS,
    plan: ReaderWeek | None = None,
    zone: str | None = None,
) -> Streak:
    """A reader's :class:`Streak` at ``now`` (aware), looking back ``horizon`` weeks at most (from
    their first follow or read); ``budget`` in minutes (their own, else the default); ``plan``: the
    catalog's :class:`~bot.domain.plan.ReaderWeek`, kept by a caller that asks for many readers;
    ``zone``: the reader's IANA time zone, whose Mondays start the weeks (None or unknown: UTC)."""
    if not follows and not reads:
        return Streak(0, 0, False)
    plan = plan or reader_week(catalog)
    tz = reader_zone(zone)
    monday = _monday(now, tz)
    oldest = max(_monday(min([*follows.values(), *reads.values()]), tz), monday - WEEK * horizon)

    def outcome(day: date) -> Outcome:
        start, end = _midnight(day, tz), _midnight(day + WEEK, tz)
        return week_outcome(catalog, plan, start, reads, follows, budget, pauses, end)

    this_week = outcome(monday) == "kept"
    weeks, behind, counting, lagging = int(this_week), 0, True, True
    day = monday - WEEK
    while day >= oldest and (counting or lagging):
        result = outcome(day)
        counting = counting and result != "missed"
        weeks += counting and result == "kept"
        lagging = lagging and result == "missed"
        behind += lagging
        day -= WEEK
    return Streak(weeks, behind, this_week)


def behind_since(now: datetime, behind: int, zone: str | None = None) -> datetime:
    """When a run of ``behind`` missed weeks before ``now``'s week began (Monday 00:00 on ``zone``'s
    clock, None: UTC), as aware UTC."""
    tz = reader_zone(zone)
    return _midnight(_monday(now, tz) - WEEK * behind, tz)


def lower_budget(budget: int) -> int | None:
    """The lighter budget a nudge offers: half of ``budget`` minutes rounded down to 5, at least
    :data:`bot.domain.budget.MIN_MINUTES`; None when that is no lower."""
    lower = max(MIN_MINUTES, budget // 2 // 5 * 5)
    return lower if lower < budget else None
