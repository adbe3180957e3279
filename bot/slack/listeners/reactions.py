"""``reaction_added`` (issue 44): a ✅ (``white_check_mark``) a person adds to a reading club's digest
marks that digest's steps read for them, once. Written before the ack (what is acknowledged is
stored); no Web API call before it. Other emoji, other messages, the app's own bot user and events
that carry a ``bot_id`` change nothing; an org-wide body (no outer ``team_id``) is keyed by its tenant.

Another app's bot user reacts like a person (Slack sends its user id in ``event.user``, no
``bot_id``), so after the ack a lazy listener (Bolt's ``lazy=``, on the app's listener executor) asks
``users.info`` once (``users:read``) whether the reactor ``is_bot`` or ``is_app_user``; for a bot it
takes back exactly what this reaction marked (the steps newly read and the club mark). The answer is
kept per team and user (:class:`Reactors`), so a known bot is skipped before the ack and a known
person costs no call."""

from __future__ import annotations

import logging
import threading
import time
from typing import Any

from cachetools import TTLCache
from slack_bolt import Ack, App, BoltContext
from slack_sdk import WebClient

from bot.slack.listeners.context import caller_of, handlers_of
from bot.slack.listeners.events import event_tenant
from bot.slack.retry import SameOnCopy

log = logging.getLogger(__name__)

READ_REACTION = "white_check_mark"
"""The emoji that marks a club digest read (✅)."""
MARKED = "vllm_path_club_marked"
"""The context key by which the ack hands the lazy check what it marked: ``{"team", "user",
"channel", "ts", "steps"}`` (plain JSON values: Bolt deep-copies the context into the lazy listener)."""
SLACKBOT = "USLACKBOT"
"""Slackbot's user id: ``users.info`` does not call it a bot, but it is no reader."""


class Reactors(SameOnCopy):
    """Whether a reactor is a bot (``users.info`` ``is_bot`` / ``is_app_user``), remembered per
    ``(team, user)`` for ``ttl`` seconds, at most ``size`` people; thread-safe. Answers that could not
    be had (a refusal, a network error) are not remembered."""

    def __init__(self, size: int = 2048, ttl: float = 86_400.0) -> None:
        self._known: TTLCache[tuple[str, str], bool] = TTLCache(size, ttl, timer=time.monotonic)
        self._lock = threading.Lock()

    def known(self, team: str, user: str) -> bool | None:
        """True: a bot; False: a person; None: not asked yet (no Web API call)."""
        with self._lock:
            return self._known.get((team, user))

    def is_bot(self, client: WebClient, team: str, user: str) -> bool | None:
        """The remembered answer, else ``users.info`` through ``client`` (the installation's token);
        None when Slack did not say (the mark stays: a person is not to be taken back on a guess)."""
        if (found := self.known(team, user)) is not None:
            return found
        try:
            resp = client.users_info(user=user)
        except Exception as exc:  # SlackApiError (user_not_found, missing_scope …), connection errors
            log.info("users.info of a club reactor failed (team %s): %s", team, getattr(exc, "response", exc))
            return None
        info = resp.get("user") or {}
        bot = user == SLACKBOT or bool(info.get("is_bot") or info.get("is_app_user"))
        with self._lock:
            self._known[(team, user)] = bot
        return bot


def make_listeners(reactors: Reactors) -> tuple[Any, Any]:
    """``(ack function, lazy check)`` of ``reaction_added`` sharing ``reactors``."""

    def reaction_added(ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
        """Mark a club digest's steps read for whoever added ✅ to it (unless known to be a bot),
        then ack; hand what was marked to :func:`check_reactor` unless the reactor is a known person."""
        item = event.get("item") or {}
        user = str(event.get("user") or "")
        authorized = (a.get("user_id") for a in body.get("authorizations") or () if a.get("is_bot"))
        bots = {context.bot_user_id, SLACKBOT, *authorized}
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
            known = reactors.known(team, user)
            if known is not True:
                channel, ts = str(item["channel"]), str(item["ts"])
                marked = handlers.rt.store.club_mark(team, channel, ts, user)
                if marked is not None:
                    handlers.homes.changed(team, user)  # their App Home shows the steps read
                    log.info("a club digest marked read with a reaction (%d step(s) newly read)", len(marked))
                    if known is None:
                        steps = sorted(marked)
                        context[MARKED] = {"team": team, "user": user, "channel": channel, "ts": ts, "steps": steps}
        ack()

    def check_reactor(context: BoltContext, client: WebClient) -> None:
        """Lazy, after the ack: when the ✅ came from a bot (``users.info``), take back what it marked."""
        marked = context.get(MARKED)
        if not marked:
            return
        team, user = marked["team"], marked["user"]
        try:
            if reactors.is_bot(client, team, user) is not True:
                return
            handlers = handlers_of(context)
            handlers.rt.store.club_unmark(team, marked["channel"], marked["ts"], user, marked["steps"])
            handlers.homes.changed(team, user)
            log.info("a bot's ✅ on a club digest was taken back (%d step(s))", len(marked["steps"]))
        except Exception:
            log.exception("checking a club digest's reactor failed (team %s)", team)

    return reaction_added, check_reactor


def register(app: App) -> None:
    """Attach the ``reaction_added`` listener: the mark before the ack, the bot check after it."""
    ack_function, check = make_listeners(Reactors())
    app.event("reaction_added")(ack=ack_function, lazy=[check])
