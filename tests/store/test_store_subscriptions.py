"""Channel subscriptions and DM digest settings."""

from __future__ import annotations

from datetime import timedelta, timezone

import pytest

from bot.domain.schedule import WeeklySchedule
from bot.store import Store
from tests.dbutil import set_cursor


def test_subscribe_creates_then_updates_in_place(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "Europe/Paris"), created_by="U1")
    assert (sub.weekday, sub.at_time, sub.timezone, sub.steps_per_week, sub.cursor) == (
        0,
        "09:00",
        "Europe/Paris",
        1,
        0,
    )
    assert sub.active and sub.created_by == "U1" and sub.last_catalog_version is None
    assert sub.created_at == sub.updated_at == clock.now

    clock.advance(60)
    again = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "Europe/Paris"), created_by="U2")
    assert again == sub  # identical arguments change nothing, not even updated_at

    set_cursor(store, sub.id, 2, "v1")
    clock.advance(60)
    changed = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(4, "17:30", "Asia/Shanghai"), 3)
    assert changed.id == sub.id
    assert (changed.weekday, changed.at_time, changed.timezone, changed.steps_per_week) == (
        4,
        "17:30",
        "Asia/Shanghai",
        3,
    )
    assert changed.cursor == 2 and changed.created_by == "U1"
    assert changed.updated_at == clock.now
    assert len(store.subscriptions("T1")) == 1


def test_resubscribing_reactivates_a_paused_subscription(store: Store) -> None:
    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    assert store.pause_subscription(sub.id, "channel archived") is True
    paused = store.get_subscription(sub.id)
    assert paused is not None and paused.status == "paused"
    assert paused.pause_reason == "channel archived"
    assert store.active_subscriptions() == []
    again = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    assert again.status == "active" and again.pause_reason is None


def test_pause_and_resume(store: Store) -> None:
    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    assert store.pause_subscription(sub.id, "bot removed") is True
    assert store.get_subscription(sub.id).pause_reason == "bot removed"  # type: ignore[union-attr]
    assert store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC")).active  # resumes
    assert store.pause_subscription(9999, "x") is False


def test_subscriptions_are_isolated_between_teams(store: Store) -> None:
    a = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    b = store.subscribe("T2", "C1", "perf", WeeklySchedule.of(3, "10:00", "UTC"))
    assert a.id != b.id
    assert [s.id for s in store.subscriptions("T1")] == [a.id]
    assert [s.id for s in store.subscriptions("T2", channel="C1")] == [b.id]
    assert store.get_subscription(a.id, team="T2") is None
    assert store.get_subscription(a.id, team="T1") == a
    assert store.unsubscribe("T2", "C1", "perf") is True
    assert store.unsubscribe("T2", "C1", "perf") is False
    assert [s.id for s in store.active_subscriptions()] == [a.id]


