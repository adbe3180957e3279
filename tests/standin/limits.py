"""Which calls get HTTP 500, 429 with ``Retry-After`` or an error code (:class:`~tests.standin.records.Faults`)."""

from __future__ import annotations

import math
import threading
import time
from typing import Any

from tests.standin.records import Faults

Answer = tuple[int, dict[str, str], dict[str, Any]]
"""``(HTTP status, extra headers, JSON body)``."""

_NON_NEGATIVE = ("latency_s", "rate_limit_every", "retry_after_s", "server_error_every", "channel_burst")


def checked_changes(changes: dict[str, Any]) -> dict[str, Any]:
    """``changes`` to :class:`Faults` fields, normalised; ``ValueError`` for a negative number."""
    for name in _NON_NEGATIVE:
        if name in changes and changes[name] < 0:
            raise ValueError(f"{name} must be >= 0")
    if changes.get("fault_methods") is not None:
        changes["fault_methods"] = frozenset(changes["fault_methods"])
    for name in ("channel_errors", "method_errors"):
        if name in changes:
            changes[name] = dict(changes[name] or {})
    return changes


class RateLimits:
    """The every-k counters and the ``chat.postMessage`` buckets, guarded by the stand-in's ``lock``."""

    def __init__(self, lock: threading.RLock) -> None:
        self._lock = lock
        self.reset()

    def reset(self) -> None:
        """Restart the counters and refill the buckets."""
        with self._lock:
            self._fault_counter = 0
            self._error_counter = 0
            self._buckets: dict[str, tuple[float, float]] = {}  # channel ("": the team) -> (tokens, last monotonic)

    def _draw(self, key: str, rate: float, burst: int) -> Answer | None:
        """One draw from bucket ``key`` (``rate`` tokens a second, at most ``burst``): None, or 429
        with ``Retry-After`` = whole seconds until the next token (at least 1)."""
        burst = max(1, burst)
        with self._lock:
            now = time.monotonic()
            tokens, last = self._buckets.get(key, (float(burst), now))
            tokens = min(float(burst), tokens + (now - last) * rate)
            self._buckets[key] = (tokens - 1.0 if tokens >= 1.0 else tokens, now)
        if tokens >= 1.0:
            return None
        retry_after = str(max(1, math.ceil((1.0 - tokens) / rate)))
        return 429, {"Retry-After": retry_after}, {"ok": False, "error": "ratelimited"}

    def fault(self, method: str, args: dict[str, Any], faults: Faults) -> Answer | None:
        """The fault this call meets (HTTP 500, 429, an injected error, in that order), or None."""
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
                limited = self._draw(str(channel), faults.channel_rate_per_s, faults.channel_burst)
                if limited is not None:
                    return limited
        if method in faults.method_errors:
            return 200, {}, {"ok": False, "error": faults.method_errors[method]}
        if channel is not None and str(channel) in faults.channel_errors:
            return 200, {}, {"ok": False, "error": faults.channel_errors[str(channel)]}
        if method == "chat.postMessage" and faults.team_rate_per_s:
            return self._draw("", faults.team_rate_per_s, faults.team_burst)
        return None
