"""The Slack doors of ``vllm-path serve``: Socket Mode, or signed HTTP behind waitress.

* Socket Mode when ``SLACK_APP_TOKEN`` (``xapp-…``) is set: no public URL needed.
* HTTP otherwise, with ``SLACK_SIGNING_SECRET``: Bolt's WSGI adapter served by waitress at
  ``POST /slack/events`` (commands, interactivity and events share the one URL), plus
  ``GET /slack/install`` and ``GET /slack/oauth_redirect`` when OAuth is configured
  (``SLACK_CLIENT_ID`` / ``SLACK_CLIENT_SECRET``), ``GET /healthz`` (``200 ok``) and ``GET /metrics``
  (Prometheus, :mod:`bot.metrics`).

Both doors need a way to call Slack: ``SLACK_BOT_TOKEN`` (one workspace) or OAuth (many).
``SIGHUP`` reloads the catalog (the last good version keeps serving when the new one is refused);
``SIGTERM``/``SIGINT`` stop the server after the requests in flight. Secrets are never logged
(:func:`bot.logging_setup.setup_logging` masks them in every record as a last line of defence).
"""

from __future__ import annotations

import gc
import io
import logging
import os
import signal
import threading
import time
from collections.abc import Callable, Iterable
from typing import Any

from bot.config import Settings

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"


class ConfigError(Exception):
    """The environment does not configure a usable door; the message says what to set."""


def door_for(settings: Settings) -> str:
    """Which door ``serve`` opens for these settings: ``"socket"`` or ``"http"``.

    Raises :class:`ConfigError` naming the variables to set when neither is configured, or when
    the app could not call Slack (no bot token and no OAuth client).
    """
    can_call_slack = bool(settings.slack_bot_token or settings.oauth_enabled)
    half = _half_oauth(settings)
    app_token = settings.slack_app_token
    if app_token is not None and not app_token.get_secret_value().startswith("xapp-"):
        raise ConfigError("SLACK_APP_TOKEN must be an app-level token (it starts with "
                          "'xapp-'); create one with the connections:write scope under "
                          "Basic Information > App-Level Tokens.")
    if app_token is not None or settings.slack_signing_secret is not None:
        door, mode, var = (("socket", "Socket Mode", "SLACK_APP_TOKEN") if app_token is not None
                           else ("http", "HTTP mode", "SLACK_SIGNING_SECRET"))
        if not can_call_slack:
            raise ConfigError(_missing_message(
                f"{half} is missing ({mode} with OAuth)." if half
                else f"{mode} has {var} but no SLACK_BOT_TOKEN (or SLACK_CLIENT_ID/SLACK_CLIENT_SECRET)."))
        return door
    if settings.oauth_enabled:
        raise ConfigError(_missing_message(
            "SLACK_SIGNING_SECRET is missing: SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set "
            "(OAuth), and Slack's requests and the OAuth redirect arrive over HTTP, signed with "
            "the signing secret (Basic Information > App Credentials > Signing Secret)."))
    if settings.slack_bot_token is not None or half:
        raise ConfigError(_missing_message(
            "SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) is missing: "
            + ("SLACK_BOT_TOKEN is set" if settings.slack_bot_token is not None
               else f"{half} is missing too") + ", but nothing says how Slack reaches the app."))
    raise ConfigError(_missing_message("No Slack credentials are configured."))


def _half_oauth(settings: Settings) -> str | None:
    """The OAuth variable that is missing when only one of the pair is set, else None."""
    if settings.slack_client_id and settings.slack_client_secret is None:
        return "SLACK_CLIENT_SECRET"
    if settings.slack_client_secret is not None and not settings.slack_client_id:
        return "SLACK_CLIENT_ID"
    return None


def _missing_message(first: str) -> str:
    return (f"{first}\n"
            "To connect to Slack, set either\n"
            "  SLACK_APP_TOKEN (Socket Mode, xapp-…), or\n"
            "  SLACK_SIGNING_SECRET (HTTP, requests at /slack/events),\n"
            "and either SLACK_BOT_TOKEN (one workspace, xoxb-…) or SLACK_CLIENT_ID + "
            "SLACK_CLIENT_SECRET (OAuth install for many workspaces).\n"
            "To try the bot without Slack, run: vllm-path console")


# --- signals -------------------------------------------------------------------------------------


