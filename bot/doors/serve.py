"""The Slack doors of ``vllm-path serve``: Socket Mode when ``SLACK_APP_TOKEN`` (``xapp-…``) is
set, else signed HTTP (``SLACK_SIGNING_SECRET``, :mod:`bot.doors.http`); both need ``SLACK_BOT_TOKEN``
or OAuth (``SLACK_CLIENT_ID`` / ``SLACK_CLIENT_SECRET``). ``SIGHUP`` reloads the catalog (a refused
one leaves the last good one serving); ``SIGTERM``/``SIGINT`` stop after the requests in flight."""

from __future__ import annotations

import logging
import os
import signal
import threading
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.config import Settings
from bot.doors.http import (
    EVENTS_PATH,
    HEALTH_PATH,
    LAZY_GRACE_S,
    HttpDoor,
    ListenError,
)  # re-exported for callers of serve

if TYPE_CHECKING:
    from bot.runtime import Runtime

log = logging.getLogger(__name__)


MAX_PORT = 65535
"""The highest TCP port; ``serve`` takes 0 to it (0: a port the system picks, logged)."""
MAX_THREADS = 256
"""Most HTTP worker threads ``serve`` takes (as ``worker --threads``); at least one answers."""


class ConfigError(Exception):
    """The environment does not configure a usable door; the message says what to set."""


def door_for(settings: Settings) -> str:
    """Which door ``serve`` opens for these settings: ``"socket"`` or ``"http"``. Raises
    :class:`ConfigError` naming the variables to set when neither is configured, or when the app
    could not call Slack (no bot token and no OAuth client)."""
    half = settings.half_oauth()
    app_token = settings.slack_app_token
    if app_token is not None and not app_token.get_secret_value().startswith("xapp-"):
        raise ConfigError(
            "SLACK_APP_TOKEN must be an app-level token (it starts with 'xapp-'); create one with the "
            "connections:write scope under Basic Information > App-Level Tokens."
        )
    _check_bot_token(settings)
    if app_token is not None or settings.slack_signing_secret is not None:
        door, mode, var = (
            ("socket", "Socket Mode", "SLACK_APP_TOKEN")
            if app_token is not None
            else ("http", "HTTP mode", "SLACK_SIGNING_SECRET")
        )
        if settings.slack_bot_token or settings.oauth_enabled:
            return door
        if half:
            raise _missing(f"{half} is missing ({mode} with OAuth).")
        raise _missing(f"{mode} has {var} but no SLACK_BOT_TOKEN (or SLACK_CLIENT_ID/SLACK_CLIENT_SECRET).")
    if settings.oauth_enabled:
        raise _missing(
            "SLACK_SIGNING_SECRET is missing: SLACK_CLIENT_ID and SLACK_CLIENT_SECRET are set "
            "(OAuth), and Slack's requests and the OAuth redirect arrive over HTTP, signed with "
            "the signing secret (Basic Information > App Credentials > Signing Secret)."
        )
    if settings.slack_bot_token is not None or half:
        have = "SLACK_BOT_TOKEN is set" if settings.slack_bot_token is not None else f"{half} is missing too"
        raise _missing(
            f"SLACK_SIGNING_SECRET (HTTP) or SLACK_APP_TOKEN (Socket Mode) is missing: {have}, "
            "but nothing says how Slack reaches the app."
        )
    raise _missing("No Slack credentials are configured.")


BOT_TOKEN_PREFIXES = ("xoxb-", "xoxe.xoxb-")
"""How a bot token starts (``xoxe.xoxb-``: one with token rotation)."""
OTHER_TOKENS = {"xoxp-": "a user token", "xoxe.xoxp-": "a user token", "xapp-": "an app-level token"}
"""Slack tokens that are not bot tokens, by how they start, as :func:`door_for` names them."""


def _check_bot_token(settings: Settings) -> None:
    """Raises :class:`ConfigError` when ``SLACK_BOT_TOKEN`` is set and not a bot token (``xoxb-…``);
    the message names the kind of token given by its prefix, never the token."""
    token = settings.slack_bot_token.get_secret_value().strip() if settings.slack_bot_token else ""
    if not token or token.startswith(BOT_TOKEN_PREFIXES):
        return
    kind = next((f" but {name} ({prefix}…)" for prefix, name in OTHER_TOKENS.items() if token.startswith(prefix)), "")
    raise ConfigError(
        f"SLACK_BOT_TOKEN is not a bot token{kind}: a bot token starts with 'xoxb-'; copy the Bot User "
        "OAuth Token from OAuth & Permissions in the app's settings."
    )


