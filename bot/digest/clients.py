"""Slack Web API clients for sending digests: one per workspace token, paced."""

from __future__ import annotations

import threading

from slack_sdk import WebClient

from bot.digest.pacing import paced
from bot.runtime import Runtime


class Clients:
    """A ``WebClient`` per workspace (:func:`bot.slack.app.make_client`)."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self._lock = threading.Lock()
        self._clients: dict[str, WebClient] = {}

    def token_for(self, team: str) -> str | None:
        """``team``'s (or enterprise's) bot token: the store's with OAuth, else ``SLACK_BOT_TOKEN``."""
        settings = self.runtime.settings
        if settings.oauth_enabled:
            token: str | None = self.runtime.store.bot_token_for(team)
            return token
        if settings.slack_bot_token is not None:
            return settings.slack_bot_token.get_secret_value() or None
        return None

    def for_team(self, team: str) -> WebClient | None:
        """The client for ``team``, or None when the app has no token there."""
        token = self.token_for(team)
        if token is None:
            return None
        with self._lock:
            client = self._clients.get(token)
            if client is None:
                # deferred: bot.slack.app imports the digest package (an import circle otherwise)
                from bot.slack.app import make_client

                client = self.wrap(make_client(self.runtime, token=token))
                self._clients[token] = client
            return client

    def wrap(self, client: WebClient) -> WebClient:
        """``client`` with the pacing 429 handler (:func:`paced`)."""
        return paced(client)