_heap_frozen = False


def freeze_startup_heap() -> None:
    """Exempt what the process holds after start-up (the catalog, its matcher and search index,
    the app) from the cyclic garbage collector: one full collection, then ``gc.freeze()``.

    A full collection walks every tracked object; with the whole blog's catalog and index loaded
    that is about 100 ms during which no thread runs, and under load one came every few hundred
    requests (the tail of ``benchmarks/command_latency.py``). Frozen objects are still freed by
    reference counting; only cycles among them wait for :func:`refreeze_heap`. Called once by
    :func:`serve`, before the door opens."""
    global _heap_frozen
    gc.collect()
    gc.freeze()
    _heap_frozen = True


def refreeze_heap() -> None:
    """After a catalog reload in a process that froze its heap: unfreeze, collect (the old
    catalog's cycles go), freeze again. One pause of about 100 ms. Nothing when the heap was
    never frozen (tests, the console)."""
    if _heap_frozen:
        gc.unfreeze()
        gc.collect()
        gc.freeze()


def reload_catalog_logged(runtime: Any) -> bool:
    """``runtime.reload_catalog()`` with its outcome logged; returns whether it was swapped in."""
    try:
        ok, errors = runtime.reload_catalog()
    except Exception:  # a reload must never take the server down
        log.exception("catalog reload failed")
        return False
    if ok:
        refreeze_heap()
        log.info("SIGHUP: catalog reloaded, now serving %s", runtime.holder.catalog.version)
    else:
        log.error("SIGHUP: catalog reload refused (%d error(s)); still serving %s",
                  len(errors), runtime.holder.catalog.version)
    return ok


def install_signal_handlers(runtime: Any, stop: Callable[[], None]) -> None:
    """SIGHUP reloads the catalog on a worker thread; SIGTERM and SIGINT call ``stop``.

    Only possible on the main thread; elsewhere (tests) nothing is installed.
    """
    if threading.current_thread() is not threading.main_thread():
        return

    def on_hup(signum: int, frame: Any) -> None:
        threading.Thread(target=reload_catalog_logged, args=(runtime,),
                         name="catalog-reload", daemon=True).start()

    def on_stop(signum: int, frame: Any) -> None:
        log.info("signal %s: stopping", signal.Signals(signum).name)
        stop()

    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, on_hup)
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)


# --- HTTP ----------------------------------------------------------------------------------------


def make_wsgi_app(runtime: Any, app: Any, verify_requests: bool = True) -> Callable[..., Iterable[bytes]]:
    """A WSGI application: ``GET|HEAD /healthz`` answers ``200 ok``; ``GET /metrics`` the
    Prometheus metrics (:mod:`bot.metrics`); everything else goes to Bolt's
    :class:`~slack_bolt.adapter.wsgi.SlackRequestHandler` (``POST /slack/events``, and the OAuth
    install/redirect paths when ``app.oauth_flow`` is set; other paths get 404), counted by kind
    and outcome with the time to the answer (the ack). Requests to ``/slack/events`` pass
    :mod:`bot.doors.guard` first (size, signature, well-formed body) unless ``verify_requests``
    is False (tests of an app built without verification).

    The health check does not touch the database, so that a slow database does not take the
    instance out of a load balancer; ``runtime`` feeds the metrics (ledger, catalog version).
    """
    from slack_bolt.adapter.wsgi import SlackRequestHandler

    from bot import metrics
    from bot.doors import guard
    from bot.pictures import PICTURE_PREFIX, picture_app
    from bot.slack.signing import SignedRequestVerification
    from bot.web.routes import routes

    bolt = SlackRequestHandler(app, path=EVENTS_PATH)
    registry = metrics.runtime_registry(runtime)
    web_routes = routes(runtime)
    secret = runtime.settings.slack_signing_secret
    verifier = SignedRequestVerification(secret.get_secret_value() if secret is not None else "")

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO"), environ.get("REQUEST_METHOD")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"),
                                      ("Content-Length", "2")])
            return [b"ok"]
        if path == METRICS_PATH and method == "GET":
            body = metrics.exposition(registry)
            start_response("200 OK", [("Content-Type", metrics.CONTENT_TYPE),
                                      ("Content-Length", str(len(body)))])
            return [body]
        page = web_routes(str(path or ""), str(method or ""), environ)
        if page is not None:
            status_line, headers, body = page
            start_response(status_line, headers)
            return [] if method == "HEAD" else [body]
        if str(path).startswith(PICTURE_PREFIX) and method == "GET":  # issue 24: signed path pictures
            return picture_app(runtime, environ, start_response)
        if path != EVENTS_PATH or method != "POST":
            return bolt(environ, start_response)
        started = time.monotonic()
        if guard.too_large(environ.get("CONTENT_LENGTH")):
            return _refuse(start_response, guard.Refusal(413, "request body too large"))
        try:
            length = int(environ.get("CONTENT_LENGTH") or 0)
        except ValueError:
            length = 0
        raw = environ["wsgi.input"].read(length) if length > 0 else b""
        refusal = None if not verify_requests else guard.check(raw, str(environ.get("CONTENT_TYPE") or ""),
                              environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP"),
                              environ.get("HTTP_X_SLACK_SIGNATURE"), verifier)
        kind = metrics.request_kind(str(environ.get("CONTENT_TYPE") or ""), raw)
        if refusal is not None:
            metrics.ACK_SECONDS.labels(kind).observe(time.monotonic() - started)
            metrics.REQUESTS.labels(kind, metrics.outcome_of(refusal.status)).inc()
            return _refuse(start_response, refusal)
        environ["wsgi.input"] = io.BytesIO(raw)
        status: list[int] = []

        def recording_start_response(code: str, headers: Any, *rest: Any) -> Any:
            status.append(int(code.split(" ", 1)[0]))
            return start_response(code, headers, *rest)

        try:
            return bolt(environ, recording_start_response)
        finally:
            metrics.ACK_SECONDS.labels(kind).observe(time.monotonic() - started)
            metrics.REQUESTS.labels(kind, metrics.outcome_of(status[0] if status else 500)).inc()

    return wsgi


