"""Slack's rate limits shared by every worker process: :class:`SharedPacer`, the pacing (GCRA) of
:mod:`bot.digest.pacing` over :class:`RedisStore`, its times in Redis (the queue broker's store)
under ``<namespace>:next:<team>`` (the workspace's next turn), ``<namespace>:dest:<team>:<key>``
(the destination's next turn) and ``<namespace>:blocked:<team>`` (the end of the Retry-After block
a 429 sets for every worker); each call one atomic Redis script, :data:`_SCRIPT`.

Times: epoch seconds on Redis's clock (its ``TIME``); durations seconds.
"""

from __future__ import annotations

import time
from collections.abc import Callable

import redis

from bot.digest.pacing import Ended, SendPacer, TurnStore

_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local function at(i) return tonumber(redis.call('GET', KEYS[i]) or '0') end
local function later(i, time)
  if time > at(i) then
    redis.call('SET', KEYS[i], string.format('%.6f', time), 'PX', math.ceil((time - now) * 1000) + 1000)
  end
end
if ARGV[1] == 'push' then later(1, now + tonumber(ARGV[2])) return '0' end
if ARGV[1] == 'left' then return string.format('%.6f', math.max(0, at(1) - now)) end
if KEYS[4] then later(4, now + tonumber(ARGV[4])) end
local due = math.max(at(1), at(3))
if at(2) > math.max(due, now) then return string.format('%.6f', math.min(now - at(2), -0.000001)) end
if due > now then return string.format('%.6f', math.max(due - now, 0.000001)) end
later(2, now + tonumber(ARGV[2]))
later(3, now + tonumber(ARGV[3]))
return '0'
"""
"""The store's calls, ARGV[1]: ``push`` (KEYS[1]'s time at least ARGV[2] seconds from now; a time
only moves later, its key expiring a second after it), ``left`` (seconds until KEYS[1]'s time), else
:meth:`~bot.digest.pacing.TurnStore.turn` (KEYS: block, destination, workspace and, with ``ended``,
its destination; ARGV[2:]: ``key_s``, ``team_s`` and ``ended``'s seconds). Numbers cross as
strings (Redis truncates Lua numbers to integers)."""


_RESERVE = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local function at(k) return tonumber(redis.call('GET', k) or '0') end
local function later(k, time)
  if time > at(k) then
    redis.call('SET', k, string.format('%.6f', time), 'PX', math.ceil((time - now) * 1000) + 1000)
  end
end
local key_s, team_s, horizon = tonumber(ARGV[1]), tonumber(ARGV[2]), tonumber(ARGV[3])
local out = {}
for i = 0, #KEYS / 3 - 1 do
  local block, dest, team = KEYS[3 * i + 1], KEYS[3 * i + 2], KEYS[3 * i + 3]
  local turn = math.max(now, at(block), at(team))
  local free = at(dest)
  if free > turn then
    out[i + 1] = string.format('%.6f', math.min(now - free, -0.000001))
  elseif turn - now > horizon then
    out[i + 1] = string.format('%.6f', math.min(now - turn, -0.000001))
  else
    later(dest, turn + key_s)
    later(team, turn + team_s)
    out[i + 1] = string.format('%.6f', turn - now)
  end
end
return out
"""
""":meth:`RedisStore.reserve` in one atomic call: ARGV ``key_s``, ``team_s``, ``horizon_s``; KEYS
per send its block, destination and workspace keys (as :data:`_SCRIPT`'s turn). The answers in
order, as :meth:`~bot.digest.pacing.TurnStore.reserve`'s."""


class RedisStore(TurnStore):
    """The times in Redis, for every worker; ``namespace``: key prefix. A call raises
    ``redis.exceptions.ConnectionError`` when Redis is unreachable."""

    def __init__(self, redis_url: str, namespace: str = "vllm-path"):
        self.namespace = namespace
        self._redis = redis.Redis.from_url(redis_url)
        self._script = self._redis.register_script(_SCRIPT)
        self._reserve = self._redis.register_script(_RESERVE)

    def _key(self, kind: str, team: str, key: str | None = None) -> str:
        return f"{self.namespace}:{kind}:{team}" + (f":{key}" if key is not None else "")

    def turn(self, team: str, key: str, key_s: float, team_s: float, ended: Ended | None = None) -> float:
        keys = [self._key("blocked", team), self._key("dest", team, key), self._key("next", team)]
        args = ["turn", f"{key_s:.6f}", f"{team_s:.6f}"]
        if ended is not None:
            keys.append(self._key("dest", ended[0], ended[1]))
            args.append(f"{ended[2]:.6f}")
        return float(self._script(keys=keys, args=args))

    def reserve(self, sends: list[tuple[str, str]], key_s: float, team_s: float, horizon_s: float) -> list[float]:
        keys = [name for team, key in sends for name in self._names(team, key)]
        args = [f"{key_s:.6f}", f"{team_s:.6f}", f"{horizon_s:.6f}"]
        return [float(answer) for answer in self._reserve(keys=keys, args=args)] if keys else []

    def _names(self, team: str, key: str) -> tuple[str, str, str]:
        return self._key("blocked", team), self._key("dest", team, key), self._key("next", team)

    def push(self, team: str, key: str | None, seconds: float) -> None:
        name = self._key("dest", team, key) if key is not None else self._key("blocked", team)
        self._script(keys=[name], args=["push", f"{seconds:.6f}"])

    def blocked_for(self, team: str) -> float:
        return float(self._script(keys=[self._key("blocked", team)], args=["left", "0"]))

    def clear(self) -> None:
        """Forget all times of this namespace (tests and benchmarks)."""
        for kind in ("blocked", "next", "dest"):
            for name in self._redis.scan_iter(f"{self.namespace}:{kind}:*"):
                self._redis.delete(name)


class SharedPacer(SendPacer):
    """Pacing shared by every worker through Redis (:class:`RedisStore`): per destination
    ``1 / channel_rate_per_s`` seconds from one attempt's answer to the next start (Slack: 1 a
    second per channel), per workspace starts ``1 / team_rate_per_s`` apart (None: no cap)."""

    def __init__(
        self,
        redis_url: str,
        *,
        namespace: str = "vllm-path",
        team_rate_per_s: float | None = 10.0,
        channel_rate_per_s: float = 1.0,
        sleep: Callable[[float], None] = time.sleep,
    ):
        self.store: RedisStore = RedisStore(redis_url, namespace)
        super().__init__(self.store, 1.0 / channel_rate_per_s, team_rate_per_s, sleep)

    def clear(self) -> None:
        """Forget all limits and blocks of this namespace (tests and benchmarks)."""
        self.store.clear()
