"""Pacing in one process: sends spaced under Slack's limits, and the 429 handler that tells the pacer.

:class:`Pacer` keeps its state in memory (one clock process, or a test); the workers of the task
queue share theirs through Redis (:class:`bot.digest.ratelimit.SharedPacer`, the same
interface: ``slot``, ``rate_limited``, ``retry_slot``). Durations are seconds.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager
from typing import Any, Protocol

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.slack.retry import CountingRateLimitRetryHandler


class SendPacer(Protocol):
    """What a sender needs of a pacer: :class:`Pacer` (memory) or
    :class:`bot.digest.ratelimit.SharedPacer` (Redis)."""

    def slot(self, team: str, key: str) -> AbstractContextManager[None]:
        """Wait for a turn to send to ``key`` (channel or user id) in ``team``; the body sends."""
        ...

    def retry_slot(self, team: str, key: str) -> None:
        """Wait for a turn again before retrying the send in progress after a 429."""
        ...

    def attempt_ended(self, team: str, key: str) -> None:
        """The attempt to ``key`` in progress has its answer."""
        ...

    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """Slack answered 429 with ``Retry-After: retry_after_s`` for a send in ``team``."""
        ...


class Pacer:
    """Spaces sends under Slack's limits; thread-safe, for one process.

    * per destination (``key``): an attempt starts at least ``channel_interval_s`` after the
      previous attempt to that destination *ended* (its answer came back), and attempts never
      overlap (Slack: about 1 ``chat.postMessage`` per second per channel). Measured from the
      end, the spacing holds where Slack measures it, at arrival, however long a loaded machine
      takes between granting a slot and the request going out (an earlier arrival is always
      before the earlier answer). A retry after a 429 waits for the destination like a new send
      (:meth:`retry_slot`; the 429 answer is the end of that attempt);
    * per workspace (``team``): consecutive send starts at least ``1 / team_rate_per_s``
      seconds apart (None: no cap), measured from when each send really started, so a thread
      that woke up late never makes the next one early. A send first waits for its
      destination, then queues for the workspace, so a busy channel never holds up the others.

    Use ``with pacer.slot(team, key): send()``. ``clock`` is a monotonic clock in seconds,
    ``sleep`` its sleep (tests may pass fakes).
    """

    def __init__(self, channel_interval_s: float = 1.05, team_rate_per_s: float | None = 10.0,
                 clock: Callable[[], float] = time.monotonic,
                 sleep: Callable[[float], None] = time.sleep):
        if channel_interval_s < 0 or (team_rate_per_s is not None and team_rate_per_s <= 0):
            raise ValueError("channel_interval_s must be >= 0 and team_rate_per_s > 0 or None")
        self.channel_interval_s = channel_interval_s
        self.team_rate_per_s = team_rate_per_s
        self._clock = clock
        self._sleep = sleep
        self._lock = threading.Lock()
        self._key_locks: dict[tuple[str, str], threading.Lock] = {}
        self._key_next: dict[tuple[str, str], float] = {}
        self._team_locks: dict[str, threading.Lock] = {}
        self._team_next: dict[str, float] = {}
        self._team_gap: dict[str, float] = {}

    def _team_turn(self, team: str) -> float:
        """Wait for the workspace's next start; returns the start time."""
        if self.team_rate_per_s is None:
            return self._clock()
        with self._lock:
            team_lock = self._team_locks.setdefault(team, threading.Lock())
        with team_lock:
            wait = self._team_next.get(team, 0.0) - self._clock()
            if wait > 0:
                self._sleep(wait)
            start = self._clock()
            base = 1.0 / self.team_rate_per_s
            gap = self._team_gap.get(team, base)
            self._team_next[team] = start + gap
            if gap > base:  # ease back towards the configured rate after a 429
                self._team_gap[team] = max(base, gap * (1 - self.RECOVER))
            return start

    RECOVER = 0.01
    """Per send, how much a widened workspace gap shrinks back (1 %)."""
    WIDEN = 0.1
    """Per 429, how much the workspace gap widens (10 %), up to twice the configured gap."""

    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """Slack answered 429 (``Retry-After: retry_after_s``, which slack-sdk's handler sleeps in
        the sending thread) for a send in ``team``: space the workspace's sends a little
        wider (see :data:`WIDEN`; they ease back by :data:`RECOVER` per send), so a limit a bit
        below ``team_rate_per_s`` or jittery arrivals stop costing 429s."""
        if self.team_rate_per_s is None:
            return
        base = 1.0 / self.team_rate_per_s
        with self._lock:
            self._team_gap[team] = min(2 * base, self._team_gap.get(team, base) * (1 + self.WIDEN))

    @contextmanager
    def slot(self, team: str, key: str) -> Iterator[None]:
        """Wait for a turn to send to ``key`` (channel or user id) in ``team``; the body is the
        send. Blocks the calling thread while waiting. A retry inside the body (slack-sdk's
        :class:`PacedRateLimitRetryHandler`) queues for the workspace again
        (:meth:`retry_slot`)."""
        k = (team, key)
        with self._lock:
            key_lock = self._key_locks.setdefault(k, threading.Lock())
        with key_lock:
            self._wait_for_key(k)
            self._team_turn(team)
            _current.slot = (self, team, key)
            try:
                yield
            finally:
                _current.slot = None
                self.attempt_ended(team, key)

    def _wait_for_key(self, k: tuple[str, str]) -> None:
        wait = self._key_next.get(k, 0.0) - self._clock()
        if wait > 0:
            self._sleep(wait)

    def attempt_ended(self, team: str, key: str) -> None:
        """An attempt to ``key`` has its answer (sent, refused, or a 429 about to be retried):
        the next may start ``channel_interval_s`` from now."""
        self._key_next[(team, key)] = self._clock() + self.channel_interval_s

    def retry_slot(self, team: str, key: str) -> None:
        """Before a retry of the send in progress to ``key`` (calling thread holds its slot, and
        :meth:`attempt_ended` was called when the 429 came back): wait for the destination's next
        turn, then queue for the workspace again, so that a retry after a 429 counts against both
        limits like a new send."""
        self._wait_for_key((team, key))
        self._team_turn(team)


