"""``remind`` with a time of day, what a new user's tenth break test found (QA), end to end through
the HTTP door (signed requests, the stand-in Slack, the real store and catalog): a day with any
time-of-day words (``tomorrow 9am``, ``at 9``, ``tomorrow morning``, ``明天上午9点``, ``周五上午``)
sets the reminder for that day at 09:00 and says reminders come at 09:00 (another time: that it is
set for that day at 09:00 instead); a time before the day is no part of the post's name
(``p-eagle 9:00 tomorrow``); ``remind me tomorrow`` with no post reminds a follower of their next
read (as ``next`` picks it)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bot.domain import paths
from tests.e2e.helpers import reply_text, zoned_standin_fixture
from tests.e2e.reminder_days import ZONE
from tests.e2e.reminder_days import pending as _set
from tests.e2e.reminder_days import today as _today

standin = zoned_standin_fixture(ZONE)
_text = reply_text


def _friday() -> date:
    today = _today()
    return today + timedelta(days=(4 - today.weekday()) % 7 or 7)


def _monday() -> date:
    today = _today()
    return today + timedelta(days=(0 - today.weekday()) % 7 or 7)


@pytest.mark.parametrize(
    ("typed", "days", "said"),
    [
        ("remind p-eagle tomorrow 9am", 1, "Reminders come at 09:00 your time."),
        ("remind p-eagle at 9", 1, "Reminders come at 09:00 your time."),
        ("remind p-eagle tomorrow morning", 1, "Reminders come at 09:00 your time."),
        ("remind p-eagle tomorrow at 09:00", 1, "Reminders come at 09:00 your time."),
        ("remind p-eagle 明天上午9点", 1, "提醒总在你所在时区的 09:00 发出。"),
        ("提醒我明天早上读 p-eagle", 1, "提醒总在你所在时区的 09:00 发出。"),
        ("提醒我 p-eagle 明天 9点", 1, "提醒总在你所在时区的 09:00 发出。"),
        ("remind p-eagle 周五上午", None, "提醒总在你所在时区的 09:00 发出。"),
    ],
)
def test_a_day_with_nine_or_the_morning_is_set_at_nine_and_said(slack, runtime, typed, days, said):
    reply = _text(slack, typed)
    assert said not in reply and "09:00" in reply, reply  # QA round 11: the confirmation says 09:00 already
    assert "cannot be set" not in reply and "无法" not in reply and "nothing was set" not in reply, reply
    day = _today() + timedelta(days=days) if days is not None else _friday()
    assert _set(runtime) == [("p-eagle", day, 9)]


@pytest.mark.parametrize(
    ("typed", "day", "said"),
    [
        (
            "remind p-eagle next monday 17:30",
            _monday,
            "Reminders come at 09:00 your time, so this one is set for that day at 09:00, not “17:30”.",
        ),
        (
            "remind p-eagle tomorrow at 14:00",
            lambda: _today() + timedelta(days=1),
            "so this one is set for that day at 09:00, not “at 14:00”.",
        ),
        (
            "提醒我明天下午2点读 p-eagle",
            lambda: _today() + timedelta(days=1),
            "提醒总在你所在时区的 09:00 发出，所以已设为那天 09:00，而不是“下午2点”。",
        ),
    ],
)
def test_another_time_of_day_is_set_for_that_day_at_nine_and_said_so(slack, runtime, typed, day, said):
    reply = _text(slack, typed)
    assert said in reply, reply
    assert _set(runtime) == [("p-eagle", day(), 9)]


@pytest.mark.parametrize(
    "typed", ["remind p-eagle 9:00 tomorrow", "remind p-eagle 9am tomorrow", "remind p-eagle at 9 on monday"]
)
def test_a_time_before_the_day_is_no_part_of_the_post(slack, runtime, typed):
    reply = _text(slack, typed)
    assert "not sure which post" not in reply and "p-eagle 9" not in reply, reply
    assert [p for p, _, _ in _set(runtime)] == ["p-eagle"], reply


@pytest.mark.parametrize(("follow", "typed"), [("follow spec", "remind me tomorrow"), ("关注 spec", "提醒我明天")])
def test_remind_me_with_no_post_reminds_a_follower_of_the_next_read(slack, runtime, follow, typed):
    slack.ask(follow)
    expected = paths.track_state(runtime.holder.catalog, "spec").next
    assert expected is not None
    reply = _text(slack, typed)
    assert "Which post?" not in reply and "提醒哪篇文章" not in reply, reply
    assert _set(runtime) == [(expected.post_id, _today() + timedelta(days=1), 9)]


def test_remind_me_with_no_post_and_no_track_still_asks_which_post(slack, runtime):
    assert "Which post?" in _text(slack, "remind me tomorrow")
    assert _set(runtime) == []
