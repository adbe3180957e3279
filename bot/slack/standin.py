"""A local stand-in for Slack: the Web API and response URLs on loopback, plus Slack's requests.

Two halves, both modelled on what Slack really does (see ``/work/shared/reference/slack-facts.md``):

* :class:`SlackStandIn` is an HTTP server on ``127.0.0.1`` that answers the Web API methods the
  app calls (``chat.postMessage``, ``views.publish``, ...) with plausible ``ok`` bodies and accepts
  posts to response URLs. It records every call so that the console can print what the app sent
  and tests can assert on it, and it can inject Slack's failure modes (429 with ``Retry-After``,
  a per-channel ``chat.postMessage`` rate limit, error codes with HTTP 200, latency, HTTP 500).
* :func:`slash_command_body`, :func:`block_actions_body`, :func:`event_body` and
  :func:`signed_headers` build the requests Slack sends to an app, byte for byte in Slack's
  formats, so that the console and the end-to-end tests drive the real Bolt parsing.

Tokens are never stored: a call records only whether an ``Authorization`` header was present and
a short fingerprint (first 8 hex digits of its SHA-256), enough to tell workspaces apart.
"""

from __future__ import annotations

import hashlib
import itertools
import json
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlencode, urlsplit

from bot.slack.scopes import conversation_kind, default_bot_scopes, parse_scopes, scope_refusal

T = TypeVar("T")

CONSOLE_TEAM_ID = "T0CONSOLE"
"""Team id the stand-in reports (``auth.test``) and the console uses."""
CONSOLE_TEAM_DOMAIN = "console"
CONSOLE_USER_ID = "U0CONSOLE"
CONSOLE_USER_NAME = "you"
CONSOLE_CHANNEL_ID = "C0CONSOLE"
CONSOLE_CHANNEL_NAME = "console"
CONSOLE_APP_ID = "A0CONSOLE"
BOT_USER_ID = "U0BOT"
BOT_ID = "B0BOT"

SLASH_COMMAND = "/vllm-path"
"""The slash command the app registers (also in ``manifest.yaml``)."""

_JSON_ARGS = ("blocks", "attachments", "view", "metadata", "unfurls", "channels")


# --- records -------------------------------------------------------------------------------------


@dataclass(frozen=True)
class ApiCall:
    """One Web API call the stand-in received.

    ``method`` e.g. ``"chat.postMessage"``; ``args`` the parsed arguments (form, query string or
    JSON body; form values that hold JSON such as ``blocks`` or ``view`` are decoded); ``authorized``
    whether an ``Authorization`` header came with it; ``token_fingerprint`` the first 8 hex digits
    of the SHA-256 of that header's token (never the token); ``status`` the HTTP status answered;
    ``response`` the JSON body answered; ``at`` ``time.monotonic()`` seconds when it arrived.
    """

    method: str
    args: dict[str, Any]
    authorized: bool
    token_fingerprint: str | None
    status: int
    response: dict[str, Any]
    at: float

    @property
    def ok(self) -> bool:
        """True when Slack would have accepted the call (HTTP 200 and ``"ok": true``)."""
        return self.status == 200 and bool(self.response.get("ok"))

    @property
    def channel(self) -> str | None:
        """The ``channel`` argument, when the method has one."""
        value = self.args.get("channel")
        return str(value) if value is not None else None


@dataclass(frozen=True)
class ResponsePost:
    """One post to a response URL: ``key`` its id (the last path segment), ``url``, ``body`` the
    JSON sent (``response_type``, ``text``, ``blocks``, ``replace_original``, ...), ``status`` the
    HTTP status answered, ``at`` ``time.monotonic()`` seconds."""

    key: str
    url: str
    body: dict[str, Any]
    status: int
    at: float


