"""Digest sends on a task queue: Dramatiq on Redis. The clock decides, workers send.

With ``REDIS_URL`` set, the clock (:class:`bot.digest.clock.DigestClock`) is given an
:class:`EnqueueingDeliverer`: where it would send a digest it enqueues one Dramatiq message per
ledger key instead — ``digest.send_dm(team, user, fire)`` or ``digest.send_subscription(sub_id,
fire)`` with ``fire`` the scheduled time (ISO 8601, aware) — and any number of
``vllm-path worker`` processes (:mod:`bot.digest.worker`) consume them and send through
:class:`bot.digest.deliver.Deliverer`, under Slack's limits shared in Redis
(:mod:`bot.digest.ratelimit`), with the ledger bookkeeping batched
(:mod:`bot.store.ledger_batch`). Without ``REDIS_URL`` nothing here is used: the clock sends in
process as it always did.

**Exactly once.** The delivery ledger stays the guard: a worker claims the key before it sends,
so a message delivered twice (a clock that enqueued again, Redis redelivering the messages of a
worker that died — after the broker's heartbeat timeout) never posts twice. A message whose key
another claimant still holds is retried by Dramatiq once that claim would be stale (the holder
may have died mid-send: the new attempt looks for its message first, see the ``Deliverer``).

**Retries with back-off** are Dramatiq's (its ``Retries`` middleware, exponential with jitter,
``min_backoff`` .. ``max_backoff`` milliseconds): a retryable failure (5xx after slack-sdk's own
retries, a connection error, a database error) raises :class:`DeliveryFailed` and the message is
retried until the digest's period (ISO week, in the subscriber's zone) is over; once Dramatiq's
retries run out, the clock's catch-up enqueues the digest again (the ledger sets no attempt limit).

**Truthful enqueueing.** A digest is counted and logged as enqueued only once the broker took
it; one that could not be enqueued (Redis down) is forgotten by the de-duplication, so the
clock's next catch-up (every ``--reconcile-every`` seconds, 30 by default) enqueues it as soon
as the broker answers again. An outage is logged as one warning when it starts and one line when
it ends, not a traceback per digest.

**Order.** The clock's sends are buffered for a moment and enqueued round-robin by workspace,
one round at a time, digests the clock adds meanwhile joining the next rounds
(:meth:`EnqueueingDeliverer.flush`): one big workspace paced at its own limit does not hold
every worker while the others wait, and a clock that pauses while it adds (its recipients come
in workspace order) does not put whole workspaces one behind the other.

Times are aware datetimes; durations seconds unless a name says ``_ms``.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
import uuid
from collections import OrderedDict, deque
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import dramatiq
from dramatiq.brokers.redis import RedisBroker
from dramatiq.common import current_millis

from bot.config import Settings
from bot.domain.schedule import period_of
from bot.store import DM_TRACK, Store, Subscription
from bot.store.ledger import NO_ATTEMPT_LIMIT

if TYPE_CHECKING:
    from bot.digest.deliver import Attempt, Deliverer

log = logging.getLogger(__name__)

QUEUE_NAME = "digests"
SEND_DM = "digest.send_dm"
SEND_SUBSCRIPTION = "digest.send_subscription"
MAX_RETRIES = 12
MIN_BACKOFF_MS = 2_000
MAX_BACKOFF_MS = 15 * 60_000


class DeliveryFailed(Exception):
    """A retryable delivery failure; Dramatiq retries the message with back-off."""


class DigestBroker(RedisBroker):
    """Dramatiq's ``RedisBroker`` that can also enqueue many messages in one round trip."""

    def enqueue_many(self, messages: list[dramatiq.Message[Any]]) -> None:
        """Enqueue ``messages`` (none delayed) as :meth:`RedisBroker.enqueue` does each (a fresh
        ``redis_message_id``, the middleware's before and after hooks, Dramatiq's ``dispatch``
        script), the script calls pipelined: one round trip for all. Raises what redis-py
        raises (``redis.exceptions.ConnectionError`` when Redis is unreachable); some of the
        messages may then be on the queue."""
        dispatch = self.scripts["dispatch"]
        pipe = self.client.pipeline(transaction=False)
        sent = []
        for message in messages:
            message = message.copy(options={"redis_message_id": str(uuid.uuid4())})
            self.emit_before("enqueue", message, None)
            args = [
                "enqueue",
                current_millis(),
                message.queue_name,
                self.broker_id,
                self.heartbeat_timeout,
                self.dead_message_ttl,
                self._should_do_maintenance("enqueue"),
                self._max_unpack_size(),
                message.options["redis_message_id"],
                message.encode(),
            ]
            dispatch(keys=[self.namespace], args=args, client=pipe)
            sent.append(message)
        pipe.execute()
        for message in sent:
            self.emit_after("enqueue", message, None)


