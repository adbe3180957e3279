"""Slack Web API clients for sending digests: one per workspace token, paced; and, in a worker
process, their calls on kept-alive connections (:func:`keep_connections_alive`)."""

from __future__ import annotations

import http.client
import io
import select
import ssl
import threading
import time
import urllib.request
from typing import Any
from urllib.error import URLError
from urllib.response import addinfourl

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


class _KeptAlive:
    """urllib's HTTP(S) opening on one connection per thread and host, kept open between requests
    (the standard handlers open and close one a request). A response is read whole before it is
    returned, so the connection is free for the thread's next request; a connection idle longer
    than ``idle_s``, that the server said it closes or has closed, is not reused; one that failed
    is closed and the error raised as urllib's (never sent again here: slack-sdk's retry handlers
    decide, as before). Not installed when a proxy is configured (:func:`keep_connections_alive`).
    Needed by ``benchmarks/fanout_queue.py`` (issue 43: worker CPU per DM 7-14 % lower side by
    side in one run, ``--ab-env WORKER_SLACK_KEEP_ALIVE=0``)."""

    idle_s = 20.0

    def __init__(self) -> None:
        self._local = threading.local()

    def _kept_open(self, http_class: Any, req: urllib.request.Request, **conn_args: Any) -> addinfourl:
        if not req.host:
            return self.do_open(http_class, req, **conn_args)  # type: ignore[attr-defined,no-any-return]
        pool: dict[tuple[Any, str], tuple[http.client.HTTPConnection, float]] = self._local.__dict__.setdefault(
            "pool", {}
        )
        key = (http_class, req.host)
        kept = pool.pop(key, None)
        if kept is not None and (time.monotonic() - kept[1] > self.idle_s or _dropped(kept[0])):
            kept[0].close()
            kept = None
        conn = kept[0] if kept is not None else http_class(req.host, timeout=req.timeout, **conn_args)
        if conn.sock is not None:
            conn.sock.settimeout(req.timeout)
        headers = dict(req.unredirected_hdrs)
        headers.update({k: v for k, v in req.headers.items() if k not in headers})
        headers = {name.title(): value for name, value in headers.items()}
        try:
            conn.request(req.get_method(), req.selector, req.data, headers)
            r = conn.getresponse()
            body = r.read()
        except OSError as err:
            conn.close()
            raise URLError(err) from err
        except BaseException:
            conn.close()
            raise
        if r.will_close:
            conn.close()
        else:
            pool[key] = (conn, time.monotonic())
        resp = addinfourl(io.BytesIO(body), r.msg, req.get_full_url(), r.status)
        resp.msg = r.reason  # type: ignore[attr-defined]  # what urllib's error processor reads
        return resp


def _dropped(conn: http.client.HTTPConnection) -> bool:
    """Whether an idle kept connection was closed by the server (its socket reads as ready: EOF)."""
    sock = conn.sock
    return sock is None or bool(select.select([sock], [], [], 0)[0])


class KeptAliveHTTPHandler(_KeptAlive, urllib.request.HTTPHandler):
    """:class:`_KeptAlive` for ``http://`` (a stand-in Slack, tests)."""

    def __init__(self) -> None:
        urllib.request.HTTPHandler.__init__(self)
        _KeptAlive.__init__(self)

    def http_open(self, req: urllib.request.Request) -> addinfourl:  # type: ignore[override]  # urllib takes any response with code, msg and info()
        return self._kept_open(http.client.HTTPConnection, req)


class KeptAliveHTTPSHandler(_KeptAlive, urllib.request.HTTPSHandler):
    """:class:`_KeptAlive` for ``https://`` (Slack): one TLS handshake a connection, not a call."""

    def __init__(self) -> None:
        self.tls = ssl.create_default_context()  # our own (urllib keeps its handler's context private)
        urllib.request.HTTPSHandler.__init__(self, context=self.tls)
        _KeptAlive.__init__(self)

    def https_open(self, req: urllib.request.Request) -> addinfourl:  # type: ignore[override]  # as http_open
        return self._kept_open(http.client.HTTPSConnection, req, context=self.tls)


def keep_connections_alive() -> bool:
    """Make this process's ``urlopen`` (slack-sdk's ``WebClient`` without an ``ssl`` context of its
    own) keep a connection per thread and host open between calls, through urllib's supported
    ``install_opener``: a worker process's Slack calls then cost no TCP (and TLS) handshake each.
    For ``vllm-path worker``, whose process makes only these calls. Nothing changes when the
    environment names a proxy (``urllib.request.getproxies``: a tunnel is urllib's to open); returns
    whether connections are kept."""
    if urllib.request.getproxies():
        return False
    urllib.request.install_opener(urllib.request.build_opener(KeptAliveHTTPHandler(), KeptAliveHTTPSHandler()))
    return True
