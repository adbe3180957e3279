"""The ``/vllm-path`` slash command: ack at once, answer through ``response_url`` in a lazy listener.

Nothing slow (database, Web API) runs before the ack; the reply goes through ``response_url``
so it works in DMs and private channels where the bot is not a member.
"""

from __future__ import annotations

import logging
import re

from slack_bolt import Ack, App, BoltContext, Respond

from bot import metrics
from bot.slack.listeners.context import handlers_of
from bot.slack.listeners.errors import answers_failure
from bot.slack.listeners.identity import caller_of

log = logging.getLogger(__name__)

COMMAND = re.compile(r"^/vllm-path")
"""Matches ``/vllm-path`` and staging variants such as ``/vllm-path-dev``."""


def ack_command(ack: Ack) -> None:
    """Ack at once (on Bolt's listener executor); the answer comes from :func:`answer_command`."""
    ack()


@answers_failure("slash command")
def answer_command(body: dict, respond: Respond, context: BoltContext) -> None:
    """Lazy: answer the command's text for the caller through ``response_url``."""
    reply = handlers_of(context).command(caller_of(context, body), body.get("text") or "")
    respond(**reply.payload(), replace_original=False)
    metrics.observe_reply("command", context)


def register(app: App) -> None:
    """Attach the slash-command listener to ``app``."""
    app.command(COMMAND)(ack=ack_command, lazy=[answer_command])
