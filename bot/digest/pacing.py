"""Pacing: sends spaced under Slack's limits, and the 429 handler that tells the pacer.

Slack's limits (https://docs.slack.dev/apis/web-api/rate-limits, "Special Tier"): chat.postMessage
generally allows 1 message per second per channel (short bursts tolerated) plus a workspace-wide
limit; a 429 answer's ``Retry-After`` says how many seconds to wait. One algorithm keeps sends under
them, GCRA (generic cell rate algorithm, virtual scheduling, no tolerance): a send may go once now
has reached its workspace's theoretical arrival time (and its destination's turn, and the end of a
Retry-After block), and going moves that time to now + ``1 / team_rate_per_s``; a send that may not
go yet reserves nothing, sleeps until then and asks again, so a thread that wakes late claims from
the real time and never goes together with another. A 429 blocks the workspace ``Retry-After``.
:class:`SendPacer` is that pacing, over a :class:`TurnStore` of the times: :class:`MemoryStore` for
one process (:class:`Pacer`), :class:`bot.digest.ratelimit.RedisStore` for every worker
(:class:`bot.digest.ratelimit.SharedPacer`). A worker's message of several DMs books their turns
ahead in one store call (:meth:`SendPacer.each_in_turn`, :meth:`TurnStore.reserve`) and sleeps
until each; within :meth:`SendPacer.batch` the end of an attempt through :meth:`SendPacer.slot`
reaches the store with the thread's next turn request, one store call a send instead of two.

Durations are seconds.
"""

from __future__ import annotations

import logging
import threading
import time
from abc import ABC, abstractmethod
from collections import Counter
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

from slack_sdk import WebClient
from slack_sdk.http_retry.builtin_handlers import RateLimitErrorRetryHandler

from bot.slack.retry import CountingRateLimitRetryHandler

log = logging.getLogger(__name__)


class TurnStore(ABC):
    """Per workspace its next turn (GCRA's theoretical arrival time) and the end of its Retry-After
    block, per destination its next turn; each call atomic, on the store's clock."""

    @abstractmethod
    def turn(self, team: str, key: str, key_s: float, team_s: float, ended: Ended | None = None) -> float:
        """While ``team`` is blocked or its or ``key``'s next turn is later, the seconds until then
        (negative when the wait is ``key``'s alone), nothing reserved. Else 0: the send goes now,
        ``team``'s next turn ``team_s`` from now and ``key``'s ``key_s`` from now. ``ended``
        (team, key, seconds): first, in the same atomic call, :meth:`push` of an attempt that ended."""

    @abstractmethod
    def reserve(self, sends: list[tuple[str, str]], key_s: float, team_s: float, horizon_s: float) -> list[float]:
        """Book a turn for each (team, key) of ``sends``, in order, in one atomic call: a send's turn
        is the first moment its workspace is neither blocked nor busy (now at the earliest); when
        that is at most ``horizon_s`` away and ``key`` is free by then, the turn is booked (the
        workspace's next turn ``team_s`` after it, the destination's ``key_s`` after it) and its
        answer is the seconds until it (>= 0); else nothing is booked and the answer is minus the
        seconds until it or until ``key`` is free (< 0). A booked turn is the sender's alone: it
        posts then, or the turn goes unused."""

    @abstractmethod
    def push(self, team: str, key: str | None, seconds: float) -> None:
        """``key``'s next turn (None: the end of ``team``'s block) at least ``seconds`` from now."""

    @abstractmethod
    def blocked_for(self, team: str) -> float:
        """Seconds left of ``team``'s Retry-After block (0 when not blocked)."""


Ended = tuple[str, str, float]
"""An attempt that ended, for :meth:`TurnStore.turn`: (team, destination, seconds to its next turn)."""


class MemoryStore(TurnStore):
    """The times in a dict under a lock, on ``clock`` (monotonic seconds): one process."""

    def __init__(self, clock: Callable[[], float] = time.monotonic):
        self._clock = clock
        self._lock = threading.Lock()
        self._at: dict[tuple[str, ...], float] = {}

    def turn(self, team: str, key: str, key_s: float, team_s: float, ended: Ended | None = None) -> float:
        with self._lock:
            now, at = self._clock(), self._at
            if ended is not None:
                name = ("dest", ended[0], ended[1])
                at[name] = max(at.get(name, 0.0), now + ended[2])
            until = max(at.get(("blocked", team), 0.0), at.get(("next", team), 0.0))
            if (wait := max(until, dest := at.get(("dest", team, key), 0.0)) - now) > 0:
                return wait if until >= dest else -wait
            at[("next", team)], at[("dest", team, key)] = now + team_s, now + key_s
            return 0.0

    def reserve(self, sends: list[tuple[str, str]], key_s: float, team_s: float, horizon_s: float) -> list[float]:
        with self._lock:
            now, at, out = self._clock(), self._at, []
            for team, key in sends:
                turn = max(now, at.get(("blocked", team), 0.0), at.get(("next", team), 0.0))
                if (free := at.get(("dest", team, key), 0.0)) > turn:
                    out.append(min(now - free, -1e-6))
                elif turn - now > horizon_s:
                    out.append(min(now - turn, -1e-6))
                else:
                    at[("next", team)], at[("dest", team, key)] = turn + team_s, turn + key_s
                    out.append(turn - now)
            return out

    def push(self, team: str, key: str | None, seconds: float) -> None:
        name = ("dest", team, key) if key is not None else ("blocked", team)
        with self._lock:
            self._at[name] = max(self._at.get(name, 0.0), self._clock() + seconds)

    def blocked_for(self, team: str) -> float:
        until = self._at.get(("blocked", team))  # never blocked: no clock reading
        return max(0.0, until - self._clock()) if until is not None else 0.0


