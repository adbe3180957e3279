"""Slack Web API clients for sending digests: one per workspace token, paced, on kept-alive
connections."""

from __future__ import annotations

import io
import select
import threading
from http.client import HTTPConnection, HTTPSConnection
from typing import Any
from urllib.error import HTTPError, URLError
from urllib.parse import urlsplit
from urllib.request import Request

from slack_sdk import WebClient

from bot.digest.pacing import paced
from bot.runtime import Runtime


class KeptAlive:
    """HTTP/1.1 connections to the Web API kept open between calls (slack-sdk opens one per call),
    shared by the process's clients, at most ``max_idle`` idle per origin; thread-safe. :meth:`perform`
    answers as urllib would, so slack-sdk's retry handlers see the same things."""

    def __init__(self, max_idle: int = 64):
        self.max_idle = max_idle
        self._lock = threading.Lock()
        self._idle: dict[tuple[str, str, int | None], list[HTTPConnection]] = {}

    def attach(self, client: WebClient) -> WebClient:
        """``client`` sending through this pool (a client with a proxy is left as it is)."""
        if client.proxy is None:

            def perform(url: str, req: Request) -> dict[str, Any]:
                return self.perform(client, url, req)

            client._perform_urllib_http_request_internal = perform  # type: ignore[method-assign]
        return client

    def _take(self, origin: tuple[str, str, int | None]) -> HTTPConnection | None:
        while True:
            with self._lock:
                idle = self._idle.get(origin)
                conn = idle.pop() if idle else None
            if conn is None or _alive(conn):
                return conn
            conn.close()

    def _give(self, origin: tuple[str, str, int | None], conn: HTTPConnection) -> None:
        with self._lock:
            idle = self._idle.setdefault(origin, [])
            if len(idle) < self.max_idle:
                idle.append(conn)
                return
        conn.close()

    def perform(self, client: WebClient, url: str, req: Request) -> dict[str, Any]:
        """Send ``req`` (slack-sdk's urllib ``Request`` for ``url``) on a kept-alive connection; returns
        ``{status, headers, body}`` for a 2xx. Raises ``HTTPError`` otherwise, ``URLError`` (for an
        ``OSError`` while connecting or sending) or ``http.client`` errors."""
        parts = urlsplit(url)
        origin = (parts.scheme.lower(), parts.hostname or "", parts.port)
        conn = self._take(origin)
        if conn is None:
            if origin[0] == "https":
                conn = HTTPSConnection(origin[1], origin[2], timeout=client.timeout, context=client.ssl)
            else:
                conn = HTTPConnection(origin[1], origin[2], timeout=client.timeout)
        try:
            path = parts.path + (f"?{parts.query}" if parts.query else "")
            try:
                conn.request(req.get_method(), path or "/", body=req.data, headers=dict(req.header_items()))
            except OSError as err:  # connecting or sending: wrapped as urllib does
                raise URLError(err) from err
            resp = conn.getresponse()
            raw = resp.read()
        except BaseException:
            conn.close()
            raise
        if resp.will_close:
            conn.close()
        else:
            self._give(origin, conn)
        if not 200 <= resp.status < 300:
            raise HTTPError(url, resp.status, resp.reason, resp.headers, io.BytesIO(raw))
        if resp.headers.get_content_type() == "application/gzip":
            return {"status": resp.status, "headers": resp.headers, "body": raw}
        body = raw.decode(resp.headers.get_content_charset() or "utf-8")
        return {"status": resp.status, "headers": resp.headers, "body": body}


def _alive(conn: HTTPConnection) -> bool:
    """Whether an idle connection is usable: nothing to read on it (one the server closed reads EOF)."""
    if conn.sock is None:
        return False
    poll = select.poll()
    poll.register(conn.sock, select.POLLIN)
    return not poll.poll(0)


class Clients:
    """A ``WebClient`` per workspace (:func:`bot.slack.app.make_client`) on :class:`KeptAlive` connections."""

    def __init__(self, runtime: Runtime):
        self.runtime = runtime
        self._lock = threading.Lock()
        self._clients: dict[str, WebClient] = {}
        self.connections = KeptAlive()

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
        """``client`` with the pacing 429 handler (:func:`paced`), on :attr:`connections`."""
        return self.connections.attach(paced(client))
