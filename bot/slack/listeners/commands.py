"""The ``/vllm-path`` slash command: the reply in the ack when :func:`answerable_now` (a matcher, in the
request thread) has it, else an empty ack and the reply via ``response_url``; the text is parsed once."""

from __future__ import annotations

import logging
import re

from slack_bolt import Ack, App, BoltContext, Respond

from bot import metrics
from bot.slack.grammar import Command, parse
from bot.slack.listeners.context import ack_now, caller_of, handlers_of
from bot.slack.listeners.errors import answers_failure
from bot.slack.views.blocks import Reply

log = logging.getLogger(__name__)

COMMAND = re.compile(r"^/vllm-path")
"""Matches ``/vllm-path`` and staging variants such as ``/vllm-path-dev``."""

READY_REPLY = "vllm_path_ready_reply"
"""The ``context`` key under which :func:`answerable_now` leaves the reply for the ack."""
PARSED = "vllm_path_command"
"""The ``context`` key of the parsed :class:`~bot.slack.grammar.Command` (for after the ack too)."""


def _parsed(body: dict, context: BoltContext) -> Command:
    """The command of this request, parsed on first use and kept in ``context[PARSED]``."""
    cmd = context.get(PARSED)
    if not isinstance(cmd, Command):
        cmd = context[PARSED] = parse(body.get("text") or "")
    return cmd


def answerable_now(body: dict, context: BoltContext) -> bool:
    """Bolt matcher: ``True`` (the reply in ``context[READY_REPLY]``) when ready without the Web API; a
    failure reads ``False``, logged at info."""
    try:
        cmd = _parsed(body, context)
        reply = handlers_of(context).answer_now(caller_of(context, body), body.get("text") or "", cmd)
    except Exception as exc:  # the lazy listener tries again and answers the failure
        log.info("reply not ready for the ack (team %s): %s", body.get("team_id"), type(exc).__name__)
        return False
    if reply is None:
        return False
    context[READY_REPLY] = reply
    return True


def answer_in_ack(ack: Ack, context: BoltContext) -> None:
    """Ack with the reply :func:`answerable_now` made, as its JSON text (:attr:`Reply.body_json`):
    Bolt sends a string starting with ``{`` unchanged, as JSON, and Slack reads it as the message."""
    reply: Reply = context[READY_REPLY]
    ack(reply.body_json)
    metrics.observe_reply("command", context)


@answers_failure("slash command")
def answer_command(body: dict, respond: Respond, context: BoltContext) -> None:
    """Lazy: answer the command (parsed by the matcher, :data:`PARSED`) through ``response_url``."""
    reply = handlers_of(context).run(caller_of(context, body), _parsed(body, context), body.get("text") or "")
    respond(**reply.payload(), replace_original=False)
    metrics.observe_reply("command", context)


def register(app: App) -> None:
    """Attach the slash-command listeners to ``app`` (Bolt runs the first that matches)."""
    app.command(COMMAND, matchers=[answerable_now])(answer_in_ack)
    app.command(COMMAND)(ack=ack_now, lazy=[answer_command])
