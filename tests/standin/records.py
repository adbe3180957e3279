"""What the stand-in records (Web API calls, response-URL posts) and the faults it injects."""

from __future__ import annotations

import json
import threading
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import lru_cache

from bot.doors.console.slack import RESPONSE_PREFIX, ApiCall, ResponsePost, response_key  # noqa: F401
from tests.standin import blockkit


@dataclass(frozen=True)
class Faults:
    """Failure modes injected into Web API calls (never into response URLs); 0 or None is off.

    * ``latency_s``: seconds added before every answer.
    * ``rate_limit_every`` / ``server_error_every``: every k-th call of ``fault_methods`` (None: all), counted
      apart, gets HTTP 429 with ``Retry-After: retry_after_s`` / HTTP 500.
    * ``channel_rate_per_s`` / ``team_rate_per_s``: token buckets for ``chat.postMessage`` per channel (Slack:
      about 1 a second) / per workspace, holding ``channel_burst`` / ``team_burst``; over it, 429 with
      ``Retry-After`` = whole seconds until the next token (at least 1).
    * ``channel_errors`` (channel id -> error code, e.g. ``is_archived``) / ``method_errors`` (method -> code,
      e.g. ``token_revoked``): HTTP 200 ``{"ok": false, "error": code}`` to every call with that ``channel``
      argument / of that method."""

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
    """The posts to response URLs, oldest first and by URL, with each key's count of 200 answers
    (called with the stand-in's ``lock`` held); a post wakes only the waiters for its URL."""

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
        """The ``count``-th post to ``url``, waiting ``timeout`` s (lock held), else :class:`TimeoutError`."""
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
    """Whether the blocks of message ``raw`` (JSON text) break Block Kit's limits, remembered by the
    bytes. Raises ``ValueError`` when ``raw`` is not a JSON object."""
    body = json.loads(raw.decode("utf-8") or "{}")
    if not isinstance(body, dict):
        raise ValueError("a message body is a JSON object")
    blocks = body.get("blocks")
    return bool(blocks and blockkit.block_kit_problems(blocks, "message"))