def make_broker(redis_url: str, *, namespace: str = "vllm-path", heartbeat_timeout_s: float = 60.0) -> DigestBroker:
    """A Dramatiq ``RedisBroker`` (:class:`DigestBroker`) on ``redis_url`` with keys under
    ``namespace``.

    ``heartbeat_timeout_s``: after how long without a heartbeat a worker counts as dead and its
    unacknowledged messages go back to the queue (Dramatiq's default is 60 s)."""
    # maintenance (giving a dead worker's messages back) runs on 5% of fetches rather than
    # Dramatiq's 0.1%, so that a killed worker's messages come back within seconds of its
    # heartbeat timeout even when the queue is quiet; it is one short script in Redis.
    return DigestBroker(
        url=redis_url, namespace=namespace, heartbeat_timeout=int(heartbeat_timeout_s * 1000), maintenance_chance=50_000
    )


class _Runner:
    """What the actors of a worker process run on: its ``Deliverer`` and the plain store."""

    def __init__(self, deliverer: Deliverer, store: Store):
        self.deliverer = deliverer
        self.store = store


_runner: _Runner | None = None


def install_runner(deliverer: Deliverer, store: Store) -> None:
    """Make this process's actors send with ``deliverer`` (a :class:`Deliverer`); ``store`` is
    the unbatched :class:`bot.store.Store` used to look at the ledger. Called by the worker."""
    global _runner
    _runner = _Runner(deliverer, store)


def _require_runner() -> _Runner:
    if _runner is None:
        raise RuntimeError("a digest message reached a process that is not a worker (install_runner was not called)")
    return _runner


def send_dm(team: str, user: str, fire: str) -> None:
    """Actor body: send ``user``'s DM digest of the week of ``fire`` (ISO 8601). Raises
    :class:`DeliveryFailed` or ``dramatiq.Retry`` to be retried."""
    runner = _require_runner()
    attempt = runner.deliverer.deliver_dm(team, user, datetime.fromisoformat(fire))
    key = (team, user, DM_TRACK, attempt.period) if attempt.period else None
    dm = runner.store.get_dm(team, user) if attempt.outcome.value == "failed" else None
    _settle(runner, attempt, key, dm.timezone if dm is not None else None)


def send_subscription(sub_id: int, fire: str) -> None:
    """Actor body: send subscription ``sub_id``'s digest of the week of ``fire`` (ISO 8601)."""
    runner = _require_runner()
    attempt = runner.deliverer.deliver_subscription(int(sub_id), datetime.fromisoformat(fire))
    key, timezone = None, None
    if attempt.period:
        sub = runner.store.get_subscription(int(sub_id))
        if sub is not None:
            key = (sub.team_id, sub.channel_id, sub.track_id, attempt.period)
            timezone = sub.timezone
    _settle(runner, attempt, key, timezone)


def period_over(period: str, timezone: str | None, now: datetime | None = None) -> bool:
    """Whether ``now`` (default: the current time, aware) is past the ISO week ``period``
    (``'2026-W49'``) in ``timezone`` (unknown zone: never over); ISO week names sort in time
    order."""
    if not timezone:
        return False
    return period_of(now or datetime.now(UTC), timezone) > period


