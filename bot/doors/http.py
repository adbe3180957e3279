"""The HTTP door: waitress serving Bolt's WSGI adapter behind :mod:`bot.doors.guard`, beside the
health check, the metrics and the web pages, with a clean stop (answer what has arrived, give the
follow-ups a grace period, log what was dropped). :func:`bot.doors.serve.serve_http` opens it."""

from __future__ import annotations

import contextlib
import io
import logging
import threading
import time
from collections.abc import Callable, Iterable
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)

EVENTS_PATH = "/slack/events"
HEALTH_PATH = "/healthz"
METRICS_PATH = "/metrics"


def make_wsgi_app(runtime: Runtime, app: Any, verify_requests: bool = True) -> Callable[..., Iterable[bytes]]:
    """The door's WSGI app: ``GET|HEAD /healthz`` is ``200 ok`` (no database, so a slow one keeps the
    instance in its load balancer); ``GET /metrics``; :mod:`bot.web.routes`' pages and pictures; the
    rest Bolt's (OAuth paths when ``app.oauth_flow`` is set, else 404). A ``POST /slack/events``
    passes :mod:`bot.doors.guard` unless ``verify_requests`` is False, and is timed and counted."""
    from slack_bolt.adapter.wsgi import SlackRequestHandler

    from bot import metrics
    from bot.doors import guard
    from bot.slack.signing import SignedRequestVerification

    bolt = SlackRequestHandler(app, path=EVENTS_PATH)
    registries: list[Any] = []  # the runtime's metrics registry, made at the first scrape (prometheus-client then)
    made = threading.Lock()
    web_routes = _WebRoutes(runtime)
    secret = runtime.settings.slack_signing_secret
    verifier = SignedRequestVerification(secret.get_secret_value() if secret is not None else "")

    def wsgi(environ: dict[str, Any], start_response: Callable[..., Any]) -> Iterable[bytes]:
        path, method = environ.get("PATH_INFO"), environ.get("REQUEST_METHOD")
        if path == HEALTH_PATH and method in ("GET", "HEAD"):
            start_response("200 OK", [("Content-Type", "text/plain; charset=utf-8"), ("Content-Length", "2")])
            return [b"ok"]
        if path == METRICS_PATH and method == "GET":
            with made:
                if not registries:
                    registries.append(metrics.runtime_registry(runtime))
            body = metrics.exposition(registries[0])
            start_response("200 OK", [("Content-Type", metrics.CONTENT_TYPE), ("Content-Length", str(len(body)))])
            return [body]
        page = web_routes(str(path or ""), str(method or ""), environ)
        if page is not None:
            status_line, headers, body = page
            start_response(status_line, headers)
            return [] if method == "HEAD" else [body]
        if path != EVENTS_PATH or method != "POST":
            return bolt(environ, start_response)
        started = time.monotonic()
        length = guard.body_length(environ.get("CONTENT_LENGTH"))
        if length > guard.MAX_BODY_BYTES:
            return _refuse(start_response, guard.Refusal(413, "request body too large"))
        raw = environ["wsgi.input"].read(length) if length > 0 else b""
        content_type = str(environ.get("CONTENT_TYPE") or "")
        timestamp, signature = environ.get("HTTP_X_SLACK_REQUEST_TIMESTAMP"), environ.get("HTTP_X_SLACK_SIGNATURE")
        refusal = guard.check(raw, content_type, timestamp, signature, verifier) if verify_requests else None
        kind = metrics.request_kind(content_type, raw)
        environ["wsgi.input"] = io.BytesIO(raw)
        status: list[int] = []

        def recording_start_response(code: str, headers: Any, *rest: Any) -> Any:
            status.append(int(code.split(" ", 1)[0]))
            return start_response(code, headers, *rest)

        try:
            if refusal is not None:
                return _refuse(recording_start_response, refusal)
            if verify_requests:  # signed: what Bolt has no listener for is answered here
                answered = _unlisted(runtime, app, raw, content_type, recording_start_response)
                if answered is not None:
                    return answered
            return bolt(environ, recording_start_response)
        finally:
            metrics.ACK_SECONDS.labels(kind).observe(time.monotonic() - started)
            metrics.REQUESTS.labels(kind, metrics.outcome_of(status[0] if status else 500)).inc()

    return wsgi


