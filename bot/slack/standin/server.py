"""The stand-in's HTTP server: Slack's Web API and response URLs on loopback (see the package doc)."""

from __future__ import annotations

import base64
import hashlib
import itertools
import json
import math
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any, TypeVar
from urllib.parse import parse_qs, urlsplit

from bot.slack import blockkit
from bot.slack.scopes import conversation_kind, default_bot_scopes, parse_scopes, scope_refusal
from bot.slack.standin.ids import (
    BOT_ID,
    BOT_USER_ID,
    CONSOLE_APP_ID,
    CONSOLE_CHANNEL_ID,
    CONSOLE_CHANNEL_NAME,
    CONSOLE_TEAM_DOMAIN,
    CONSOLE_TEAM_ID,
    CONSOLE_USER_ID,
)
from bot.slack.standin.records import ApiCall, Faults, ResponsePost

T = TypeVar("T")

_JSON_ARGS = ("blocks", "attachments", "view", "metadata", "unfurls", "channels")

MAX_MESSAGE_TEXT = 4000
"""Characters of a message's top-level ``text`` beyond which Slack answers ``msg_too_long`` (in
practice; Slack documents 40,000 as the hard truncation)."""

SERVED_METHODS: frozenset[str] = frozenset({
    "api.test",
    "oauth.v2.access",
    "auth.test",
    "chat.postMessage",
    "chat.postEphemeral",
    "chat.update",
    "chat.delete",
    "chat.unfurl",
    "conversations.open",
    "conversations.history",
    "conversations.info",
    "conversations.list",
    "users.conversations",
    "users.info",
    "views.publish",
    "views.open",
    "views.update",
    "views.push",
})
"""The Web API methods the stand-in serves (their scopes: :mod:`bot.slack.scopes`). Any other
method is answered ``unknown_method``."""

_NO_TOKEN_METHODS = frozenset({"api.test", "oauth.v2.access"})  # OAuth uses the client id/secret
_MESSAGE_METHODS = frozenset({"chat.postMessage", "chat.postEphemeral", "chat.update"})
_VIEW_METHODS = frozenset({"views.publish", "views.open", "views.update", "views.push"})


class _Server(ThreadingHTTPServer):
    """``ThreadingHTTPServer`` with a listen backlog of 128 instead of 5: with dozens of clients
    connecting at once (a benchmark's lazy replies), a backlog of 5 drops SYNs and the kernel's
    1 s / 3 s retransmits would show up as our latency. Slack does not refuse connections so."""

    request_queue_size = 128