def _settle(
    runner: _Runner, attempt: Attempt, key: tuple[str, str, str, str] | None, timezone: str | None = None
) -> str:
    """Turn an attempt into an ack (return its outcome's name) or a retry (raise). A failure
    is retried until the digest's period is over in ``timezone`` (the subscriber's zone)."""
    outcome = attempt.outcome.value
    log.debug("digest %s: %s", "/".join(key) if key else "?", outcome)
    if outcome == "failed":
        if key is not None and period_over(key[3], timezone):
            log.warning("digest %s: its week is over, not retried (last error: %s)", "/".join(key), attempt.error)
            return outcome
        raise DeliveryFailed(f"digest {key[3] if key else ''} failed: {attempt.error}")
    if outcome != "taken" or key is None:
        return outcome
    row = runner.store.delivery(*key)
    deliverer = runner.deliverer
    if row is None or row.status == "sent":
        return outcome
    if row.status == "failed" and row.attempts >= deliverer.max_attempts:
        return outcome  # given up on; the ledger keeps the error
    if row.status == "claimed":
        # Another sender holds the key: it may be sending now, or it died. Come back when its
        # claim is stale (then the ledger lets this message take over, or shows it was sent).
        claimed_at = row.claimed_at if row.claimed_at.tzinfo else row.claimed_at.replace(tzinfo=UTC)
        age = (datetime.now(UTC) - claimed_at).total_seconds()
        delay_s = max(1.0, deliverer.stale_after_s - age + 1.0)
        raise dramatiq.Retry(f"ledger key held by {row.claimed_by}", delay=int(delay_s * 1000))
    raise dramatiq.Retry("ledger key not claimable yet")


class DigestQueue:
    """The digest actors declared on a broker (the clock's side enqueues, a worker consumes).

    ``broker``: a Dramatiq broker (:func:`make_broker`; tests may pass a ``StubBroker``)."""

    def __init__(self, broker: dramatiq.Broker):
        self.broker = broker
        options: dict[str, Any] = {
            "max_retries": MAX_RETRIES,
            "min_backoff": MIN_BACKOFF_MS,
            "max_backoff": MAX_BACKOFF_MS,
        }
        self.send_dm: dramatiq.Actor[Any, Any] = dramatiq.actor(
            actor_name=SEND_DM, queue_name=QUEUE_NAME, broker=broker, **options
        )(send_dm)
        self.send_subscription: dramatiq.Actor[Any, Any] = dramatiq.actor(
            actor_name=SEND_SUBSCRIPTION, queue_name=QUEUE_NAME, broker=broker, **options
        )(send_subscription)

    @classmethod
    def from_settings(cls, settings: Settings, **broker_kwargs: Any) -> DigestQueue | None:
        """The queue on ``settings.redis_url``, or None when it is not set (in-process mode)."""
        if not settings.redis_url:
            return None
        return cls(make_broker(settings.redis_url, namespace=settings.queue_namespace, **broker_kwargs))

    def backlog(self) -> int:
        """Messages waiting in the queue (not counting delayed retries): what an operator
        watches. Raises ``redis.exceptions.ConnectionError`` when Redis is unreachable."""
        broker = self.broker
        if isinstance(broker, RedisBroker):
            return int(cast(int, broker.client.llen(f"{broker.namespace}:{QUEUE_NAME}")))  # sync client
        return broker.queues[QUEUE_NAME].qsize() if hasattr(broker, "queues") else 0


class QueueOutcome(enum.Enum):
    """What the clock did with a digest when it sends through the queue."""

    QUEUED = "queued"
    DUPLICATE = "already_queued"
    STOPPED = "stopped"
    """The clock is shutting down: not enqueued; the next run's catch-up enqueues it."""


@dataclass(frozen=True)
class Queued:
    """The clock's result for one digest in queue mode (``outcome.value`` as
    :func:`bot.digest.clock.tally` counts it)."""

    outcome: QueueOutcome
    period: str | None = None


_Pending = tuple[str, Any, tuple[Any, ...], tuple[Any, ...]]
"""A buffered digest: (workspace, actor, its arguments, its de-duplication key)."""


