"""The delivery ledger, Slack event de-duplication and catalog versions, including real
concurrency: several threads, each with its own engine (as separate processes would have)."""

from __future__ import annotations

import threading
from collections.abc import Callable
from datetime import datetime, timedelta

import pytest
from sqlalchemy import event as sa_event
from sqlalchemy import select

from bot.domain.schedule import WeeklySchedule
from bot.store import Store, make_engine, utcnow
from bot.store.models import ProcessedEvent
from tests.dbutil import set_cursor
from tests.waits import PATIENCE_S

KEY = ("T1", "C1", "perf", "2026-W49")


def _race(
    db_url: str, n: int, action: Callable[[Store, int], bool], clock: Callable[[], datetime] = utcnow
) -> list[bool]:
    """Run ``action(store_i, i)`` in ``n`` threads released together; each has its own engine."""
    stores = [Store(make_engine(db_url), owns_engine=True, clock=clock) for _ in range(n)]
    for s in stores:  # open a pooled connection up front so the race is on the claim itself
        with s.engine.connect():
            pass
    barrier = threading.Barrier(n)
    results: list[bool | BaseException] = [False] * n

    def run(i: int) -> None:
        try:
            barrier.wait(timeout=PATIENCE_S)
            results[i] = action(stores[i], i)
        except BaseException as exc:  # surfaced below
            results[i] = exc

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    for s in stores:
        s.close()
    errors = [r for r in results if isinstance(r, BaseException)]
    assert not errors, errors
    return results  # type: ignore[return-value]


