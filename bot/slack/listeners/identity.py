"""The one rule for "which team and which user" of any request: read from Bolt's ``context``,
which names the installation that authorised it. The team is the tenant id
(:func:`bot.store.installations.tenant_of`: an org-wide install's enterprise, else the team), so a
click, a command and an event of one person land on the same reader record."""

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
    """Who asked, from where: :func:`tenant`, the user and the channel (else ``body``'s or its container's)."""
    channel = context.channel_id or ""
    if not channel and body:
        channel = (body.get("channel") or {}).get("id") or (body.get("container") or {}).get("channel_id") or ""
    return Caller(team_id=tenant(context), user_id=context.user_id or "", channel_id=channel)