class SlackStandIn:
    """Slack's Web API and response URLs, served on ``127.0.0.1`` from a daemon thread.

    ``SlackStandIn()`` starts listening at once on a free port (``port=0``); use it as a context
    manager or call :meth:`close`. Point ``slack_sdk.WebClient(base_url=standin.api_url)`` (or
    ``SLACK_API_URL``) at :attr:`api_url`, and put :meth:`response_url` values into the requests
    sent to the app. Thread-safe: the server answers on many threads while tests read records.

    ``team_id`` is what ``auth.test`` reports; ``channels`` is what ``users.conversations`` lists
    (default one public channel ``C0CONSOLE``); ``response_url_limit`` is how many posts one
    response URL accepts (Slack: 5); later posts are answered 404 ``used_url``. ``scopes`` are
    the scopes of any token (default: the manifest's, :func:`bot.slack.scopes.default_bot_scopes`):
    a call whose scope (:mod:`bot.slack.scopes`, narrowed by conversation kind) is missing is
    refused ``missing_scope`` with ``needed`` and ``provided``, as Slack does.
    ``token_scopes`` maps a token (the ``xoxb-...`` string) to the scopes it was granted; when
    given, each call is checked against its own token's scopes and an unknown token is
    ``invalid_auth``. Tokens are kept only in memory, to compare; they are never recorded or
    printed.

    ``users`` maps a user id to ``real_name``, ``display_name``, ``is_admin``, ``is_owner``
    (what ``users.info`` answers; any other id is ``user_not_found``); without it every id is
    a person named by their id, not an admin.

    ``conversations.info`` answers a channel of ``channels``; any other id, and a private channel
    whose ``is_member`` is false, is ``channel_not_found`` (Slack hides those from the bot).

    Channel membership: posting to (or reading the history of) a channel of ``channels`` whose
    ``is_member`` is false answers ``not_in_channel``, as Slack does (a public channel accepts
    posts from a token with ``chat:write.public``).

    Token rotation (``oauth_client=(client_id, client_secret)``): :meth:`issue_rotating_token`
    grants an access token that expires (calls with it after the expiry get
    ``token_expired``) and a refresh token; ``oauth.v2.access`` with
    ``grant_type=refresh_token`` (client id and secret by HTTP Basic auth or in the body, as
    slack-sdk sends them) answers a new access token, a new refresh token (the old one stops
    working) and ``expires_in``; a wrong client is ``invalid_client_id`` / ``bad_client_secret``,
    an unknown refresh token ``invalid_refresh_token`` ``users`` may also set other fields
    ``users.info`` reports for that user (``tz``, ``locale`` ...).
    """

    def __init__(self, *, team_id: str = CONSOLE_TEAM_ID, team_name: str = "Console",
                 channels: Iterable[Mapping[str, Any]] | None = None,
                 response_url_limit: int = 5, port: int = 0,
                 token_scopes: Mapping[str, Iterable[str]] | None = None,
                 scopes: Iterable[str] | None = None,
                 oauth_client: tuple[str, str] | None = None,
                 users: Mapping[str, Mapping[str, Any]] | None = None):
        self.users = {k: dict(v) for k, v in users.items()} if users is not None else None
        self.scopes = default_bot_scopes() if scopes is None else parse_scopes(scopes)
        self.team_id = team_id
        self.team_name = team_name
        self.channels = [dict(c) for c in channels] if channels is not None else [
            {"id": CONSOLE_CHANNEL_ID, "name": CONSOLE_CHANNEL_NAME, "is_channel": True,
             "is_private": False, "is_member": True, "is_archived": False}]
        self.response_url_limit = response_url_limit
        self._token_scopes = (None if token_scopes is None
                              else {k: frozenset(v) for k, v in token_scopes.items()})
        self._oauth_client = oauth_client
        self._token_expiry: dict[str, float] = {}  # rotating access token -> epoch seconds
        self._refresh_tokens: dict[str, frozenset[str]] = {}  # refresh token -> scopes
        self._cond = threading.Condition()
        self._faults = Faults()
        self._calls: list[ApiCall] = []
        self._responses: list[ResponsePost] = []
        self._fault_counter = 0
        self._error_counter = 0
        self._buckets: dict[str, tuple[float, float]] = {}  # channel -> (tokens, last monotonic)
        self._team_bucket: tuple[float, float] | None = None  # (tokens, last monotonic)
        self._ts = itertools.count(1)
        self._ts_base = int(time.time())
        self._ids = itertools.count(1)
        self._server = _Server(("127.0.0.1", port), _handler_for(self))
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
            self._team_bucket = None
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
        def enough() -> list[ResponsePost]:
            posts = self.responses(url)
            return posts if len(posts) >= count else []

        return self.wait_for(enough, timeout)[count - 1]

    def wait_for_call(self, method: str, count: int = 1, timeout: float = 5.0) -> ApiCall:
        """Wait until at least ``count`` calls of ``method`` arrived and return the ``count``-th.
        ``timeout`` in seconds; raises :class:`TimeoutError`."""
        def enough() -> list[ApiCall]:
            calls = self.calls(method)
            return calls if len(calls) >= count else []

        return self.wait_for(enough, timeout)[count - 1]

    def reset(self) -> None:
        """Forget every record and turn every fault off (the server keeps running)."""
        with self._cond:
            self._calls.clear()
            self._responses.clear()
            self._faults = Faults()
            self._fault_counter = 0
            self._error_counter = 0
            self._buckets.clear()
            self._team_bucket = None
            self._cond.notify_all()

    def close(self) -> None:
        """Stop the server and free the port. Idempotent."""
        if self._closed:
            return
        self._closed = True
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def __enter__(self) -> SlackStandIn:
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
        token = auth.split(" ", 1)[-1] if auth else None
        refused = self._auth_refusal(method, args, token)
        headers: dict[str, str]
        decided = time.monotonic()
        if refused is not None:
            status, headers, body = 200, {}, refused
        elif method == "oauth.v2.access" and args.get("grant_type") == "refresh_token":
            status, headers, body = 200, {}, self._refresh(args, auth)
        else:
            # Rate limits and injected faults first (they count arrivals, so the time spent
            # checking blocks must not shift them), then the arguments of an accepted call.
            status, headers, body = self._decide(method, args, faults)
            decided = time.monotonic()
            bad_args = self._argument_refusal(method, args) if status == 200 and body.get("ok") else None
            if bad_args is not None:
                status, headers, body = 200, {}, {"ok": False, "error": bad_args}
        fingerprint = hashlib.sha256(token.encode()).hexdigest()[:8] if token else None
        record = ApiCall(method, args, bool(auth), fingerprint, status, body, decided)
        with self._cond:
            self._calls.append(record)
            self._cond.notify_all()
        return status, headers, body

    def refusal(self, method: str, args: Mapping[str, Any], token: str | None) -> str | None:
        """The Slack error code this call gets (``None``: it is acceptable). When serving, the
        authentication checks come before the injected faults and rate limits, the argument
        checks after them (rate limits count every arrival).

        In Slack's order: authentication (``not_authed``, ``invalid_auth``), the method
        (``unknown_method``), the token's scopes (``missing_scope``), then the arguments
        (``no_text``, ``msg_too_long``, ``invalid_blocks``, ``invalid_arguments``). ``token`` is the
        bearer token or ``None``."""
        refused = self._auth_refusal(method, args, token)
        return str(refused["error"]) if refused else self._argument_refusal(method, args)

    def _auth_refusal(self, method: str, args: Mapping[str, Any], token: str | None
                      ) -> dict[str, Any] | None:
        """Slack's answer body when authentication, the method or the token's scopes refuse the
        call, else None."""
        if token is None and method not in _NO_TOKEN_METHODS:
            return {"ok": False, "error": "not_authed"}
        if method not in SERVED_METHODS:
            return {"ok": False, "error": "unknown_method"}
        if method in _NO_TOKEN_METHODS:
            return None
        if token is not None:
            with self._cond:
                expiry = self._token_expiry.get(token)
            if expiry is not None and expiry <= time.time():
                return {"ok": False, "error": "token_expired"}
        granted: frozenset[str] = self.scopes
        if self._token_scopes is not None:
            token_granted = self._token_scopes.get(token or "")
            if token_granted is None:
                return {"ok": False, "error": "invalid_auth"}
            granted = token_granted
        channel_id = str(args.get("channel") or "")
        channel = next((c for c in self.channels if c.get("id") == channel_id), None)
        private = bool(channel.get("is_private")) if channel is not None else None
        refused = scope_refusal(method, granted, conversation_kind(channel_id, private))
        if refused is not None:
            return refused
        if (method in ("chat.postMessage", "chat.postEphemeral", "conversations.history")
                and channel is not None and not channel.get("is_member", True)):
            # Slack: a private channel needs the bot as a member; a public one too unless the
            # token has chat:write.public (posting only).
            public_ok = (not channel.get("is_private") and method == "chat.postMessage"
                         and "chat:write.public" in granted)
            if not public_ok:
                return {"ok": False, "error": "not_in_channel"}
        return None

    def _argument_refusal(self, method: str, args: Mapping[str, Any]) -> str | None:
        if method in _MESSAGE_METHODS:
            text, blocks = args.get("text"), args.get("blocks")
            if not text and not blocks and not args.get("attachments"):
                return "no_text"
            if isinstance(text, str) and len(text) > MAX_MESSAGE_TEXT:
                return "msg_too_long"
            if blocks and blockkit.block_kit_problems(blocks, "message"):
                return "invalid_blocks"
        if method in _VIEW_METHODS and blockkit.view_problems(args.get("view")):
            return "invalid_arguments"
        if method == "chat.unfurl":
            return _unfurl_refusal(args)
        return None

    def _decide(self, method: str, args: dict[str, Any], faults: Faults
                ) -> tuple[int, dict[str, str], dict[str, Any]]:
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
        if method == "chat.postMessage" and faults.team_rate_per_s:
            with self._cond:
                wait = self._take_team_token(faults)
            if wait > 0:
                return 429, {"Retry-After": str(max(1, math.ceil(wait)))}, \
                    {"ok": False, "error": "ratelimited"}
        return 200, {}, self._ok_body(method, args)

    def _take_team_token(self, faults: Faults) -> float:
        """The workspace-wide bucket (lock held); as :meth:`_take_token`."""
        rate = float(faults.team_rate_per_s or 0)
        burst = max(1, faults.team_burst)
        now = time.monotonic()
        tokens, last = self._team_bucket or (float(burst), now)
        tokens = min(float(burst), tokens + (now - last) * rate)
        if tokens >= 1.0:
            self._team_bucket = (tokens - 1.0, now)
            return 0.0
        self._team_bucket = (tokens, now)
        return (1.0 - tokens) / rate

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

    def _next_ts(self) -> str:
        n = next(self._ts)
        return f"{self._ts_base + n // 1_000_000}.{n % 1_000_000:06d}"

    def issue_rotating_token(self, scopes: Iterable[str], expires_in_s: float
                             ) -> tuple[str, str]:
        """Grant a rotating bot token with ``scopes`` that expires in ``expires_in_s`` seconds
        (may be negative: already expired) and its refresh token; returns ``(access, refresh)``.
        Needs ``token_scopes`` (scope checks on) to be meaningful."""
        n = next(self._ids)
        access, refresh = f"xoxe.xoxb-1-rot{n:04d}{uuid.uuid4().hex[:8]}", f"xoxe-1-ref{n:04d}{uuid.uuid4().hex[:8]}"
        with self._cond:
            if self._token_scopes is None:
                self._token_scopes = {}
            self._token_scopes[access] = frozenset(scopes)
            self._token_expiry[access] = time.time() + expires_in_s
            self._refresh_tokens[refresh] = frozenset(scopes)
        return access, refresh

    def _refresh(self, args: Mapping[str, Any], auth: str | None) -> dict[str, Any]:
        """``oauth.v2.access`` with ``grant_type=refresh_token`` (see the class docstring)."""
        client_id, secret = args.get("client_id"), args.get("client_secret")
        if auth and auth.startswith("Basic "):
            try:
                client_id, _, secret = base64.b64decode(auth[6:]).decode().partition(":")
            except (ValueError, UnicodeDecodeError):
                return {"ok": False, "error": "invalid_client_id"}
        if self._oauth_client is None or client_id != self._oauth_client[0]:
            return {"ok": False, "error": "invalid_client_id"}
        if secret != self._oauth_client[1]:
            return {"ok": False, "error": "bad_client_secret"}
        with self._cond:
            scopes = self._refresh_tokens.pop(str(args.get("refresh_token") or ""), None)
        if scopes is None:
            return {"ok": False, "error": "invalid_refresh_token"}
        expires_in = 43200
        access, refresh = self.issue_rotating_token(scopes, expires_in)
        return {"ok": True, "access_token": access, "token_type": "bot",
                "scope": ",".join(sorted(scopes)), "bot_user_id": BOT_USER_ID,
                "app_id": CONSOLE_APP_ID, "team": {"id": self.team_id, "name": self.team_name},
                "enterprise": None, "is_enterprise_install": False,
                "refresh_token": refresh, "expires_in": expires_in}

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
            known = (self.users.get(user) if self.users is not None
                     else {"real_name": "Console User"} if user == CONSOLE_USER_ID else {})
            if known is None:
                return {"ok": False, "error": "user_not_found"}
            real = str(known.get("real_name") or user)
            display = str(known.get("display_name") or real)
            return {"ok": True, "user": {
                "id": user, "team_id": self.team_id, "name": user.lower(), "real_name": real,
                "deleted": False, "is_bot": False, "tz": "Europe/Berlin",
                "tz_label": "Central European Time", "tz_offset": 3600, "locale": "en-US",
                "is_admin": False, "is_owner": False,
                "profile": {"display_name": display, "real_name": real},
                **{k: v for k, v in known.items() if k not in ("real_name", "display_name")}}}
        if method in ("users.conversations", "conversations.list"):
            return {"ok": True, "channels": [dict(c) for c in self.channels],
                    "response_metadata": {"next_cursor": ""}}
        if method == "conversations.history":
            return self._history(str(channel or ""), int(args.get("limit") or 100))
        if method == "conversations.info":
            # Slack: an id the bot cannot see is channel_not_found, and a private channel is
            # visible to the bot only when it is a member; a public one shows is_member.
            for c in self.channels:
                if c.get("id") == channel and (c.get("is_member", True) or not c.get("is_private")):
                    return {"ok": True, "channel": dict(c)}
            return {"ok": False, "error": "channel_not_found"}
        return {"ok": True}

    def _history(self, channel: str, limit: int) -> dict[str, Any]:
        """``conversations.history`` from the messages accepted in ``channel``: newest first, with
        the ``metadata`` each was posted with (Slack returns it when ``include_all_metadata`` is
        set). ``oldest``/``latest`` are not applied: the stand-in's ``ts`` values are synthetic."""
        messages = []
        for call in self.calls("chat.postMessage"):
            if not call.ok or call.channel != channel:
                continue
            message = {"type": "message", "ts": call.response.get("ts"),
                       "text": call.args.get("text", ""), "bot_id": BOT_ID}
            if call.args.get("metadata"):
                message["metadata"] = call.args["metadata"]
            messages.append(message)
        messages.reverse()
        return {"ok": True, "messages": messages[:limit], "has_more": len(messages) > limit}

    def _answer_response(self, key: str, url: str, body: dict[str, Any]) -> tuple[int, str]:
        blocks = body.get("blocks")
        if blocks and blockkit.block_kit_problems(blocks, "message"):
            with self._cond:
                self._responses.append(ResponsePost(key, url, body, 400, time.monotonic()))
                self._cond.notify_all()
            return 400, "invalid_blocks"
        with self._cond:
            used = sum(1 for r in self._responses if r.key == key and r.status == 200)
            status = 200 if used < self.response_url_limit else 404
            self._responses.append(ResponsePost(key, url, body, status, time.monotonic()))
            self._cond.notify_all()
        return status, ("ok" if status == 200 else "used_url")