def _refuse(start_response: Callable[..., Any], refusal: Any) -> list[bytes]:
    """Answer a refused request (:class:`bot.doors.guard.Refusal`) with its status and JSON body;
    ``Connection: close`` for 413, since the unread body is still on the socket."""
    body = refusal.body
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    if refusal.status == 413:
        headers.append(("Connection", "close"))
    start_response(refusal.status_line, headers)
    return [body]


HTTP_GRACE_S = 3.0
"""Seconds a stopping door keeps answering the requests that have arrived."""
LAZY_GRACE_S = 5.0
"""Seconds after that for the follow-ups already running (replies waiting on Slack); then they are
dropped, counted and logged, so a stop takes under 10 s in all (platforms kill at about 30 s)."""
CONNECTION_LIMIT = 1000
"""Default most open connections the HTTP door keeps (waitress's own default is 100, which a
hundred idle sockets would exhaust)."""
CHANNEL_TIMEOUT = 30
"""Default seconds an idle connection is kept before the door closes it."""


class HttpDoor:
    """The HTTP door: waitress serving :func:`make_wsgi_app` on ``host:port`` (0 = a free port).

    :meth:`serve_forever` blocks until :meth:`stop`; :meth:`start` runs it on a daemon thread
    (tests); :meth:`close` stops, waits for the loop to end and frees the port. ``threads`` is
    waitress's worker count; ``connection_limit`` the most connections kept open and
    ``channel_timeout`` the seconds an idle one is kept (see :data:`CONNECTION_LIMIT`); bodies
    over :data:`bot.doors.guard.MAX_BODY_BYTES` are refused. Usable as a context manager.
    """

    def __init__(self, runtime: Any, app: Any, host: str = "127.0.0.1", port: int = 3000,
                 threads: int = 32, connection_limit: int = CONNECTION_LIMIT,
                 channel_timeout: int = CHANNEL_TIMEOUT, verify_requests: bool = True):
        import waitress

        from bot.doors.guard import MAX_BODY_BYTES

        self.runtime = runtime
        self.app = app
        self._map: dict[int, Any] = {}
        self._server = waitress.create_server(make_wsgi_app(runtime, app, verify_requests), map=self._map,
                                              host=host, port=port, threads=threads,
                                              ident="vllm-path", clear_untrusted_proxy_headers=True,
                                              connection_limit=connection_limit,
                                              channel_timeout=channel_timeout,
                                              max_request_body_size=MAX_BODY_BYTES)
        self._stop = threading.Event()
        self._done = threading.Event()
        self.dropped = 0
        """Follow-ups dropped when the door stopped (see :meth:`_drain_lazy`)."""
        self._thread: threading.Thread | None = None

    @property
    def host(self) -> str:
        """The address actually bound."""
        return str(self._listen[0])

    @property
    def port(self) -> int:
        """The port actually bound (useful with ``port=0``)."""
        return int(self._listen[1])

    @property
    def _listen(self) -> tuple[str, int]:
        server = self._server
        if hasattr(server, "effective_port"):
            return server.effective_host, server.effective_port
        return server.effective_listen[0]

    @property
    def url(self) -> str:
        """``http://HOST:PORT`` of the door."""
        host = self.host
        return f"http://[{host}]:{self.port}" if ":" in host else f"http://{host}:{self.port}"

    def serve_forever(self) -> None:
        """Serve until :meth:`stop` is called, then close connections and the worker threads."""
        from waitress import wasyncore

        try:
            while not self._stop.is_set() and self._map:
                wasyncore.loop(timeout=0.2, map=self._map, count=1)
        finally:
            deadline = time.monotonic() + HTTP_GRACE_S
            self._stop_accepting()
            self._finish_in_flight(deadline)
            self._server.task_dispatcher.shutdown(cancel_pending=False, timeout=max(0.1, deadline - time.monotonic()))
            wasyncore.close_all(self._map)
            self.dropped = self._drain_lazy()
            self._done.set()

    def _stop_accepting(self) -> None:
        """Take the connections already queued in the kernel (they have arrived), then close the
        listening socket: later ones are refused at once rather than reset."""
        server = self._server
        server.accepting = False
        for _ in range(10_000):  # what the backlog holds; accept() answers None when it is empty
            before = len(self._map)
            server.handle_accept()
            if len(self._map) == before:
                break
        fileno = getattr(server, "_fileno", None)
        if fileno is not None:
            self._map.pop(fileno, None)
        try:
            server.socket.close()
        except OSError:  # already closed
            pass

    def _finish_in_flight(self, deadline: float) -> None:
        """Keep the loop running until every request that has arrived is answered and its answer
        written out (or ``deadline``, ``time.monotonic()`` seconds); idle keep-alive connections
        are closed after."""
        from waitress import wasyncore

        stopped_at = time.time()

        def busy(ch: Any) -> bool:
            if getattr(ch, "requests", None) or getattr(ch, "total_outbufs_len", 0):
                return True  # a request to answer, or an answer not yet written out
            if getattr(ch, "request", None) is not None:
                return True  # a request still arriving
            # Just accepted and nothing read yet: its request is on the way.
            return bool(getattr(ch, "last_activity", 0) >= stopped_at - 1.0
                        and getattr(ch, "creation_time", 0) == getattr(ch, "last_activity", -1))

        def any_busy() -> bool:
            return any(busy(ch) for ch in list(self._map.values()))

        while any_busy() and time.monotonic() < deadline:
            wasyncore.loop(timeout=0.05, map=self._map, count=1)

    def _drain_lazy(self) -> int:
        """Give the follow-ups (lazy listeners) what is left of the grace period; return how many
        were dropped (logged with the count, and counted in ``/metrics``)."""
        from bot import metrics
        from bot.slack.app import lazy_runner

        runner = lazy_runner(self.app)
        if runner is None:
            return 0
        dropped = runner.drain(LAZY_GRACE_S)
        if dropped:
            metrics.LAZY_DROPPED.inc(dropped)
            log.warning("stopping: %d follow-up(s) could not finish within %.0f s and were dropped",
                        dropped, HTTP_GRACE_S + LAZY_GRACE_S)
        return dropped

    def start(self) -> HttpDoor:
        """Serve on a daemon thread; returns ``self``."""
        self._thread = threading.Thread(target=self.serve_forever, name="http-door", daemon=True)
        self._thread.start()
        return self

    def stop(self) -> None:
        """Ask the loop to end (returns at once; safe from a signal handler)."""
        self._stop.set()

    def close(self, timeout: float = 10.0) -> None:
        """Stop and wait up to ``timeout`` seconds for the loop to finish. Idempotent."""
        self.stop()
        if self._thread is not None:
            self._thread.join(timeout)
        elif not self._done.is_set():
            from waitress import wasyncore

            self._server.task_dispatcher.shutdown(cancel_pending=True, timeout=timeout)
            wasyncore.close_all(self._map)
            self._done.set()

    def __enter__(self) -> HttpDoor:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.close()


