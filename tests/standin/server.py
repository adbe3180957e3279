"""The stand-in workspace: its state (team, people, channels), the checks of a call's token and
scopes, and the records (the other modules: see the package doc)."""

from __future__ import annotations

import hashlib
import itertools
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace
from typing import Any, TypeVar
from urllib.parse import urlencode, urlsplit

from bot.doors.console.answers import ok_body
from tests.standin.ids import CONSOLE_CHANNEL, CONSOLE_TEAM_ID
from tests.standin.limits import Answer, RateLimits, checked_changes
from tests.standin.oauth import Grant, Tokens
from tests.standin.records import ApiCall, Faults, ResponseLog, ResponsePost, blocks_refused, response_key
from tests.standin.refusals import NO_TOKEN_METHODS, SERVED_METHODS, argument_refusal
from tests.standin.scopes import conversation_kind, default_bot_scopes, parse_scopes, scope_refusal
from tests.standin.transport import LoopbackServer, handler_for

T = TypeVar("T")


class SlackStandIn:
    """Slack's Web API and response URLs on ``127.0.0.1`` (a free port, a daemon thread, listening
    at once; thread-safe; a context manager, or call :meth:`close`). Point a ``WebClient`` at
    :attr:`api_url`; put :meth:`response_url` values in the requests sent to the app.

    ``team_id`` / :attr:`team_name`: what ``auth.test`` reports. ``channels`` (default one public ``C0CONSOLE``):
    what ``users.conversations`` lists and ``conversations.info`` answers (another id, or a private channel with
    ``is_member`` false: ``channel_not_found``); posting to or reading one with ``is_member`` false is
    ``not_in_channel`` (a public one takes posts with ``chat:write.public``). :attr:`response_url_limit`: posts a
    response URL accepts (Slack: 5, then 404 ``used_url``). ``scopes``: any token's scopes (default the manifest's;
    a missing one is ``missing_scope`` with ``needed`` and ``provided``); ``token_scopes``: each token's own (an
    unknown token is ``invalid_auth``). ``users``: user id -> ``users.info`` fields (``real_name``,
    ``display_name``, ``tz``, ``is_bot``, ``is_app_user`` …, both false unless given, as Slack answers for a
    person; another id is ``user_not_found``; without it everyone is named by their id).
    ``oauth_client=(client_id, client_secret)``: token rotation (:meth:`issue_rotating_token`) and installs:
    ``GET /oauth/v2/authorize`` approves at once as :attr:`installer` (org-wide when :attr:`org_wide_install`),
    redirecting to the ``redirect_uri`` given or :attr:`oauth_redirect_url` with a one-time ``code`` and the
    ``state``, which ``oauth.v2.access`` exchanges for the installation (``enterprise``: ``{"id", "name"}`` of a
    Grid org, or None). Tokens live only in memory, never recorded or printed."""

    def __init__(
        self,
        *,
        team_id: str = CONSOLE_TEAM_ID,
        channels: Iterable[Mapping[str, Any]] | None = None,
        token_scopes: Mapping[str, Iterable[str]] | None = None,
        scopes: Iterable[str] | None = None,
        oauth_client: tuple[str, str] | None = None,
        users: Mapping[str, Mapping[str, Any]] | None = None,
        enterprise: Mapping[str, str] | None = None,
    ):
        self.enterprise = dict(enterprise) if enterprise is not None else None
        self.oauth_redirect_url: str | None = None  # the app's configured one (Slack's app settings)
        self.installer = "U0INSTALLER"  # who approves on the authorize page
        self.org_wide_install = False  # whether the approval installs org-wide (needs enterprise)
        self.users = {k: dict(v) for k, v in users.items()} if users is not None else None
        self.scopes = default_bot_scopes() if scopes is None else parse_scopes(scopes)
        self.team_id = team_id
        self.team_name = "Console"
        self.channels = [dict(c) for c in (channels if channels is not None else [CONSOLE_CHANNEL])]
        self.response_url_limit = 5
        self._cond_lock = threading.RLock()
        self._cond = threading.Condition(self._cond_lock)
        self._ids = itertools.count(1)
        self._tokens = Tokens(self._cond_lock, self._ids, token_scopes, oauth_client)
        self._faults = Faults()
        self._limits = RateLimits(self._cond_lock)
        self._calls: list[ApiCall] = []
        self._responses = ResponseLog(self._cond_lock)
        self._ts = itertools.count(1)
        self._ts_base = int(time.time())
        self.socket_mode: Any = None  # a tests.standin.socket_mode.SocketModeStandIn: apps.connections.open's
        self._server = LoopbackServer(("127.0.0.1", 0), handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="slack-standin", daemon=True
        )
        self._thread.start()
        self._closed = False

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash), PORT the free port it listens on."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    @property
    def api_url(self) -> str:
        """The Web API base URL, ending in ``/api/`` as slack-sdk expects (it appends the method)."""
        return f"{self.base_url}/api/"

    def response_url(self, key: str | int | None = None) -> str:
        """``http://127.0.0.1:PORT/response/<key>``, for a fresh unique key when none is given."""
        if key is None:
            key = f"R{next(self._ids):04d}{uuid.uuid4().hex[:8]}"
        return f"{self.base_url}/response/{key}"  # records.response_key reads it back

    @property
    def faults(self) -> Faults:
        """The faults in force (an immutable snapshot)."""
        with self._cond:
            return self._faults

    def configure(self, **changes: Any) -> Faults:
        """Change :class:`Faults` fields by name, resetting the every-k counters and the buckets;
        returns the new faults. Raises ``TypeError`` (unknown field), ``ValueError`` (negative)."""
        changes = checked_changes(changes)
        with self._cond:
            self._faults = replace(self._faults, **changes)
            self._limits.reset()
            return self._faults

    def calls(self, method: str | None = None) -> list[ApiCall]:
        """Web API calls received so far (faulted ones too), oldest first; ``method``'s only when given."""
        with self._cond:
            return [c for c in self._calls if method is None or c.method == method]

    def responses(self, url: str | None = None) -> list[ResponsePost]:
        """Posts to response URLs so far, oldest first (only those to ``url`` when given)."""
        with self._cond:
            return self._responses.to(url) if url is not None else list(self._responses.posts)

    def wait_for(self, predicate: Callable[[], T], timeout: float = 5.0) -> T:
        """Wait until ``predicate()`` returns something truthy (checked on each record and every
        50 ms) and return it. ``timeout`` in seconds; raises :class:`TimeoutError`."""
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

    def wait_for_response(self, url: str | None = None, count: int = 1, timeout: float = 5.0) -> ResponsePost:
        """The ``count``-th post to ``url`` (None: any), waiting ``timeout`` s, else :class:`TimeoutError`."""
        if url is not None:
            with self._cond:
                return self._responses.wait_for(url, count, timeout)
        return self.wait_for(lambda: self.responses()[count - 1 : count], timeout)[0]

    def _record_response(self, post: ResponsePost) -> None:
        """Keep ``post`` and wake whoever waits for it (the caller holds ``_cond``)."""
        self._responses.add(post)
        self._cond.notify_all()

    def wait_for_call(self, method: str, count: int = 1, timeout: float = 5.0) -> ApiCall:
        """The ``count``-th call of ``method``, waiting ``timeout`` s, else :class:`TimeoutError`."""
        return self.wait_for(lambda: self.calls(method)[count - 1 : count], timeout)[0]

    def reset(self) -> None:
        """Forget every record and turn every fault off (the server keeps running)."""
        with self._cond:
            self._calls.clear()
            self._responses.clear()
            self._faults = Faults()
            self._limits.reset()
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
        return f"SlackStandIn({self.base_url}, calls={len(self._calls)}, responses={len(self._responses.posts)})"

    def answer_api(self, method: str, args: dict[str, Any], auth: str | None) -> Answer:
        """Answer and record one Web API call; ``auth``: the ``Authorization`` header."""
        faults = self.faults
        if faults.latency_s:
            time.sleep(faults.latency_s)
        token = auth.split(" ", 1)[-1] if auth else None
        refused = self._auth_refusal(method, args, token)
        headers: dict[str, str] = {}
        status, decided, team = 200, time.monotonic(), {"id": self.team_id, "name": self.team_name}
        if refused is not None:
            body = refused
        elif method == "oauth.v2.access" and args.get("grant_type") == "refresh_token":
            body = self._tokens.refresh(args, auth, team)
        elif method == "oauth.v2.access" and self._tokens.has_client:  # grant_type absent: an install
            body = self._tokens.exchange(args, auth, team, self.enterprise)
        else:
            # Faults and rate limits count arrivals, so they come before the argument checks.
            status, headers, body = self._decide(method, args, faults)
            decided = time.monotonic()
            bad_args = argument_refusal(method, args) if status == 200 and body.get("ok") else None
            if bad_args is not None:
                status, headers, body = 200, {}, {"ok": False, "error": bad_args}
        fingerprint = hashlib.sha256(token.encode()).hexdigest()[:8] if token else None
        with self._cond:
            self._calls.append(ApiCall(method, args, bool(auth), fingerprint, status, body, decided))
            self._cond.notify_all()
        return status, headers, body

    def _auth_refusal(self, method: str, args: Mapping[str, Any], token: str | None) -> dict[str, Any] | None:
        """Slack's refusal body, in Slack's order: ``not_authed``, ``unknown_method``, the token's
        (``invalid_auth``, ``token_expired``), ``missing_scope`` / ``not_in_channel``; else None."""
        if token is None and method not in NO_TOKEN_METHODS:
            return {"ok": False, "error": "not_authed"}
        if method not in SERVED_METHODS:
            return {"ok": False, "error": "unknown_method"}
        if method in NO_TOKEN_METHODS:
            return None
        if method == "apps.connections.open":  # an app-level token's only method
            return None if str(token).startswith("xapp-") else {"ok": False, "error": "not_allowed_token_type"}
        granted = self._tokens.granted(token, self.scopes)
        if isinstance(granted, str):
            return {"ok": False, "error": granted}
        channel_id = str(args.get("channel") or "")
        channel = next((c for c in self.channels if c.get("id") == channel_id), None)
        private = bool(channel.get("is_private")) if channel is not None else None
        refused = scope_refusal(method, granted, conversation_kind(channel_id, private))
        if refused is None and channel is not None and not _member_may(method, channel, granted):
            return {"ok": False, "error": "not_in_channel"}
        return refused

    def _decide(self, method: str, args: dict[str, Any], faults: Faults) -> Answer:
        """The answer to an authenticated call: a fault or :meth:`_ok_body` (a test hook)."""
        return self._limits.fault(method, args, faults) or (200, {}, self._ok_body(method, args))

    def next_ts(self) -> str:
        """A fresh message ``ts`` (``<seconds>.<6 digits>``, increasing)."""
        n = next(self._ts)
        return f"{self._ts_base + n // 1_000_000}.{n % 1_000_000:06d}"

    def next_id(self) -> int:
        """A fresh number for ids (views, response URLs, tokens)."""
        return next(self._ids)

    def issue_rotating_token(self, scopes: Iterable[str], expires_in_s: float) -> tuple[str, str]:
        """``(access, refresh)``: a bot token with ``scopes`` expiring in ``expires_in_s`` s (< 0: expired)."""
        return self._tokens.issue(scopes, expires_in_s)

    def _ok_body(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """The body of an accepted call (:func:`~bot.doors.console.answers.ok_body`; tests override)."""
        if method == "apps.connections.open":
            if self.socket_mode is None:
                return {"ok": False, "error": "not_allowed"}  # Socket Mode off in the app's settings
            return {"ok": True, "url": self.socket_mode.connect_url()}
        return ok_body(self, method, args)

    def answer_authorize(self, query: Mapping[str, str]) -> tuple[int, str]:
        """``GET /oauth/v2/authorize``, approved at once: ``(302, Location)`` with ``code`` and
        ``state``, or ``(400, error)`` for an unknown ``client_id`` or no redirect URL."""
        redirect = query.get("redirect_uri") or self.oauth_redirect_url
        grant = Grant(
            self.installer,
            frozenset(parse_scopes(query.get("scope", ""))),
            frozenset(parse_scopes(query.get("user_scope", ""))),
            query.get("redirect_uri") or None,
            self.org_wide_install and self.enterprise is not None,
        )
        code = self._tokens.authorize(query.get("client_id", ""), grant) if redirect else None
        if code is None:
            return 400, "invalid_client_id" if redirect else "bad_redirect_uri"
        sep = "&" if "?" in str(redirect) else "?"
        return 302, f"{redirect}{sep}{urlencode({'code': code, 'state': query.get('state', '')})}"

    def answer_response(self, key: str, path: str, raw: bytes) -> tuple[int, str]:
        """Answer and record a post of JSON text ``raw`` to response URL ``key``: ``(status, text)``.
        Raises ``ValueError`` when it is not a JSON object (the transport answers 400
        ``invalid_payload``, as Slack does; nothing is recorded)."""
        refused = blocks_refused(raw)
        with self._cond:
            status = 400 if refused else 200 if self._responses.answered(key) < self.response_url_limit else 404
            self._record_response(ResponsePost(key, self.base_url + path, raw, status, time.monotonic()))
        return status, {200: "ok", 400: "invalid_blocks", 404: "used_url"}[status]

    def answer_ack(self, url: str, raw: bytes) -> int:
        """A slash command acked with a message (``raw``, JSON text): recorded with the posts to the
        command's response URL ``url`` (``ack=True``, not one of its five posts). Returns 200, or
        400 when its blocks break Block Kit's limits. Raises ``ValueError`` for a non-object."""
        status = 400 if blocks_refused(raw) else 200
        with self._cond:
            key = response_key(urlsplit(url).path) or url
            self._record_response(ResponsePost(key, url, raw, status, time.monotonic(), ack=True))
        return status


def _member_may(method: str, channel: Mapping[str, Any], granted: frozenset[str]) -> bool:
    """Whether the bot's membership lets it post to or read ``channel``: needed, except for
    ``chat.postMessage`` to a public channel with ``chat:write.public``."""
    if method not in ("chat.postMessage", "chat.postEphemeral", "conversations.history"):
        return True
    return bool(channel.get("is_member", True)) or (
        not channel.get("is_private") and method == "chat.postMessage" and "chat:write.public" in granted
    )
