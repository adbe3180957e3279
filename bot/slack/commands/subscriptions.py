"""``subscriptions``: this channel's digests."""

from __future__ import annotations

import re
from dataclasses import replace

from bot.slack import grammar
from bot.slack.commands.context import Context
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


def list_subscriptions(ctx: Context, cmd: grammar.Command) -> Reply:
    """The channel's subscriptions with schedule, progress and pause reason (a reason such as
    ``stopped by U0123`` shows the person's name, :meth:`Context.person`)."""
    subs = [
        replace(x, pause_reason=_named(ctx, x.pause_reason)) if x.pause_reason else x
        for x in ctx.rt.store.subscriptions(ctx.caller.team_id, ctx.caller.channel_id)
    ]
    return views.subscriptions_reply(ctx.catalog, subs, ctx.lang)


_BY_USER = re.compile(r"^((?:stopped|snoozed) by )([UW][A-Z0-9]{2,})$")
"""A pause reason naming a person by Slack user id (``bot.slack.commands.digest_actions``)."""


def _named(ctx: Context, reason: str) -> str:
    """``reason`` with a trailing user id replaced by the person's name."""
    m = _BY_USER.match(reason)
    return m.group(1) + ctx.person(m.group(2)) if m else reason
