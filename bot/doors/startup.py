"""The start-up check of ``SLACK_BOT_TOKEN`` (``auth.test``), which an incident at Slack does not stop.

Only Slack's definite refusals of the token (:data:`REFUSALS`) stop ``vllm-path serve`` (exit 2,
naming the variable). When Slack cannot answer (HTTP 5xx, a time-out, 429, no connection) the app
serves anyway, after one WARNING: Bolt is handed a provisional ``auth.test`` answer, so that no
request waits on one, and a daemon thread (:class:`TokenRecheck`) asks again with back-off, fills
in the real answer and logs once when Slack confirms the token."""

from __future__ import annotations

import logging
import threading
from typing import TYPE_CHECKING, Any

from slack_sdk import WebClient
from slack_sdk.errors import SlackApiError
from slack_sdk.web.slack_response import SlackResponse

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)

REFUSALS = frozenset({"invalid_auth", "token_revoked", "not_authed", "account_inactive"})
"""``auth.test`` errors that say the token itself is refused (any other failure may pass)."""
CHECK_TIMEOUT_S = 5.0
"""Seconds one ``auth.test`` of the check may take (then Slack counts as not answering)."""
FIRST_RETRY_S = 2.0
"""Seconds before the background check asks again; doubled after each failure up to :data:`MAX_RETRY_S`."""
MAX_RETRY_S = 300.0
"""Longest wait between two background checks, in seconds."""


class TokenRefused(Exception):
    """Slack refused the bot token for good; the message names ``SLACK_BOT_TOKEN``."""


def _ask(client: WebClient) -> tuple[SlackResponse | None, str]:
    """``(auth.test's answer, "")``, or ``(None, why)``. Raises :class:`TokenRefused` for one of
    :data:`REFUSALS`."""
    try:
        return client.auth_test(), ""
    except SlackApiError as exc:
        error = exc.response.get("error") if hasattr(exc.response, "get") else None
        if error in REFUSALS:
            raise TokenRefused(f"Slack refused the bot token ({error}): check SLACK_BOT_TOKEN") from None
        status = getattr(exc.response, "status_code", "?")
        return None, f"{error or 'no error code'}, HTTP {status}"
    except Exception as exc:  # a time-out, a refused connection, a body that is not JSON
        return None, type(exc).__name__


class FirstAuthTestKnown(WebClient):
    """A ``WebClient`` like ``source`` whose first ``auth_test`` returns ``known`` without calling
    Slack (Bolt's own start-up check; the start-up check made it already); later calls are Slack's."""

    def __init__(self, source: WebClient, known: SlackResponse):
        super().__init__(
            token=source.token,
            base_url=source.base_url,
            timeout=source.timeout,
            ssl=source.ssl,
            proxy=source.proxy,
            headers=dict(source.headers),
            logger=source.logger,
            retry_handlers=source.retry_handlers,
        )
        self._known: SlackResponse | None = known

    def auth_test(self, **kwargs: Any) -> SlackResponse:
        """The known answer the first time, then Slack's ``auth.test``."""
        known, self._known = self._known, None
        return known if known is not None else super().auth_test(**kwargs)


class TokenRecheck(threading.Thread):
    """A daemon thread asking ``auth.test`` with ``client`` until Slack answers: after
    ``first_retry_s`` seconds, doubled up to ``max_retry_s``. Slack's answer fills ``provisional``
    in (the answer Bolt's authorization reads) and is logged once at INFO; a refusal
    (:data:`REFUSALS`) is logged once as an ERROR naming ``SLACK_BOT_TOKEN``. :attr:`done` is set then."""

    def __init__(
        self,
        client: WebClient,
        provisional: SlackResponse,
        first_retry_s: float = FIRST_RETRY_S,
        max_retry_s: float = MAX_RETRY_S,
    ):
        super().__init__(name="token-recheck", daemon=True)
        self.client, self.provisional = client, provisional
        self.first_retry_s, self.max_retry_s = first_retry_s, max_retry_s
        self.done = threading.Event()
        self.stopped = threading.Event()

    def run(self) -> None:
        """Ask until answered, refused or :attr:`stopped`."""
        delay, attempts = self.first_retry_s, 1
        try:
            while not self.stopped.wait(delay):
                attempts += 1
                try:
                    answer, why = _ask(self.client)
                except TokenRefused as exc:
                    log.error("%s (the token could not be confirmed at start-up; requests will fail)", exc)
                    return
                if answer is not None:
                    if isinstance(self.provisional.data, dict) and isinstance(answer.data, dict):
                        self.provisional.data.update(answer.data)
                    self.provisional.headers.update(answer.headers)
                    log.info(
                        "Slack confirmed the bot token (team %s, bot user %s) after %d attempts",
                        answer.get("team_id"),
                        answer.get("user_id"),
                        attempts,
                    )
                    return
                log.debug("Slack still cannot confirm the bot token (%s); next try in %.0f s", why, delay)
                delay = min(delay * 2, self.max_retry_s)
        finally:
            self.done.set()


def checked_client(runtime: Runtime) -> WebClient | None:
    """For an app on ``SLACK_BOT_TOKEN`` (no OAuth): the app's client, once ``auth.test`` has been
    asked (see the module doc); None for an OAuth app (nothing is checked at start-up). Raises
    :class:`TokenRefused` when Slack refuses the token for good."""
    from bot.slack.app import make_client

    settings = runtime.settings
    if settings.slack_bot_token is None or (settings.oauth_enabled and settings.slack_client_secret is not None):
        return None
    client = make_client(runtime)
    check = WebClient(token=client.token, base_url=client.base_url, timeout=int(CHECK_TIMEOUT_S), retry_handlers=[])
    answer, why = _ask(check)
    if answer is not None:
        return FirstAuthTestKnown(client, answer)
    log.warning(
        "Slack could not confirm the bot token at start-up (%s); serving anyway, checking again in the "
        "background (if this lasts, check SLACK_API_URL and the network)",
        why,
    )
    provisional = SlackResponse(
        client=check,
        http_verb="POST",
        api_url=f"{client.base_url}auth.test",
        req_args={},
        data={"ok": True},
        headers={},
        status_code=200,
    )
    TokenRecheck(check, provisional).start()
    return FirstAuthTestKnown(client, provisional)
