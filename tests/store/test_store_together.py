"""Issue 44's store (SQLite and PostgreSQL): a club digest is remembered once, a ✅ marks its
steps read once per person, the readers of the latest digest are counted, a nudge is claimed at
most once per fortnight, a pause is kept, and planners are readers with a plan and not ``dm off``."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.domain.schedule import WeeklySchedule
from bot.store import Store
from tests.dbutil import DB_KINDS, migrated_database_url

T = "T0TOG"
NOW = datetime(2026, 12, 7, 9, 0, tzinfo=UTC)


CLOCK = [NOW]


@pytest.fixture(params=DB_KINDS)
def store(request, tmp_path) -> Iterator[Store]:
    CLOCK[0] = NOW
    with migrated_database_url(request.param, tmp_path) as url:
        s = Store.from_url(url, clock=lambda: CLOCK[0])
        yield s
        s.close()


def test_club_marks_are_once_per_person_and_counted_for_the_latest_digest(store: Store) -> None:
    sub = store.subscribe(T, "C1", "spec", WeeklySchedule.of(0, "09:00", "UTC"), club=True)
    assert store.get_subscription(sub.id).club is True
    assert store.record_club_digest(T, "C1", "1.1", sub.id, ("spec-decode", "eagle-3-1"))
    assert not store.record_club_digest(T, "C1", "1.1", sub.id, ("spec-decode",))  # the thread opens once
    assert store.club_mark(T, "C1", "1.1", "U1") == {"spec-decode", "eagle-3-1"}
    assert store.club_mark(T, "C1", "1.1", "U1") is None
    assert store.club_mark(T, "C1", "9.9", "U2") is None  # not a club digest
    assert store.club_mark("T0OTHER", "C1", "1.1", "U3") is None  # another workspace's message
    assert store.club_readers_last(sub.id) == 1
    CLOCK[0] = NOW + timedelta(days=7)
    assert store.record_club_digest(T, "C1", "2.2", sub.id, ("p-eagle",))
    assert store.club_readers_last(sub.id) == 0  # the latest digest, not the first
    assert store.subscribe(T, "C1", "spec", WeeklySchedule.of(0, "09:00", "UTC")).club is True  # kept


def test_a_nudge_is_claimed_once_a_fortnight_and_a_pause_is_kept(store: Store) -> None:
    every = timedelta(days=14)
    assert store.claim_nudge(T, "U1", NOW, every)
    assert not store.claim_nudge(T, "U1", NOW + timedelta(days=13), every)
    assert store.claim_nudge(T, "U1", NOW + every, every)
    store.pause_plan(T, "U1", NOW + every)
    facts = store.habit_facts(T, "U1")
    assert facts.pauses == ((NOW, NOW + every),) and facts.nudged_at == NOW + every


def test_planners_have_a_plan_and_not_dm_off(store: Store) -> None:
    for user in ("U1", "U2", "U3", "U4"):
        store.follow(T, user, "spec")
    store.set_dm(T, "U1", True)
    store.set_budget(T, "U2", 30)
    store.set_budget(T, "U3", 30)
    store.set_dm(T, "U3", False)  # dm off wins over a budget
    store.set_budget(T, "U5", 30)  # a budget without a followed track: no plan to fall behind
    assert store.planners() == [(T, "U1"), (T, "U2")]
    assert store.habit_facts(T, "U3").dm_off and not store.habit_facts(T, "U4").dm_off