def test_subscriptions_filter_by_channel_and_list_active_across_teams(store: Store) -> None:
    store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    store.subscribe("T1", "C1", "intro", WeeklySchedule.of(0, "09:00", "UTC"))
    store.subscribe("T1", "C2", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    store.subscribe("T2", "C9", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    assert [s.track_id for s in store.subscriptions("T1", "C1")] == ["intro", "perf"]
    assert [(s.team_id, s.channel_id) for s in store.active_subscriptions()] == [
        ("T1", "C1"),
        ("T1", "C1"),
        ("T1", "C2"),
        ("T2", "C9"),
    ]


def test_set_cursor_in_keeps_the_catalog_version_when_none(store: Store) -> None:
    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"), 2)
    assert set_cursor(store, sub.id, 2, "v1")
    assert set_cursor(store, sub.id, 3)
    after = store.get_subscription(sub.id)
    assert after is not None and (after.cursor, after.last_catalog_version) == (3, "v1")
    assert set_cursor(store, 9999, 1) is False


@pytest.mark.parametrize(
    "kwargs",
    [
        {"weekday": 7},
        {"weekday": -1},
        {"at_time": "9:00"},
        {"at_time": "24:00"},
        {"timezone": "Mars/Olympus"},
        {"timezone": ""},
        {"steps_per_week": 0},
        {"steps_per_week": 4},
    ],
)
def test_subscribe_rejects_bad_schedules(store: Store, kwargs: dict) -> None:
    args = {"weekday": 0, "at_time": "09:00", "timezone": "UTC", "steps_per_week": 1} | kwargs
    steps = args.pop("steps_per_week")
    with pytest.raises(ValueError):  # pydantic's ValidationError is a ValueError
        store.subscribe("T1", "C1", "perf", WeeklySchedule(**args), steps_per_week=steps)
    assert store.subscriptions("T1") == []


def test_database_constraints_back_up_the_checks(store: Store) -> None:
    """The CHECK constraints hold even for writes that bypass the repository."""
    import sqlalchemy as sa

    sub = store.subscribe("T1", "C1", "perf", WeeklySchedule.of(0, "09:00", "UTC"))
    with pytest.raises(sa.exc.IntegrityError), store.engine.begin() as conn:
        conn.execute(sa.text("UPDATE channel_subscriptions SET steps_per_week = 9 WHERE id = :i"), {"i": sub.id})


def test_dm_settings_defaults_updates_and_isolation(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    assert store.get_dm("T1", "U1") is None
    dm = store.set_dm("T1", "U1", True)
    assert (dm.enabled, dm.weekday, dm.at_time, dm.timezone, dm.status) == (True, 0, "09:00", "UTC", "active")
    clock.advance(10)
    assert store.set_dm("T1", "U1", True) == dm  # no change, no new updated_at
    dm = store.set_dm("T1", "U1", True, schedule=WeeklySchedule.of(4, "18:15", "Asia/Tokyo"))
    assert (dm.weekday, dm.at_time, dm.timezone) == (4, "18:15", "Asia/Tokyo")
    dm = store.set_dm("T1", "U1", False)
    assert not dm.enabled and (dm.weekday, dm.at_time) == (4, "18:15")
    assert store.get_dm("T2", "U1") is None
    with pytest.raises(ValueError):
        store.set_dm("T1", "U1", True, schedule=WeeklySchedule(at_time="noon"))
    with pytest.raises(ValueError):
        store.set_dm("T1", "U1", True, schedule=(0, "09:00", "UTC"))  # type: ignore[arg-type]


def test_dm_recipients_skip_disabled_paused_and_snoozed(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    for user in ("U1", "U2", "U3", "U4"):
        store.set_dm("T1", user, True)
    store.set_dm("T2", "U1", True)
    store.set_dm("T1", "U2", False)
    assert store.pause_dm("T1", "U3", "user deactivated") is True
    until = clock.now + timedelta(days=7)
    assert store.snooze_dm("T1", "U4", until) is True
    assert store.get_dm("T1", "U4").snoozed_until == until  # type: ignore[union-attr]
    assert [(d.team_id, d.user_id) for d in store.dm_recipients()] == [("T1", "U1"), ("T2", "U1")]
    later = until + timedelta(seconds=1)
    assert [d.user_id for d in store.dm_recipients(at=later) if d.team_id == "T1"] == ["U1", "U4"]
    assert store.set_dm("T1", "U3", True).status == "active"  # enabling resumes a paused digest
    assert [d.user_id for d in store.dm_recipients() if d.team_id == "T1"] == ["U1", "U3"]
    assert store.snooze_dm("T1", "U4", None) is True
    assert [d.user_id for d in store.dm_recipients() if d.team_id == "T1"] == ["U1", "U3", "U4"]
    assert store.snooze_dm("T1", "nobody", until) is False
    assert store.pause_dm("T1", "nobody", "x") is False


def test_snooze_keeps_utc_for_other_offsets(store: Store, clock) -> None:  # type: ignore[no-untyped-def]
    store.set_dm("T1", "U1", True)
    shanghai = timezone(timedelta(hours=8))
    until = (clock.now + timedelta(days=1)).astimezone(shanghai)
    store.snooze_dm("T1", "U1", until)
    stored = store.get_dm("T1", "U1").snoozed_until  # type: ignore[union-attr]
    assert stored == until and stored.utcoffset() == timedelta(0)
    with pytest.raises(ValueError):
        store.snooze_dm("T1", "U1", until.replace(tzinfo=None))


def test_enabling_dm_reactivates_a_paused_digest(store: Store) -> None:
    store.set_dm("T1", "U1", True)
    store.pause_dm("T1", "U1", "cannot open DM")
    dm = store.set_dm("T1", "U1", True)
    assert dm.status == "active" and dm.pause_reason is None
