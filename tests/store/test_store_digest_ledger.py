"""Ledger methods added for the digest clock: skip a period, settle a claim as skipped, renew a
claim before sending, and set a subscription's cursor with the send (SQLite and PostgreSQL)."""

from __future__ import annotations

import pytest

from bot.domain.schedule import WeeklySchedule
from bot.store import Store
from tests.dbutil import set_cursor

KEY = ("T1", "C1", "perf", "2026-W49")


def test_skip_delivery_settles_a_free_period_so_no_claim_succeeds(store: Store, clock) -> None:
    assert store.skip_delivery(*KEY, reason="snoozed by U1", claimed_by="user:U1") is True
    row = store.delivery(*KEY)
    assert (row.status, row.message_ts, row.error, row.sent_at) == ("sent", None, "skipped: snoozed by U1", clock.now)
    assert store.claim_delivery(*KEY, claimed_by="host:1", stale_after_s=0) is False
    assert store.skip_delivery(*KEY, reason="again", claimed_by="user:U2") is False
    assert store.delivery(*KEY).error == "skipped: snoozed by U1"


def test_skip_delivery_leaves_an_existing_row_alone(store: Store) -> None:
    assert store.claim_delivery(*KEY, claimed_by="host:1")
    assert store.skip_delivery(*KEY, reason="snoozed", claimed_by="user:U1") is False
    assert store.delivery(*KEY).status == "claimed"


def test_skip_delivery_validates(store: Store) -> None:
    with pytest.raises(ValueError):
        store.skip_delivery("T1", "C1", "perf", "2026-49", reason="x", claimed_by="u")
    with pytest.raises(ValueError):
        store.skip_delivery("T1", "C1", "perf", "2026-W49", reason="", claimed_by="u")


def test_mark_skipped_settles_only_the_claimants_claim(store: Store) -> None:
    assert store.claim_delivery(*KEY, claimed_by="host:1")
    assert store.mark_skipped(*KEY, reason="nothing new", claimed_by="host:2") is False
    assert store.mark_skipped(*KEY, reason="nothing new", claimed_by="host:1") is True
    row = store.delivery(*KEY)
    assert (row.status, row.error) == ("sent", "skipped: nothing new")
    assert store.mark_skipped(*KEY, reason="again") is False


def test_renew_claim_keeps_a_waiting_claim_from_going_stale(store: Store, clock) -> None:
    assert store.claim_delivery(*KEY, claimed_by="host:1")
    clock.advance(500)
    assert store.renew_claim(*KEY, claimed_by="host:1") is True
    assert store.delivery(*KEY).claimed_at == clock.now
    clock.advance(200)  # 700 s after the claim, 200 s after the renewal: not stale at 600
    assert store.claim_delivery(*KEY, claimed_by="host:2", stale_after_s=600) is False
    clock.advance(401)
    assert store.claim_delivery(*KEY, claimed_by="host:2", stale_after_s=600) is True
    assert store.renew_claim(*KEY, claimed_by="host:1") is False  # taken over: do not send


def test_mark_sent_at_cursor_sets_the_cursor_in_the_same_transaction(store: Store) -> None:
    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    set_cursor(store, sub.id, 5, "2026.11.0")
    assert store.claim_delivery(*KEY, claimed_by="host:1")
    assert (
        store.mark_sent_at_cursor(
            *KEY, message_ts="1.2", subscription_id=sub.id, cursor=3, catalog_version="2026.12.0", claimed_by="host:1"
        )
        is True
    )
    after = store.get_subscription(sub.id)
    assert (after.cursor, after.last_catalog_version) == (3, "2026.12.0")
    assert store.delivery(*KEY).message_ts == "1.2"
    # Not claimed (already sent): nothing changes.
    assert (
        store.mark_sent_at_cursor(*KEY, message_ts="9.9", subscription_id=sub.id, cursor=9, catalog_version=None)
        is False
    )
    assert store.get_subscription(sub.id).cursor == 3
    with pytest.raises(ValueError):
        store.mark_sent_at_cursor(*KEY, message_ts=None, subscription_id=sub.id, cursor=-1, catalog_version=None)
