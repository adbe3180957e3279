"""``subscriptions``: this channel's digests."""

from __future__ import annotations

import re
from dataclasses import replace

from bot.slack import grammar
from bot.slack.commands.registry import command
from bot.slack.commands.session import Session
from bot.slack.views import messages as views
from bot.slack.views.blocks import Reply


@command("subscriptions")
def list_subscriptions(s: Session, cmd: grammar.Command) -> Reply:
    """The channel's subscriptions with schedule, progress and pause reason (a reason such as
    ``stopped by U0123`` shows the person's name, :meth:`Session.person`)."""
    subs = [replace(x, pause_reason=_named(s, x.pause_reason)) if x.pause_reason else x
            for x in s.rt.store.subscriptions(s.caller.team_id, s.caller.channel_id)]
    return views.subscriptions_reply(s.rt.holder.catalog, subs, s.lang)


_BY_USER = re.compile(r"^((?:stopped|snoozed) by )([UW][A-Z0-9]{2,})$")
"""A pause reason naming a person by Slack user id (``bot.slack.commands.digest_actions``)."""


def _named(s: Session, reason: str) -> str:
    """``reason`` with a trailing user id replaced by the person's name."""
    m = _BY_USER.match(reason)
    return m.group(1) + s.person(m.group(2)) if m else reason
