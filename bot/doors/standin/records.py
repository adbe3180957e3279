"""What the stand-in records (Web API calls, response-URL posts) and the faults it injects."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import Any

from bot.slack import blockkit

RESPONSE_PREFIX = "/response/"
"""Where the stand-in serves response URLs: ``<base>/response/<key>``."""


def response_key(path: str) -> str | None:
    """The key of a response URL's path (``/response/<key>``), ``None`` for any other path."""
    return path[len(RESPONSE_PREFIX) :].strip("/") if path.startswith(RESPONSE_PREFIX) else None


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
        """The ``channel`` argument, when the method has one; for a post Slack accepted, the
        conversation it landed in (a user id as ``channel`` posts to the app's DM with them)."""
        landed = self.response.get("channel") if self.method == "chat.postMessage" else None
        value = landed if isinstance(landed, str) else self.args.get("channel")
        return str(value) if value is not None else None


@dataclass(frozen=True)
class ResponsePost:
    """One post to a response URL: ``key`` its id (the last path segment), ``url``, ``raw`` the
    JSON text sent, ``status`` the HTTP status answered, ``at`` ``time.monotonic()`` seconds;
    :attr:`body` is that JSON parsed (``response_type``, ``text``, ``blocks``,
    ``replace_original``, ...)."""

    key: str
    url: str
    raw: bytes
    status: int
    at: float
    ack: bool = False
    """True when the message came as the slash command's ack (the HTTP answer's body), which
    Slack shows as the reply without using one of the URL's five posts."""

    @cached_property
    def body(self) -> dict[str, Any]:
        """The posted JSON object, parsed when first read (a benchmark that only times the post
        never pays for it; the stand-in checked it was an object when it arrived)."""
        parsed: dict[str, Any] = json.loads(self.raw.decode("utf-8") or "{}")
        return parsed


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
    * ``team_rate_per_s``: workspace-wide token bucket for ``chat.postMessage`` across channels
      (Slack caps a workspace's messages too): at most ``team_burst`` at once, refilled at this
      many per second; over it, 429 with ``Retry-After``. ``None`` = off.
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
    team_rate_per_s: float | None = None
    team_burst: int = 1


class ResponseLog:
    """The posts to response URLs, oldest first, also kept by URL, with the number each key had
    answered 200 (a response URL allows five). Its methods are called with ``lock`` held (the
    stand-in's condition lock).

    A waiter for one URL (:meth:`wait_for`) is woken by posts to that URL only: a benchmark's 50
    clients each wait for their own URL, and one post should wake its waiter, not all of them to
    rescan every record (the stand-in wakes its generic waiters itself)."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self.posts: list[ResponsePost] = []
        self._by_url: dict[str, list[ResponsePost]] = {}
        self._ok_by_key: dict[str, int] = {}
        self._waiting: dict[str, threading.Condition] = {}

    def add(self, post: ResponsePost) -> None:
        """Keep ``post`` and wake whoever waits for its URL."""
        self.posts.append(post)
        self._by_url.setdefault(post.url, []).append(post)
        if post.status == 200 and not post.ack:
            self._ok_by_key[post.key] = self._ok_by_key.get(post.key, 0) + 1
        waiter = self._waiting.get(post.url)
        if waiter is not None:
            waiter.notify_all()

    def answered(self, key: str) -> int:
        """How many posts to response URL ``key`` were answered 200."""
        return self._ok_by_key.get(key, 0)

    def to(self, url: str) -> list[ResponsePost]:
        """The posts to ``url``, oldest first (a copy)."""
        return list(self._by_url.get(url, ()))

    def wait_for(self, url: str, count: int, timeout: float) -> ResponsePost:
        """The ``count``-th post to ``url``, waiting up to ``timeout`` seconds for it (call with
        the lock held; the wait releases it). Raises :class:`TimeoutError`."""
        waiter = self._waiting.setdefault(url, threading.Condition(self._lock))
        try:
            if not waiter.wait_for(lambda: len(self._by_url.get(url, ())) >= count, timeout):
                raise TimeoutError(f"stand-in: condition not met within {timeout} s")
            return self._by_url[url][count - 1]
        finally:
            if self._waiting.get(url) is waiter:
                del self._waiting[url]

    def clear(self) -> None:
        """Forget every post (waiters keep waiting)."""
        self.posts.clear()
        self._by_url.clear()
        self._ok_by_key.clear()


@lru_cache(maxsize=256)
def blocks_refused(raw: bytes) -> bool:
    """``True`` when the blocks of the message ``raw`` (JSON text) break Block Kit's limits
    (:func:`bot.slack.blockkit.block_kit_problems`). Remembered by the bytes (the verdict depends on
    them alone), so a reply sent again is neither parsed nor walked again. Raises ``ValueError``
    when ``raw`` is not a JSON object (never remembered)."""
    body = json.loads(raw.decode("utf-8") or "{}")
    if not isinstance(body, dict):
        raise ValueError("a message body is a JSON object")
    blocks = body.get("blocks")
    return bool(blocks and blockkit.block_kit_problems(blocks, "message"))
