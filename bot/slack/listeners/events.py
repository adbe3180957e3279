"""Events API listeners: ``app_home_opened`` (publish Home), ``app_uninstalled`` and
``tokens_revoked`` (forget the team's tokens, pause its digests). Events are de-duplicated by
``event_id`` so Slack's retries change nothing twice."""

from __future__ import annotations

import logging

from slack_bolt import App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.logging_setup import slack_error
from bot.slack.handlers import Caller, Handlers
from bot.slack.listeners.identity import caller_of, tenant

log = logging.getLogger(__name__)


def first_delivery(handlers: Handlers, body: dict) -> bool:
    """True the first time an ``event_id`` is seen (retries with ``X-Slack-Retry-Num`` are dropped)."""
    event_id = body.get("event_id")
    if not event_id:
        return True
    return handlers.rt.store.record_event(event_id, body.get("team_id") or "")


MAX_CHANNEL_PAGES = 3
"""Pages of ``users.conversations`` (200 channels each) read per Home publish: a Tier 3 method, so
App Home lists digests of at most 600 of a person's channels rather than spending the rate limit."""


def user_channels(client: WebClient, user_id: str) -> list[str] | None:
    """Channel ids ``user_id`` is in (that the bot can see; at most :data:`MAX_CHANNEL_PAGES`
    pages), or ``None`` when Slack refused."""
    out: list[str] = []
    cursor = None
    seen: set[str] = set()
    try:
        for _ in range(MAX_CHANNEL_PAGES):
            resp = client.users_conversations(user=user_id, types="public_channel,private_channel",
                                              exclude_archived=True, limit=200, cursor=cursor)
            out.extend(c["id"] for c in resp.get("channels") or [] if isinstance(c, dict) and "id" in c)
            cursor = (resp.get("response_metadata") or {}).get("next_cursor")
            if not cursor or cursor in seen:
                break
            seen.add(cursor)
    except SlackApiError as exc:
        log.warning("users.conversations failed: %s", slack_error(exc.response))
        return None
    return out


def publish_home(handlers: Handlers, client: WebClient, caller: Caller) -> None:
    """Render and publish App Home for ``caller`` (Slack errors are logged, not raised)."""
    view = handlers.home(caller, user_channels(client, caller.user_id))
    try:
        client.views_publish(user_id=caller.user_id, view=view)
    except SlackApiError as exc:
        log.warning("views.publish failed: %s", slack_error(exc.response))


def register(app: App, handlers: Handlers) -> None:
    """Attach the event listeners."""

    @app.event("app_home_opened")
    def home_opened(body: dict, event: dict, client: WebClient, context: BoltContext) -> None:
        if event.get("tab", "home") != "home" or not first_delivery(handlers, body):
            return
        caller = caller_of(context)
        publish_home(handlers, client, Caller(team_id=caller.team_id,
                                              user_id=event.get("user") or caller.user_id))

    @app.event("app_uninstalled")
    def uninstalled(body: dict, context: BoltContext) -> None:
        # The installation is the one the event was delivered for (authorizations[0] via
        # Bolt's context), not the outer team_id; an org-wide one has no team id.
        if first_delivery(handlers, body):
            removal = handlers.rt.store.remove_installation(
                context.enterprise_id, context.team_id, context.is_enterprise_install)
            log.info("app uninstalled from %s: tokens removed, %d digests paused", tenant(context),
                     removal.subscriptions_paused + removal.dms_paused)

    @app.event("tokens_revoked")
    def revoked(body: dict, event: dict, context: BoltContext) -> None:
        # Only the bot token matters to us; revoked user tokens change nothing.
        if (event.get("tokens") or {}).get("bot") and first_delivery(handlers, body):
            handlers.rt.store.remove_installation(
                context.enterprise_id, context.team_id, context.is_enterprise_install)
            log.info("bot token revoked in %s: tokens removed, digests paused", tenant(context))
