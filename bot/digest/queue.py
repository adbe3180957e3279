"""Digest sends on a Dramatiq task queue on Redis: the clock decides, workers send.

With ``REDIS_URL`` set, the clock's :class:`EnqueueingDeliverer` enqueues the DM digests of a
round (one per workspace waiting) in messages of up to ``dm_batch`` DMs
(``digest.send_dms([[team, user, fire], ...])``; ``digest.send_dm(team, user, fire)`` when
``dm_batch`` is 1, and still consumed) and one message per channel digest
(``digest.send_subscription(sub_id, fire)``); ``fire`` ISO 8601, aware. ``vllm-path worker``
processes (:mod:`bot.digest.worker`) send them through :class:`bot.digest.deliver.Deliverer`,
whose ledger claim keeps each DM exactly once, batched or not: a batch delivered again skips what
was sent. A retryable failure raises :class:`DeliveryFailed`, retried by Dramatiq with back-off
until the digest's ISO week is over (a batch: the whole message, its settled DMs costing a ledger
claim each and no Web API call). A digest counts as enqueued only once the broker took it; one refused (Redis down)
is enqueued again by the next catch-up, and an outage logs one line as it starts and one as it
ends. Sends are buffered briefly and enqueued round-robin by workspace.

Times are aware datetimes; durations seconds unless a name says ``_ms``.
"""

from __future__ import annotations

import enum
import logging
import threading
import time
from collections import OrderedDict, deque
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, cast

import dramatiq
from dramatiq.brokers.redis import RedisBroker

from bot.config import Settings
from bot.digest.deliver import period_over
from bot.digest.dm_batch import deliver_dms
from bot.store import DM_TRACK, Store, Subscription
from bot.store.ledger import NO_ATTEMPT_LIMIT

if TYPE_CHECKING:
    from bot.digest.deliver import Attempt, Deliverer

log = logging.getLogger(__name__)

QUEUE_NAME = "digests"
SEND_DM = "digest.send_dm"
SEND_DMS = "digest.send_dms"
SEND_SUBSCRIPTION = "digest.send_subscription"
DM_BATCH = 40
"""DM digests per queue message by default (:class:`EnqueueingDeliverer`'s ``dm_batch``; at most
one per workspace, as a round holds): one message's fetch, decoding, middleware and
acknowledgement, one pacer call and one statement each to read, claim and record for forty DMs.
Needed by ``benchmarks/fanout_queue.py`` (issue 43, worker CPU per DM: 0.70-0.79 ms ten to a
message, 0.65-0.66 ms forty, 0.67 ms a hundred, whose turns lie beyond the pacer's horizon;
docs/benchmarks.md has the figure with ``--dm-batch 1``, one DM a message)."""
BATCH_TIME_LIMIT_MS = 60 * 60_000
"""Dramatiq's time limit of a ``digest.send_dms`` message (its default: 10 minutes a message)."""
MAX_RETRIES = 12
MIN_BACKOFF_MS = 2_000
MAX_BACKOFF_MS = 15 * 60_000


class DeliveryFailed(Exception):
    """A retryable delivery failure; Dramatiq retries the message with back-off."""


def make_broker(redis_url: str, *, namespace: str = "vllm-path", heartbeat_timeout_s: float = 60.0) -> RedisBroker:
    """A Dramatiq ``RedisBroker`` on ``redis_url`` with keys under ``namespace``; a worker silent for
    ``heartbeat_timeout_s`` counts as dead and its unacknowledged messages go back to the queue."""
    # maintenance on 5% of fetches (Dramatiq: 0.1%): a dead worker's messages come back within
    # seconds of its heartbeat timeout even when the queue is quiet.
    return RedisBroker(  # type: ignore[no-untyped-call]  # dramatiq's RedisBroker.__init__ is unannotated
        url=redis_url, namespace=namespace, heartbeat_timeout=int(heartbeat_timeout_s * 1000), maintenance_chance=50_000
    )


class _Runner:
    """What the actors of a worker process run on: its ``Deliverer`` and the plain store."""

    def __init__(self, deliverer: Deliverer, store: Store):
        self.deliverer = deliverer
        self.store = store


