"""``subscriptions``: this channel's digests."""

from __future__ import annotations

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("subscriptions")
def list_subscriptions(s: Session, cmd: grammar.Command) -> Reply:
    """The channel's subscriptions with schedule, progress and pause reason."""
    subs = s.rt.store.subscriptions(s.caller.team_id, s.caller.channel_id)
    return views.subscriptions_reply(s.rt.holder.catalog, subs, s.lang)