class _WebRoutes:
    """:func:`bot.web.routes.routes` of ``runtime``, imported and built on the first request for a
    path that is neither Slack's nor the health check's nor the metrics': the web pages (jinja2,
    ~2 MB) stay out of a server nobody browses (issue 43: ``serve`` <= 70 MB idle, <= 80 MB after
    10,000 commands; ``benchmarks/serve_memory.py``)."""

    def __init__(self, runtime: Runtime) -> None:
        self._runtime = runtime
        self._routes: Callable[[str, str, dict[str, Any]], Any] | None = None
        self._lock = threading.Lock()

    def __call__(self, path: str, method: str, environ: dict[str, Any]) -> Any:
        """The page for ``path`` and ``method`` (``(status line, headers, body)``), or None: not a
        page (every request but a ``GET`` or ``HEAD``, Slack's ``POST`` among them, without import)."""
        if method not in ("GET", "HEAD"):  # as routes() answers them
            return None
        if self._routes is None:
            with self._lock:
                if self._routes is None:
                    from bot.web.routes import routes

                    self._routes = routes(self._runtime)
        return self._routes(path, method, environ)


def _unlisted(
    runtime: Runtime, app: Any, raw: bytes, content_type: str, start_response: Callable[..., Any]
) -> list[bytes] | None:
    """The answer to a signed request Bolt has no listener for (:mod:`bot.doors.unlisted`): Slack's
    ``app_rate_limited`` notice (200, empty) or a slash command without ``response_url`` (200, the
    reply); None for the others, Bolt's."""
    from bot.doors import guard, unlisted

    body: bytes | None = None
    notice = guard.rate_limited_notice(raw, content_type)
    if notice is not None:
        unlisted.note_rate_limited(notice)
        body, ctype = b"", "text/plain; charset=utf-8"
    elif guard.command_without_response_url(raw, content_type) is not None:
        reply = unlisted.answer_in_ack(runtime, app, raw, content_type)
        if reply is not None:
            body, ctype = reply.encode("utf-8"), "application/json; charset=utf-8"
    if body is None:
        return None
    start_response("200 OK", [("Content-Type", ctype), ("Content-Length", str(len(body)))])
    return [body]


def _refuse(start_response: Callable[..., Any], refusal: Any) -> list[bytes]:
    """Answer a :class:`bot.doors.guard.Refusal` (413 closes the connection: its body is unread)."""
    body = refusal.body
    headers = [("Content-Type", "application/json"), ("Content-Length", str(len(body)))]
    if refusal.status == 413:
        headers.append(("Connection", "close"))
    start_response(refusal.status_line, headers)
    return [body]


HTTP_GRACE_S = 3.0
"""Seconds a stopping door keeps answering the requests that have arrived."""
LAZY_GRACE_S = 5.0
"""Seconds more for the work acknowledged and not yet done (follow-ups, the events' lazy listeners and
App Home publishes, running or waiting for a thread), then dropped: with :data:`HTTP_GRACE_S` a stop
takes < 10 s, well before the platforms' kill (about 30 s after SIGTERM on Heroku and Kubernetes'
default); a Home publish is three Slack calls (about 3 s with Slack answering in 1 s)."""
CONNECTION_LIMIT = 10_000
"""Default most open connections, idle ones included (waitress's own 100 would be used up by 100
idle sockets; past the limit a new connection, a real request's too, waits until one closes)."""
CHANNEL_TIMEOUT = 30
"""Default seconds an idle connection is kept before the door closes it."""
SPARE_FILES = 100
"""Open files kept beside the connections (database, Redis, Slack calls, logs, the catalog)."""


def allow_open_files(wanted: int) -> int:
    """Raise this process's soft open-file limit (``RLIMIT_NOFILE``) to ``wanted`` files when it is
    lower, up to the hard limit; return the soft limit now in force (``wanted`` where the platform
    has no such limit)."""
    try:
        import resource
    except ImportError:  # pragma: no cover - not POSIX
        return wanted
    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if soft == resource.RLIM_INFINITY or soft >= wanted:
        return wanted
    raised = wanted if hard == resource.RLIM_INFINITY else min(wanted, hard)  # >= soft: soft <= hard
    resource.setrlimit(resource.RLIMIT_NOFILE, (raised, hard))
    return raised


