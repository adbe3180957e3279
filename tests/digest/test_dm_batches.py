"""Issue 43: DM digests carried ten to a queue message (``digest.send_dms``), each still claimed and
recorded in the ledger on its own, and a batch's pacing one store call a send.

* The clock's enqueuer puts a round's DMs ``dm_batch`` to a message (channel digests one each;
  ``dm_batch=1``: one ``digest.send_dm`` each, as before).
* A batch sends each DM once; delivered again (a retry, a dead worker's message) it sends none
  again; a DM that fails fails the batch only after the others went, and the retry sends it alone;
  a DM held by another sender makes the batch come back later, the others sent.
* In :meth:`SendPacer.batch` a send costs one store call (the previous end told with the next
  turn), the last end is told at the exit, and the Redis script applies a told end atomically.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import dramatiq
import pytest
from dramatiq.brokers.stub import StubBroker

from bot.digest import queue as digest_queue
from bot.digest.deliver import Deliverer, Pacer
from bot.digest.pacing import MemoryStore, SendPacer
from bot.digest.queue import QUEUE_NAME, SEND_DM, SEND_DMS, SEND_SUBSCRIPTION, DigestQueue, EnqueueingDeliverer
from bot.domain.schedule import WeeklySchedule, period_of
from bot.runtime import Runtime
from bot.store import Store
from bot.store.ledger_batch import BatchedLedgerStore
from tests.digest.conftest import TEAM

# --- the enqueuer ----------------------------------------------------------------------------------


def _enqueued(broker: StubBroker) -> list[tuple[str, list[Any]]]:
    """(actor name, arguments) of every message on the digest queue, in order."""
    out = []
    queue = broker.queues[QUEUE_NAME]
    while not queue.empty():
        message = dramatiq.Message.decode(queue.get_nowait())
        out.append((message.actor_name, list(message.args)))
    return out


@pytest.mark.parametrize("dm_batch", [10, 1])
def test_the_clock_enqueues_a_rounds_dms_ten_to_a_message(dm_batch: int) -> None:
    broker = StubBroker()
    broker.emit_after("process_boot")
    queue = DigestQueue(broker)
    enqueuer = EnqueueingDeliverer(queue, linger_s=0.0, dm_batch=dm_batch)
    fire = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)
    try:
        with enqueuer._cond:  # the whole offer buffered before the enqueuing thread takes any
            for i in range(25):
                enqueuer.deliver_dm(f"T{i:02d}", f"U{i:02d}", fire)
            enqueuer.deliver_subscription(7, fire)
        assert enqueuer.flush(timeout=30)
    finally:
        enqueuer.close()
    messages = _enqueued(broker)
    dms = [(name, args) for name, args in messages if name != SEND_SUBSCRIPTION]
    assert [args for name, args in messages if name == SEND_SUBSCRIPTION] == [[7, fire.isoformat()]]
    if dm_batch == 1:  # as before batches: one message a DM
        assert [name for name, _ in dms] == [SEND_DM] * 25
        sent = [args for _, args in dms]
    else:
        assert [name for name, _ in dms] == [SEND_DMS] * 3
        assert [len(args[0]) for _, args in dms] == [10, 10, 5]
        sent = [item for _, args in dms for item in args[0]]
    assert sent == [[f"T{i:02d}", f"U{i:02d}", fire.isoformat()] for i in range(25)]  # round order


def test_a_batch_may_outlast_dramatiqs_default_time_limit_of_a_message() -> None:
    """Each DM of a batch may wait out a Retry-After block of its workspace: ten one-minute blocks
    would reach Dramatiq's default 10 minutes, which interrupts the thread mid-send."""
    options = DigestQueue(StubBroker()).send_dms.options
    assert options["time_limit"] >= 60 * 60_000 and options["max_retries"] == digest_queue.MAX_RETRIES


def test_a_batch_size_below_one_is_refused() -> None:
    with pytest.raises(ValueError, match="dm_batch"):
        EnqueueingDeliverer(DigestQueue(StubBroker()), dm_batch=0)


# --- a worker's batch ------------------------------------------------------------------------------


def _dm(store: Store, user: str, team: str = TEAM) -> None:
    store.set_dm(team, user, True, schedule=WeeklySchedule.of(0, "09:00", "UTC"))
    store.follow(team, user, "pd")


def _posted(standin) -> list[str]:
    """The ledger key of every digest the stand-in took (ok answers only), in order."""
    keys = []
    for call in standin.calls("chat.postMessage"):
        if call.ok:
            meta = call.args.get("metadata") or {}
            if isinstance(meta, str):
                meta = json.loads(meta)
            keys.append(meta["event_payload"]["key"].split("/")[1])
    return keys


