"""Issue 44: the one gentle nudge to a reader two weeks behind their own plan, sent by the clock's
job through a Slack stand-in (SQLite and PostgreSQL) with a controlled clock: at most once a
fortnight, never after ``dm off``, never to a reader without a plan or with a paused one; its
buttons lower the budget or pause the plan."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

import pytest

from bot.digest.deliver import Deliverer
from bot.digest.reminders import send_nudges
from bot.domain import paths
from bot.domain.schedule import WeeklySchedule
from bot.runtime import CatalogHolder, Runtime
from bot.slack.handlers import Caller, Handlers
from bot.store import Store
from tests.digest.conftest import TEAM, settings_for
from tests.standin import SlackStandIn

FOLLOWED = datetime(2026, 11, 2, 10, 0, tzinfo=UTC)  # a Monday
BEHIND = datetime(2026, 11, 25, 10, 0, tzinfo=UTC)  # weeks of 9 and 16 November missed


class Clock:
    def __init__(self, at: datetime) -> None:
        self.at = at

    def __call__(self) -> datetime:
        return self.at


@pytest.fixture
def clock() -> Clock:
    return Clock(FOLLOWED)


@pytest.fixture
def rt(db_url: str, standin: SlackStandIn, holder: CatalogHolder, clock: Clock) -> Iterator[Runtime]:
    store = Store.from_url(db_url, clock=clock)
    runtime = Runtime(settings_for(db_url, standin), store, holder)
    try:
        yield runtime
    finally:
        store.close()


def _planner(rt: Runtime, user: str, dm: bool = True) -> None:
    rt.store.follow(TEAM, user, "spec")
    if dm:
        rt.store.set_dm(TEAM, user, True, WeeklySchedule.of(0, "09:00", "UTC"))


def _nudges(standin: SlackStandIn) -> list[dict]:
    return [c.args for c in standin.calls("chat.postMessage") if "lower_budget" in str(c.args.get("blocks"))]


def test_a_reader_two_weeks_behind_gets_one_nudge_a_fortnight(rt, standin, clock) -> None:
    _planner(rt, "U0BEHIND")
    _planner(rt, "U0NOPLAN", dm=False)  # follows, no DM, no budget of their own: no plan to fall behind
    sender = Deliverer(rt)
    assert send_nudges(rt, sender, FOLLOWED + timedelta(days=10)) == 0  # one week behind only
    assert send_nudges(rt, sender, BEHIND) == 1
    (sent,) = _nudges(standin)
    assert sent["channel"] == "U0BEHIND" and "45 minutes a week" in sent["text"]
    assert send_nudges(rt, sender, BEHIND) == 0
    assert send_nudges(rt, sender, BEHIND + timedelta(days=13)) == 0
    assert send_nudges(rt, sender, BEHIND + timedelta(days=21)) == 0  # still the same fall: one nudge
    clock.at = datetime(2026, 12, 1, 10, 0, tzinfo=UTC)  # they catch up one week ...
    rt.store.mark_read(TEAM, "U0BEHIND", list(paths.reading_order(rt.holder.catalog, "spec")))
    rt.store.follow(TEAM, "U0BEHIND", "quant")  # ... and take on a new track they then let slip
    again = datetime(2026, 12, 23, 10, 0, tzinfo=UTC)  # weeks of 7 and 14 December missed
    assert send_nudges(rt, sender, again) == 1
    assert len(_nudges(standin)) == 2


def test_no_nudge_after_dm_off_nor_to_a_reader_keeping_up(rt, standin, clock) -> None:
    _planner(rt, "U0OFF")
    rt.store.set_dm(TEAM, "U0OFF", False)  # `dm off`
    _planner(rt, "U0READS")
    order = list(paths.reading_order(rt.holder.catalog, "spec"))
    for week, posts in ((1, order[:8]), (2, order[8:])):  # over the budget, then all that was left
        clock.at = FOLLOWED + timedelta(weeks=week, hours=1)
        rt.store.mark_read(TEAM, "U0READS", posts)
    rt.store.set_budget(TEAM, "U0OFF", 30)  # a budget of their own does not undo `dm off`
    assert send_nudges(rt, Deliverer(rt), BEHIND) == 0
    assert _nudges(standin) == []


def test_the_nudge_buttons_lower_the_budget_or_pause_the_plan(rt, standin, clock) -> None:
    _planner(rt, "U0LOW")
    _planner(rt, "U0PAUSE")
    clock.at = BEHIND
    handlers = Handlers(rt)
    lowered = handlers.action(Caller(TEAM, "U0LOW", "D0LOW"), "lower_budget", {"v": "digest-nudge", "d": "20"})
    assert lowered is not None and "20 minutes a week" in lowered.text
    assert rt.store.get_budget(TEAM, "U0LOW") == 20
    paused = handlers.action(Caller(TEAM, "U0PAUSE", "D0PAUSE"), "pause_plan", {"v": "digest-nudge"})
    facts = rt.store.habit_facts(TEAM, "U0PAUSE")
    until = facts.pauses[0][1].date()  # the day as every reply shows it (QA: one date format)
    assert paused is not None and f"until {until:%A} {until.day} {until:%b %Y}." in paused.text, paused.text
    assert facts.pauses and facts.pauses[0][0] == BEHIND and facts.pauses[0][1] > BEHIND + timedelta(days=13)
    assert rt.store.get_dm(TEAM, "U0PAUSE").snoozed_until == facts.pauses[0][1]
    # a paused plan is not behind: no nudge while it lasts (U0LOW, at 20 minutes, still is)
    assert send_nudges(rt, Deliverer(rt), BEHIND + timedelta(days=7)) == 1
    assert [n["channel"] for n in _nudges(standin)] == ["U0LOW"]


def test_weeks_start_on_monday_in_the_readers_own_time_zone(rt, standin) -> None:
    """Followed Monday 2 November 10:00 UTC, nothing read. Sunday 22 November 17:00 UTC is already
    Monday 23 November in Shanghai (two local weeks missed: nudged) but still the week of 16 November
    in UTC (one missed); Monday 23 November 05:00 UTC is the week of 23 November in UTC (two missed)
    but still Sunday in Los Angeles (one)."""
    for user, zone in (("U0SHANGHAI", "Asia/Shanghai"), ("U0UTC", "UTC"), ("U0LA", "America/Los_Angeles")):
        rt.store.follow(TEAM, user, "spec")
        rt.store.set_dm(TEAM, user, True, WeeklySchedule.of(0, "09:00", zone))
    assert rt.store.habit_facts(TEAM, "U0SHANGHAI").timezone == "Asia/Shanghai"
    sender = Deliverer(rt)
    assert send_nudges(rt, sender, datetime(2026, 11, 22, 17, 0, tzinfo=UTC)) == 1
    assert [n["channel"] for n in _nudges(standin)] == ["U0SHANGHAI"]
    assert send_nudges(rt, sender, datetime(2026, 11, 23, 5, 0, tzinfo=UTC)) == 1
    assert [n["channel"] for n in _nudges(standin)] == ["U0SHANGHAI", "U0UTC"]
    assert send_nudges(rt, sender, datetime(2026, 11, 23, 9, 0, tzinfo=UTC)) == 1  # Monday 01:00 there
    assert [n["channel"] for n in _nudges(standin)][-1] == "U0LA"


def test_without_dm_settings_the_zone_of_the_latest_reminder_counts(rt) -> None:
    rt.store.follow(TEAM, "U0REMINDS", "spec")
    assert rt.store.habit_facts(TEAM, "U0REMINDS").timezone is None  # unknown: UTC weeks
    rt.store.add_reminder(TEAM, "U0REMINDS", "spec-decode", datetime(2026, 11, 3, 1, 0, tzinfo=UTC), "Asia/Shanghai")
    assert rt.store.habit_facts(TEAM, "U0REMINDS").timezone == "Asia/Shanghai"