class EnqueueingDeliverer:
    """Stands in for the clock's :class:`~bot.digest.deliver.Deliverer`: each digest becomes a
    message on ``queue`` (see the module docstring). Thread-safe.

    ``stale_after_s`` / ``max_attempts``: the workers' ledger settings (the clock's catch-up
    reads them). ``requeue_after_s``: the same digest (same destination and scheduled time) is
    enqueued again only after this long (the catch-up runs every 30 s; its messages are still
    in the queue). ``linger_s``: sends are buffered until none came for this long (or
    ``max_buffer`` are waiting), then enqueued round-robin by workspace, those added while
    that runs joining the rotation.
    """

    def __init__(
        self,
        queue: DigestQueue,
        *,
        stale_after_s: float = 300.0,
        max_attempts: int = NO_ATTEMPT_LIMIT,
        requeue_after_s: float | None = None,
        linger_s: float = 0.2,
        max_buffer: int = 200_000,
    ):
        self.queue = queue
        self.stale_after_s = stale_after_s
        self.max_attempts = max_attempts
        self.requeue_after_s = requeue_after_s if requeue_after_s is not None else 2 * stale_after_s
        self.linger_s = linger_s
        self.max_buffer = max_buffer
        self._recent: OrderedDict[tuple[Any, ...], float] = OrderedDict()
        self._pending: dict[str, deque[_Pending]] = {}  # by workspace, in order of arrival
        self._count = 0
        self._last_add = 0.0
        self._cond = threading.Condition()
        self._closed = False
        self._stopping = False
        self._sending = False
        self.enqueued = 0
        self.failed = 0
        """Digests the broker did not take (each is enqueued again by a later catch-up)."""
        self._down_since: float | None = None  # monotonic start of a broker outage
        self._thread = threading.Thread(target=self._run, name="digest-enqueue", daemon=True)
        self._thread.start()

    def _fresh(self, key: tuple[Any, ...]) -> bool:
        now = time.monotonic()
        with self._cond:
            while self._recent:  # forget old entries (oldest first)
                at = next(iter(self._recent.values()))
                if now - at < self.requeue_after_s:
                    break
                self._recent.popitem(last=False)
            if key in self._recent:
                return False
            self._recent[key] = now
            return True

    def _forget(self, key: tuple[Any, ...]) -> None:
        """Let the next catch-up enqueue ``key`` again (its enqueue failed)."""
        with self._cond:
            self._recent.pop(key, None)

    def _add(self, team: str, actor: Any, args: tuple[Any, ...], key: tuple[Any, ...]) -> None:
        with self._cond:
            waiting = self._pending.get(team)
            if waiting is None:
                waiting = self._pending[team] = deque()
            waiting.append((team, actor, args, key))
            self._count += 1
            self._last_add = time.monotonic()
            self._cond.notify_all()

    def deliver_dm(self, team: str, user: str, fire: datetime) -> Queued:
        """Enqueue ``user``'s DM digest for the week of ``fire`` (aware)."""
        if self._stopping:
            return Queued(QueueOutcome.STOPPED)
        key = ("dm", team, user, fire.isoformat())
        if not self._fresh(key):
            return Queued(QueueOutcome.DUPLICATE)
        self._add(team, self.queue.send_dm, (team, user, fire.isoformat()), key)
        return Queued(QueueOutcome.QUEUED)

    def deliver_subscription(self, sub: Subscription | int, fire: datetime) -> Queued:
        """Enqueue the digest of subscription ``sub`` (a Subscription or its id) for the week
        of ``fire`` (aware)."""
        if self._stopping:
            return Queued(QueueOutcome.STOPPED)
        sub_id = sub if isinstance(sub, int) else sub.id
        team = "" if isinstance(sub, int) else sub.team_id
        key = ("sub", sub_id, fire.isoformat())
        if not self._fresh(key):
            return Queued(QueueOutcome.DUPLICATE)
        self._add(team, self.queue.send_subscription, (sub_id, fire.isoformat()), key)
        return Queued(QueueOutcome.QUEUED)

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending and self._closed:
                    return
                while (
                    not self._closed
                    and self._count < self.max_buffer
                    and time.monotonic() - self._last_add < self.linger_s
                ):
                    self._cond.wait(self.linger_s)
                self._sending = True
            try:
                self._enqueue()
            finally:
                with self._cond:
                    self._sending = False
                    self._cond.notify_all()

    def _round(self) -> list[_Pending]:
        """One digest of every workspace with digests waiting (in the order the workspaces
        first came), taken off the buffer; empty when nothing waits."""
        with self._cond:
            taken = []
            for team in list(self._pending):
                waiting = self._pending[team]
                taken.append(waiting.popleft())
                if not waiting:
                    del self._pending[team]
            self._count -= len(taken)
            return taken

    def _enqueue(self) -> None:
        """Put what is buffered on the queue round-robin by workspace, one round (one round
        trip, :meth:`_put`) at a time while :meth:`_quiet`: digests added meanwhile wait for the
        next pause and join the rotation rather than queue behind whole workspaces. At the
        first round the broker refuses, it and everything buffered are forgotten by the
        de-duplication (the next catch-up enqueues them again); only rounds taken are counted."""
        sent = 0
        teams: set[str] = set()
        while self._quiet() and (order := self._round()):
            try:
                self._put(order)
            except Exception as exc:
                left = order + self._drain()
                for item in left:
                    self._forget(item[3])
                self.failed += len(left)
                self._broker_down(exc, len(left))
                break
            sent += len(order)
            teams.update(item[0] for item in order)
        self._counted(sent, teams)

    def _put(self, order: list[_Pending]) -> None:
        """One round on the queue: in one round trip on a :class:`DigestBroker`, else message
        by message. Raises what the broker raises (the round is then counted as refused; what
        of it the broker took is harmless twice, the ledger sends each digest once)."""
        broker = self.queue.broker
        if isinstance(broker, DigestBroker):
            broker.enqueue_many([actor.message(*args) for _team, actor, args, _key in order])
            return
        for _team, actor, args, _key in order:
            actor.send(*args)

    def _quiet(self) -> bool:
        """No digest added for ``linger_s`` (or ``max_buffer`` waiting, or closing): a clock
        adding (in workspace order) finishes first, its last workspaces in the rotation too."""
        with self._cond:
            return self._closed or self._count >= self.max_buffer or time.monotonic() - self._last_add >= self.linger_s

    def _drain(self) -> list[_Pending]:
        """Everything buffered, taken off the buffer."""
        with self._cond:
            items = [item for waiting in self._pending.values() for item in waiting]
            self._pending.clear()
            self._count = 0
            return items

    def _counted(self, sent: int, teams: set[str]) -> None:
        """Count and log what the broker took."""
        self.enqueued += sent
        if sent:
            self._broker_up()
            log.info("enqueued %d digest(s) for %d workspace(s)", sent, len(teams))

    def _broker_down(self, exc: Exception, count: int) -> None:
        """One warning when an outage starts; DEBUG for the next failures of the same outage."""
        if self._down_since is None:
            self._down_since = time.monotonic()
            log.warning(
                "could not enqueue %d digest(s): the broker is unreachable (%s: %s); "
                "they are enqueued again once it answers (next catch-up)",
                count,
                type(exc).__name__,
                str(exc).splitlines()[0][:200] if str(exc) else "",
            )
        else:
            log.debug("broker still unreachable: %d digest(s) wait for the next catch-up", count)

    def _broker_up(self) -> None:
        if self._down_since is not None:
            log.warning(
                "the broker answers again after %.0f s; enqueueing resumed", time.monotonic() - self._down_since
            )
            self._down_since = None

    def flush(self, timeout: float = 60.0) -> bool:
        """Enqueue what is buffered now and wait until it is on the queue; True if that took
        less than ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._last_add = 0.0
            self._cond.notify_all()
            return self._cond.wait_for(
                lambda: not self._pending and not self._sending, max(0.0, deadline - time.monotonic())
            )

    def stop_claiming(self, timeout: float = 5.0) -> None:
        """Graceful shutdown (the clock's SIGTERM, as :meth:`Deliverer.stop_claiming
        <bot.digest.deliver.Deliverer.stop_claiming>`): enqueue nothing new (later calls answer
        :attr:`QueueOutcome.STOPPED`; the next run's catch-up enqueues those digests) and put what
        is buffered on the queue within ``timeout`` seconds (the workers' ledger claims keep any
        digest enqueued twice to one send)."""
        with self._cond:
            self._stopping = True
        self.flush(timeout=timeout)

    def close(self) -> None:
        """Enqueue what is buffered and stop the enqueuing thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=120)
