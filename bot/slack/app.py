"""The one factory of the Bolt ``App`` for every door: ``SLACK_BOT_TOKEN`` (one workspace), or
``SLACK_CLIENT_ID``/``SLACK_CLIENT_SECRET`` (OAuth, stores on our database); ``SLACK_API_URL``: the Web API's base."""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from concurrent.futures import Executor
from typing import Any

from slack_bolt import App, BoltRequest, BoltResponse
from slack_bolt.logger.messages import warning_client_prioritized_and_token_skipped
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError

from bot.runtime import Runtime
from bot.slack.commands.context import CHANNEL_INVITE, CHANNEL_OK
from bot.slack.commands.subscribe import CHANNEL_UNCHECKED
from bot.slack.handlers import Handlers, UserInfo, UserInfoCache
from bot.slack.homes import HomePublisher
from bot.slack.kept_answers import KeptAnswers
from bot.slack.lazy import REQUEST_BODY, BoundedLazyPool
from bot.slack.listeners import actions, commands, drafts, errors, events, reactions
from bot.slack.listeners.context import provide_handlers
from bot.slack.mrkdwn import Mrkdwn
from bot.slack.retry import app_retry_handlers
from bot.slack.signing import SignedRequestVerification

log = logging.getLogger(__name__)


def make_client(runtime: Runtime, token: str | None = None) -> WebClient:
    """A ``WebClient`` for our settings (base URL, retry handlers); ``token`` defaults to the bot token."""
    settings = runtime.settings
    if token is None and settings.slack_bot_token is not None:
        token = settings.slack_bot_token.get_secret_value()
    return WebClient(
        token=token,
        base_url=settings.slack_api_url or WebClient.BASE_URL,
        retry_handlers=app_retry_handlers(),
        timeout=10,
    )


class BotApp(App):
    """Bolt's ``App`` carrying our :class:`Handlers` (``app.handlers``), put in every request's context,
    its lazy listeners' pool (``app.lazy_pool``; None when built with the caller's executor) and the
    slash command's kept answers (``app.kept_answers``, :mod:`bot.slack.kept_answers`)."""

    handlers: Handlers
    lazy_pool: BoundedLazyPool | None = None
    kept_answers: KeptAnswers

    def dispatch(self, req: BoltRequest) -> BoltResponse:
        """Bolt's dispatch after :func:`~bot.slack.listeners.context.provide_handlers`, ``req.body`` in REQUEST_BODY."""
        provide_handlers(req.context, self.handlers)
        token = REQUEST_BODY.set(req.body)
        try:
            return super().dispatch(req)
        finally:
            REQUEST_BODY.reset(token)


def lazy_runner(app: App) -> BoundedLazyPool | None:
    """The app's :class:`bot.slack.lazy.BoundedLazyPool` (``BotApp.lazy_pool``), or None."""
    return getattr(app, "lazy_pool", None)


def drain_after_ack(app: App, grace_s: float) -> int:
    """At a stop, once the door takes no more requests (issue 42: what is acknowledged is handled):
    finish the work acknowledged and not yet done, within ``grace_s`` seconds in all: the App Home
    publishes waiting for a thread (:meth:`bot.slack.homes.HomePublisher.finish`, on threads of their
    own) while the lazy pool runs its jobs, running or waiting (``link_shared`` unfurls, the ✅ bot
    check, command and click follow-ups), then :meth:`bot.slack.lazy.BoundedLazyPool.drain` with what
    is left of the grace. Returns how many were dropped (jobs not finished plus Homes not published;
    a Home publish in flight when time ran out may count in both), 0 for an app without a lazy pool."""
    runner = lazy_runner(app)
    if runner is None:
        return 0
    deadline = time.monotonic() + grace_s
    handlers = getattr(app, "handlers", None)
    publisher = getattr(handlers, "publisher", None)
    homes_left = publisher.finish(grace_s) if isinstance(publisher, HomePublisher) else 0
    jobs_left = runner.drain(max(0.0, deadline - time.monotonic()))
    if homes_left:
        log.warning("stopping: %d App Home publish(es) not done (their next open publishes them)", homes_left)
    return jobs_left + homes_left


def _not_same_token_notice(record: logging.LogRecord) -> bool:
    """Drop Bolt's warning that ``token`` "will be unused": our client is built from the same token."""
    return record.getMessage() != warning_client_prioritized_and_token_skipped()


