"""The one factory that builds the Bolt ``App`` for every door (Socket Mode, HTTP, console, tests).

Single workspace: ``SLACK_BOT_TOKEN``. Many workspaces: ``SLACK_CLIENT_ID`` / ``SLACK_CLIENT_SECRET``
turn on Bolt's OAuth flow with the SQLAlchemy installation and state stores on our database.
``SLACK_API_URL`` points the Web API at another base URL (staging, tests, a local stand-in).
429s, 5xx and connection errors are retried by slack-sdk's retry handlers (honouring
``Retry-After``).
"""

from __future__ import annotations

import logging
from concurrent.futures import ThreadPoolExecutor

from slack_bolt import App
from slack_bolt.oauth.oauth_settings import OAuthSettings
from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.http_retry.builtin_handlers import (
    ConnectionErrorRetryHandler,
    RateLimitErrorRetryHandler,
    ServerErrorRetryHandler,
)
from slack_sdk.signature import SignatureVerifier

from bot.runtime import Runtime
from bot.slack.handlers import Handlers, UserInfo, UserInfoCache
from bot.slack.listeners import actions, commands, events

log = logging.getLogger(__name__)

ACK_THREADS = 32
"""Bolt's ``listener_executor``: runs the ack functions (and non-lazy listeners such as App Home
events). Acks are instant; the pool only needs to cover requests arriving at once."""
LAZY_THREADS = 64
"""The lazy listeners' own pool: they mostly wait on Slack (Web API, response URLs; a slow Slack
answers in seconds), so many threads, and never the acks' pool, so no ack waits behind them."""


def retry_handlers() -> list:
    """slack-sdk's retry handlers: 429 (waits ``Retry-After``), 5xx and connection errors."""
    return [RateLimitErrorRetryHandler(max_retry_count=3), ServerErrorRetryHandler(max_retry_count=2),
            ConnectionErrorRetryHandler(max_retry_count=2)]


def make_client(runtime: Runtime, token: str | None = None) -> WebClient:
    """A ``WebClient`` for our settings (base URL, retry handlers); ``token`` defaults to the bot token."""
    settings = runtime.settings
    if token is None and settings.slack_bot_token is not None:
        token = settings.slack_bot_token.get_secret_value()
    kwargs = {"base_url": settings.slack_api_url} if settings.slack_api_url else {}
    return WebClient(token=token, retry_handlers=retry_handlers(), timeout=10, **kwargs)


class _RefusingVerifier(SignatureVerifier):
    """slack-sdk's verifier, except that a malformed ``X-Slack-Request-Timestamp`` (not an
    integer) is an invalid signature rather than a ``ValueError`` (which Bolt answers with 500 and
    a logged traceback, for any unauthenticated caller to trigger)."""

    def is_valid(self, body, timestamp, signature) -> bool:  # type: ignore[no-untyped-def]
        try:
            return super().is_valid(body, timestamp, signature)
        except (TypeError, ValueError):
            return False


def _refuse_malformed_signatures(app: App, secret: str | None) -> None:
    """Give Bolt's request-verification middleware the :class:`_RefusingVerifier` (401 for a
    non-numeric timestamp; tests/reliability/test_signatures.py checks it)."""
    from slack_bolt.middleware.request_verification import RequestVerification

    for middleware in getattr(app, "_middleware_list", []):
        if isinstance(middleware, RequestVerification) and secret:
            middleware._verifier = _RefusingVerifier(signing_secret=secret)


def _separate_lazy_pool(app: App) -> None:
    """Run lazy listeners on a pool of :data:`LAZY_THREADS` of their own. Bolt runs them on its
    ``listener_executor``, the same pool as the acks (``App.__init__`` builds one
    ``ThreadLazyListenerRunner`` on it and has no parameter for another), so with a slow Slack
    the follow-up work filled the pool and acks queued behind it for seconds."""
    from slack_bolt.lazy_listener.thread_runner import ThreadLazyListenerRunner

    runner = getattr(app, "_listener_runner", None)
    if runner is None or not hasattr(runner, "lazy_listener_runner"):  # pragma: no cover
        log.warning("Bolt's listener runner changed: lazy listeners share the ack pool")
        return
    runner.lazy_listener_runner = ThreadLazyListenerRunner(
        logger=app.logger,
        executor=ThreadPoolExecutor(max_workers=LAZY_THREADS, thread_name_prefix="bolt-lazy"))


def build_app(runtime: Runtime, client: WebClient | None = None, *, verify_requests: bool = True) -> App:
    """Build the Bolt app.

    ``client``: a ready ``WebClient`` (console, tests); its token is used and ``auth.test`` is not
    called at start. Otherwise the client comes from settings: OAuth when a client id and secret
    are set, else the bot token. ``verify_requests=False`` turns signature checks off (the local
    console only). Raises ``ValueError`` when neither a token nor OAuth is configured and no
    client is given.
    """
    settings = runtime.settings
    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    common = dict(
        listener_executor=ThreadPoolExecutor(max_workers=ACK_THREADS, thread_name_prefix="bolt-ack"),
        signing_secret=secret or ("console-not-verified" if not verify_requests else None),
        request_verification_enabled=verify_requests,
        process_before_response=False,
        raise_error_for_unhandled_request=False,
    )
    if client is not None:
        # auth.test runs now, at start, so the first request's ack never waits for it.
        app = App(client=client, token_verification_enabled=True, **common)
    elif settings.oauth_enabled:
        oauth = OAuthSettings(
            client_id=settings.slack_client_id,
            client_secret=settings.slack_client_secret.get_secret_value(),
            scopes=[s.strip() for s in settings.slack_scopes.split(",") if s.strip()],
            installation_store=runtime.store.installation_store(client_id=settings.slack_client_id),
            state_store=runtime.store.oauth_state_store(),
        )
        app = App(client=make_client(runtime, token=None), oauth_settings=oauth, **common)
    elif settings.slack_bot_token is not None:
        app = App(client=make_client(runtime), token_verification_enabled=True, **common)
    else:
        raise ValueError("no Slack credentials: set SLACK_BOT_TOKEN (one workspace) or "
                         "SLACK_CLIENT_ID and SLACK_CLIENT_SECRET (OAuth)")

    def fetch_user(team_id: str, user_id: str) -> UserInfo:
        extra = {}
        if client is None and settings.oauth_enabled:
            store = runtime.store.installation_store(client_id=settings.slack_client_id)
            bot = store.find_bot(enterprise_id=None, team_id=team_id)
            if bot is None or not bot.bot_token:
                return UserInfo()
            extra["token"] = bot.bot_token
        try:
            resp = app.client.users_info(user=user_id, include_locale=True, **extra)
        except SlackApiError as exc:
            log.info("users.info failed for a user of team %s: %s", team_id, exc.response.get("error"))
            return UserInfo()
        except Exception as exc:  # noqa: BLE001 - network trouble must not break a reply
            log.info("users.info failed: %s", type(exc).__name__)
            return UserInfo()
        user = resp.get("user") or {}
        return UserInfo(locale=user.get("locale"), tz=user.get("tz"))

    _separate_lazy_pool(app)
    if verify_requests:
        _refuse_malformed_signatures(app, secret)
    handlers = Handlers(runtime, users_info=UserInfoCache(fetch_user))
    commands.register(app, handlers)
    actions.register(app, handlers)
    events.register(app, handlers)
    app.handlers = handlers  # type: ignore[attr-defined] - for the console and tests
    return app