def serve_http(runtime: Any, host: str = "127.0.0.1", port: int = 3000, threads: int = 32, *,
               app: Any = None, background: bool = False, connection_limit: int = CONNECTION_LIMIT,
               channel_timeout: int = CHANNEL_TIMEOUT, verify_requests: bool = True) -> HttpDoor:
    """Open the HTTP door. ``app`` defaults to ``build_app(runtime)``.

    With ``background=True`` the server runs on a daemon thread and the started
    :class:`HttpDoor` is returned at once (close it when done). Otherwise this blocks, with
    SIGHUP/SIGTERM/SIGINT handled (see :func:`install_signal_handlers`), until stopped, and
    returns the closed door.
    """
    if app is None:
        from bot.slack.app import build_app

        app = build_app(runtime)
    door = HttpDoor(runtime, app, host=host, port=port, threads=threads,
                    connection_limit=connection_limit, channel_timeout=channel_timeout,
                    verify_requests=verify_requests)
    if background:
        return door.start()
    install_signal_handlers(runtime, door.stop)
    log.info("HTTP door listening on %s (POST %s, GET %s)", door.url, EVENTS_PATH, HEALTH_PATH)
    if getattr(app, "oauth_flow", None) is not None:
        flow = app.oauth_flow
        log.info("OAuth install at %s%s, redirect %s", door.url, flow.install_path,
                 flow.redirect_uri_path)
    door.serve_forever()
    log.info("HTTP door closed (%d follow-up(s) dropped)", door.dropped)
    return door