@pytest.fixture
def worker(runtime: Runtime, monkeypatch):
    """This process as a worker (the queue's actor bodies), on the batched ledger as a worker's."""
    batched = BatchedLedgerStore(runtime.store)
    on_batched = Runtime(runtime.settings, batched, runtime.holder, runtime.renderer)
    deliverer = Deliverer(on_batched, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=1000), stale_after_s=60)
    monkeypatch.setattr(digest_queue, "_runner", None)
    digest_queue.install_runner(deliverer, runtime.store)
    yield deliverer
    batched.close()


def _items(*users: str) -> list[list[str]]:
    now = datetime.now(UTC).isoformat()
    return [[TEAM, user, now] for user in users]


def test_a_batch_sends_each_dm_once_and_delivered_again_sends_none(runtime, standin, worker) -> None:
    for user in ("U1", "U2", "U3"):
        _dm(runtime.store, user)
    items = _items("U1", "U2", "U3")
    digest_queue.send_dms(items)
    assert sorted(_posted(standin)) == ["U1", "U2", "U3"]  # in their turns' order: a late turn is asked again
    digest_queue.send_dms(items)  # redelivered (a dead worker's message): the ledger says sent
    assert sorted(_posted(standin)) == ["U1", "U2", "U3"]
    assert len(standin.calls()) == 3  # and no other Web API call either
    assert sorted(r.status for r in runtime.store.deliveries()) == ["sent"] * 3


def test_a_failed_dm_fails_its_batch_after_the_others_went_and_its_retry_sends_it_alone(
    runtime, standin, worker
) -> None:
    for user in ("U1", "U2", "U3"):
        _dm(runtime.store, user)
    standin.configure(channel_errors={"U2": "internal_error"})  # retryable: not a permanent error
    items = _items("U1", "U2", "U3")
    with pytest.raises(digest_queue.DeliveryFailed, match="internal_error"):
        digest_queue.send_dms(items)
    assert sorted(_posted(standin)) == ["U1", "U3"]  # U2's failure held up neither
    standin.configure(channel_errors={})
    digest_queue.send_dms(items)  # Dramatiq's retry of the whole message
    assert _posted(standin)[2:] == ["U2"]  # its retry, alone
    assert sorted(r.status for r in runtime.store.deliveries()) == ["sent"] * 3


def test_a_dm_held_by_another_sender_brings_the_batch_back_later(runtime, standin, worker) -> None:
    for user in ("U1", "U2"):
        _dm(runtime.store, user)
    items = _items("U1", "U2")
    assert runtime.store.claim_delivery(TEAM, "U1", "*", period_of(datetime.now(UTC), "UTC"), claimed_by="alive:1")
    with pytest.raises(dramatiq.Retry) as retry:
        digest_queue.send_dms(items)
    assert retry.value.delay is not None and 1_000 <= retry.value.delay <= 61_000  # when the claim is stale
    assert _posted(standin) == ["U2"]


# --- pacing a batch --------------------------------------------------------------------------------


class _Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


class _CountingStore(MemoryStore):
    def __init__(self, clock: _Clock) -> None:
        super().__init__(clock)
        self.calls: list[str] = []

    def turn(self, *args: Any, **kwargs: Any) -> float:
        self.calls.append("turn")
        return super().turn(*args, **kwargs)

    def push(self, *args: Any, **kwargs: Any) -> None:
        self.calls.append("push")
        super().push(*args, **kwargs)


def test_in_a_batch_a_send_costs_one_store_call_and_the_last_end_is_told_at_its_exit() -> None:
    clock = _Clock()
    store = _CountingStore(clock)
    pacer = SendPacer(store, channel_interval_s=1.0, team_rate_per_s=None, sleep=clock.advance)
    with pacer.slot("T", "U0"):  # outside a batch: a turn, and a push when the answer came
        clock.advance(0.05)
    assert store.calls == ["turn", "push"]
    store.calls.clear()
    with pacer.batch():
        for user in ("U1", "U2", "U3"):  # starts at 100.05, 100.10, 100.15; answers 50 ms later
            with pacer.slot("T", user):
                clock.advance(0.05)
        assert store.calls == ["turn", "turn", "turn"]  # each end told with the next turn
        # U2's end (100.15) told with U3's turn: its next turn a second after its answer (101.15),
        # not after its start (101.10); it is 100.20 now
        assert store.turn("T", "U2", 1.0, 0.0) == pytest.approx(-0.95)
    assert store.calls[-1] == "push"  # U3's end, at the exit
    assert store.turn("T", "U3", 1.0, 0.0) == pytest.approx(-1.0)  # answered now: a second from now


def test_an_end_is_told_with_the_next_turn_in_the_same_atomic_redis_call(redis_url, namespace) -> None:
    from bot.digest.ratelimit import SharedPacer

    pacer = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=None)
    store = pacer.store
    assert store.turn(TEAM, "U2", 1.0, 0.0, ended=(TEAM, "U1", 5.0)) == 0.0
    assert -5.0 <= store.turn(TEAM, "U1", 1.0, 0.0) < -4.5  # U1's end was pushed by U2's turn
    assert -1.0 <= store.turn(TEAM, "U2", 1.0, 0.0) < -0.5  # and U2's own turn taken
    pacer.clear()