SILENT_GRACE_S = 5.0
"""At a stop, a connection accepted less than this many seconds before it and silent since is
waited for (within :data:`HTTP_GRACE_S`): its request is on the way."""


SO_ATTACH_FILTER = 26
"""Linux's socket option that attaches a classic BPF program to a socket (``<asm/socket.h>``)."""


def refuse_new_connections(listener: Any) -> bool:
    """Make the kernel drop every packet that reaches the listening socket ``listener`` from now on
    (a one-instruction BPF program, "return 0"), so that no new handshake completes into its accept
    queue while the queue is drained and the socket closed: a client's SYN goes unanswered, its
    retry finds the port closed and is refused, instead of being reset once accepted by the
    kernel. ``True`` when attached; ``False`` where the option is missing (not Linux)."""
    import ctypes
    import socket
    import struct

    program = ctypes.create_string_buffer(struct.pack("HBBI", 0x06, 0, 0, 0))  # BPF_RET | BPF_K, 0
    fprog = struct.pack("HL", 1, ctypes.addressof(program))
    try:
        listener.setsockopt(socket.SOL_SOCKET, SO_ATTACH_FILTER, fprog)
    except (OSError, AttributeError):
        return False
    return True


class ListenError(Exception):
    """The HTTP door cannot listen on its address and port; the message says why and what to do."""


def listen_problem(host: str, port: int, exc: OSError) -> str:
    """What to tell the operator when the door cannot listen on ``host:port`` (``exc``: the bind's
    error): the port in use, a port that needs privileges, an address not on this machine, a host
    name that does not resolve, else the system's words."""
    import errno
    import socket

    if isinstance(exc, socket.gaierror):
        return f"cannot listen on host {host!r}: the name does not resolve ({exc.strerror or exc}); check --host"
    if exc.errno == errno.EADDRINUSE:
        return f"port {port} is in use: choose another with --port or stop what holds it"
    if exc.errno == errno.EACCES:
        return f"port {port} on {host} needs privileges this process lacks: choose one above 1023 with --port"
    if exc.errno == errno.EADDRNOTAVAIL:
        return f"cannot listen on {host}: that address is not one of this machine's; check --host"
    return f"cannot listen on {host} port {port}: {exc.strerror or exc}"


