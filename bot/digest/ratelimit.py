"""Slack's rate limits shared by every worker process, kept in Redis (the queue broker's store).

:class:`SharedPacer` is the pacing algorithm of :class:`bot.digest.pacing.SendPacer` over turns
kept in Redis, so any number of worker processes on any number of machines together stay under:

* **per destination** (a channel or a person's DM) at most ``channel_rate_per_s`` (Slack: about
  one message per second per channel), through the ``limits`` package's moving-window limiter
  on Redis storage (a Lua script per hit, atomic across processes; a rate is written as a
  moving window of whole seconds, 1/s is "1 per second", 0.5/s "1 per 2 seconds":
  :func:`window_item`), and
* **per workspace** at most ``team_rate_per_s`` ``chat.postMessage`` calls per second, *evenly
  spaced*: each send reserves the workspace's next start time, ``1 / team_rate_per_s`` seconds
  after the previous one (GCRA, the "virtual scheduling" form of a token bucket; one Redis
  script, :data:`_RESERVE`, on Redis's own clock), then sleeps until it. A moving window would
  let all workers fire a whole second's allowance at once at each window edge, which a
  per-second limiter on Slack's side answers with 429s as soon as arrival times jitter;
  reservations also spare the workers polling the limiter.

**Retry-After for everyone.** When Slack answers 429 with ``Retry-After: n`` (seconds), the
workspace is *blocked* for n seconds in Redis (key ``<namespace>:blocked:<team>``, its TTL the
block; a later 429 can only extend it). Every worker checks that key before each send to that
workspace, so one 429 slows all workers, not only the one that got it.
:class:`bot.digest.pacing.PacedRateLimitRetryHandler` (slack-sdk's 429 handler, which sleeps
``Retry-After`` and retries; the same for both pacers) sets the block through
:meth:`SharedPacer.rate_limited`.

Times: ``time.time()`` epoch seconds (the limiter's clock); durations seconds.
"""

from __future__ import annotations

import logging
import time
from collections.abc import Callable
from fractions import Fraction

import redis
from limits import RateLimitItem, RateLimitItemPerSecond
from limits.storage import RedisStorage
from limits.strategies import MovingWindowRateLimiter

from bot.digest.pacing import SendPacer

log = logging.getLogger(__name__)


def window_item(rate_per_s: float, max_window_s: int = 10) -> RateLimitItem:
    """A ``limits`` item for ``rate_per_s`` (> 0) as a moving window of whole seconds, the
    smallest window (up to ``max_window_s``) whose amount is a whole number, else the closest
    rate not above ``rate_per_s``: 1 -> 1 per 1 s, 2.5 -> 5 per 2 s, 0.5 -> 1 per 2 s.
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


_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local interval = tonumber(ARGV[1])
local tat = tonumber(redis.call('GET', KEYS[1]) or '0')
local start = math.max(tat, now)
local ttl = math.ceil((start + interval - now) * 1000) + 60000
redis.call('SET', KEYS[1], string.format('%.6f', start + interval), 'PX', ttl)
return {string.format('%.6f', start - now), redis.call('PTTL', KEYS[2])}
"""
"""Reserve a workspace's next send start: KEYS[1] holds the earliest start of the next send
(epoch seconds, Redis's clock); returns how many seconds the caller waits for its turn and,
in the same round trip, the milliseconds left of the workspace's Retry-After block KEYS[2]
(negative when there is none)."""


class SharedPacer(SendPacer):
    """The store of turns in Redis (see the module docstring), for every worker; thread-safe.

    ``redis_url``: the broker's Redis; ``namespace``: key prefix (one per deployment);
    ``team_rate_per_s`` / ``channel_rate_per_s``: the limits (None: no workspace cap);
    ``clock`` / ``sleep``: epoch seconds and its sleep (tests may pass fakes). Raises
    ``redis.exceptions.ConnectionError`` from a send's slot when Redis is unreachable.
    """

    def __init__(
        self,
        redis_url: str,
        *,
        namespace: str = "vllm-path",
        team_rate_per_s: float | None = 10.0,
        channel_rate_per_s: float = 1.0,
        clock: Callable[[], float] = time.time,
        sleep: Callable[[float], None] = time.sleep,
    ):
        super().__init__(clock, sleep)
        self.namespace = namespace
        self.team_interval_s = 1.0 / team_rate_per_s if team_rate_per_s else None
        self.channel_item = window_item(channel_rate_per_s)
        self._storage = RedisStorage(redis_url, key_prefix=f"{namespace}:limits")
        self._limiter = MovingWindowRateLimiter(self._storage)
        self._redis = redis.Redis.from_url(redis_url)
        self._reserve = self._redis.register_script(_RESERVE)
        self.waited_s = 0.0  # total seconds this process's sends waited for a turn (a gauge)

    def _blocked_key(self, team: str) -> str:
        return f"{self.namespace}:blocked:{team}"

    def block(self, team: str, seconds: float) -> None:
        """Slack said ``Retry-After: seconds`` for ``team``: hold every worker's sends to that
        workspace for that long (a block already longer is kept)."""
        ms = max(1, int(seconds * 1000))
        key = self._blocked_key(team)
        pipe = self._redis.pipeline()
        pipe.set(key, "1", px=ms, nx=True)
        pipe.pexpire(key, ms, gt=True)
        pipe.execute()
        log.warning("workspace %s rate-limited by Slack: all workers hold its sends %.1f s", team, seconds)

    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """A send in ``team`` got a 429: :meth:`block` the workspace for ``retry_after_s``."""
        self.block(team, retry_after_s)

    def blocked_for(self, team: str) -> float:
        """Seconds left of ``team``'s Retry-After block (0 when not blocked)."""
        ttl = int(self._redis.pttl(self._blocked_key(team)))  # type: ignore[arg-type]
        return ttl / 1000 if ttl > 0 else 0.0

    def _pause(self, seconds: float) -> None:
        seconds = max(0.002, seconds)
        self.waited_s += seconds
        self._sleep(seconds)

    def _destination_turn(self, team: str, key: str) -> None:
        """A turn under the destination's moving window (the attempt counts when it starts)."""
        while not self._limiter.hit(self.channel_item, "channel", team, key):
            stats = self._limiter.get_window_stats(self.channel_item, "channel", team, key)
            self._pause(stats.reset_time - self._clock())

    def _team_turn(self, team: str) -> None:
        """A turn under the workspace limit, then no send while the workspace is blocked (a
        429 that arrives while we queue is waited out too; the turn is taken again after)."""
        while True:
            if self.team_interval_s is None:
                left = self.blocked_for(team)
            else:
                wait_s, blocked_ms = self._reserve(
                    keys=[f"{self.namespace}:next:{team}", self._blocked_key(team)],
                    args=[f"{self.team_interval_s:.6f}"],
                )
                wait = float(wait_s)
                if wait > 0:
                    self._pause(wait)
                    left = self.blocked_for(team)  # a 429 may have come while this one waited
                else:  # the block as of the reservation (same round trip): that is now
                    left = int(blocked_ms) / 1000 if int(blocked_ms) > 0 else 0.0
            if left <= 0:
                return
            while (left := self.blocked_for(team)) > 0:
                self._pause(left)

    def clear(self) -> None:
        """Forget all limits and blocks of this namespace (tests and benchmarks)."""
        self._storage.reset()
        for pattern in (f"{self.namespace}:blocked:*", f"{self.namespace}:next:*"):
            for key in self._redis.scan_iter(pattern):
                self._redis.delete(key)
