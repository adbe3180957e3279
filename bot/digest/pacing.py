"""Pacing: sends spaced under Slack's limits, and the 429 handler that tells the pacer.

Durations are seconds.
"""

from __future__ import annotations

import threading
import time
from abc import ABC, abstractmethod
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager, contextmanager, nullcontext
from typing import Any

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.slack.retry import CountingRateLimitRetryHandler


class SendPacer(ABC):
    """The pacing of a send over a store of turns (:class:`Pacer` in memory,
    :class:`bot.digest.ratelimit.SharedPacer` in Redis). ``with pacer.slot(team, key): send()``: hold
    the destination, wait for its turn, then the workspace's (:meth:`retry_slot`); a 429 in the body
    (:class:`PacedRateLimitRetryHandler`) calls :meth:`rate_limited` and takes both turns again.
    ``clock`` (seconds) and ``sleep`` may be fakes in tests; waiting blocks the calling thread."""

    def __init__(self, clock: Callable[[], float], sleep: Callable[[float], None]):
        self._clock = clock
        self._sleep = sleep

    @contextmanager
    def slot(self, team: str, key: str) -> Iterator[None]:
        """Wait for a turn to send to ``key`` (channel or user id) in ``team``; the body sends."""
        with self._holding(team, key):
            self.retry_slot(team, key)
            _current.slot = (self, team, key)
            try:
                yield
            finally:
                _current.slot = None
                self.attempt_ended(team, key)

    @abstractmethod
    def retry_slot(self, team: str, key: str) -> None:
        """Wait for the destination's turn, then the workspace's: before a send or its retry after a 429."""

    def _holding(self, team: str, key: str) -> AbstractContextManager[Any]:
        """Held for a whole attempt to ``key`` (default: nothing)."""
        return nullcontext()

    def attempt_ended(self, team: str, key: str) -> None:
        """The attempt to ``key`` in progress has its answer (default: nothing to do)."""
        return None

    @abstractmethod
    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """Slack answered 429 with ``Retry-After: retry_after_s`` for a send in ``team``."""


class Pacer(SendPacer):
    """The store of turns in memory, for one process; thread-safe. Per destination (``key``), an attempt
    starts ``channel_interval_s`` after the previous one *ended* (so the spacing holds at arrival),
    never overlapping; per workspace, send starts are ``1 / team_rate_per_s`` seconds apart (None: no
    cap), widened a little by a 429."""

    def __init__(
        self,
        channel_interval_s: float = 1.05,
        team_rate_per_s: float | None = 10.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        if channel_interval_s < 0 or (team_rate_per_s is not None and team_rate_per_s <= 0):
            raise ValueError("channel_interval_s must be >= 0 and team_rate_per_s > 0 or None")
        super().__init__(clock, sleep)
        self.channel_interval_s = channel_interval_s
        self.team_rate_per_s = team_rate_per_s
        self._lock = threading.Lock()
        self._key_locks: dict[tuple[str, str], threading.Lock] = {}
        self._key_next: dict[tuple[str, str], float] = {}
        self._team_locks: dict[str, threading.Lock] = {}
        self._team_next: dict[str, float] = {}
        self._team_gap: dict[str, float] = {}

    RECOVER = 0.01
    """Per send, how much a widened workspace gap shrinks back (1 %)."""
    WIDEN = 0.1
    """Per 429, how much the workspace gap widens (10 %), up to twice the configured gap."""

    def _holding(self, team: str, key: str) -> threading.Lock:
        with self._lock:
            return self._key_locks.setdefault((team, key), threading.Lock())

    def retry_slot(self, team: str, key: str) -> None:
        """Wait for the destination's turn (``key`` in ``team``), then the workspace's."""
        self._destination_turn(team, key)
        self._team_turn(team)

    def _destination_turn(self, team: str, key: str) -> None:
        while (wait := self._key_next.get((team, key), 0.0) - self._clock()) > 0:
            self._sleep(wait)

    def _team_turn(self, team: str) -> None:
        if self.team_rate_per_s is None:
            return
        with self._lock:
            team_lock = self._team_locks.setdefault(team, threading.Lock())
        with team_lock:
            wait = self._team_next.get(team, 0.0) - self._clock()
            if wait > 0:
                self._sleep(wait)
            base = 1.0 / self.team_rate_per_s
            gap = self._team_gap.get(team, base)
            self._team_next[team] = self._clock() + gap
            if gap > base:  # ease back towards the configured rate after a 429
                self._team_gap[team] = max(base, gap * (1 - self.RECOVER))

    def attempt_ended(self, team: str, key: str) -> None:
        """An attempt to ``key`` has its answer: the next may start ``channel_interval_s`` from now."""
        self._key_next[(team, key)] = self._clock() + self.channel_interval_s

    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """A 429 for a send in ``team`` (slack-sdk's handler sleeps ``retry_after_s``): widen the
        workspace's gap by :data:`WIDEN` (it eases back by :data:`RECOVER` per send)."""
        if self.team_rate_per_s is None:
            return
        base = 1.0 / self.team_rate_per_s
        with self._lock:
            self._team_gap[team] = min(2 * base, self._team_gap.get(team, base) * (1 + self.WIDEN))


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
    """slack-sdk's 429 handler (counts, sleeps ``Retry-After``, retries) that also tells the pacer
    of the current slot, if any: the attempt ended, the workspace was rate-limited, and the retry
    waits for both turns (:meth:`SendPacer.retry_slot`)."""

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
    """``client`` with its ``RateLimitErrorRetryHandler`` swapped for a :class:`PacedRateLimitRetryHandler`."""
    handlers = []
    for handler in client.retry_handlers:
        if isinstance(handler, RateLimitErrorRetryHandler):
            handler = PacedRateLimitRetryHandler(
                max_retry_count=handler.max_retry_count, interval_calculator=handler.interval_calculator
            )
        handlers.append(handler)
    client.retry_handlers = handlers
    return client