_runner: _Runner | None = None


def install_runner(deliverer: Deliverer, store: Store) -> None:
    """Make this process's actors send with ``deliverer``, reading the ledger in ``store``."""
    global _runner
    _runner = _Runner(deliverer, store)


def _require_runner() -> _Runner:
    if _runner is None:
        raise RuntimeError("a digest message reached a process that is not a worker (install_runner was not called)")
    return _runner


def send_dm(team: str, user: str, fire: str) -> None:
    """Actor body: ``user``'s DM digest of the week of ``fire``; raises DeliveryFailed or ``dramatiq.Retry``.
    A message whose digest was sent or whose week is over is acknowledged without a Web API call."""
    runner = _require_runner()
    attempt = runner.deliverer.deliver_dm(team, user, datetime.fromisoformat(fire), drop_expired=True)
    key = (team, user, DM_TRACK, attempt.period) if attempt.period else None
    dm = runner.store.get_dm(team, user) if attempt.outcome.value == "failed" else None
    _settle(runner, attempt, key, dm.timezone if dm is not None else None)


def send_dms(items: list[list[str]]) -> None:
    """Actor body: the DM digests ``items`` (``[team, user, fire]`` each, ``fire`` ISO 8601, aware)
    as one batch (:func:`bot.digest.dm_batch.deliver_dms`: claimed together, posted as their
    pacer turns come, recorded together; each exactly once, as :func:`send_dm`). Once all were tried,
    raises :class:`DeliveryFailed` (the first) when any failed retryably or raised,
    else the longest ``dramatiq.Retry`` when any is held by another sender: Dramatiq retries the
    whole message, whose DMs already settled are skipped by the ledger without a Web API call."""
    runner = _require_runner()
    failed: Exception | None = None
    retry: dramatiq.Retry | None = None
    batch = [(team, user, datetime.fromisoformat(fire)) for team, user, fire in items]
    with runner.deliverer.pacer.batch():
        attempts = deliver_dms(runner.deliverer, batch, drop_expired=True)  # a database error: retried
    for (team, user, _fire), attempt in zip(batch, attempts, strict=True):
        try:
            key = (team, user, DM_TRACK, attempt.period) if attempt.period else None
            dm = runner.store.get_dm(team, user) if attempt.outcome.value == "failed" else None
            _settle(runner, attempt, key, dm.timezone if dm is not None else None)
        except dramatiq.Retry as exc:
            if retry is None or (exc.delay or 0) > (retry.delay or 0):
                retry = exc
        except Exception as exc:  # DeliveryFailed, or a database error reading the DM
            if failed is None:
                failed = exc
            else:
                log.warning("DM digest of a user of team %s failed too: %s", team, exc)
    if failed is not None:
        raise failed
    if retry is not None:
        raise retry


def send_subscription(sub_id: int, fire: str) -> None:
    """Actor body: send subscription ``sub_id``'s digest of the week of ``fire`` (ISO 8601); a message
    whose digest was sent or whose week is over is acknowledged without a Web API call."""
    runner = _require_runner()
    attempt = runner.deliverer.deliver_subscription(int(sub_id), datetime.fromisoformat(fire), drop_expired=True)
    key, timezone = None, None
    if attempt.period:
        sub = runner.store.get_subscription(int(sub_id))
        if sub is not None:
            key = (sub.team_id, sub.channel_id, sub.track_id, attempt.period)
            timezone = sub.timezone
    _settle(runner, attempt, key, timezone)


