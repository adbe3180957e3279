"""Events API listeners: ``app_home_opened`` (publish Home, through :class:`bot.slack.homes.HomePublisher`),
``link_shared`` (``chat.unfurl`` our links, lazily), ``app_uninstalled`` and ``tokens_revoked`` (forget the
tokens, pause the digests). Events other than ``app_home_opened`` are de-duplicated by ``event_id``, so
Slack's retries change nothing twice; a Home open again publishes nothing new (a repeated publish is harmless)."""

from __future__ import annotations

import hashlib
import http.client
import logging
import time
import weakref
from concurrent.futures import Executor
from typing import Any

from slack_bolt import Ack, App, BoltContext
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot import metrics
from bot.logging_setup import slack_error
from bot.slack.handlers import Caller, Handlers
from bot.slack.homes import HomePublisher, KeptAliveApi
from bot.slack.listeners.context import ack_now, caller_of, handlers_of, tenant
from bot.slack.listeners.errors import answers_failure
from bot.store.snapshots import TeamRemoval

log = logging.getLogger(__name__)


def event_tenant(body: dict[str, Any], context: BoltContext) -> str:
    """The tenant an event was delivered for (:func:`tenant`), else the body's team or enterprise, else "-"."""
    return tenant(context) or body.get("team_id") or body.get("enterprise_id") or "-"


def first_delivery(handlers: Handlers, body: dict[str, Any], context: BoltContext) -> bool:
    """True the first time an ``event_id`` is seen for its tenant (False for Slack's retries)."""
    event_id = body.get("event_id")
    first: bool = not event_id or handlers.rt.store.record_event(event_id, event_tenant(body, context))
    return first


MAX_CHANNEL_PAGES = 3
"""Pages of ``users.conversations`` (200 channels each, Tier 3) read per Home publish."""


def user_channels(client: WebClient, user_id: str, token: str | None = None) -> list[str] | None:
    """Channel ids ``user_id`` is in that the bot sees (:data:`MAX_CHANNEL_PAGES`), ``None`` when refused."""
    out: list[str] = []
    cursor = None
    seen: set[str] = set()
    try:
        for _ in range(MAX_CHANNEL_PAGES):
            resp = client.users_conversations(
                user=user_id,
                types="public_channel,private_channel",
                exclude_archived=True,
                limit=200,
                cursor=cursor,
                token=token,
            )
            out.extend(c["id"] for c in resp.get("channels") or [] if isinstance(c, dict) and "id" in c)
            cursor = (resp.get("response_metadata") or {}).get("next_cursor")
            if not cursor or cursor in seen:
                break
            seen.add(cursor)
    except SlackApiError as exc:
        log.warning("users.conversations failed: %s", slack_error(exc.response))
        return None
    return out


def publish_home(
    handlers: Handlers, client: WebClient, api: KeptAliveApi | None, caller: Caller, token: str | None
) -> None:
    """Publish App Home for ``caller`` with ``token`` (None: ``client``'s): channels and view from
    ``handlers.homes`` while fresh and rendered from the person's reading state now. With ``api``
    (kept-alive connections) a view Slack shows already is not sent again; without, it is sent through
    ``client`` every time (the console shows each open).
    Slack's refusals are logged, not raised; the store's errors are raised."""
    homes, key = handlers.homes, (caller.team_id, caller.user_id)
    token = token or client.token
    version = homes.version()
    # the catalog too (issue 41: a step's link that arrived replaces its "no link yet"); a weak
    # reference, equal only while that very catalog is served, so that no old catalog is kept
    basis = (weakref.ref(handlers.rt.holder.loaded), handlers.rt.store.reader_state(*key))
    channels, listed_at, view, digest = homes.get(key, basis) or (None, 0.0, None, "")
    if not listed_at:
        listed_at, channels = time.monotonic(), user_channels(client, caller.user_id, token)
    if view is None:
        view = handlers.home(caller, channels, basis[1])
        digest = homes.keep(key, channels, listed_at, view, basis, version)
    if api is None:
        try:
            client.views_publish(user_id=caller.user_id, view=view, token=token)
        except SlackApiError as exc:
            log.warning("views.publish failed: %s", slack_error(exc.response))
        return
    if homes.shown(key, digest):
        return
    try:
        answer = api.call("views.publish", token, {"user_id": caller.user_id, "view": view})
    except (OSError, http.client.HTTPException, ValueError) as exc:
        log.warning("views.publish failed: %s", type(exc).__name__)
        return
    if answer.get("ok"):
        homes.accepted(key, digest)
    else:
        log.warning("views.publish failed: %s", slack_error(answer))


def home_publisher(client: WebClient, handlers: Handlers, executor: Executor) -> HomePublisher:
    """The app's :class:`HomePublisher` publishing with ``client``'s base URL and token on ``executor``:
    on the lazy pool's spare threads through a :class:`KeptAliveApi`; on the console's executor (no
    spare threads) through ``client``, every open."""
    api = KeptAliveApi(client.base_url, timeout=float(client.timeout)) if hasattr(executor, "run_spare") else None
    return HomePublisher(lambda caller, token: publish_home(handlers, client, api, caller, token), executor)


