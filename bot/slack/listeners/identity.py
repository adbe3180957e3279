"""The one rule for "which team and which user" of any request (slash command, button click,
event, unfurl): read from Bolt's ``context``, which resolves the installation that authorised
the request (``team.id`` of a click, ``team_id`` of a command, ``authorizations[0]`` of an
event). The team is the *tenant id* (:func:`bot.store.installations.tenant_of`: the enterprise id
for an org-wide install, else the team id), so a click whose ``user.team_id`` differs from
``team.id`` lands on the same reader record as that person's commands, and an event is
attributed to the installation it was delivered for."""

from __future__ import annotations

from typing import Any

from slack_bolt import BoltContext

from bot.slack.commands.context import Caller
from bot.store.installations import tenant_of


def tenant(context: BoltContext) -> str:
    """The tenant id of the installation Bolt's ``context`` names ("" when it names none)."""
    try:
        return tenant_of(context.enterprise_id, context.team_id, context.is_enterprise_install)
    except ValueError:
        return ""


def caller_of(context: BoltContext, body: dict[str, Any] | None = None) -> Caller:
    """Who asked, from where: tenant (:func:`tenant`), ``context.user_id`` and ``channel_id`` (for
    a click from a message, ``body``'s channel or container's channel when Bolt has none)."""
    channel = context.channel_id or ""
    if not channel and body:
        channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id") or ""
    return Caller(team_id=tenant(context), user_id=context.user_id or "", channel_id=channel)