@dataclass(frozen=True)
class Faults:
    """Failure modes the stand-in injects into Web API calls (response URLs are never faulted).

    * ``latency_s``: seconds added before answering every Web API call.
    * ``rate_limit_every``: every k-th Web API call (counted over ``fault_methods``) is answered
      HTTP 429 with ``Retry-After: retry_after_s``; 0 turns it off.
    * ``server_error_every``: every k-th call (counted separately) is answered HTTP 500; 0 = off.
    * ``channel_rate_per_s``: per-channel token bucket for ``chat.postMessage`` (Slack allows about
      1 message per second per channel): at most ``channel_burst`` messages at once, refilled at
      this many per second; a message over the limit gets 429 with ``Retry-After`` = whole seconds
      until the next token (at least 1). ``None`` = off.
    * ``channel_errors``: channel id -> Slack error code (e.g. ``"channel_not_found"``,
      ``"is_archived"``), answered ``{"ok": false, "error": code}`` with HTTP 200 to any call whose
      ``channel`` argument is that channel.
    * ``method_errors``: method -> error code (e.g. ``{"chat.postMessage": "token_revoked"}``),
      same shape, for every call of that method.
    * ``fault_methods``: methods the every-k counters apply to; ``None`` = all methods.
    """

    latency_s: float = 0.0
    rate_limit_every: int = 0
    retry_after_s: int = 1
    server_error_every: int = 0
    channel_rate_per_s: float | None = None
    channel_burst: int = 1
    channel_errors: Mapping[str, str] = field(default_factory=dict)
    method_errors: Mapping[str, str] = field(default_factory=dict)
    fault_methods: frozenset[str] | None = None


# --- the server ----------------------------------------------------------------------------------


