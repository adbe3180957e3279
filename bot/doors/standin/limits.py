"""The stand-in's injected faults and rate limits: which calls get HTTP 500, 429 with
``Retry-After`` or an error code instead of their answer (:class:`~bot.doors.standin.records.Faults`)."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from bot.doors.standin.records import Faults

Answer = tuple[int, dict[str, str], dict[str, Any]]
"""``(HTTP status, extra headers, JSON body)``."""

_NON_NEGATIVE = ("latency_s", "rate_limit_every", "retry_after_s", "server_error_every", "channel_burst")


def checked_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` to :class:`Faults` fields, normalised (sets frozen, maps copied). Raises
    ``ValueError`` for a negative count or duration."""
    for name in _NON_NEGATIVE:
        if name in changes and changes[name] < 0:
            raise ValueError(f"{name} must be >= 0")
    if changes.get("fault_methods") is not None:
        changes["fault_methods"] = frozenset(changes["fault_methods"])
    for name in ("channel_errors", "method_errors"):
        if name in changes:
            changes[name] = dict(changes[name] or {})
    return changes


def _ratelimited(wait_s: float) -> Answer:
    return 429, {"Retry-After": str(max(1, math.ceil(wait_s)))}, {"ok": False, "error": "ratelimited"}


def _take(bucket: tuple[float, float] | None, rate: float, burst: int) -> tuple[float, tuple[float, float]]:
    """One token bucket draw at ``rate`` tokens per second holding at most ``burst``: ``(wait, bucket)``
    where ``wait`` is 0 when a message may go now, else the seconds until the next token, and
    ``bucket`` the new ``(tokens, last monotonic)``."""
    now = time.monotonic()
    tokens, last = bucket or (float(burst), now)
    tokens = min(float(burst), tokens + (now - last) * rate)
    if tokens >= 1.0:
        return 0.0, (tokens - 1.0, now)
    return (1.0 - tokens) / rate, (tokens, now)


class RateLimits:
    """The every-k counters and the ``chat.postMessage`` buckets (per channel, per workspace),
    guarded by the stand-in's ``lock``."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self.reset()

    def reset(self) -> None:
        """Restart the counters and refill the buckets."""
        with self._lock:
            self._fault_counter = 0
            self._error_counter = 0
            self._buckets: dict[str, tuple[float, float]] = {}  # channel -> (tokens, last monotonic)
            self._team_bucket: tuple[float, float] | None = None

    def fault(self, method: str, args: dict[str, Any], faults: Faults) -> Answer | None:
        """The fault this call meets (HTTP 500, 429, an injected error code), in that order, or
        ``None`` when it is to be answered."""
        counted = faults.fault_methods is None or method in faults.fault_methods
        channel = args.get("channel")
        with self._lock:
            if counted and faults.server_error_every:
                self._error_counter += 1
                if self._error_counter % faults.server_error_every == 0:
                    return 500, {}, {"ok": False, "error": "internal_error"}
            if counted and faults.rate_limit_every:
                self._fault_counter += 1
                if self._fault_counter % faults.rate_limit_every == 0:
                    return 429, {"Retry-After": str(faults.retry_after_s)}, {"ok": False, "error": "ratelimited"}
            if method == "chat.postMessage" and faults.channel_rate_per_s and channel:
                wait, self._buckets[str(channel)] = _take(
                    self._buckets.get(str(channel)), float(faults.channel_rate_per_s), max(1, faults.channel_burst)
                )
                if wait > 0:
                    return _ratelimited(wait)
        if method in faults.method_errors:
            return 200, {}, {"ok": False, "error": faults.method_errors[method]}
        if channel is not None and str(channel) in faults.channel_errors:
            return 200, {}, {"ok": False, "error": faults.channel_errors[str(channel)]}
        if method == "chat.postMessage" and faults.team_rate_per_s:
            with self._lock:
                wait, self._team_bucket = _take(
                    self._team_bucket, float(faults.team_rate_per_s), max(1, faults.team_burst)
                )
            if wait > 0:
                return _ratelimited(wait)
        return None
