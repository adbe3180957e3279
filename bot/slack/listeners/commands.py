"""The ``/vllm-path`` slash command, one listener: its middleware (:class:`AnswerInAck`, in the request
thread) returns the reply as the ack's body when it is ready without the Web API; otherwise the
listener acks at once and its lazy function answers through ``response_url``. The text is parsed once."""

from __future__ import annotations

import logging
import re
from collections.abc import Callable
from typing import Any

from slack_bolt import App, BoltContext, BoltRequest, BoltResponse, Respond
from slack_bolt.middleware import Middleware

from bot import metrics
from bot.slack.grammar import Command, parse
from bot.slack.held import HELD, HoldUntilAnswered
from bot.slack.kept_answers import KINDS, KeptAnswers
from bot.slack.listeners.context import ack_now, caller_of, handlers_of
from bot.slack.listeners.errors import answers_failure
from bot.slack.views.blocks import Reply

log = logging.getLogger(__name__)

COMMAND = re.compile(r"^/vllm-path")
"""Matches ``/vllm-path`` and staging variants such as ``/vllm-path-dev``."""

PARSED = "vllm_path_command"
"""The ``context`` key of the parsed :class:`~bot.slack.grammar.Command` (for after the ack too)."""

JSON_TYPE = "application/json;charset=utf-8"
"""The ack's content type: Slack shows a JSON body as the message (a text body as plain text)."""


def _parsed(body: dict[str, Any], context: BoltContext) -> Command:
    """The command of this request, parsed on first use and kept in ``context[PARSED]``."""
    cmd = context.get(PARSED)
    if not isinstance(cmd, Command):
        cmd = context[PARSED] = parse(body.get("text") or "")
    return cmd


class AnswerInAck(Middleware):
    """Listener middleware of the command: when the reply needs no Web API it is the ack itself (an
    HTTP 200 whose JSON body Slack shows as the message), returned without calling ``next`` so that
    Bolt runs neither the ack function nor the lazy one; otherwise (or when making it fails, logged at
    info, or when the request is held already: answered again by :func:`bot.slack.held.answer_held`,
    or acked first by the Socket Mode door, its ack gone) it calls ``next`` and the listener answers
    after the ack. Bolt calls a class-based middleware directly, without the keyword injection a
    matcher or an ack function costs.

    Speed layer needed by ``benchmarks/command_latency.py`` (50 people): with every command
    answered after the ack, p50 rose from ~37 to 100 ms and the CPU per request to 3.3-3.4x the
    no-op's (target <= 1.3x; docs/benchmarks.md, "Speed layers and the benchmarks that need them").
    Answers of some kinds are kept for the same text and reader state (:mod:`bot.slack.kept_answers`,
    one :class:`~bot.slack.kept_answers.KeptAnswers` per app)."""

    def __init__(self, kept: KeptAnswers | None = None) -> None:
        self._kept = kept or KeptAnswers()

    def process(self, *, req: BoltRequest, resp: BoltResponse, next: Callable[[], BoltResponse]) -> BoltResponse | None:
        """The ready reply as a ``BoltResponse``, else ``next()``'s (see the class)."""
        body, context = req.body, req.context
        if context.get(HELD) is not None:  # held already (answered again, or acked first): after the ack
            return next()
        try:
            reply = self._answer(body, context)
        except Exception as exc:  # the lazy listener tries again and answers the failure
            log.info("reply not ready for the ack (team %s): %s", body.get("team_id"), type(exc).__name__)
            reply = None
        if reply is None:
            return next()
        metrics.observe_reply("command", context)
        return BoltResponse(status=200, body=reply.body_json, headers={"content-type": JSON_TYPE})

    def _answer(self, body: dict[str, Any], context: BoltContext) -> Reply | None:
        """The reply for the ack (kept, :mod:`bot.slack.kept_answers`), else None; raises what the store raises."""
        handlers, caller, text = handlers_of(context), caller_of(context, body), body.get("text") or ""
        rt, users_info, kept = handlers.rt, handlers.users_info, self._kept
        key = None
        if kept.known(text):
            key = kept.key(rt, users_info, caller.team_id, caller.user_id, text)
            reply = kept.get(rt, key) if key is not None else None
            if reply is not None:
                return reply
        cmd = _parsed(body, context)
        if key is None and cmd.kind in KINDS:
            key = kept.key(rt, users_info, caller.team_id, caller.user_id, text)
        if key is None:
            return handlers.answer_now(caller, text, cmd)
        person = (caller.team_id, caller.user_id)
        return kept.made(rt, users_info, person, key, cmd.kind, lambda: handlers.answer_now(caller, text, cmd))


@answers_failure("slash command")
def answer_command(body: dict[str, Any], respond: Respond, context: BoltContext) -> None:
    """Lazy: answer the command (parsed by :class:`AnswerInAck`, :data:`PARSED`) through ``response_url``."""
    reply = handlers_of(context).run(caller_of(context, body), _parsed(body, context), body.get("text") or "")
    respond(**reply.payload(), replace_original=False)
    metrics.observe_reply("command", context)


def register(app: App, kept: KeptAnswers | None = None) -> None:
    """Attach the slash-command listener to ``app``; ``kept``: where its answers are kept (default: a new one)."""
    app.command(COMMAND, middleware=[AnswerInAck(kept), HoldUntilAnswered()])(ack=ack_now, lazy=[answer_command])