def _settle(
    runner: _Runner, attempt: Attempt, key: tuple[str, str, str, str] | None, timezone: str | None = None
) -> str:
    """Ack ``attempt`` (return its outcome) or retry it (raise) until its period is over."""
    outcome = attempt.outcome.value
    log.debug("digest %s: %s", "/".join(key) if key else "?", outcome)
    if outcome == "failed":
        if key is not None and period_over(key[3], timezone):
            log.warning("digest %s: its week is over, not retried (last error: %s)", "/".join(key), attempt.error)
            return outcome
        # chained to its cause, so that the log names the dependency that failed (a database error
        # is not "Slack is unreachable": bot.logging_setup.outage_kind looks at the cause first)
        raise DeliveryFailed(f"digest {key[3] if key else ''} failed: {attempt.error}") from attempt.cause
    if outcome != "taken" or key is None:
        return outcome
    row = runner.store.delivery(*key)
    deliverer = runner.deliverer
    if row is None or row.status == "sent":
        return outcome
    if row.status == "failed" and row.attempts >= deliverer.max_attempts:
        return outcome  # given up on; the ledger keeps the error
    if row.status == "claimed":  # held by a sender that may have died: come back once stale
        claimed_at = row.claimed_at if row.claimed_at.tzinfo else row.claimed_at.replace(tzinfo=UTC)
        age = (datetime.now(UTC) - claimed_at).total_seconds()
        delay_s = max(1.0, deliverer.stale_after_s - age + 1.0)
        raise dramatiq.Retry(f"ledger key held by {row.claimed_by}", delay=int(delay_s * 1000))
    raise dramatiq.Retry("ledger key not claimable yet")


class DigestQueue:
    """The digest actors declared on ``broker`` (:func:`make_broker`; tests pass a ``StubBroker``)."""

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
        # a batch's DMs may each wait out a Retry-After block of their workspace: Dramatiq's
        # default limit of 10 minutes a message is ten one-minute blocks
        self.send_dms: dramatiq.Actor[Any, Any] = dramatiq.actor(
            actor_name=SEND_DMS, queue_name=QUEUE_NAME, broker=broker, time_limit=BATCH_TIME_LIMIT_MS, **options
        )(send_dms)
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
        """Messages waiting (not delayed retries). Raises ``redis.exceptions.ConnectionError`` when unreachable."""
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
    """The clock's result for one digest in queue mode (counted by :func:`bot.digest.clock.tally`)."""

    outcome: QueueOutcome
    period: str | None = None


_Pending = tuple[str, Any, tuple[Any, ...], tuple[Any, ...]]
"""A buffered digest: (workspace, actor, its arguments, its de-duplication key)."""