def _unfurl_refusal(args: Mapping[str, Any]) -> str | None:
    """Why Slack refuses a ``chat.unfurl`` call (``None``: acceptable). It needs the message
    (``channel`` + ``ts``) or the composer's ``unfurl_id`` + ``source``, and ``unfurls``: a JSON
    object mapping each shared http(s) URL to an attachment with Block Kit ``blocks`` (or ``text``)
    that Slack would accept in a message."""
    if not ((args.get("channel") and args.get("ts")) or (args.get("unfurl_id") and args.get("source"))):
        return "invalid_arguments"
    unfurls = args.get("unfurls")
    if unfurls is None or unfurls == "":
        return "missing_unfurls"
    if isinstance(unfurls, str):
        return "invalid_json"
    if not isinstance(unfurls, dict) or not unfurls:
        return "json_not_object" if not isinstance(unfurls, dict) else "missing_unfurls"
    for url, card in unfurls.items():
        if not isinstance(url, str) or not url.startswith(("http://", "https://")):
            return "cannot_unfurl_url"
        if not isinstance(card, dict) or not (card.get("blocks") or card.get("text")):
            return "invalid_unfurls"
        if card.get("blocks") and blockkit.block_kit_problems(card["blocks"], "message"):
            return "invalid_blocks"
    return None


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

        def log_message(self, format: str, *args: Any) -> None:  # quiet: the stand-in logs nothing
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
