"""Issue 43: a queue message's DMs handled as one batch in its worker thread
(:mod:`bot.digest.dm_batch`): the people read, the keys claimed and the results recorded with one
statement each on PostgreSQL, posts in the order the pacer's turns come (one store call granting
every send that may go), a claim grown old renewed together with the batch's others, and the
exactly-once rules of a DM sent alone kept (a take-over finds an earlier post; nothing lost).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import pytest
from sqlalchemy import event

from bot.digest import dm_batch
from bot.digest.deliver import Deliverer, Pacer
from bot.digest.pacing import MemoryStore, SendPacer
from bot.domain.schedule import period_of
from bot.runtime import Runtime
from bot.store import Store
from bot.store.ledger_batch import BatchedLedgerStore
from tests.digest.conftest import TEAM, make_runtime
from tests.digest.test_dm_batches import _Clock, _dm, _posted, namespace, redis_url  # noqa: F401  (fixtures)


def _deliverer(runtime: Runtime, **kwargs: Any) -> tuple[Deliverer, BatchedLedgerStore]:
    batched = BatchedLedgerStore(runtime.store)
    on_batched = Runtime(runtime.settings, batched, runtime.holder, runtime.renderer)
    pacer = kwargs.pop("pacer", None) or Pacer(channel_interval_s=0.0, team_rate_per_s=1000)
    return Deliverer(on_batched, pacer=pacer, stale_after_s=60, **kwargs), batched


def _statements(store: Store) -> list[str]:
    """Every SQL statement run on ``store``'s engine from now on (SQLAlchemy's and the batchers' own
    connections: psycopg's are counted by the ``cursor.execute`` of their connections' cursors)."""
    seen: list[str] = []
    event.listen(store.engine, "before_cursor_execute", lambda *a, **k: seen.append(str(a[2])))
    return seen


def test_a_batch_reads_claims_and_records_once_each_on_postgresql(pg_url, standin, holder, monkeypatch) -> None:
    from bot.store import batching

    runtime = make_runtime(pg_url, standin, holder)
    store = runtime.store
    users = [f"U{i}" for i in range(10)]
    for user in users:
        _dm(store, user)
    ran: list[str] = []
    real_rows = batching.DriverConnection.rows

    def counting(self: Any, statement: Any, params: Any = None) -> list[Any]:
        sql = statement[0] if isinstance(statement, tuple) else str(statement)
        ran.append(sql.split()[0] + (" claim" if "INSERT" in sql else ""))
        return real_rows(self, statement, params)

    monkeypatch.setattr(batching.DriverConnection, "rows", counting)
    deliverer, batched = _deliverer(runtime)
    seen = _statements(store)
    try:
        fire = datetime.now(UTC)
        attempts = dm_batch.deliver_dms(deliverer, [(TEAM, user, fire) for user in users])
    finally:
        batched.close()
    assert [a.outcome.value for a in attempts] == ["sent"] * 10
    assert sorted(_posted(standin)) == sorted(users)
    assert ran == ["SELECT", "INSERT claim", "UPDATE"]  # the people, the claims, the sent marks
    assert seen == []  # nothing through SQLAlchemy's pool per DM
    assert sorted(r.status for r in store.deliveries()) == ["sent"] * 10
    assert all(r.message_ts for r in store.deliveries())
    store.close()


def test_a_batch_delivered_again_posts_nothing_and_a_taken_over_claim_finds_its_earlier_post(runtime, standin) -> None:
    for user in ("U1", "U2", "U3"):
        _dm(runtime.store, user)
    deliverer, batched = _deliverer(runtime)
    fire = datetime.now(UTC)
    items = [(TEAM, user, fire) for user in ("U1", "U2", "U3")]
    try:
        # U2's sender died after its post, before recording it: its claim is stale now
        period = period_of(fire, "UTC")
        dead = _deliverer(runtime)[0]
        assert runtime.store.claim_delivery(TEAM, "U2", "*", period, claimed_by=dead.claimant)
        dead.clients.for_team(TEAM).chat_postMessage(
            channel="U2",
            text="digest",
            metadata={"event_type": "vllm_path_digest", "event_payload": {"key": f"{TEAM}/U2/*/{period}"}},
        )
        deliverer.stale_after_s = 0.0
        got = dm_batch.deliver_dms(deliverer, items)
        assert [a.outcome.value for a in got] == ["sent", "recovered", "sent"]
        assert sorted(_posted(standin)) == ["U1", "U2", "U3"]  # U2 once: found, not posted again
        again = dm_batch.deliver_dms(deliverer, items)  # redelivered: all sent already
        assert [a.outcome.value for a in again] == ["taken"] * 3
        assert sorted(_posted(standin)) == ["U1", "U2", "U3"]
    finally:
        batched.close()
    assert sorted(r.status for r in runtime.store.deliveries()) == ["sent"] * 3


def test_an_old_claim_is_renewed_with_the_batchs_others_and_a_lost_one_is_not_posted(runtime, standin) -> None:
    for user in ("U1", "U2", "U3"):
        _dm(runtime.store, user)
    deliverer, batched = _deliverer(runtime, renew_after_s=0.0)  # every claim counts as old
    renewals: list[list[str]] = []
    many = batched.mark_many

    def counting(kind: str, marks: list[Any], claimed_by: str) -> set[Any]:
        if kind == "renew":
            renewals.append([key[1] for key, _ in marks])
            if len(renewals) == 1:  # another sender took U3 over meanwhile
                runtime.store.mark_failed(TEAM, "U3", "*", marks[0][0][3], error="x")
                runtime.store.claim_delivery(TEAM, "U3", "*", marks[0][0][3], claimed_by="other:1", max_attempts=9)
        return many(kind, marks, claimed_by)

    batched.mark_many = counting  # type: ignore[method-assign]
    fire = datetime.now(UTC)
    try:
        got = dm_batch.deliver_dms(deliverer, [(TEAM, u, fire) for u in ("U1", "U2", "U3")])
    finally:
        batched.close()
    assert renewals[0] == ["U1", "U2", "U3"]  # the first post renewed all three at once
    assert [a.outcome.value for a in got] == ["sent", "sent", "taken"]
    assert _posted(standin) == ["U1", "U2"]


def test_a_batch_posts_in_the_order_its_turns_come() -> None:
    clock = _Clock()
    store = MemoryStore(clock)
    pacer = SendPacer(store, channel_interval_s=1.0, team_rate_per_s=1.0, sleep=clock.advance, clock=clock)
    store.turn("T1", "Ux", 1.0, 1.0)  # T1's next turn a second from now
    order: list[tuple[str, float]] = []
    sends = [("T1", "U1"), ("T2", "U2"), ("T2", "U3"), ("T3", "U4")]
    pacer.each_in_turn(sends, lambda i: order.append((sends[i][1], clock.now)))
    assert order == [("U2", 100.0), ("U4", 100.0), ("U1", 101.0), ("U3", 101.0)]


def test_a_batch_books_its_turns_in_one_store_call_and_sends_each_in_its_own() -> None:
    clock = _Clock()
    asked: list[int] = []

    class Counting(MemoryStore):
        def reserve(self, sends: Any, *args: Any) -> list[float]:
            asked.append(len(sends))
            return super().reserve(sends, *args)

    pacer = SendPacer(Counting(clock), channel_interval_s=1.0, team_rate_per_s=10.0, sleep=clock.advance, clock=clock)
    sends = [("T1", f"U{i}") for i in range(30)]  # one workspace, a turn each 100 ms
    at: list[float] = []
    pacer.each_in_turn(sends, lambda i: at.append(clock.now))
    assert len(at) == 30
    assert [round(t - 100.0, 3) for t in at] == [round(0.1 * i, 3) for i in range(30)]  # never two in a turn
    assert asked == [30, 9]  # the turns within the horizon (2 s: 21 of them) booked at once, then the rest


def test_a_destination_answered_late_waits_its_interval_from_the_answer() -> None:
    clock = _Clock()
    pushed: list[str] = []

    class Counting(MemoryStore):
        def push(self, team: str, key: str | None, seconds: float) -> None:
            pushed.append(str(key))
            super().push(team, key, seconds)

    store = Counting(clock)
    pacer = SendPacer(store, channel_interval_s=1.0, team_rate_per_s=10.0, sleep=clock.advance, clock=clock)
    pacer.each_in_turn([("T1", "U1")], lambda i: clock.advance(2.5))  # Slack answered 2.5 s after the turn
    # past the booked interval and pad (100.0 + 1 + 2 = 103.0): its end told, a second from the answer
    assert pushed == ["U1"]
    assert store.turn("T1", "U1", 1.0, 0.1) == pytest.approx(-1.0)
    pacer.each_in_turn([("T2", "U2")], lambda i: clock.advance(0.05))  # answered within them
    assert pushed == ["U1"]  # no store call for its end: the booked next turn covers it
    assert store.turn("T2", "U2", 1.0, 0.1) < -1.0


def test_a_batchs_turns_are_one_atomic_redis_call(redis_url, namespace) -> None:  # noqa: F811
    from bot.digest.ratelimit import SharedPacer

    pacer = SharedPacer(redis_url, namespace=namespace, team_rate_per_s=2.0)
    store = pacer.store
    calls: list[int] = []
    real = store._reserve
    store._reserve = lambda **kw: calls.append(1) or real(**kw)  # type: ignore[method-assign]
    try:
        assert store.turn("T1", "Ux", 1.0, 0.5) == 0.0  # T1 busy for half a second
        answers = store.reserve([("T1", "U1"), ("T2", "U2"), ("T2", "U3")], 1.0, 0.5, 0.6)
        assert calls == [1]  # one round trip for the three sends
        assert 0.4 < answers[0] <= 0.5 and answers[1] == 0.0 and 0.4 < answers[2] <= 0.5  # all three booked
        assert -1.0 <= store.reserve([("T2", "U4")], 1.0, 0.5, 0.6)[0] < -0.9  # T2's next turn is past the horizon
        assert 0.4 < store.turn("T2", "U5", 1.0, 0.5) <= 1.0  # the booked turns are taken for everyone
        store.push("T3", "U6", 3.0)
        assert -3.0 <= store.reserve([("T3", "U6")], 1.0, 0.5, 0.6)[0] < -2.9  # the destination's own wait
        assert store.reserve([], 1.0, 0.5, 0.6) == []
    finally:
        pacer.clear()


@pytest.mark.parametrize("team_rate", [None, 1000.0])
def test_a_batch_through_the_queue_pacer_sends_each_once(runtime, standin, team_rate) -> None:
    for user in ("U1", "U2"):
        _dm(runtime.store, user)
    deliverer, batched = _deliverer(runtime, pacer=Pacer(channel_interval_s=0.01, team_rate_per_s=team_rate))
    fire = datetime.now(UTC)
    try:
        got = dm_batch.deliver_dms(deliverer, [(TEAM, "U1", fire), (TEAM, "U2", fire), (TEAM, "U1", fire)])
    finally:
        batched.close()
    assert [a.outcome.value for a in got] == ["sent", "sent", "taken"]
    assert sorted(_posted(standin)) == ["U1", "U2"]


def test_a_send_whose_turn_went_by_while_its_thread_was_held_up_asks_again() -> None:
    import time

    asked: list[int] = []

    class Counting(MemoryStore):
        def reserve(self, sends: Any, *args: Any) -> list[float]:
            asked.append(len(sends))
            return super().reserve(sends, *args)

    pacer = SendPacer(Counting(), channel_interval_s=0.0, team_rate_per_s=20.0)  # a turn each 50 ms
    sent: list[tuple[int, int]] = []
    pacer.each_in_turn([("T1", "U1"), ("T2", "U2")], lambda i: (sent.append((i, len(asked))), time.sleep(0.15)))
    assert sent[0] == (0, 1) and sent[1][0] == 1
    assert sent[1][1] > 1  # U2's turn, booked with U1's, went by (two turns, 100 ms): asked anew
    assert asked[:2] == [2, 1]