def build_app(
    runtime: Runtime,
    client: WebClient | None = None,
    *,
    verify_requests: bool = True,
    listener_executor: Executor | None = None,
) -> BotApp:
    """Build the Bolt app. ``client``: a ready ``WebClient`` (console, tests), else one from settings;
    ``verify_requests=False``: no signature checks (the console only); ``listener_executor``: where lazy
    listeners run (default: a :class:`~bot.slack.lazy.BoundedLazyPool`). Ack functions run in the request
    thread (none calls the Web API). Raises ``ValueError`` when there is no client, token or OAuth."""
    settings = runtime.settings
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    logging.getLogger(f"slack_bolt.{App.__name__}").addFilter(_not_same_token_notice)  # idempotent
    pool = BoundedLazyPool() if listener_executor is None else None
    common: dict[str, Any] = dict(
        signing_secret=secret or ("console-not-verified" if not verify_requests else None),
        request_verification_enabled=False,  # ours runs in its place, before_authorize
        before_authorize=SignedRequestVerification(secret or "") if verify_requests else None,
        process_before_response=True,
        raise_error_for_unhandled_request=False,
        listener_executor=listener_executor or pool,  # acks run in the request thread: lazy listeners only
        name="app.py",  # Bolt's default (its caller's file), without the inspect.stack() it costs
    )
    if client is not None:
        app = BotApp(client=client, token_verification_enabled=True, **common)  # auth.test now, not in an ack
    elif settings.oauth_enabled and settings.slack_client_secret is not None:
        # deferred: the install pages (jinja2) and Bolt's OAuth flow serve OAuth apps only
        from slack_bolt.oauth.callback_options import CallbackOptions
        from slack_bolt.oauth.oauth_settings import OAuthSettings

        from bot.slack.installs import InstallationGate, LockedRotationAuthorize, after_install
        from bot.web.oauth import PageOAuthFlow, failure, success_page

        installations = runtime.store.installation_store(client_id=settings.slack_client_id)
        oauth = OAuthSettings(
            client_id=settings.slack_client_id,
            client_secret=settings.slack_client_secret.get_secret_value(),
            scopes=[s.strip() for s in settings.slack_scopes.split(",") if s.strip()],
            installation_store=installations,
            state_store=runtime.store.oauth_state_store(),
            authorization_url=settings.slack_authorize_url,
            callback_options=CallbackOptions(
                success=success_page(after_install(runtime, lambda token: make_client(runtime, token=token))),
                failure=failure,
            ),
        )
        # Bolt's own authorize would refresh rotating tokens per request, on slack.com, without our lock.
        authorize = LockedRotationAuthorize(
            installation_store=installations,
            client_id=oauth.client_id,
            client_secret=oauth.client_secret,
            client=make_client(runtime, token=None),
            rotation_lock=runtime.store.rotation_lock,
            logger=logging.getLogger(f"slack_bolt.{App.__name__}"),
        )
        # A workspace without an installation gets our words (with PUBLIC_URL the install link), not Bolt's.
        base = str(settings.public_url).rstrip("/") if settings.public_url else None
        common["before_authorize"] = InstallationGate(
            runtime,
            installations,
            f"{base}{oauth.install_path}" if base else None,
            verification=common["before_authorize"],
        )
        app = BotApp(
            client=make_client(runtime, token=None),
            oauth_flow=PageOAuthFlow(client=make_client(runtime, token=None), settings=oauth),
            authorize=authorize,  # type: ignore[arg-type]  # an Authorize: Bolt takes one beside an OAuth flow
            **common,
        )
    elif settings.slack_bot_token is not None:
        app = BotApp(client=make_client(runtime), token_verification_enabled=True, **common)
    else:
        raise ValueError(settings.missing_slack_credentials())

    def web_api(team_id: str, method: str, call: Callable[[str | None], Any]) -> tuple[Any, str | None]:
        """``(response, None)`` of ``call(token)`` with ``team_id``'s bot token (OAuth) or the client's;
        ``(None, why)``: Slack's error, the exception's name or ``not_installed``. Never raises; logs."""
        token = None
        if client is None and settings.oauth_enabled:
            token = runtime.store.bot_token_for(team_id) or None
            if token is None:
                return None, "not_installed"
        try:
            return call(token), None
        except SlackApiError as exc:
            why = str(exc.response.get("error"))
        except Exception as exc:
            why = type(exc).__name__
        log.info("%s failed (team %s): %s", method, team_id, why)
        return None, why

    def fetch_user(team_id: str, user_id: str) -> UserInfo:
        resp, _ = web_api(
            team_id, "users.info", lambda token: app.client.users_info(user=user_id, include_locale=True, token=token)
        )
        user = (resp.get("user") if resp else None) or {}
        profile = user.get("profile") or {}
        name = profile.get("display_name") or profile.get("real_name") or user.get("real_name") or None
        admin, owner = bool(user.get("is_admin")), bool(user.get("is_owner"))
        return UserInfo(locale=user.get("locale"), tz=user.get("tz"), name=name, is_admin=admin, is_owner=owner)

    def check_channel(team_id: str, channel_id: str) -> str:
        # a private channel the bot is not in is channel_not_found, a public one is_member false:
        # both ask for /invite (no channels:join); any other failure (ratelimited, HTTP 5xx, a timeout)
        # is CHANNEL_UNCHECKED: subscribe stores nothing and asks to try again (QA round 14).
        resp, why = web_api(
            team_id, "conversations.info", lambda token: app.client.conversations_info(channel=channel_id, token=token)
        )
        if resp is None:
            return CHANNEL_INVITE if why == "channel_not_found" else CHANNEL_UNCHECKED
        channel = resp.get("channel") or {}
        if channel.get("is_im") or channel.get("is_mpim") or channel.get("is_member", True):
            return CHANNEL_OK
        return CHANNEL_INVITE

    def announce(team_id: str, channel_id: str, text: Mrkdwn) -> str | None:
        # not_in_channel and other refusals are logged: the command still answers; the refusal is
        # returned (None: posted) for subscribe to undo a digest the channel cannot get (QA round 14)
        _, why = web_api(
            team_id,
            "chat.postMessage",
            lambda t: app.client.chat_postMessage(channel=channel_id, text=str(text), token=t),
        )
        return why

    app.lazy_pool = pool
    handlers = Handlers(runtime, users_info=UserInfoCache(fetch_user), channel_check=check_channel, announce=announce)
    handlers.publisher = events.home_publisher(app.client, handlers, listener_executor or pool)  # type: ignore[arg-type]

    app.kept_answers = KeptAnswers()
    # Bolt tries the listeners in this order, each match building its keyword arguments (~0.02 ms a
    # listener, issue 43): the slash command, the buttons and App Home opens first
    commands.register(app, app.kept_answers)
    actions.register(app)
    events.register(app)
    drafts.register(app)
    reactions.register(app)
    app.error(errors.on_error)
    app.handlers = handlers
    return app
