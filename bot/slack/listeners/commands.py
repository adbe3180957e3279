"""The ``/vllm-path`` slash command: ack at once, answer through ``response_url`` in a lazy listener.

Nothing slow (database, Web API) runs before the ack; the reply goes through ``response_url``
so it works in DMs and private channels where the bot is not a member.
"""

from __future__ import annotations

import logging
import re

from slack_bolt import Ack, App, BoltContext, Respond

from bot import metrics
from bot.slack.handlers import Caller, Handlers
from bot.slack.listeners.errors import answers_failure

log = logging.getLogger(__name__)

COMMAND = re.compile(r"^/vllm-path")
"""Matches ``/vllm-path`` and staging variants such as ``/vllm-path-dev``."""


def caller_of(context: BoltContext, body: dict) -> Caller:
    """Who asked, from Bolt's ``context`` (which resolves org-wide installs and Slack Connect:
    the user's own team); the body's fields only where the context has none."""
    return Caller(team_id=context.team_id or body.get("team_id") or "",
                  user_id=context.user_id or body.get("user_id") or "",
                  channel_id=context.channel_id or body.get("channel_id") or "")


def register(app: App, handlers: Handlers) -> None:
    """Attach the slash-command listener to ``app``."""

    def ack_command(ack: Ack) -> None:
        ack()

    @answers_failure("slash command")
    def answer_command(body: dict, respond: Respond, context: BoltContext) -> None:
        reply = handlers.command(caller_of(context, body), body.get("text") or "")
        respond(**reply.payload(), replace_original=False)
        metrics.observe_reply("command", context)

    app.command(COMMAND)(ack=ack_command, lazy=[answer_command])