def _missing(first: str) -> ConfigError:
    """A :class:`ConfigError`: ``first``, then how to configure Slack (or try the console)."""
    return ConfigError(
        f"{first}\n"
        "To connect to Slack, set either\n"
        "  SLACK_APP_TOKEN (Socket Mode, xapp-…), or\n"
        "  SLACK_SIGNING_SECRET (HTTP, requests at /slack/events),\n"
        "and either SLACK_BOT_TOKEN (one workspace, xoxb-…) or SLACK_CLIENT_ID + "
        "SLACK_CLIENT_SECRET (OAuth install for many workspaces).\n"
        "To try the bot without Slack, run: vllm-path console"
    )


RELOAD_JOIN_S = 30.0
"""Seconds a stop waits for a catalog reload asked for before it (SIGHUP then SIGTERM)."""


def reload_catalog_logged(runtime: Runtime) -> bool:
    """``runtime.reload_catalog()`` with its outcome logged; returns whether it was swapped in."""
    try:
        ok, errors = runtime.reload_catalog()
    except Exception:  # a reload must never take the server down
        log.exception("catalog reload failed")
        return False
    if ok:
        log.info("SIGHUP: catalog reloaded, now serving %s", runtime.holder.catalog.version)
    else:
        log.error(
            "SIGHUP: catalog reload refused (%d error(s)); still serving %s",
            len(errors),
            runtime.holder.catalog.version,
        )
    return ok


def install_signal_handlers(runtime: Runtime, stop: Callable[[], None], logger: logging.Logger | None = None) -> None:
    """SIGHUP reloads the catalog on a thread; SIGTERM/SIGINT call ``stop`` (main thread only); the
    signal is logged on ``logger`` (default: this module's; the clock passes its own)."""
    if threading.current_thread() is not threading.main_thread():
        return

    reloads: list[threading.Thread] = []

    def on_hup(signum: int, frame: Any) -> None:
        reloads[:] = [t for t in reloads if t.is_alive()]
        reload = threading.Thread(target=reload_catalog_logged, args=(runtime,), name="catalog-reload", daemon=True)
        reloads.append(reload)
        reload.start()

    def on_stop(signum: int, frame: Any) -> None:
        (logger or log).info("signal %s: stopping", signal.Signals(signum).name)
        for reload in reloads:  # a reload asked for before the stop finishes and logs its outcome
            reload.join(timeout=RELOAD_JOIN_S)
        stop()

    if hasattr(signal, "SIGHUP"):
        signal.signal(signal.SIGHUP, on_hup)
    signal.signal(signal.SIGTERM, on_stop)
    signal.signal(signal.SIGINT, on_stop)


def serve_http(
    runtime: Runtime,
    host: str = "127.0.0.1",
    port: int = 3000,
    threads: int = 32,
    *,
    app: Any = None,
    background: bool = False,
    **options: Any,
) -> HttpDoor:
    """Open the HTTP door. ``app`` defaults to ``build_app(runtime)``; ``options`` are
    :class:`HttpDoor`'s (``connection_limit``, ``channel_timeout``, ``verify_requests``).
    ``background=True``: serve on a daemon thread and return the started door (close it when
    done); else block with the signals handled until stopped, and return the closed door."""
    door = HttpDoor(runtime, _app_for(runtime, app), host=host, port=port, threads=threads, **options)
    if background:
        return door.start()
    install_signal_handlers(runtime, door.stop)
    log.info("HTTP door listening on %s (POST %s, GET %s)", door.url, EVENTS_PATH, HEALTH_PATH)
    flow = getattr(door.app, "oauth_flow", None)
    if flow is not None:
        log.info("OAuth install at %s%s, redirect %s", door.url, flow.install_path, flow.redirect_uri_path)
    door.serve_forever()
    log.info("HTTP door closed (%d follow-up(s) dropped)", door.dropped)
    return door


