"""``stats``: reading insights of the workspace (:func:`bot.domain.insights.compute` over the
team's rows), for its admins and owners only (``users.info`` ``is_admin`` / ``is_owner``)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.domain.insights import ACTIVE_DAYS, Insights, compute, still_finished
from bot.runtime import Runtime
from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.i18n import t
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply
from bot.slack.views.insights import insights_reply
from bot.slack.views.plan import with_finished


def team_insights(rt: Runtime, team_id: str, now: datetime | None = None) -> Insights:
    """The insights of ``team_id`` at ``now`` (default: the current time, UTC) from ``rt``'s store."""
    now = now or datetime.now(UTC)
    store, catalog = rt.store, rt.holder.catalog
    subs, deliveries = store.subscriptions(team_id), store.delivery_counts(team_id, now - timedelta(days=ACTIVE_DAYS))
    reads, follows = store.team_reads(team_id), store.team_follows(team_id)
    return compute(catalog, team_id, reads, now, subscriptions=subs, deliveries=deliveries, follows=follows)


def finished_counts(rt: Runtime, team_id: str) -> dict[str, int]:
    """``{track id: readers}`` who finished its essential path and still have every essential step
    read (:func:`bot.domain.insights.still_finished`: ``unread`` lowers the count, as it reopens the
    path on App Home); raw counts, hidden under 4 where shown (:func:`bot.slack.views.plan.with_finished`)."""
    store = rt.store
    return still_finished(rt.holder.catalog, store.team_finished(team_id), store.team_reads(team_id))


def stats(ctx: Context, cmd: grammar.Command) -> Reply:
    """The insights for an admin or owner; a polite refusal for anyone else."""
    if not ctx.is_admin():
        return views.text_reply(t("stats.refused", ctx.lang))
    reply = insights_reply(ctx.catalog, team_insights(ctx.rt, ctx.caller.team_id), ctx.lang)
    return with_finished(reply, ctx.catalog, finished_counts(ctx.rt, ctx.caller.team_id), ctx.lang)
