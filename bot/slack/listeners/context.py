"""What a listener reads from Bolt's ``context``: the app's :class:`~bot.slack.handlers.Handlers`
(:func:`provide_handlers`; a lazy listener's deep copy of them is themselves), and the one rule for
"which team and which user" (:func:`caller_of`): the tenant of the installation that authorised the
request (:func:`bot.store.installations.tenant_of`), so one person's clicks, commands and events agree."""

from __future__ import annotations

import time
from typing import Any

from slack_bolt import Ack, BoltContext

from bot import metrics
from bot.slack.handlers import Caller, Handlers
from bot.store.installations import tenant_of

HANDLERS = "vllm_path_handlers"
"""The context key holding the app's :class:`~bot.slack.handlers.Handlers`."""


def provide_handlers(context: BoltContext, handlers: Handlers) -> None:
    """Put ``handlers`` and the arrival time (``time.monotonic()`` seconds, :data:`bot.metrics.RECEIVED_AT`)
    into a request's ``context`` (from :meth:`bot.slack.app.BotApp.dispatch`, before Bolt's middleware)."""
    context[metrics.RECEIVED_AT] = time.monotonic()
    context[HANDLERS] = handlers


def handlers_of(context: BoltContext) -> Handlers:
    """The app's handlers from Bolt's ``context``; ``LookupError`` unless built by ``build_app``."""
    handlers = context.get(HANDLERS)
    if not isinstance(handlers, Handlers):
        raise LookupError("no Handlers in Bolt's context: build the app with bot.slack.app.build_app")
    return handlers


def ack_now(ack: Ack) -> None:
    """Ack at once, in the request thread (the lazy listener does the work, after the ack)."""
    ack()


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
    name = str(
        (body or {}).get("channel_name") or ""
    )  # a slash command's (QA round 8: `subscribe #general …` in #general)
    return Caller(team_id=tenant(context), user_id=context.user_id or "", channel_id=channel, channel_name=name)