def serve_socket_mode(runtime: Runtime, *, app: Any = None, stop: threading.Event | None = None) -> int:
    """Connect through Socket Mode (:class:`bot.doors.socket_mode.SocketDoor`) with ``SLACK_APP_TOKEN``
    and block until SIGTERM/SIGINT, or until ``stop`` is set when given (then no signal handler is
    installed); then finish what was acknowledged, as the HTTP door does (:data:`LAZY_GRACE_S`).
    Returns how many acknowledged events or follow-ups were dropped. Raises :class:`ConfigError`
    when ``SLACK_APP_TOKEN`` is not set."""
    from bot.doors.socket_mode import SocketDoor

    token = runtime.settings.slack_app_token
    if token is None:
        raise ConfigError("SLACK_APP_TOKEN is not set")
    app = _app_for(runtime, app)
    stopped = stop or threading.Event()
    if stop is None:
        install_signal_handlers(runtime, stopped.set)
    door = SocketDoor(app, token.get_secret_value()).start()
    log.info("Socket Mode connected")
    try:
        while not stopped.wait(0.5):
            pass
    finally:
        door.stop()  # no more envelopes; those received acked (STOP_GRACE_S)
        from bot import metrics
        from bot.slack.app import drain_after_ack

        # What was acked and not yet done, within LAZY_GRACE_S in all (as the HTTP door): the events
        # acked on arrival still queued, then their lazy work and App Home publishes.
        deadline = time.monotonic() + LAZY_GRACE_S
        undispatched = door.finish_events(LAZY_GRACE_S)
        dropped = undispatched + drain_after_ack(app, max(0.0, deadline - time.monotonic()))
        if dropped:
            metrics.LAZY_DROPPED.inc(dropped)
            log.warning(
                "stopping: %d acknowledged event(s) or follow-up(s) could not finish within %.0f s and were dropped",
                dropped,
                LAZY_GRACE_S,
            )
        log.info("Socket Mode closed (%d follow-up(s) dropped)", dropped)
    return dropped


def _app_for(runtime: Runtime, app: Any) -> Any:
    """``app``, or ``build_app(runtime)`` when None."""
    if app is not None:
        return app
    from bot.slack.app import build_app

    return build_app(runtime)


def serve(settings: Settings | None = None, host: str = "127.0.0.1", port: int = 3000, **options: Any) -> None:
    """``vllm-path serve``: pick the door, build the runtime and the app (``SLACK_BOT_TOKEN`` checked
    by :func:`bot.doors.startup.checked_client`), run. ``options``: :func:`serve_http`'s. Raises
    :class:`ConfigError` when no door is configured, the HTTP door's ``port`` or ``threads`` is out
    of range (:data:`MAX_PORT`, :data:`MAX_THREADS`) or Slack refuses the bot token (the CLI exits 2)."""
    from bot.logging_setup import setup_logging
    from bot.runtime import Runtime

    settings = settings or Settings()
    setup_logging(settings)
    door = door_for(settings)
    if door == "http" and not 0 <= port <= MAX_PORT:  # QA round 8: 99999 listened on a port of chance
        raise ConfigError(f"port {port} is not from 0 to {MAX_PORT} (0: one the system picks)")
    if door == "http" and not 1 <= options.get("threads", 1) <= MAX_THREADS:  # 0: /healthz never answered
        raise ConfigError(f"threads {options['threads']} is not from 1 to {MAX_THREADS}")
    # The search index on first search (its kept state restored in ~0.05 s): numpy, bm25s and the
    # index are ~30 MB of a server that may never be asked to search (issue 43: serve <= 70 MB
    # idle, benchmarks/serve_memory.py; docs/benchmarks.md).
    runtime = Runtime.create(settings, index_now=False)
    log.info("catalog %s loaded; database %s", runtime.holder.catalog.version, _safe_db_url(settings.database_url))
    if settings.oauth_enabled and not settings.public_url:  # QA round 10: the reply said "the install page"
        log.warning(
            "PUBLIC_URL is not set (OAuth mode): replies to workspaces without an installation cannot "
            "carry the install link; set PUBLIC_URL to this server's public base URL"
        )
    from bot.doors.startup import TokenRefused, checked_client
    from bot.slack.app import build_app

    try:
        client = checked_client(runtime)  # an incident at Slack does not stop the start
    except TokenRefused as exc:
        raise ConfigError(str(exc)) from None
    app = build_app(runtime, client)
    from bot.slack.held import answer_held_soon  # what the last process acknowledged, not answered

    secret = settings.slack_signing_secret.get_secret_value() if settings.slack_signing_secret else None
    answer_held_soon(app, secret if door != "socket" else None, delay_s=settings.held_replay_after_s)
    try:
        dropped = (
            serve_socket_mode(runtime, app=app)
            if door == "socket"
            else serve_http(runtime, host, port, app=app, **options).dropped
        )
    except ListenError as exc:  # QA round 8: a port in use was blamed on Slack
        raise ConfigError(str(exc)) from None
    if dropped:
        # Threads still waiting on Slack would hold the exit; the drop is logged, so leave now.
        logging.shutdown()
        os._exit(0)


def _safe_db_url(url: str) -> str:
    """The database URL with any password masked, for logs."""
    try:
        from sqlalchemy.engine import make_url

        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url.split("@")[-1]