class SlackStandIn:
    """Slack's Web API and response URLs, served on ``127.0.0.1`` from a daemon thread.

    ``SlackStandIn()`` starts listening at once on a free port (``port=0``); use it as a context
    manager or call :meth:`close`. Point ``slack_sdk.WebClient(base_url=standin.api_url)`` (or
    ``SLACK_API_URL``) at :attr:`api_url`, and put :meth:`response_url` values into the requests
    sent to the app. Thread-safe: the server answers on many threads while tests read records.

    ``team_id`` is what ``auth.test`` reports; ``channels`` is what ``users.conversations`` lists
    (default one public channel ``C0CONSOLE``); ``response_url_limit`` is how many posts one
    response URL accepts (Slack: 5); later posts are answered 404 ``used_url``. ``scopes`` are
    the token's scopes (default: the manifest's, :func:`bot.slack.scopes.default_bot_scopes`): a
    call whose scope is missing is refused ``missing_scope`` as Slack does.
    """

    def __init__(self, *, team_id: str = CONSOLE_TEAM_ID, team_name: str = "Console",
                 channels: Iterable[Mapping[str, Any]] | None = None,
                 response_url_limit: int = 5, port: int = 0,
                 scopes: Iterable[str] | None = None):
        self.scopes = default_bot_scopes() if scopes is None else parse_scopes(scopes)
        self.team_id = team_id
        self.team_name = team_name
        self.channels = [dict(c) for c in channels] if channels is not None else [
            {"id": CONSOLE_CHANNEL_ID, "name": CONSOLE_CHANNEL_NAME, "is_channel": True,
             "is_private": False, "is_member": True, "is_archived": False}]
        self.response_url_limit = response_url_limit
        self._cond = threading.Condition()
        self._faults = Faults()
        self._calls: list[ApiCall] = []
        self._responses: list[ResponsePost] = []
        self._fault_counter = 0
        self._error_counter = 0
        self._buckets: dict[str, tuple[float, float]] = {}  # channel -> (tokens, last monotonic)
        self._ts = itertools.count(1)
        self._ts_base = int(time.time())
        self._ids = itertools.count(1)
        self._server = ThreadingHTTPServer(("127.0.0.1", port), _handler_for(self))
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever,
                                        kwargs={"poll_interval": 0.1},
                                        name="slack-standin", daemon=True)
        self._thread.start()
        self._closed = False

    # -- addresses --

    @property
    def port(self) -> int:
        """The TCP port the stand-in listens on."""
        return self._server.server_address[1]

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash)."""
        return f"http://127.0.0.1:{self.port}"

    @property
    def api_url(self) -> str:
        """The Web API base URL, ending in ``/api/`` as slack-sdk expects (it appends the method)."""
        return f"{self.base_url}/api/"

    def response_url(self, key: str | int | None = None) -> str:
        """A response URL served by the stand-in: ``http://127.0.0.1:PORT/response/<key>``.

        Without ``key`` a fresh unique key is made; the same ``key`` always gives the same URL.
        """
        if key is None:
            key = f"R{next(self._ids):04d}{uuid.uuid4().hex[:8]}"
        return f"{self.base_url}/response/{key}"

    # -- faults --

    @property
    def faults(self) -> Faults:
        """The faults in force (an immutable snapshot)."""
        with self._cond:
            return self._faults

    def configure(self, **changes: Any) -> Faults:
        """Change some :class:`Faults` fields (keyword arguments by field name), resetting the
        every-k counters and the per-channel buckets; returns the new faults.

        Raises ``TypeError`` for an unknown field and ``ValueError`` for a negative value.
        """
        for name in ("latency_s", "rate_limit_every", "retry_after_s", "server_error_every",
                     "channel_burst"):
            if name in changes and changes[name] < 0:
                raise ValueError(f"{name} must be >= 0")
        if "fault_methods" in changes and changes["fault_methods"] is not None:
            changes["fault_methods"] = frozenset(changes["fault_methods"])
        for name in ("channel_errors", "method_errors"):
            if name in changes:
                changes[name] = dict(changes[name] or {})
        with self._cond:
            self._faults = replace(self._faults, **changes)
            self._fault_counter = 0
            self._error_counter = 0
            self._buckets.clear()
            return self._faults

    # -- records --

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """Web API calls received so far, oldest first (only ``method``'s when given), including
        the ones answered with a fault."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def responses(self, url: str | None = None) -> list[ResponsePost]:
        """Posts to response URLs so far, oldest first (only those to ``url`` when given)."""
        with self._cond:
            return [r for r in self._responses if url is None or r.url == url]

    def wait_for(self, predicate: Callable[[], T], timeout: float = 5.0) -> T:
        """Wait until ``predicate()`` returns something truthy and return it.

        The predicate is re-evaluated whenever a call or response post is recorded (and at least
        every 50 ms). ``timeout`` is in seconds. Raises :class:`TimeoutError` when it runs out.
        """
        deadline = time.monotonic() + timeout
        with self._cond:
            while True:
                result = predicate()
                if result:
                    return result
                left = deadline - time.monotonic()
                if left <= 0:
                    raise TimeoutError(f"stand-in: condition not met within {timeout} s")
                self._cond.wait(min(left, 0.05))

    def wait_for_response(self, url: str | None = None, count: int = 1,
                          timeout: float = 5.0) -> ResponsePost:
        """Wait until at least ``count`` posts reached ``url`` (any response URL when ``None``) and
        return the ``count``-th. ``timeout`` in seconds; raises :class:`TimeoutError`."""
        found = self.wait_for(lambda: len(self.responses(url)) >= count and self.responses(url),
                              timeout)
        return found[count - 1]

    def wait_for_call(self, method: str, count: int = 1, timeout: float = 5.0) -> ApiCall:
        """Wait until at least ``count`` calls of ``method`` arrived and return the ``count``-th.
        ``timeout`` in seconds; raises :class:`TimeoutError`."""
        found = self.wait_for(lambda: len(self.calls(method)) >= count and self.calls(method),
                              timeout)
        return found[count - 1]

    def reset(self) -> None:
        """Forget every record and turn every fault off (the server keeps running)."""
        with self._cond:
            self._calls.clear()
            self._responses.clear()
            self._faults = Faults()
            self._fault_counter = 0
            self._error_counter = 0
            self._buckets.clear()
            self._cond.notify_all()

    def close(self) -> None:
        """Stop the server and free the port. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> "SlackStandIn":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"SlackStandIn({self.base_url}, calls={len(self._calls)}, responses={len(self._responses)})"

    # -- answering (called on server threads) --

    def _answer_api(self, method: str, args: dict[str, Any], auth: str | None
                    ) -> tuple[int, dict[str, str], dict[str, Any]]:
        faults = self.faults
        if faults.latency_s:
            time.sleep(faults.latency_s)
        status, headers, body = self._decide(method, args, faults)
        fingerprint = None
        if auth:
            token = auth.split(" ", 1)[-1].encode()
            fingerprint = hashlib.sha256(token).hexdigest()[:8]
        record = ApiCall(method, args, bool(auth), fingerprint, status, body, time.monotonic())
        with self._cond:
            self._calls.append(record)
            self._cond.notify_all()
        return status, headers, body

    def _decide(self, method: str, args: dict[str, Any], faults: Faults
                ) -> tuple[int, dict[str, str], dict[str, Any]]:
        refused = self._scope_refusal(method, args)
        if refused is not None:
            return 200, {}, refused
        counted = faults.fault_methods is None or method in faults.fault_methods
        with self._cond:
            if counted and faults.server_error_every:
                self._error_counter += 1
                if self._error_counter % faults.server_error_every == 0:
                    return 500, {}, {"ok": False, "error": "internal_error"}
            if counted and faults.rate_limit_every:
                self._fault_counter += 1
                if self._fault_counter % faults.rate_limit_every == 0:
                    return 429, {"Retry-After": str(faults.retry_after_s)}, \
                        {"ok": False, "error": "ratelimited"}
            channel = args.get("channel")
            if method == "chat.postMessage" and faults.channel_rate_per_s and channel:
                wait = self._take_token(str(channel), faults)
                if wait > 0:
                    return 429, {"Retry-After": str(max(1, math.ceil(wait)))}, \
                        {"ok": False, "error": "ratelimited"}
        if method in faults.method_errors:
            return 200, {}, {"ok": False, "error": faults.method_errors[method]}
        if channel is not None and str(channel) in faults.channel_errors:
            return 200, {}, {"ok": False, "error": faults.channel_errors[str(channel)]}
        return 200, {}, self._ok_body(method, args)

    def _take_token(self, channel: str, faults: Faults) -> float:
        """Token bucket for one channel (lock held). Returns 0 when a message may go now, else the
        seconds until the next token."""
        rate = float(faults.channel_rate_per_s or 0)
        burst = max(1, faults.channel_burst)
        now = time.monotonic()
        tokens, last = self._buckets.get(channel, (float(burst), now))
        tokens = min(float(burst), tokens + (now - last) * rate)
        if tokens >= 1.0:
            self._buckets[channel] = (tokens - 1.0, now)
            return 0.0
        self._buckets[channel] = (tokens, now)
        return (1.0 - tokens) / rate

    def _scope_refusal(self, method: str, args: dict[str, Any]) -> dict[str, Any] | None:
        """Slack's ``missing_scope`` answer when the token's :attr:`scopes` do not allow
        ``method`` on its conversation (see :mod:`bot.slack.scopes`), else None."""
        channel = str(args.get("channel") or "")
        private = next((bool(c.get("is_private")) for c in self.channels
                        if c.get("id") == channel), None)
        return scope_refusal(method, self.scopes, conversation_kind(channel, private))

    def _next_ts(self) -> str:
        n = next(self._ts)
        return f"{self._ts_base + n // 1_000_000}.{n % 1_000_000:06d}"

    def _ok_body(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        channel = args.get("channel")
        if method == "chat.postMessage":
            ts = self._next_ts()
            return {"ok": True, "channel": channel, "ts": ts,
                    "message": {"type": "message", "user": BOT_USER_ID, "bot_id": BOT_ID,
                                "text": args.get("text", ""), "blocks": args.get("blocks", []),
                                "ts": ts}}
        if method == "chat.postEphemeral":
            ts = self._next_ts()
            return {"ok": True, "channel": channel, "ts": ts, "message_ts": ts}
        if method == "chat.update":
            return {"ok": True, "channel": channel, "ts": args.get("ts") or self._next_ts(),
                    "text": args.get("text", "")}
        if method == "chat.delete":
            return {"ok": True, "channel": channel, "ts": args.get("ts")}
        if method == "conversations.open":
            users = str(args.get("users") or args.get("channel") or "")
            digest = hashlib.sha1(users.encode()).hexdigest()[:8].upper()
            return {"ok": True, "channel": {"id": f"D{digest}"}}
        if method in ("views.publish", "views.open", "views.update", "views.push"):
            view = args.get("view") or {}
            if isinstance(view, str):
                view = json.loads(view)
            view_id = args.get("view_id") or f"V{next(self._ids):08d}"
            return {"ok": True, "view": {**view, "id": view_id, "team_id": self.team_id,
                                         "hash": f"{time.time():.6f}", "app_id": CONSOLE_APP_ID,
                                         "bot_id": BOT_ID}}
        if method == "auth.test":
            return {"ok": True, "url": f"https://{CONSOLE_TEAM_DOMAIN}.slack.com/",
                    "team": self.team_name, "user": "vllm-path", "team_id": self.team_id,
                    "user_id": BOT_USER_ID, "bot_id": BOT_ID, "is_enterprise_install": False}
        if method == "users.info":
            user = str(args.get("user") or CONSOLE_USER_ID)
            return {"ok": True, "user": {
                "id": user, "team_id": self.team_id, "name": user.lower(), "real_name": user,
                "deleted": False, "is_bot": False, "tz": "Europe/Berlin",
                "tz_label": "Central European Time", "tz_offset": 3600, "locale": "en-US",
                "profile": {"display_name": user, "real_name": user}}}
        if method in ("users.conversations", "conversations.list"):
            return {"ok": True, "channels": [dict(c) for c in self.channels],
                    "response_metadata": {"next_cursor": ""}}
        if method == "conversations.info":
            for c in self.channels:
                if c.get("id") == channel:
                    return {"ok": True, "channel": dict(c)}
            return {"ok": True, "channel": {"id": channel, "is_member": True,
                                            "is_archived": False}}
        return {"ok": True}

    def _answer_response(self, key: str, url: str, body: dict[str, Any]) -> tuple[int, str]:
        with self._cond:
            used = sum(1 for r in self._responses if r.key == key and r.status == 200)
            status = 200 if used < self.response_url_limit else 404
            self._responses.append(ResponsePost(key, url, body, status, time.monotonic()))
            self._cond.notify_all()
        return status, ("ok" if status == 200 else "used_url")


def _parse_args(content_type: str, raw: bytes, query: str) -> dict[str, Any]:
    """Web API arguments from a query string plus a form or JSON body; JSON-valued form fields
    (``blocks``, ``view``, ...) are decoded."""
    args: dict[str, Any] = {k: v[-1] for k, v in parse_qs(query).items()}
    ctype = content_type.split(";")[0].strip().lower()
    if raw and ctype == "application/json":
        data = json.loads(raw.decode("utf-8"))
        if isinstance(data, dict):
            args.update(data)
    elif raw:
        args.update({k: v[-1] for k, v in parse_qs(raw.decode("utf-8"),
                                                    keep_blank_values=True).items()})
    for name in _JSON_ARGS:
        value = args.get(name)
        if isinstance(value, str) and value[:1] in ("[", "{"):
            try:
                args[name] = json.loads(value)
            except ValueError:
                pass
    return args


def _handler_for(standin: SlackStandIn) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"
        server_version = "SlackStandIn/1"

        def log_message(self, format: str, *args: Any) -> None:  # noqa: A002 - quiet
            return

        def _read(self) -> bytes:
            length = int(self.headers.get("Content-Length") or 0)
            return self.rfile.read(length) if length else b""

        def _send(self, status: int, body: bytes, content_type: str,
                  headers: Mapping[str, str] | None = None) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            for k, v in (headers or {}).items():
                self.send_header(k, v)
            self.end_headers()
            self.wfile.write(body)

        def _handle(self) -> None:
            parts = urlsplit(self.path)
            raw = self._read()
            if parts.path.startswith("/api/"):
                method = parts.path[len("/api/"):].strip("/")
                try:
                    args = _parse_args(self.headers.get("Content-Type", ""), raw, parts.query)
                except ValueError:
                    self._send(200, b'{"ok": false, "error": "invalid_json"}', "application/json")
                    return
                status, headers, body = standin._answer_api(
                    method, args, self.headers.get("Authorization"))
                self._send(status, json.dumps(body).encode(), "application/json; charset=utf-8",
                           headers)
            elif parts.path.startswith("/response/") and self.command == "POST":
                key = parts.path[len("/response/"):].strip("/")
                try:
                    body = json.loads(raw.decode("utf-8") or "{}")
                except ValueError:
                    self._send(400, b"invalid_payload", "text/plain")
                    return
                status, text = standin._answer_response(key, standin.base_url + parts.path, body)
                self._send(status, text.encode(), "text/html")
            else:
                self._send(404, b"not found", "text/plain")

        do_POST = _handle
        do_GET = _handle

    return Handler


# --- requests Slack sends to an app --------------------------------------------------------------


def slash_command_body(text: str, *, command: str = SLASH_COMMAND,
                       user_id: str = CONSOLE_USER_ID, user_name: str = CONSOLE_USER_NAME,
                       team_id: str = CONSOLE_TEAM_ID, team_domain: str = CONSOLE_TEAM_DOMAIN,
                       channel_id: str = CONSOLE_CHANNEL_ID,
                       channel_name: str = CONSOLE_CHANNEL_NAME,
                       response_url: str = "https://hooks.slack.com/commands/T0/1/x",
                       api_app_id: str = CONSOLE_APP_ID, enterprise_id: str | None = None,
                       enterprise_name: str | None = None, trigger_id: str | None = None,
                       token: str = "verification-token-unused") -> bytes:
    """A slash command request body as Slack sends it: ``application/x-www-form-urlencoded``
    bytes with every field Slack documents (``token, team_id, team_domain, [enterprise_id,
    enterprise_name,] channel_id, channel_name, user_id, user_name, command, text, api_app_id,
    is_enterprise_install, response_url, trigger_id``)."""
    fields: list[tuple[str, str]] = [("token", token), ("team_id", team_id),
                                     ("team_domain", team_domain)]
    if enterprise_id:
        fields += [("enterprise_id", enterprise_id), ("enterprise_name", enterprise_name or "")]
    fields += [("channel_id", channel_id), ("channel_name", channel_name),
               ("user_id", user_id), ("user_name", user_name), ("command", command),
               ("text", text), ("api_app_id", api_app_id),
               ("is_enterprise_install", "false"), ("response_url", response_url),
               ("trigger_id", trigger_id or _trigger_id())]
    return urlencode(fields).encode("utf-8")


def block_actions_body(action: Mapping[str, Any], *, message: Mapping[str, Any] | None = None,
                       view: Mapping[str, Any] | None = None, message_ts: str | None = None,
                       is_ephemeral: bool = False, response_url: str | None = None,
                       user_id: str = CONSOLE_USER_ID, user_name: str = CONSOLE_USER_NAME,
                       team_id: str = CONSOLE_TEAM_ID, team_domain: str = CONSOLE_TEAM_DOMAIN,
                       channel_id: str = CONSOLE_CHANNEL_ID,
                       channel_name: str = CONSOLE_CHANNEL_NAME,
                       api_app_id: str = CONSOLE_APP_ID,
                       token: str = "verification-token-unused") -> bytes:
    """A ``block_actions`` request body: form field ``payload`` holding the JSON Slack sends.

    ``action`` is the element clicked as it appears in ``actions[0]``; build it with
    :func:`button_action` (or pass ``action_id``, ``block_id``, ``type``, ``value`` /
    ``selected_option`` yourself; ``action_ts`` is added when missing).

    A click in a message: give ``message_ts`` (and ``message``, the message as posted, for a
    non-ephemeral one) — the payload gets a ``message`` container, ``channel`` and
    ``response_url``. Ephemeral messages are not stored by Slack, so with ``is_ephemeral=True``
    the ``message`` field is left out unless given. A click in a view (App Home, modal): give
    ``view`` — the payload gets a ``view`` container and ``view`` and no ``channel``/``message``/
    ``response_url``. Raises ``ValueError`` when neither or both are given.
    """
    if (view is not None) == (message_ts is not None or message is not None):
        raise ValueError("give either a message (message_ts/message) or a view")
    act = dict(action)
    act.setdefault("action_ts", f"{time.time():.6f}")
    payload: dict[str, Any] = {
        "type": "block_actions",
        "user": {"id": user_id, "username": user_name, "name": user_name, "team_id": team_id},
        "api_app_id": api_app_id,
        "token": token,
        "trigger_id": _trigger_id(),
        "team": {"id": team_id, "domain": team_domain},
        "enterprise": None,
        "is_enterprise_install": False,
        "state": {"values": {}},
        "actions": [act],
    }
    if view is not None:
        payload["container"] = {"type": "view", "view_id": view.get("id", "V0000000001")}
        payload["view"] = dict(view)
    else:
        ts = message_ts or (message or {}).get("ts") or f"{time.time():.6f}"
        payload["container"] = {"type": "message", "message_ts": ts, "channel_id": channel_id,
                                "is_ephemeral": is_ephemeral}
        payload["channel"] = {"id": channel_id, "name": channel_name}
        if message is not None:
            payload["message"] = {"type": "message", "ts": ts, **dict(message)}
        payload["response_url"] = response_url or "https://hooks.slack.com/actions/T0/1/x"
    return urlencode({"payload": json.dumps(payload)}).encode("utf-8")


def button_action(element: Mapping[str, Any], block_id: str) -> dict[str, Any]:
    """``actions[0]`` for a click on ``element`` (a Block Kit button dict) in block ``block_id``."""
    act: dict[str, Any] = {"type": "button", "block_id": block_id,
                           "action_id": element.get("action_id", ""),
                           "text": element.get("text", {"type": "plain_text", "text": ""})}
    if "value" in element:
        act["value"] = element["value"]
    if "style" in element:
        act["style"] = element["style"]
    return act


def event_body(event: Mapping[str, Any], *, team_id: str = CONSOLE_TEAM_ID,
               event_id: str | None = None, api_app_id: str = CONSOLE_APP_ID,
               user_id: str = BOT_USER_ID, token: str = "verification-token-unused") -> bytes:
    """An Events API request body: the ``event_callback`` JSON wrapper around ``event`` (with
    ``event_id``, ``event_time`` in epoch seconds, ``authorizations`` naming the bot user and
    ``event_context``), as UTF-8 bytes."""
    wrapper = {
        "token": token,
        "team_id": team_id,
        "api_app_id": api_app_id,
        "event": dict(event),
        "type": "event_callback",
        "event_id": event_id or f"Ev{uuid.uuid4().hex[:10].upper()}",
        "event_time": int(time.time()),
        "authorizations": [{"enterprise_id": None, "team_id": team_id, "user_id": user_id,
                            "is_bot": True, "is_enterprise_install": False}],
        "is_ext_shared_channel": False,
        "event_context": f"4-{uuid.uuid4().hex}",
    }
    return json.dumps(wrapper).encode("utf-8")


def app_home_opened_event(user_id: str = CONSOLE_USER_ID, *, tab: str = "home",
                          channel: str = "D0CONSOLE",
                          view: Mapping[str, Any] | None = None) -> dict[str, Any]:
    """An ``app_home_opened`` event (the ``event`` part): ``type, user, channel, tab, event_ts``
    and ``view`` when one was published before."""
    event: dict[str, Any] = {"type": "app_home_opened", "user": user_id, "channel": channel,
                             "tab": tab, "event_ts": f"{time.time():.6f}"}
    if view is not None:
        event["view"] = dict(view)
    return event


def signed_headers(body: bytes, secret: str, timestamp: int | None = None,
                   content_type: str = "application/x-www-form-urlencoded") -> dict[str, str]:
    """Headers Slack sends with ``body``: ``Content-Type``, ``X-Slack-Request-Timestamp`` (epoch
    seconds, default now) and ``X-Slack-Signature`` (v0 HMAC-SHA256 made by slack-sdk's
    :class:`~slack_sdk.signature.SignatureVerifier`)."""
    from slack_sdk.signature import SignatureVerifier

    ts = str(int(time.time()) if timestamp is None else timestamp)
    signature = SignatureVerifier(secret).generate_signature(timestamp=ts, body=body)
    return {"Content-Type": content_type, "X-Slack-Request-Timestamp": ts,
            "X-Slack-Signature": signature}


def _trigger_id() -> str:
    return f"{int(time.time())}.{uuid.uuid4().int % 10**12}.{uuid.uuid4().hex}"