class EnqueueingDeliverer:
    """The clock's :class:`~bot.digest.deliver.Deliverer` in queue mode: each digest a message on
    ``queue``; thread-safe. ``stale_after_s`` / ``max_attempts``: the workers' ledger settings;
    ``requeue_after_s``: the same digest is enqueued again only after this long; ``linger_s``: sends
    are buffered until none came for this long (or ``max_buffer`` wait); ``dm_batch``: DM digests
    per message (:data:`DM_BATCH`; taken in round order, so of as many workspaces as a round has;
    1: one ``digest.send_dm`` message each)."""

    def __init__(
        self,
        queue: DigestQueue,
        *,
        stale_after_s: float = 300.0,
        max_attempts: int = NO_ATTEMPT_LIMIT,
        requeue_after_s: float | None = None,
        linger_s: float = 0.2,
        max_buffer: int = 200_000,
        dm_batch: int = DM_BATCH,
    ):
        if dm_batch < 1:
            raise ValueError(f"dm_batch must be >= 1, got {dm_batch!r}")
        self.queue = queue
        self.dm_batch = dm_batch
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

    def _offer(self, team: str, actor: Any, args: tuple[Any, ...], key: tuple[Any, ...]) -> Queued:
        """Buffer one digest, unless stopping or ``key`` was buffered less than ``requeue_after_s`` ago."""
        if self._stopping:
            return Queued(QueueOutcome.STOPPED)
        now = time.monotonic()
        with self._cond:
            while self._recent and now - next(iter(self._recent.values())) >= self.requeue_after_s:
                self._recent.popitem(last=False)  # forget old entries (oldest first)
            if key in self._recent:
                return Queued(QueueOutcome.DUPLICATE)
            self._recent[key] = now
            self._pending.setdefault(team, deque()).append((team, actor, args, key))
            self._count += 1
            self._last_add = now
            self._cond.notify_all()
        return Queued(QueueOutcome.QUEUED)

    def deliver_dm(self, team: str, user: str, fire: datetime) -> Queued:
        """Enqueue ``user``'s DM digest for the week of ``fire`` (aware)."""
        fire_at = fire.isoformat()
        return self._offer(team, self.queue.send_dm, (team, user, fire_at), ("dm", team, user, fire_at))

    def deliver_subscription(self, sub: Subscription | int, fire: datetime) -> Queued:
        """Enqueue subscription ``sub``'s (or its id's) digest for the week of ``fire`` (aware)."""
        sub_id = sub if isinstance(sub, int) else sub.id
        team = "" if isinstance(sub, int) else sub.team_id
        fire_at = fire.isoformat()
        return self._offer(team, self.queue.send_subscription, (sub_id, fire_at), ("sub", sub_id, fire_at))

    def _run(self) -> None:
        while True:
            with self._cond:
                while not self._pending and not self._closed:
                    self._cond.wait()
                if not self._pending and self._closed:
                    return
                while not self._quiet():
                    self._cond.wait(self.linger_s)
                self._sending = True
            try:
                self._enqueue()
            finally:
                with self._cond:
                    self._sending = False
                    self._cond.notify_all()

    def _round(self) -> list[_Pending]:
        """One digest of every workspace waiting (in arrival order), taken off the buffer."""
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
        """Enqueue the buffer round-robin by workspace, one round at a time while :meth:`_quiet`; at
        the first refusal it and the buffer are forgotten by the de-duplication."""
        sent = 0
        teams: set[str] = set()
        while self._quiet() and (order := self._round()):
            try:
                self._put(order)
            except Exception as exc:
                left = order + self._drain()
                with self._cond:  # the next catch-up enqueues them again
                    for item in left:
                        self._recent.pop(item[3], None)
                self.failed += len(left)
                self._broker_down(exc, len(left))
                break
            sent += len(order)
            teams.update(item[0] for item in order)
        self.enqueued += sent
        if sent:
            self._broker_up()
            log.info("enqueued %d digest(s) for %d workspace(s)", sent, len(teams))

    def _put(self, order: list[_Pending]) -> None:
        """One round on the queue, its DMs ``dm_batch`` a message; raises what the broker raises."""
        dms: list[list[Any]] = []
        for _team, actor, args, _key in order:
            if actor is self.queue.send_dm and self.dm_batch > 1:
                dms.append(list(args))
                if len(dms) >= self.dm_batch:
                    self.queue.send_dms.send(dms)
                    dms = []
            else:
                actor.send(*args)
        if dms:
            self.queue.send_dms.send(dms)

    def _quiet(self) -> bool:
        """No digest added for ``linger_s`` (or ``max_buffer`` waiting, or closing)."""
        with self._cond:
            return self._closed or self._count >= self.max_buffer or time.monotonic() - self._last_add >= self.linger_s

    def _drain(self) -> list[_Pending]:
        """Everything buffered, taken off the buffer."""
        with self._cond:
            items = [item for waiting in self._pending.values() for item in waiting]
            self._pending.clear()
            self._count = 0
            return items

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
        """Enqueue the buffer now and wait; True if it was on the queue within ``timeout`` seconds."""
        deadline = time.monotonic() + timeout
        with self._cond:
            self._last_add = 0.0
            self._cond.notify_all()
            return self._cond.wait_for(
                lambda: not self._pending and not self._sending, max(0.0, deadline - time.monotonic())
            )

    def stop_claiming(self, timeout: float = 5.0) -> None:
        """Graceful shutdown (SIGTERM): later calls answer :attr:`QueueOutcome.STOPPED` (the next
        run's catch-up enqueues those) and the buffer is enqueued within ``timeout`` seconds."""
        with self._cond:
            self._stopping = True
        self.flush(timeout=timeout)

    def close(self) -> None:
        """Enqueue what is buffered and stop the enqueuing thread."""
        with self._cond:
            self._closed = True
            self._cond.notify_all()
        self._thread.join(timeout=120)