@pytest.fixture
def redis_url() -> str:
    from tests.digest.test_queue import _redis_or_skip

    return _redis_or_skip()


@pytest.fixture
def namespace(redis_url: str):
    import uuid

    import redis

    ns = f"vp-test-{uuid.uuid4().hex[:10]}"
    yield ns
    client = redis.Redis.from_url(redis_url)
    for key in client.scan_iter(f"{ns}*"):
        client.delete(key)


# --- the person's last DM version, read with them ----------------------------------------------------


def test_batched_dm_reads_bring_the_version_of_the_last_dm_as_the_store_reads_it(db_url) -> None:
    """Issue 41's "new since your last DM" read, batched with the person's other reads (before:
    an ORM query a DM in the worker): the same answer as the store's, for people with a DM posted
    before, between and after catalog versions, one skipped (no message) and none."""
    from datetime import timedelta

    from bot.store.dm_reads import DmReadBatcher

    t0 = datetime(2026, 12, 1, 9, 0, tzinfo=UTC)
    now = [t0]
    store = Store.from_url(db_url, clock=lambda: now[0])

    def at(hours: int) -> None:
        now[0] = t0 + timedelta(hours=hours)

    store.record_catalog_version("2026.12.01", {})
    at(1)
    store.record_catalog_version("2026.12.02", {})
    for hours, user, ts in ((2, "U1", "1.1"), (3, "U2", None), (5, "U3", "3.3")):  # U2: skipped, no message
        at(hours)
        store.claim_delivery(TEAM, user, "*", "2026-W49", claimed_by="w:1")
        if ts is None:
            store.mark_skipped(TEAM, user, "*", "2026-W49", reason="nothing", claimed_by="w:1")
        else:
            store.mark_sent(TEAM, user, "*", "2026-W49", message_ts=ts, claimed_by="w:1")
        if user == "U2":
            at(4)
            store.record_catalog_version("2026.12.03", {})  # after U1's DM, before U3's
    at(6)
    store.record_catalog_version("2026.12.04", {})  # after every DM
    people = ["U1", "U2", "U3", "U4"]
    expected = {u: store.version_of_last_dm(TEAM, u) for u in people}
    assert expected == {"U1": "2026.12.02", "U2": None, "U3": "2026.12.03", "U4": None}
    reader = DmReadBatcher(store)
    try:
        assert {u: reader.get(TEAM, u).last_version for u in people} == expected
        batched = BatchedLedgerStore(store, reads=reader)
        batched.get_dm(TEAM, "U1")
        assert batched.version_of_last_dm(TEAM, "U1") == "2026.12.02"  # read ahead with get_dm
    finally:
        reader.close()
        store.close()


# --- a fresh claim is not renewed ---------------------------------------------------------------------


class _RenewCounting:
    """The store, counting ``renew_claim`` calls; ``lost``: every renewal fails (taken over)."""

    def __init__(self, store: Store, lost: bool = False) -> None:
        self._store, self.lost, self.renewals = store, lost, 0

    def __getattr__(self, name: str) -> Any:
        return getattr(self._store, name)

    def renew_claim(self, *args: Any, **kwargs: Any) -> bool:
        self.renewals += 1
        return False if self.lost else self._store.renew_claim(*args, **kwargs)


@pytest.mark.parametrize(("renew_after_s", "renewals"), [(None, 0), (0.0, 1)])
def test_a_claim_this_sender_just_made_is_not_renewed_before_its_post(
    runtime, standin, renew_after_s, renewals
) -> None:
    _dm(runtime.store, "U1")
    counting = _RenewCounting(runtime.store)
    on_it = Runtime(runtime.settings, counting, runtime.holder, runtime.renderer)  # type: ignore[arg-type]
    d = Deliverer(on_it, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=1000), renew_after_s=renew_after_s)
    assert d.renew_after_s == (30.0 if renew_after_s is None else 0.0)  # default: a tenth of stale_after_s
    assert d.deliver_dm(TEAM, "U1", datetime.now(UTC)).outcome.value == "sent"
    assert counting.renewals == renewals and _posted(standin) == ["U1"]
    assert not d._claimed_at  # forgotten once the send is over


def test_an_older_claim_is_renewed_and_not_posted_once_another_sender_took_it(runtime, standin) -> None:
    _dm(runtime.store, "U1")
    counting = _RenewCounting(runtime.store, lost=True)
    on_it = Runtime(runtime.settings, counting, runtime.holder, runtime.renderer)  # type: ignore[arg-type]
    d = Deliverer(on_it, pacer=Pacer(channel_interval_s=0.0, team_rate_per_s=1000), renew_after_s=0.0)
    assert d.deliver_dm(TEAM, "U1", datetime.now(UTC)).outcome.value == "taken"
    assert counting.renewals == 1 and not _posted(standin)