# --- Socket Mode ---------------------------------------------------------------------------------


def serve_socket_mode(runtime: Any, *, app: Any = None,
                      stop: threading.Event | None = None) -> None:
    """Connect through Socket Mode with ``SLACK_APP_TOKEN`` and block until SIGTERM/SIGINT (or
    until ``stop`` is set, when given: then no signal handler is installed).

    Raises :class:`ConfigError` when ``SLACK_APP_TOKEN`` is not set.
    """
    from slack_bolt.adapter.socket_mode import SocketModeHandler

    token = runtime.settings.slack_app_token
    if token is None:
        raise ConfigError("SLACK_APP_TOKEN is not set")
    if app is None:
        from bot.slack.app import build_app

        app = build_app(runtime)
    handler = SocketModeHandler(app, token.get_secret_value())
    stopped = stop or threading.Event()
    if stop is None:
        install_signal_handlers(runtime, stopped.set)
    handler.connect()
    log.info("Socket Mode connected")
    try:
        while not stopped.wait(0.5):
            pass
    finally:
        handler.close()
        from bot.slack.app import lazy_runner

        runner = lazy_runner(app)
        dropped = runner.drain(LAZY_GRACE_S) if runner is not None else 0
        log.info("Socket Mode closed (%d follow-up(s) dropped)", dropped)


def serve(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 3000,
          threads: int = 32, connection_limit: int = CONNECTION_LIMIT,
          channel_timeout: int = CHANNEL_TIMEOUT) -> None:
    """``vllm-path serve``: pick the door from the settings, build the runtime and the app, run.

    Raises :class:`ConfigError` when no door is configured (the CLI exits 2 with its message).
    """
    from bot.logging_setup import setup_logging
    from bot.runtime import Runtime

    settings = settings or Settings()
    setup_logging(settings)
    door = door_for(settings)
    runtime = Runtime.create(settings)
    log.info("catalog %s loaded; database %s", runtime.holder.catalog.version,
             _safe_db_url(settings.database_url))
    from bot.slack.app import build_app

    app = build_app(runtime)
    freeze_startup_heap()
    if door == "socket":
        serve_socket_mode(runtime, app=app)
        return
    closed = serve_http(runtime, host, port, threads, app=app, connection_limit=connection_limit,
                        channel_timeout=channel_timeout)
    if closed.dropped:
        # Threads still waiting on Slack would hold the exit until their calls time out: the
        # drop is logged, so leave now rather than be killed by the platform.
        logging.shutdown()
        os._exit(0)


def _safe_db_url(url: str) -> str:
    """The database URL with any password masked, for logs."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]
