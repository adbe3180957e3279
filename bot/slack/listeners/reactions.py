"""``reaction_added`` (issue 44): a ✅ (``white_check_mark``) a person adds to a reading club's digest
marks that digest's steps read for them, once. Written before the ack (what is acknowledged is
stored); no Web API call. Other emoji, other messages, the app's own bot user and events that
carry a ``bot_id`` change nothing; an org-wide body (no outer ``team_id``) is keyed by its tenant."""

from __future__ import annotations

import logging
from typing import Any

from slack_bolt import Ack, App, BoltContext

from bot.slack.listeners.context import caller_of, handlers_of
from bot.slack.listeners.events import event_tenant

log = logging.getLogger(__name__)

READ_REACTION = "white_check_mark"
"""The emoji that marks a club digest read (✅)."""


def reaction_added(ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
    """Mark a club digest's steps read for the person who added ✅ to it, then ack."""
    item = event.get("item") or {}
    user = str(event.get("user") or "")
    bots = {context.bot_user_id, *(a.get("user_id") for a in body.get("authorizations") or () if a.get("is_bot"))}
    if (
        event.get("reaction") == READ_REACTION
        and item.get("type") == "message"
        and user
        and user not in bots
        and not event.get("bot_id")
        and item.get("channel")
        and item.get("ts")
    ):
        handlers = handlers_of(context)
        team = caller_of(context).team_id or event_tenant(body, context)
        marked = handlers.rt.store.club_mark(team, str(item["channel"]), str(item["ts"]), user)
        if marked is not None:
            handlers.homes.changed(team, user)  # their App Home shows the steps read
            log.info("a club digest marked read with a reaction (%d step(s) newly read)", len(marked))
    ack()


def register(app: App) -> None:
    """Attach the ``reaction_added`` listener."""
    app.event("reaction_added")(reaction_added)
