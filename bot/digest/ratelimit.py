"""Slack's rate limits shared by every worker process, kept in Redis (the queue broker's store).

:class:`SharedPacer` keeps all workers together under ``channel_rate_per_s`` per destination (a
moving window of whole seconds, :func:`window_item`) and ``team_rate_per_s`` per workspace,
*evenly spaced* (each send reserves the workspace's next start, GCRA, and sleeps until it). Both
turns and the workspace's Retry-After block (key ``<namespace>:blocked:<team>``, set on a 429 by
:meth:`SharedPacer.rate_limited` for every worker) are one atomic Redis script, :data:`_TURN`.

Times: epoch seconds on Redis's clock (its ``TIME``); durations seconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from fractions import Fraction

import redis
from limits import RateLimitItem, RateLimitItemPerSecond

from bot.digest.pacing import SendPacer

log = logging.getLogger(__name__)


def window_item(rate_per_s: float, max_window_s: int = 10) -> RateLimitItem:
    """A ``limits`` item for ``rate_per_s`` as a moving window of whole seconds (up to
    ``max_window_s``), never above the rate: 1 -> 1 per 1 s, 2.5 -> 5 per 2 s, 0.5 -> 1 per 2 s.
    Raises ValueError for a rate <= 0."""
    if rate_per_s <= 0:
        raise ValueError(f"rate must be > 0, got {rate_per_s!r}")
    frac = Fraction(rate_per_s).limit_denominator(max_window_s)
    if frac > rate_per_s:  # never round up past the limit
        window = max(1, frac.denominator)
        amount = int(rate_per_s * window)
        if amount < 1:
            amount, window = 1, int(1 / rate_per_s) + 1
        return RateLimitItemPerSecond(amount, window)
    return RateLimitItemPerSecond(max(1, frac.numerator), max(1, frac.denominator))


_TURN = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local amount = tonumber(ARGV[2])
if amount > 0 then
  local window = tonumber(ARGV[3])
  local oldest = redis.call('LINDEX', KEYS[3], amount - 1)
  if oldest and tonumber(oldest) > now - window then
    return {'destination', string.format('%.6f', tonumber(oldest) + window - now)}
  end
  redis.call('LPUSH', KEYS[3], string.format('%.6f', now))
  redis.call('LTRIM', KEYS[3], 0, amount - 1)
  redis.call('EXPIRE', KEYS[3], math.ceil(window))
end
local wait = 0
local interval = tonumber(ARGV[1])
if interval > 0 then
  local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
  local start = math.max(tat, now)
  local ttl = math.ceil((start + interval - now) * 1000) + 60000
  redis.call('SET', KEYS[1], string.format('%.6f', start + interval), 'PX', ttl)
  wait = start - now
end
return {string.format('%.6f', wait), redis.call('PTTL', KEYS[2])}
"""
"""A send's turns in one round trip. The destination: ARGV[2] attempts per ARGV[3] seconds, its
latest start times in the list KEYS[3] (ARGV[2] = 0: already counted); when full, returns
``{'destination', seconds until a place frees}``. Else reserves the workspace's next start
(KEYS[1], ARGV[1] seconds apart, 0: no cap) and returns ``{seconds to wait for it, milliseconds
left of the Retry-After block KEYS[2] (negative: none)}``."""


class SharedPacer(SendPacer):
    """The store of turns in Redis, for every worker; thread-safe. ``namespace``: key prefix;
    ``team_rate_per_s`` None: no workspace cap. A slot raises ``redis.exceptions.ConnectionError``
    when Redis is unreachable."""

    def __init__(
        self,
        redis_url: str,
        *,
        namespace: str = "vllm-path",
        team_rate_per_s: float | None = 10.0,
        channel_rate_per_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        super().__init__(time.time, sleep)
        self.namespace = namespace
        self.team_interval_s = 1.0 / team_rate_per_s if team_rate_per_s else None
        self.channel_item = window_item(channel_rate_per_s)
        self._redis = redis.Redis.from_url(redis_url)
        self._turn = self._redis.register_script(_TURN)

    def _blocked_key(self, team: str) -> str:
        return f"{self.namespace}:blocked:{team}"

    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """A 429 in ``team``: hold every worker's sends there for ``retry_after_s`` (a longer block stays)."""
        ms = max(1, int(retry_after_s * 1000))
        key = self._blocked_key(team)
        pipe = self._redis.pipeline()
        pipe.set(key, "1", px=ms, nx=True)
        pipe.pexpire(key, ms, gt=True)
        pipe.execute()
        log.warning("workspace %s rate-limited by Slack: all workers hold its sends %.1f s", team, retry_after_s)

    def blocked_for(self, team: str) -> float:
        """Seconds left of ``team``'s Retry-After block (0 when not blocked)."""
        ttl = int(self._redis.pttl(self._blocked_key(team)))  # type: ignore[arg-type]
        return ttl / 1000 if ttl > 0 else 0.0

    def _pause(self, seconds: float) -> None:
        self._sleep(max(0.002, seconds))

    def retry_slot(self, team: str, key: str) -> None:
        """The destination's turn, the workspace's, then wait out the workspace's block (one that
        came while waiting too; the workspace turn is then taken again)."""
        keys = [f"{self.namespace}:next:{team}", self._blocked_key(team), f"{self.namespace}:dest:{team}:{key}"]
        interval = f"{self.team_interval_s:.6f}" if self.team_interval_s is not None else "0"
        amount, window = self.channel_item.amount, self.channel_item.get_expiry()
        while True:
            first, second = self._turn(keys=keys, args=[interval, amount, window])
            if first == b"destination":
                self._pause(float(second))
                continue
            amount = 0  # counted: a later try takes only the workspace's turn
            wait = float(first)
            if wait > 0:
                self._pause(wait)
                left = self.blocked_for(team)  # a 429 may have come while this one waited
            else:  # the block as of the reservation (same round trip): that is now
                left = int(second) / 1000 if int(second) > 0 else 0.0
            if left <= 0:
                return
            while (left := self.blocked_for(team)) > 0:
                self._pause(left)

    def clear(self) -> None:
        """Forget all limits and blocks of this namespace (tests and benchmarks)."""
        for pattern in (f"{self.namespace}:blocked:*", f"{self.namespace}:next:*", f"{self.namespace}:dest:*"):
            for key in self._redis.scan_iter(pattern):
                self._redis.delete(key)