class HttpDoor:
    """Waitress serving :func:`make_wsgi_app` on ``host:port`` (0 = a free port) with ``threads``
    workers, ``connection_limit`` connections and idle ones kept ``channel_timeout`` seconds (the
    open-file limit is raised to hold them, else the connections are lowered to fit, with a WARNING).
    :meth:`serve_forever` blocks until :meth:`stop`; :meth:`start` serves on a daemon thread;
    :meth:`close` stops and frees the port. A context manager. Raises :class:`ListenError`
    (:func:`listen_problem`'s words, no ``OSError`` in its context) when it cannot listen."""

    def __init__(
        self,
        runtime: Runtime,
        app: Any,
        host: str = "127.0.0.1",
        port: int = 3000,
        threads: int = 32,
        connection_limit: int = CONNECTION_LIMIT,
        channel_timeout: int = CHANNEL_TIMEOUT,
        verify_requests: bool = True,
    ):
        import waitress

        from bot.doors.guard import MAX_BODY_BYTES
        from bot.doors.queue_log import summarise_queue_warnings

        summarise_queue_warnings()  # one line for a burst, not a WARNING per queued request

        fits = allow_open_files(connection_limit + SPARE_FILES) - SPARE_FILES
        if fits < connection_limit:
            connection_limit, asked = max(10, fits), connection_limit
            log.warning("the open-file limit allows %d connections, not %d: at most %d", fits, asked, connection_limit)
        self.app = app
        self._map: dict[int, Any] = {}
        try:
            self._server = waitress.create_server(
                make_wsgi_app(runtime, app, verify_requests),
                map=self._map,
                host=host,
                port=port,
                threads=threads,
                ident="vllm-path",
                clear_untrusted_proxy_headers=True,
                connection_limit=connection_limit,
                channel_timeout=channel_timeout,
                cleanup_interval=max(1, min(30, channel_timeout // 2)),  # idle ones closed in time
                max_request_body_size=MAX_BODY_BYTES,
            )
        except OSError as exc:  # QA round 8: "port in use" was reported as Slack out of reach
            problem: str | None = listen_problem(host, port, exc)
        else:
            problem = None
        if problem is not None:  # raised outside the except: no OSError in its context to misread
            raise ListenError(problem)
        self._stop = threading.Event()
        self._done = threading.Event()
        self.dropped = 0  # follow-ups dropped when the door stopped (_drain_lazy)
        self._thread: threading.Thread | None = None

    @property
    def url(self) -> str:
        """``http://HOST:PORT``: the address and port actually bound (useful with ``port=0``)."""
        server = self._server
        if hasattr(server, "effective_port"):
            host, port = server.effective_host, server.effective_port
        else:  # several sockets (a host name with IPv4 and IPv6 addresses): the first
            host, port = server.effective_listen[0]
        return f"http://[{host}]:{port}" if ":" in str(host) else f"http://{host}:{port}"

    def serve_forever(self) -> None:
        """Serve until :meth:`stop` is called, then close connections and the worker threads."""
        from waitress import wasyncore

        try:
            while not self._stop.is_set() and self._map:
                wasyncore.loop(timeout=0.2, use_poll=True, map=self._map, count=1)  # select() stops at fd 1024
        finally:
            deadline = time.monotonic() + HTTP_GRACE_S
            self._stop_accepting()
            self._finish_in_flight(deadline)
            self._server.task_dispatcher.shutdown(cancel_pending=False, timeout=max(0.1, deadline - time.monotonic()))
            wasyncore.close_all(self._map)
            self.dropped = self._drain_lazy()
            self._done.set()

    def _stop_accepting(self) -> None:
        """Take the connections the kernel queued, then close the socket (later ones are refused)."""
        server = self._server
        server.accepting = False
        refuse_new_connections(server.socket)  # no handshake completes into the queue from now on
        for _ in range(10_000):  # what the backlog holds; accept() answers None when it is empty
            before = len(self._map)
            server.handle_accept()
            if len(self._map) == before:
                break
        fileno = getattr(server, "_fileno", None)
        if fileno is not None:
            self._map.pop(fileno, None)
        with contextlib.suppress(OSError):  # already closed
            server.socket.close()

    def _finish_in_flight(self, deadline: float) -> None:
        """Loop until every arrived request is answered, or ``deadline`` (``time.monotonic()`` s)."""
        from waitress import wasyncore

        stopped_at = time.time()

        def busy(ch: Any) -> bool:
            if getattr(ch, "requests", None) or getattr(ch, "total_outbufs_len", 0):
                return True  # a request to answer, or an answer not yet written out
            if getattr(ch, "request", None) is not None:
                return True  # a request still arriving
            # Accepted lately and nothing read yet: its request is on the way (a loaded machine may
            # take seconds to schedule the client's send).
            return bool(
                getattr(ch, "last_activity", 0) >= stopped_at - SILENT_GRACE_S
                and getattr(ch, "creation_time", 0) == getattr(ch, "last_activity", -1)
            )

        while any(busy(ch) for ch in list(self._map.values())) and time.monotonic() < deadline:
            wasyncore.loop(timeout=0.05, use_poll=True, map=self._map, count=1)

    def _drain_lazy(self) -> int:
        """Give the work acknowledged and not yet done (follow-ups, events' lazy listeners, App Home
        publishes: :func:`bot.slack.app.drain_after_ack`) its grace period, :data:`LAZY_GRACE_S`;
        return how many were dropped (logged, counted)."""
        from bot import metrics
        from bot.slack.app import drain_after_ack

        dropped = drain_after_ack(self.app, LAZY_GRACE_S)
        if dropped:
            metrics.LAZY_DROPPED.inc(dropped)
            log.warning(
                "stopping: %d follow-up(s) could not finish within %.0f s and were dropped",
                dropped,
                HTTP_GRACE_S + LAZY_GRACE_S,
            )
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
