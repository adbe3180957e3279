"""A reader's weekly streak (issue 44), computed once per request from the store's facts; shown only
to the reader (App Home, the finish message), never in a channel."""

from __future__ import annotations

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.plan import ReaderWeek, reader_week
from bot.domain.streaks import Streak, streak
from bot.slack.commands.context import Context

_weeks: PerCatalog[ReaderWeek] = PerCatalog()


def kept_week(catalog: Catalog) -> ReaderWeek:
    """``catalog``'s :class:`~bot.domain.plan.ReaderWeek`, made once and kept with the catalog (read-only,
    thread-safe). A speed layer for ``benchmarks/home_open.py`` (target <= 2x the no-op's): made for
    each streak it was 0.46 ms of an App Home open's ~5 ms."""
    return _weeks.get(catalog, "week", lambda: reader_week(catalog))


def reader_streak(ctx: Context) -> Streak:
    """The caller's :class:`~bot.domain.streaks.Streak` now (the store's clock), at their budget, in
    weeks of their time zone (:attr:`~bot.store.together.HabitFacts.timezone`)."""
    store, caller = ctx.rt.store, ctx.caller
    facts = store.habit_facts(caller.team_id, caller.user_id)
    budget = facts.budget or DEFAULT_MINUTES
    cat = ctx.catalog
    now = store.now()
    return streak(cat, facts.reads, facts.follows, budget, facts.pauses, now, plan=kept_week(cat), zone=facts.timezone)