_current = threading.local()
"""The pacer slot the current thread is sending in (``(pacer, team, key)``, any
:class:`SendPacer`), for the retry handler."""


def retry_after(response: Any) -> float:
    """Seconds of a 429 answer's ``Retry-After`` header (1 when absent or unreadable)."""
    for name, value in (response.headers or {}).items():
        if name.lower() == "retry-after":
            raw = value[0] if isinstance(value, list) else value
            try:
                return max(0.0, float(raw))
            except (TypeError, ValueError):
                return 1.0
    return 1.0


class PacedRateLimitRetryHandler(CountingRateLimitRetryHandler):
    """slack-sdk's 429 handler (counts the 429, sleeps ``Retry-After``, then retries) that also
    tells the pacer the send runs in, if any (:class:`Pacer` in memory or
    :class:`bot.digest.ratelimit.SharedPacer` in Redis, the same calls): the attempt ended, the
    workspace was rate-limited (:meth:`Pacer.rate_limited`: its sends spaced a little wider; the
    shared pacer holds every worker's sends there for ``Retry-After``), and the retry waits for
    the destination and the workspace like any send (:meth:`Pacer.retry_slot`)."""

    def prepare_for_next_attempt(self, **kwargs: Any) -> None:
        current = getattr(_current, "slot", None)
        response = kwargs.get("response")
        if current is not None:
            current[0].attempt_ended(current[1], current[2])
            current[0].rate_limited(current[1], retry_after(response) if response is not None else 1.0)
        super().prepare_for_next_attempt(**kwargs)
        if current is not None:
            current[0].retry_slot(current[1], current[2])


def paced(client: WebClient) -> WebClient:
    """``client`` with its 429 handler (slack-sdk's ``RateLimitErrorRetryHandler`` or a subclass,
    such as the app's counting one) swapped for a :class:`PacedRateLimitRetryHandler` of the same
    retry count (other handlers kept)."""
    handlers = []
    for handler in client.retry_handlers:
        if isinstance(handler, RateLimitErrorRetryHandler):
            handler = PacedRateLimitRetryHandler(max_retry_count=handler.max_retry_count,
                                                 interval_calculator=handler.interval_calculator)
        handlers.append(handler)
    client.retry_handlers = handlers
    return client
