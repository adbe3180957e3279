"""A reader's weekly streak (issue 44), computed once per request from the store's facts; shown only
to the reader (App Home, the finish message), never in a channel."""

from __future__ import annotations

from bot.domain.budget import DEFAULT_MINUTES
from bot.domain.streaks import Streak, streak
from bot.slack.commands.context import Context


def reader_streak(ctx: Context) -> Streak:
    """The caller's :class:`~bot.domain.streaks.Streak` now (the store's clock), at their budget."""
    store, caller = ctx.rt.store, ctx.caller
    facts = store.habit_facts(caller.team_id, caller.user_id)
    budget = facts.budget or DEFAULT_MINUTES
    return streak(ctx.catalog, facts.reads, facts.follows, budget, facts.pauses, store.now())
