"""Weekly reading streaks with humane rules (issue 44), pure.

Weeks are ISO weeks in UTC (Monday 00:00 to Monday 00:00). A week **counts** when the reader read
their budget (minutes, the catalog's counted minutes of the posts first read that week) or all
that was due: the steps their plan gave them at the week's start (:func:`bot.domain.plan.plan_reader_week`
over the tracks followed by then and the posts read before it, at their budget). A week with
nothing due, a week their plan was paused, and the week they first followed (unless it counts)
are **neutral**: they never break a streak. Any other week is **missed**. The streak is the run of
counted weeks back from now (the current week adds one once it counts, and never breaks it); a
reader is *behind* by the run of missed weeks just before the current one.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Literal

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


def week_start(at: datetime) -> datetime:
    """Monday 00:00 UTC of the ISO week holding ``at`` (aware)."""
    day = at.astimezone(UTC).replace(hour=0, minute=0, second=0, microsecond=0)
    return day - timedelta(days=day.weekday())


def week_outcome(
    catalog: Catalog,
    plan: ReaderWeek,
    start: datetime,
    reads: Mapping[str, datetime],
    follows: Mapping[str, datetime],
    budget: int,
    pauses: Sequence[tuple[datetime, datetime]],
) -> Outcome:
    """How the week from ``start`` went (see the module): ``reads`` ``{post id: first read}``,
    ``follows`` ``{track id: followed at}``, ``budget`` minutes, ``pauses`` ``(start, end)`` spans."""
    end = start + WEEK
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
) -> Streak:
    """A reader's :class:`Streak` at ``now`` (aware), looking back ``horizon`` weeks at most (from
    their first follow or read); ``budget`` in minutes (their own, else the default); ``plan``: the
    catalog's :class:`~bot.domain.plan.ReaderWeek`, kept by a caller that asks for many readers."""
    if not follows and not reads:
        return Streak(0, 0, False)
    plan = plan or reader_week(catalog)
    current = week_start(now)
    first = max(week_start(min([*follows.values(), *reads.values()])), current - WEEK * horizon)
    this_week = week_outcome(catalog, plan, current, reads, follows, budget, pauses) == "kept"
    weeks, behind, counting, lagging = int(this_week), 0, True, True
    start = current - WEEK
    while start >= first and (counting or lagging):
        outcome = week_outcome(catalog, plan, start, reads, follows, budget, pauses)
        counting = counting and outcome != "missed"
        weeks += counting and outcome == "kept"
        lagging = lagging and outcome == "missed"
        behind += lagging
        start -= WEEK
    return Streak(weeks, behind, this_week)


def behind_since(now: datetime, behind: int) -> datetime:
    """When a run of ``behind`` missed weeks before ``now``'s week began (Monday 00:00 UTC)."""
    return week_start(now) - WEEK * behind


def lower_budget(budget: int) -> int | None:
    """The lighter budget a nudge offers: half of ``budget`` minutes rounded down to 5, at least
    :data:`bot.domain.budget.MIN_MINUTES`; None when that is no lower."""
    lower = max(MIN_MINUTES, budget // 2 // 5 * 5)
    return lower if lower < budget else None