def test_first_claim_wins_and_a_second_loses(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.claim_delivery(*KEY, claimed_by="host:1") is True
    assert store.claim_delivery(*KEY, claimed_by="host:2") is False
    row = store.delivery(*KEY)
    assert row is not None
    assert (row.status, row.claimed_by, row.attempts, row.claimed_at) == ("claimed", "host:1", 1, clock.now)


def test_concurrent_claims_have_exactly_one_winner(store: Store, store_url: str) -> None:
    results = _race(store_url, 8, lambda s, i: s.claim_delivery(*KEY, claimed_by=f"worker-{i}"))
    assert results.count(True) == 1
    winner = f"worker-{results.index(True)}"
    row = store.delivery(*KEY)
    assert row is not None and row.claimed_by == winner and row.attempts == 1


def test_concurrent_claims_on_many_keys_each_have_one_winner(store: Store, store_url: str) -> None:
    periods = [f"2026-W{w:02d}" for w in range(40, 46)]

    def claim_all(s: Store, i: int) -> bool:
        wins = [s.claim_delivery("T1", "C1", "perf", p, claimed_by=f"w{i}") for p in periods]
        return sum(wins)  # type: ignore[return-value]

    results = _race(store_url, 6, claim_all)
    assert sum(results) == len(periods)
    assert len(store.deliveries()) == len(periods)


def test_concurrent_stale_takeover_has_exactly_one_winner(store: Store, store_url: str, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.claim_delivery(*KEY, claimed_by="crashed")
    later = clock.now + timedelta(seconds=61)
    results = _race(
        store_url, 8, lambda s, i: s.claim_delivery(*KEY, claimed_by=f"w{i}", stale_after_s=60), clock=lambda: later
    )
    assert results.count(True) == 1
    row = store.delivery(*KEY)
    assert row is not None and row.claimed_by == f"w{results.index(True)}" and row.attempts == 2


def test_stale_claim_is_reclaimed_only_after_stale_after_s(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.claim_delivery(*KEY, claimed_by="crashed", stale_after_s=600)
    clock.advance(599)
    assert store.claim_delivery(*KEY, claimed_by="p2", stale_after_s=600) is False
    clock.advance(2)
    assert store.claim_delivery(*KEY, claimed_by="p2", stale_after_s=600) is True
    assert store.claim_delivery(*KEY, claimed_by="p3", stale_after_s=600) is False
    row = store.delivery(*KEY)
    assert row is not None and (row.claimed_by, row.attempts, row.claimed_at) == ("p2", 2, clock.now)


def test_sent_is_never_reclaimed(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.claim_delivery(*KEY, claimed_by="p1")
    assert store.mark_sent(*KEY, message_ts="1700000000.000100") is True
    clock.advance(10 * 86400)
    assert store.claim_delivery(*KEY, claimed_by="p2", stale_after_s=0) is False
    assert store.mark_sent(*KEY, message_ts="other") is False
    assert store.mark_failed(*KEY, error="late") is False
    row = store.delivery(*KEY)
    assert row is not None
    assert (row.status, row.message_ts, row.claimed_by) == ("sent", "1700000000.000100", "p1")
    assert row.sent_at is not None


def test_failed_delivery_is_retried_up_to_max_attempts(store: Store) -> None:
    assert store.claim_delivery(*KEY, claimed_by="p1")
    assert store.mark_failed(*KEY, error="ratelimited" * 200) is True
    row = store.delivery(*KEY)
    assert row is not None and row.status == "failed" and len(row.error or "") == 1000
    assert store.claim_delivery(*KEY, claimed_by="p1", max_attempts=3) is True  # attempt 2
    assert store.mark_failed(*KEY, error="again")
    assert store.claim_delivery(*KEY, claimed_by="p1", max_attempts=3) is True  # attempt 3
    assert store.mark_failed(*KEY, error="and again")
    assert store.claim_delivery(*KEY, claimed_by="p1", max_attempts=3) is False
    assert store.delivery(*KEY).attempts == 3  # type: ignore[union-attr]


def test_mark_sent_checks_the_claimant_when_asked(store: Store) -> None:
    assert store.claim_delivery(*KEY, claimed_by="p1")
    assert store.mark_sent(*KEY, claimed_by="p2") is False
    assert store.mark_sent(*KEY, claimed_by="p1") is True


def test_mark_sent_without_a_claim_does_nothing(store: Store) -> None:
    assert store.mark_sent(*KEY) is False
    assert store.delivery(*KEY) is None


def test_ledger_is_isolated_between_teams(store: Store) -> None:
    assert store.claim_delivery("T1", "C1", "perf", "2026-W49", claimed_by="p")
    assert store.claim_delivery("T2", "C1", "perf", "2026-W49", claimed_by="p")
    assert store.claim_delivery("T1", "U1", "*", "2026-W49", claimed_by="p")
    assert store.claim_delivery("T1", "C1", "perf", "2026-W50", claimed_by="p")
    assert len(store.deliveries(period="2026-W49")) == 3
    assert len([d for d in store.deliveries(period="2026-W49") if d.team_id == "T2"]) == 1
    assert len(store.deliveries()) == 4


@pytest.mark.parametrize("period", ["2026-49", "2026-W54", "W49", ""])
def test_claim_rejects_malformed_periods(store: Store, period: str) -> None:
    with pytest.raises(ValueError):
        store.claim_delivery("T1", "C1", "perf", period, claimed_by="p")


def test_record_event_is_true_once(store: Store) -> None:
    assert store.record_event("Ev1", "T1") is True
    assert store.record_event("Ev1", "T1") is False
    assert store.record_event("Ev2", "T1") is True


def test_record_event_under_concurrency(store: Store, store_url: str) -> None:
    results = _race(store_url, 8, lambda s, i: s.record_event("EvRace", "T1"))
    assert results.count(True) == 1


def _event_ids(store: Store) -> set[str]:
    with store.engine.connect() as conn:
        return set(conn.execute(select(ProcessedEvent.c.event_id)).scalars())


def test_prune_events_forgets_old_ids_and_keeps_recent_ones(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    store.record_event("EvOld", "T1")
    clock.advance(timedelta(hours=2).total_seconds())
    cutoff = clock.now  # received exactly at the cutoff: kept (only older rows go)
    store.record_event("EvAtCutoff", "T1")
    clock.advance(60)
    store.record_event("EvNew", "T1")
    assert store.prune_events(cutoff) == 1
    assert _event_ids(store) == {"EvAtCutoff", "EvNew"}
    assert store.record_event("EvNew", "T1") is False  # a retry of a recent event is still a duplicate
    assert store.prune_events(cutoff) == 0
    with pytest.raises(ValueError):
        store.prune_events(datetime(2026, 12, 1))  # naive


def test_prune_events_deletes_in_bounded_batches(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    for i in range(7):
        store.record_event(f"EvOld{i}", "T1")
    clock.advance(3600)
    store.record_event("EvNew", "T1")
    deletes: list[int] = []

    def count(conn, cursor, statement, params, context, executemany) -> None:  # type: ignore[no-untyped-def]
        if statement.lstrip().upper().startswith("DELETE"):
            deletes.append(cursor.rowcount)

    sa_event.listen(store.engine, "after_cursor_execute", count)
    try:
        assert store.prune_events(clock.now, batch=3) == 7
    finally:
        sa_event.remove(store.engine, "after_cursor_execute", count)
    assert deletes == [3, 3, 1]  # one short transaction per batch, none holding all rows
    assert _event_ids(store) == {"EvNew"}


def test_catalog_versions(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.latest_catalog_version() is None
    assert store.catalog_snapshot("v1") is None
    assert store.record_catalog_version("v1", {"perf": ["a", "b"], "intro": []}) is True
    assert store.record_catalog_version("v1", {"perf": ["changed"]}) is False
    clock.advance(timedelta(days=1).total_seconds())
    assert store.record_catalog_version("v2", {"perf": ["a", "c", "b"]}) is True
    assert store.catalog_snapshot("v1") == {"perf": ["a", "b"], "intro": []}
    assert store.catalog_snapshot("v2") == {"perf": ["a", "c", "b"]}
    assert store.latest_catalog_version() == "v2"
    with pytest.raises(ValueError):
        store.record_catalog_version("v3", {"perf": "abc"})  # type: ignore[dict-item]


def test_versions_first_seen_together_are_ordered_as_numbers(store: Store) -> None:
    # The clock fixture does not move between the two records: both are first seen at one instant.
    assert store.record_catalog_version("2026.12.9", {}) is True
    assert store.record_catalog_version("2026.12.10", {}) is True
    assert store.latest_catalog_version() == "2026.12.10"


def test_concurrent_subscribes_make_one_row(store: Store, store_url: str) -> None:
    subs = _race(store_url, 8, lambda s, i: s.subscribe("T1", "C1", "perf", WeeklySchedule.of(i % 7, "09:00", "UTC")))
    assert len({sub.id for sub in subs}) == 1  # type: ignore[attr-defined]
    assert len(store.subscriptions("T1")) == 1


# --- the scheduler's additions: skipped periods, claim renewal, cursor set absolutely -----------


def test_skip_delivery_settles_a_period_without_a_message(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.skip_delivery(*KEY, reason="snoozed", claimed_by="p1") is True
    assert store.skip_delivery(*KEY, reason="snoozed", claimed_by="p1") is False
    row = store.delivery(*KEY)
    assert row is not None
    assert (row.status, row.message_ts, row.error, row.attempts) == ("sent", None, "skipped: snoozed", 0)
    clock.advance(86400)
    assert store.claim_delivery(*KEY, claimed_by="p2", stale_after_s=0) is False


def test_skip_delivery_leaves_an_existing_claim_alone(store: Store) -> None:
    assert store.claim_delivery(*KEY, claimed_by="p1")
    assert store.skip_delivery(*KEY, reason="snoozed", claimed_by="p2") is False
    assert store.delivery(*KEY).status == "claimed"  # type: ignore[union-attr]


def test_mark_skipped_settles_only_a_claim(store: Store) -> None:
    assert store.mark_skipped(*KEY, reason="nothing new") is False
    assert store.claim_delivery(*KEY, claimed_by="p1")
    assert store.mark_skipped(*KEY, reason="nothing new", claimed_by="p2") is False
    assert store.mark_skipped(*KEY, reason="nothing new", claimed_by="p1") is True
    row = store.delivery(*KEY)
    assert row is not None and (row.status, row.error) == ("sent", "skipped: nothing new")
    assert store.claim_delivery(*KEY, claimed_by="p3", stale_after_s=0) is False


def test_renew_claim_keeps_a_slow_sender_from_being_taken_over(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.claim_delivery(*KEY, claimed_by="slow", stale_after_s=600)
    clock.advance(500)
    assert store.renew_claim(*KEY, claimed_by="slow") is True
    clock.advance(500)  # 1000 s after the claim, 500 s after the renewal
    assert store.claim_delivery(*KEY, claimed_by="other", stale_after_s=600) is False
    assert store.renew_claim(*KEY, claimed_by="other") is False
    clock.advance(101)
    assert store.claim_delivery(*KEY, claimed_by="other", stale_after_s=600) is True
    assert store.renew_claim(*KEY, claimed_by="slow") is False  # taken over: must not send


def test_mark_sent_at_cursor_sets_the_cursor_once(store: Store) -> None:
    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"), 2)
    set_cursor(store, sub.id, 5, "v1")
    assert (
        store.mark_sent_at_cursor(*KEY, "1.1", subscription_id=sub.id, cursor=3, catalog_version="v2") is False
    )  # not claimed
    assert store.get_subscription(sub.id).cursor == 5  # type: ignore[union-attr]
    assert store.claim_delivery(*KEY, claimed_by="p1")
    assert (
        store.mark_sent_at_cursor(*KEY, "1.1", subscription_id=sub.id, cursor=3, catalog_version="v2", claimed_by="p1")
        is True
    )
    after = store.get_subscription(sub.id)
    assert after is not None and (after.cursor, after.last_catalog_version) == (3, "v2")
    assert store.delivery(*KEY).message_ts == "1.1"  # type: ignore[union-attr]
    with pytest.raises(ValueError):
        store.mark_sent_at_cursor(*KEY, "1.1", subscription_id=sub.id, cursor=-1, catalog_version=None)
