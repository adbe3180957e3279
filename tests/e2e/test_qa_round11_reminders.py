"""Reminders and snoozes, what the eleventh QA round found, end to end through the HTTP door
(signed requests, the stand-in Slack, the real store and catalog): a span of hours or minutes
(``in 2 hours``, ``in 2h``, ``半小时后``) sets the reminder for the next 09:00 and says so in one
sentence (it was read as ``in 2 thurs``, or searched as a post); a span of days (``过两天``) is a
day; ``tomorrow 9am`` no longer repeats "Reminders come at 09:00"; ``unsnooze`` ends the weekly DM's
snooze or says how a snooze ends (it was searched); ``snooze 2w`` says a snooze is one week."""

from __future__ import annotations

from datetime import timedelta

import pytest

from bot.domain import paths
from tests.e2e.helpers import TEAM, USER, reply_text, zoned_standin_fixture
from tests.e2e.reminder_days import ZONE
from tests.e2e.reminder_days import next_nine as _next_nine
from tests.e2e.reminder_days import pending as _set
from tests.e2e.reminder_days import today as _today

standin = zoned_standin_fixture(ZONE)
_text = reply_text


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("remind p-eagle in 2 hours", "Reminders come once a day at 09:00, so for “in 2 hours”"),
        ("remind p-eagle in 2h", "so for “in 2h” this one is set for the next 09:00."),
        ("remind p-eagle in 30 minutes", "so for “in 30 minutes” this one is set for the next 09:00."),
        ("remind p-eagle in half an hour", "so for “in half an hour” this one is set for the next 09:00."),
        ("remind me in 2 hours to read p-eagle", "so for “in 2 hours” this one is set for the next 09:00."),
        ("remind p-eagle 半小时后", "提醒每天只在 09:00 发出一次，所以“半小时后”已设为下一个 09:00。"),
        ("提醒我一小时后读 p-eagle", "提醒每天只在 09:00 发出一次，所以“一小时后”已设为下一个 09:00。"),
    ],
)
def test_a_span_of_hours_or_minutes_is_set_for_the_next_nine_and_said(slack, runtime, typed, said):
    reply = _text(slack, typed)
    assert said in reply, reply
    assert "thurs" not in reply and "No post matches" not in reply and "无法识别" not in reply, reply
    assert _set(runtime) == [("p-eagle", _next_nine(), 9)]


@pytest.mark.parametrize(
    ("follow", "typed", "said"),
    [
        ("follow spec", "remind me in 2 hours", "the next 09:00"),
        ("follow spec", "remind me in 2h", "the next 09:00"),
        ("follow spec", "remind me in 30 minutes", "the next 09:00"),
        ("关注 spec", "提醒我半小时后", "下一个 09:00"),
    ],
)
def test_remind_me_in_a_span_reminds_a_follower_of_the_next_read(slack, runtime, follow, typed, said):
    slack.ask(follow)
    expected = paths.track_state(runtime.holder.catalog, "spec").next
    assert expected is not None
    reply = _text(slack, typed)
    assert said in reply, reply
    assert _set(runtime) == [(expected.post_id, _next_nine(), 9)]


@pytest.mark.parametrize("typed", ["remind me in 2 hours", "remind me in 2h", "remind me in 30 minutes"])
def test_remind_me_in_a_span_with_no_track_asks_which_post(slack, runtime, typed):
    reply = _text(slack, typed)
    assert "Which post?" in reply and "thurs" not in reply, reply
    assert _set(runtime) == []


@pytest.mark.parametrize(
    ("typed", "days"),
    [
        ("remind p-eagle 过两天", 2),
        ("提醒我过三天读 p-eagle", 3),
        ("remind p-eagle 三天以后", 3),
        ("remind p-eagle 5天以后", 5),
    ],
)
def test_a_span_of_days_is_that_day(slack, runtime, typed, days):
    reply = _text(slack, typed)
    assert "09:00" in reply and "无法识别" not in reply and "could not use" not in reply, reply
    assert _set(runtime) == [("p-eagle", _today() + timedelta(days=days), 9)]


@pytest.mark.parametrize(
    ("typed", "note"),
    [
        ("remind p-eagle tomorrow 9am", "Reminders come at 09:00 your time"),
        ("remind p-eagle tomorrow morning", "Reminders come at 09:00 your time"),
        ("remind p-eagle 明天上午9点", "提醒总在你所在时区的 09:00 发出"),
    ],
)
def test_nine_asked_for_is_not_said_again(slack, runtime, typed, note):
    reply = _text(slack, typed)
    assert note not in reply and "09:00" in reply, reply
    assert _set(runtime) == [("p-eagle", _today() + timedelta(days=1), 9)]


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("snooze 2w", "A snooze is one week, so “2w” cannot be set"),
        ("snooze for 2 weeks", "A snooze is one week, so “2 weeks” cannot be set"),
        ("推迟两周", "暂停固定为一周，无法设置“两周”"),
    ],
)
def test_a_snooze_longer_than_a_week_is_said_to_be_one_week(slack, runtime, typed, said):
    assert said in _text(slack, typed)


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("unsnooze", "Your weekly DM isn't snoozed, so nothing changed"),
        ("取消暂停", "你的每周私信没有暂停，什么都没有改"),
    ],
)
def test_unsnooze_with_nothing_snoozed_says_how_a_snooze_ends(slack, runtime, typed, said):
    reply = _text(slack, typed)
    assert said in reply and "dm resume" in reply, reply
    assert "No post matches" not in reply and "The tracks:" not in reply, reply


@pytest.mark.parametrize(
    ("on", "typed", "said"), [("dm on", "unsnooze", "Resumed:"), ("私信 开", "取消暂停", "已恢复")]
)
def test_unsnooze_ends_the_weekly_dms_snooze(slack, runtime, on, typed, said):
    slack.ask(on)
    slack.ask("dm pause")
    assert runtime.store.get_dm(TEAM, USER).snoozed_until is not None
    reply = _text(slack, typed)
    assert said in reply, reply
    assert runtime.store.get_dm(TEAM, USER).snoozed_until is None