class SendPacer:
    """Sends paced over a :class:`TurnStore`; thread-safe. ``with pacer.slot(team, key): send()``
    holds the destination (``key``: channel or user id; one attempt at a time in this process),
    waits until it may send (:meth:`retry_slot`), and when the attempt has its answer moves the
    destination's next turn ``channel_interval_s`` past it (so the spacing holds where Slack counts
    arrivals). A 429 in the body (:class:`PacedRateLimitRetryHandler`) calls :meth:`rate_limited`
    and waits again. ``team_rate_per_s`` None: no workspace cap;
    ``sleep`` and ``clock`` (monotonic seconds, :meth:`each_in_turn`'s) may be fakes in tests;
    waiting blocks the calling thread."""

    def __init__(
        self,
        store: TurnStore,
        channel_interval_s: float,
        team_rate_per_s: float | None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.monotonic,
    ):
        if channel_interval_s < 0 or (team_rate_per_s is not None and team_rate_per_s <= 0):
            raise ValueError("channel_interval_s must be >= 0 and team_rate_per_s > 0 or None")
        self.store = store
        self.channel_interval_s = channel_interval_s
        self.team_rate_per_s = team_rate_per_s
        self._team_s = 1.0 / team_rate_per_s if team_rate_per_s else 0.0
        self._held_up_s = max(2 * self._team_s, channel_interval_s)  # see each_in_turn
        self._pad_s = 2 * self._held_up_s  # a booked destination's margin past its interval (each_in_turn)
        self.horizon_s = max(2.0, 4 * self._team_s)
        """How far ahead (seconds) :meth:`each_in_turn` books turns."""
        self._sleep = sleep
        self._clock = clock
        self._lock = threading.Lock()
        self._held: dict[tuple[str, str], threading.Lock] = {}  # kept while a thread holds or awaits it
        self._holders: Counter[tuple[str, str]] = Counter()
        self._batons: dict[str, threading.Lock] = {}
        self._local = threading.local()  # .batch: in :meth:`batch`; .ended: an end not yet told

    @contextmanager
    def batch(self) -> Iterator[None]:
        """This thread's sends in it tell the store of an attempt's end with the next turn request
        (:meth:`TurnStore.turn`'s ``ended``: one store call a send, not two; a round trip each with
        :class:`~bot.digest.ratelimit.RedisStore`); the last end at the exit. Meanwhile that
        destination's next turn is the one its send took (``channel_interval_s`` after the send's
        start, not its answer): meant for sends to distinct destinations, a worker's batch of DMs.
        Needed by ``benchmarks/fanout_queue.py`` (issue 43, worker CPU per DM)."""
        local = self._local
        outer = getattr(local, "batch", False)
        local.batch = True
        try:
            yield
        finally:
            local.batch = outer
            if not outer:
                try:
                    self._tell_ended()
                except Exception:  # the sends are over: a lost end only shortens one destination's gap
                    log.warning("could not tell the pacer's store of a send's end", exc_info=True)

    def _tell_ended(self) -> None:
        """Push this thread's end not yet told, if any."""
        ended = getattr(self._local, "ended", None)
        if ended is not None:
            self._local.ended = None
            self.store.push(*ended)

    @contextmanager
    def slot(self, team: str, key: str) -> Iterator[None]:
        """Wait for a turn to send to ``key`` (channel or user id) in ``team``; the body sends."""
        with self._lock:
            held = self._held.setdefault((team, key), threading.Lock())
            self._holders[team, key] += 1
        try:
            with held:
                self.retry_slot(team, key)
                _current.slot = (self, team, key)
                try:
                    yield
                finally:
                    _current.slot = None
                    self.attempt_ended(team, key)
        finally:
            with self._lock:
                self._holders[team, key] -= 1
                if not self._holders[team, key]:
                    del self._holders[team, key], self._held[team, key]

    def each_in_turn(self, sends: list[tuple[str, str]], send: Callable[[int], None]) -> None:
        """Call ``send(i)`` once for each (team, key) of ``sends`` (distinct destinations: a worker's
        batch of DMs) in its own turn: one store call (:meth:`TurnStore.reserve`) books every turn
        due within :attr:`horizon_s`, and this thread sleeps until each and sends then, in the order
        the turns come. A turn this thread wakes for more than two workspace turns (and a
        destination's interval) late goes unused, so that posts held up do not arrive together with
        their workspace's next ones (a 429 each, seen under load): that send and those not booked
        are asked for again (those not booked once their turn is within the horizon). A booked
        destination's next turn is ``channel_interval_s`` plus :attr:`_pad_s` after the turn; an
        attempt answered later than the pad tells the store of its end (one store call, rare). A 429
        within ``send`` is handled as in :meth:`slot`. ``send``'s exceptions end the loop. Needed by
        ``benchmarks/fanout_queue.py`` (issue 43: a store call for the sends that might go now, then
        another after each sleep, cost about five round trips a batch of ten)."""
        waiting = list(range(len(sends)))
        while waiting:
            answers = self.store.reserve(
                [sends[i] for i in waiting], self.channel_interval_s + self._pad_s, self._team_s, self.horizon_s
            )
            asked, sent = self._clock(), set()
            booked = sorted((wait, i) for i, wait in zip(waiting, answers, strict=True) if wait >= 0)
            for wait, i in booked:
                turn = asked + wait
                if (left := turn - self._clock()) > 0:
                    self._sleep(left)
                if self._team_s and self._clock() - turn > self._held_up_s:
                    continue  # held up past its turn (lost): asked again
                team, key = sends[i]
                _current.slot = (self, team, key)
                try:
                    send(i)
                finally:
                    _current.slot = None
                    sent.add(i)
                    if self.channel_interval_s > 0 and self._clock() - turn > self._pad_s:
                        self._tell_end(team, key)
            waiting = [i for i in waiting if i not in sent]
            if waiting and not booked:  # sleep until a destination is free or a turn is within the horizon
                self._sleep(max(min(-a - self.horizon_s if -a > self.horizon_s else -a for a in answers), 0.001))

    def _tell_end(self, team: str, key: str) -> None:
        """Tell the store an attempt to ``key`` just ended (its next turn ``channel_interval_s`` from now)."""
        try:
            self.store.push(team, key, self.channel_interval_s)
        except Exception:  # the send is over: a lost end only shortens one destination's gap
            log.warning("could not tell the pacer's store of a send's end", exc_info=True)

    def retry_slot(self, team: str, key: str) -> None:
        """Wait until a send to ``key`` may go now (before a send, or its retry after a 429): sleep
        what the store says is left, ask again. One thread of this process at a time waits for the
        workspace (the others queue: a turn wakes one, not all); the destination's wait, alone."""
        with self._lock:
            baton = self._batons.setdefault(team, threading.Lock())
        local = self._local
        while True:
            with baton:
                while True:
                    ended, local.ended = getattr(local, "ended", None), None
                    if (wait := self.store.turn(team, key, self.channel_interval_s, self._team_s, ended)) <= 0:
                        break
                    self._sleep(max(wait, 0.001))  # at least 1 ms: no spinning on a rounded-down wait
            if wait == 0:
                return
            self._sleep(max(-wait, 0.001))

    def attempt_ended(self, team: str, key: str) -> None:
        """The attempt to ``key`` has its answer: the next may start ``channel_interval_s`` from now
        (in :meth:`batch`, from when the store is told: this thread's next turn request)."""
        if self.channel_interval_s <= 0:
            return
        if getattr(self._local, "batch", False):
            self._tell_ended()  # an end not yet told (none unless a 429 interrupted): now
            self._local.ended = (team, key, self.channel_interval_s)
            return
        self.store.push(team, key, self.channel_interval_s)

    def rate_limited(self, team: str, retry_after_s: float = 1.0) -> None:
        """Slack answered 429 ``Retry-After: retry_after_s`` in ``team``: every sender (every
        worker, with a shared store) holds its sends there that long (a longer block stays)."""
        self.store.push(team, None, retry_after_s)
        log.warning("workspace %s rate-limited by Slack: all workers hold its sends %.1f s", team, retry_after_s)

    def blocked_for(self, team: str) -> float:
        """Seconds left of ``team``'s Retry-After block (0 when not blocked)."""
        return self.store.blocked_for(team)


class Pacer(SendPacer):
    """Pacing in memory, for one process: per destination ``channel_interval_s`` from one attempt's
    answer to the next start (1.05: Slack's 1 per second with a margin), per workspace starts
    ``1 / team_rate_per_s`` apart; ``clock`` (monotonic seconds) may be a fake in tests."""

    def __init__(
        self,
        channel_interval_s: float = 1.05,
        team_rate_per_s: float | None = 10.0,
        clock: Callable[[], float] = time.monotonic,
        sleep: Callable[[float], None] = time.sleep,
    ):
        super().__init__(MemoryStore(clock), channel_interval_s, team_rate_per_s, sleep, clock)


_current = threading.local()
"""The pacer slot the current thread is sending in (``(pacer, team, key)``), for the retry handler."""


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
