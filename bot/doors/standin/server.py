"""The stand-in workspace: its state (team, people, channels), the checks of a call's token and
scopes, and the records; tokens and their rotation are :mod:`~bot.doors.standin.oauth`, faults and
rate limits :mod:`~bot.doors.standin.limits`, HTTP :mod:`~bot.doors.standin.transport`, the answers
:mod:`~bot.doors.standin.answers` (see the package doc)."""

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

from bot.doors.standin.answers import ok_body
from bot.doors.standin.ids import CONSOLE_CHANNEL, CONSOLE_TEAM_ID
from bot.doors.standin.limits import Answer, RateLimits, checked_changes
from bot.doors.standin.oauth import Grant, Tokens
from bot.doors.standin.records import ApiCall, Faults, ResponseLog, ResponsePost, blocks_refused, response_key
from bot.doors.standin.refusals import NO_TOKEN_METHODS, SERVED_METHODS, argument_refusal
from bot.doors.standin.transport import LoopbackServer, handler_for
from bot.slack.scopes import conversation_kind, default_bot_scopes, parse_scopes, scope_refusal

T = TypeVar("T")


class SlackStandIn:
    """Slack's Web API and response URLs, served on ``127.0.0.1`` from a daemon thread.

    Starts listening at once on a free port; use it as a context manager or call
    :meth:`close`. Point ``slack_sdk.WebClient(base_url=standin.api_url)`` at :attr:`api_url` and put
    :meth:`response_url` values into the requests sent to the app. Thread-safe.

    ``team_id`` (and :attr:`team_name`): what ``auth.test`` reports. ``channels``: what ``users.conversations``
    lists and ``conversations.info`` answers (default one public channel ``C0CONSOLE``; another id, or
    a private channel whose ``is_member`` is false, is ``channel_not_found``); posting to or reading a
    channel whose ``is_member`` is false is ``not_in_channel`` (a public one accepts posts from a
    token with ``chat:write.public``). :attr:`response_url_limit`: posts one response URL accepts
    (Slack: 5; later ones 404 ``used_url``). ``scopes``: any token's scopes (default the manifest's); a call
    whose scope is missing is ``missing_scope`` with ``needed`` and ``provided``. ``token_scopes``:
    each token's own scopes (an unknown token is ``invalid_auth``). ``users``: user id ->
    ``real_name``, ``display_name``, ``is_admin``, ``is_owner``, ``tz``, ``locale`` … for
    ``users.info`` (another id is ``user_not_found``; without it everyone is named by their id).
    ``oauth_client=(client_id, client_secret)``: token rotation (:mod:`~bot.doors.standin.oauth`,
    :meth:`issue_rotating_token`) and installs: ``GET /oauth/v2/authorize`` approves at once as
    :attr:`installer` (org-wide when :attr:`org_wide_install`) and redirects to the ``redirect_uri``
    given or :attr:`oauth_redirect_url` with a one-time ``code`` and the ``state``; ``oauth.v2.access``
    with that code answers the installation (``enterprise``: ``{"id", "name"}`` of an Enterprise
    Grid org, or None). Tokens are kept only in memory, never recorded or printed.
    """

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
        self.oauth_redirect_url: str | None = None
        """The app's configured redirect URL (Slack's app settings), used when authorize has none."""
        self.installer = "U0INSTALLER"
        """Who approves on the authorize page."""
        self.org_wide_install = False
        """Whether the approval installs org-wide (needs ``enterprise``)."""
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
        self._server = LoopbackServer(("127.0.0.1", 0), handler_for(self))
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.1}, name="slack-standin", daemon=True
        )
        self._thread.start()
        self._closed = False

    # -- addresses --

    @property
    def base_url(self) -> str:
        """``http://127.0.0.1:PORT`` (no trailing slash), PORT the free port it listens on."""
        return f"http://127.0.0.1:{self._server.server_address[1]}"

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
        return f"{self.base_url}/response/{key}"  # records.response_key reads it back

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
        changes = checked_changes(changes)
        with self._cond:
            self._faults = replace(self._faults, **changes)
            self._limits.reset()
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
            return self._responses.to(url) if url is not None else list(self._responses.posts)

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

    def wait_for_response(self, url: str | None = None, count: int = 1, timeout: float = 5.0) -> ResponsePost:
        """Wait until at least ``count`` posts reached ``url`` (any response URL when ``None``) and
        return the ``count``-th (with ``url``: :meth:`ResponseLog.wait_for`). ``timeout`` in seconds;
        raises :class:`TimeoutError`."""
        if url is not None:
            with self._cond:
                return self._responses.wait_for(url, count, timeout)
        return self.wait_for(lambda: self.responses()[count - 1 : count], timeout)[0]

    def _record_response(self, post: ResponsePost) -> None:
        """Keep ``post`` and wake whoever waits for it (the caller holds ``_cond``)."""
        self._responses.add(post)
        self._cond.notify_all()

    def wait_for_call(self, method: str, count: int = 1, timeout: float = 5.0) -> ApiCall:
        """Wait until at least ``count`` calls of ``method`` arrived and return the ``count``-th.
        ``timeout`` in seconds; raises :class:`TimeoutError`."""
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

    # -- answering (called on server threads) --

    def answer_api(self, method: str, args: dict[str, Any], auth: str | None) -> Answer:
        """Answer one Web API call (server threads): ``(HTTP status, extra headers, JSON body)``.
        ``auth`` is the ``Authorization`` header; the call is recorded (:meth:`calls`)."""
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
            # Rate limits and injected faults first (they count arrivals, so the time spent
            # checking blocks must not shift them), then the arguments of an accepted call.
            status, headers, body = self._decide(method, args, faults)
            decided = time.monotonic()
            bad_args = argument_refusal(method, args) if status == 200 and body.get("ok") else None
            if bad_args is not None:
                status, headers, body = 200, {}, {"ok": False, "error": bad_args}
        fingerprint = hashlib.sha256(token.encode()).hexdigest()[:8] if token else None
        record = ApiCall(method, args, bool(auth), fingerprint, status, body, decided)
        with self._cond:
            self._calls.append(record)
            self._cond.notify_all()
        return status, headers, body

    def _auth_refusal(self, method: str, args: Mapping[str, Any], token: str | None) -> dict[str, Any] | None:
        """Slack's answer body when authentication, the method or the token's scopes refuse the
        call, else None. In Slack's order: ``not_authed``, ``unknown_method``, the token
        (``invalid_auth``, ``token_expired``), ``missing_scope`` / ``not_in_channel``; the argument
        checks (:func:`~bot.doors.standin.refusals.argument_refusal`) come after the injected faults
        and rate limits, which count every arrival."""
        if token is None and method not in NO_TOKEN_METHODS:
            return {"ok": False, "error": "not_authed"}
        if method not in SERVED_METHODS:
            return {"ok": False, "error": "unknown_method"}
        if method in NO_TOKEN_METHODS:
            return None
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
        """The answer to a call that passed authentication: a fault (:mod:`~bot.doors.standin.limits`)
        or :meth:`_ok_body`."""
        return self._limits.fault(method, args, faults) or (200, {}, self._ok_body(method, args))

    def next_ts(self) -> str:
        """A fresh message ``ts`` (``<seconds>.<6 digits>``, increasing)."""
        n = next(self._ts)
        return f"{self._ts_base + n // 1_000_000}.{n % 1_000_000:06d}"

    def next_id(self) -> int:
        """A fresh number for ids (views, response URLs, tokens)."""
        return next(self._ids)

    def issue_rotating_token(self, scopes: Iterable[str], expires_in_s: float) -> tuple[str, str]:
        """Grant a rotating bot token with ``scopes`` that expires in ``expires_in_s`` seconds
        (may be negative: already expired) and its refresh token; returns ``(access, refresh)``.
        Needs ``token_scopes`` (scope checks on) to be meaningful."""
        return self._tokens.issue(scopes, expires_in_s)

    def _ok_body(self, method: str, args: dict[str, Any]) -> dict[str, Any]:
        """The body of an accepted call: :func:`bot.doors.standin.answers.ok_body`. A subclass may
        answer a method otherwise (tests answer ``oauth.v2.access`` with tokens)."""
        return ok_body(self, method, args)

    def answer_authorize(self, query: Mapping[str, str]) -> tuple[int, str]:
        """``GET /oauth/v2/authorize`` (server threads): ``(status, Location or error text)``. The
        approval is immediate (:attr:`installer`); 302 to the redirect URL with ``code`` and
        ``state``; 400 for an unknown ``client_id`` or no redirect URL known."""
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
        """Answer one post to response URL ``key`` at ``path`` (server threads): ``(HTTP status, text)``;
        recorded (:meth:`responses`, whose ``body`` is parsed from ``raw`` when first read).
        ``raw``: the JSON text posted. Raises ``ValueError`` when it is not a JSON object (the
        transport answers 400 ``invalid_payload``, as Slack does, and records nothing)."""
        refused = blocks_refused(raw)
        with self._cond:
            status = 400 if refused else 200 if self._responses.answered(key) < self.response_url_limit else 404
            self._record_response(ResponsePost(key, self.base_url + path, raw, status, time.monotonic()))
        return status, {200: "ok", 400: "invalid_blocks", 404: "used_url"}[status]

    def answer_ack(self, url: str, raw: bytes) -> int:
        """Slack's side of a slash command acked with a message: ``raw``, the HTTP answer's body
        (JSON text), is shown as the reply to the command whose response URL is ``url``, and is
        recorded with those posts (``ResponsePost.ack``; it does not use up one of the URL's five
        posts). Returns 200, or 400 when its blocks break Block Kit's limits (Slack shows an
        error instead). Raises ``ValueError`` when ``raw`` is not a JSON object."""
        status = 400 if blocks_refused(raw) else 200
        with self._cond:
            key = response_key(urlsplit(url).path) or url
            self._record_response(ResponsePost(key, url, raw, status, time.monotonic(), ack=True))
        return status


def _member_may(method: str, channel: Mapping[str, Any], granted: frozenset[str]) -> bool:
    """Whether posting to (or reading) ``channel`` is allowed given the bot's membership: Slack
    needs the bot in a private channel, and in a public one too unless the token has
    ``chat:write.public`` (posting only)."""
    if method not in ("chat.postMessage", "chat.postEphemeral", "conversations.history"):
        return True
    return bool(channel.get("is_member", True)) or (
        not channel.get("is_private") and method == "chat.postMessage" and "chat:write.public" in granted
    )