def open_home(context: BoltContext, caller: Caller) -> None:
    """Have ``caller``'s App Home published (coalesced, :class:`HomePublisher`), when the app has a publisher."""
    publisher = handlers_of(context).publisher
    if publisher is not None:
        publisher.open(caller, context.bot_token)


def unfurl_once(handlers: Handlers, team_id: str, where: str, url: str) -> bool:
    """True the first time ``url`` of one message (``where``: channel|ts, or ``unfurl_id``) is unfurled."""
    key = "unfurl:" + hashlib.sha256(f"{team_id}|{where}|{url}".encode()).hexdigest()[:40]
    first: bool = handlers.rt.store.record_event(key, team_id or "-")
    return first


def unfurl_links(handlers: Handlers, client: WebClient, caller: Caller, event: dict[str, Any]) -> bool:
    """Answer a ``link_shared`` event (``channel`` + ``message_ts``, or ``unfurl_id`` + ``source``
    from the composer; ``links[{url}]``) with one ``chat.unfurl`` for our links; whether one was made."""
    urls = [str(x.get("url")) for x in event.get("links") or [] if isinstance(x, dict) and x.get("url")]
    unfurls = handlers.unfurls(caller, urls)
    composer = event.get("source") == "composer" and event.get("unfurl_id")
    where = str(event.get("unfurl_id")) if composer else f"{event.get('channel')}|{event.get('message_ts')}"
    unfurls = {u: card for u, card in unfurls.items() if unfurl_once(handlers, caller.team_id, where, u)}
    if not unfurls:
        return False
    target: dict[str, Any] = (
        {"unfurl_id": event["unfurl_id"], "source": "composer"}
        if composer
        else {"channel": event.get("channel"), "ts": event.get("message_ts")}
    )
    try:
        client.chat_unfurl(unfurls=unfurls, **target)
    except SlackApiError as exc:
        log.warning("chat.unfurl failed: %s", exc.response.get("error"))
    return True


@answers_failure("link_shared")
def link_shared(body: dict[str, Any], event: dict[str, Any], client: WebClient, context: BoltContext) -> None:
    """Lazy: unfurl the catalog links of a ``link_shared`` event (once per event id)."""
    handlers = handlers_of(context)
    if not first_delivery(handlers, body, context):
        return
    found = caller_of(context)  # the one rule: bot/slack/listeners/context.py
    caller = Caller(
        team_id=found.team_id or event_tenant(body, context),
        user_id=found.user_id or event.get("user") or "",
        channel_id=found.channel_id or event.get("channel") or "",
    )
    if unfurl_links(handlers, client, caller, event):
        metrics.observe_reply("unfurl", context)


def home_opened(ack: Ack, body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
    """Ack ``app_home_opened``; on the Home tab, the person's Home is to be published (:func:`open_home`:
    no Web API call or SQL here, and no dedup insert: a repeated open publishes nothing new)."""
    ack()
    if event.get("tab", "home") != "home":
        return
    found = caller_of(context)
    team = found.team_id or event_tenant(body, context)
    open_home(context, Caller(team_id=team, user_id=event.get("user") or found.user_id))


def uninstalled(body: dict[str, Any], event: dict[str, Any], context: BoltContext) -> None:
    """``app_uninstalled``, or ``tokens_revoked`` naming the bot token: forget the tokens and pause
    the digests of the installation the event was delivered for (Bolt's context, not ``team_id``)."""
    handlers = handlers_of(context)
    if event.get("type") == "tokens_revoked" and not (event.get("tokens") or {}).get("bot"):
        return
    if first_delivery(handlers, body, context):
        removal = handlers.rt.store.remove_installation(
            context.enterprise_id, context.team_id, context.is_enterprise_install
        )
        paused = removal.subscriptions_paused + removal.dms_paused
        log.info("%s in %s: %s, %d digests paused", event.get("type"), tenant(context), removed(removal), paused)


def removed(removal: TeamRemoval) -> str:
    """What :meth:`~bot.store.Store.remove_installation` deleted, for the log: the installation and
    bot-token rows it counted, or that there were none (an app never installed there, or removed already)."""
    if not removal.installations_deleted and not removal.bots_deleted:
        return "no tokens were stored (nothing removed)"
    return f"tokens removed ({removal.installations_deleted} installation(s), {removal.bots_deleted} bot token(s))"


def register(app: App) -> None:
    """Attach the event listeners (App Home opens first: Bolt tries the listeners in order)."""
    app.event("app_home_opened")(home_opened)
    app.event("link_shared")(ack=ack_now, lazy=[link_shared])
    app.event("app_uninstalled")(uninstalled)
    app.event("tokens_revoked")(uninstalled)
