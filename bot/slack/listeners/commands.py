"""The ``/vllm-path`` slash command: ack at once, answer through ``response_url`` in a lazy listener.

Nothing slow (database, Web API) runs before the ack; the reply goes through ``response_url``
so it works in DMs and private channels where the bot is not a member.
"""

from __future__ import annotations

import logging
import re

from slack_bolt import Ack, App, Respond

from bot.slack.handlers import Caller, Handlers
from bot.slack.i18n import t

log = logging.getLogger(__name__)

COMMAND = re.compile(r"^/vllm-path")
"""Matches ``/vllm-path`` and staging variants such as ``/vllm-path-dev``."""


def register(app: App, handlers: Handlers) -> None:
    """Attach the slash-command listener to ``app``."""

    def ack_command(ack: Ack) -> None:
        ack()

    def answer_command(body: dict, respond: Respond) -> None:
        caller = Caller(team_id=body.get("team_id") or "", user_id=body.get("user_id") or "",
                        channel_id=body.get("channel_id") or "")
        try:
            reply = handlers.command(caller, body.get("text") or "")
        except Exception:  # noqa: BLE001 - any failure gets a friendly reply, details in the log
            log.exception("slash command failed (team %s)", caller.team_id)
            respond(text=t("error.generic"), response_type="ephemeral", replace_original=False)
            return
        respond(**reply.payload(), replace_original=False)

    app.command(COMMAND)(ack=ack_command, lazy=[answer_command])
