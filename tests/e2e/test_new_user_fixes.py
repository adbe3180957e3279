"""What new users hit (QA), end to end through the HTTP door (signed requests, the stand-in Slack,
the real store and catalog): ``1h 30m`` is one budget of 90 minutes (and a refused second one
keeps ``club`` in the suggestion); ``dm on sat sun`` names the second day, ``dm on friday foo``
only ``foo``; reminder dates with a year in Chinese, and the refusal of a day today, past or more
than a year ahead says which; ``stop <track>`` counts only that track's reminders; several tracks
at once, ``unfollow all`` and ``unsubscribe all``; ``提醒 我 …`` without 我 and its example's day in
Chinese; a later English ``dm on`` says the DM's language changed and ``settings`` says the
languages; ``subscribe … -5m`` is the budget's range refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

from bot.domain.reminder_day import local_today
from tests.e2e.helpers import CHANNEL, TEAM, USER, reply_text, zoned_standin_fixture

ZONE = "Asia/Shanghai"
POST = "spec-decode"
"""A post with a link (a reminder needs one) in the ``spec`` track only."""


standin = zoned_standin_fixture(ZONE)


_text = reply_text


def _today():
    return local_today(datetime.now(UTC), ZONE)


def test_hours_and_minutes_are_one_budget_and_a_second_keeps_club(slack, runtime):
    reply = _text(slack, "subscribe spec club 1h 30m")
    assert "90 min" in reply and "second reading time" not in reply, reply
    (sub,) = runtime.store.subscriptions(TEAM, CHANNEL)
    assert sub.minutes_per_week == 90 and sub.club
    refused = _text(slack, "subscribe spec club 30m 1h")
    assert "“1h” is a second reading time" in refused and "`/vllm-path subscribe spec club 30m`" in refused, refused


def test_a_refused_schedule_names_the_word_at_fault(slack, runtime):
    two_days = _text(slack, "dm on sat sun")
    assert "“sat” is a second day" in two_days and "`/vllm-path dm on sun 09:00" in two_days, two_days
    unknown = _text(slack, "dm on friday foo")
    assert "“foo”" in unknown and "friday foo" not in unknown, unknown
    assert runtime.store.get_dm(TEAM, USER) is None  # nothing set up


def test_reminder_dates_with_a_year_and_why_a_day_is_refused(slack, runtime):
    day = _today() + timedelta(days=10)
    booked = _text(slack, f"提醒 {POST} {day.year}年{day.month}月{day.day}日")
    assert "无法识别" not in booked, booked
    (reminder,) = runtime.store.reminders(TEAM, USER)
    assert local_today(reminder.due_at, ZONE) == day
    today = _today()
    said_today = _text(slack, f"remind {POST} {today:%b} {today.day}")
    assert "is today" in said_today, said_today
    far = today + timedelta(days=400)
    assert "more than a year ahead" in _text(slack, f"remind {POST} {far.isoformat()}")
    past = today - timedelta(days=3)
    assert "is in the past" in _text(slack, f"remind {POST} {past.isoformat()}")
    assert len(runtime.store.reminders(TEAM, USER)) == 1


def test_stop_a_track_counts_only_its_own_reminders(slack, runtime):
    slack.ask(f"remind {POST} tomorrow")
    assert "A reminder (1 pending)" in _text(slack, "stop spec")
    assert "reminder" not in _text(slack, "stop pd").casefold()


def test_several_tracks_at_once_and_all(slack, runtime):
    followed = _text(slack, "follow spec pd quant")
    assert "No track matches" not in followed, followed
    assert sorted(runtime.store.follows(TEAM, USER)) == ["pd", "quant", "spec"]
    unfollowed = _text(slack, "unfollow all")
    assert runtime.store.follows(TEAM, USER) == []
    assert "not a track" not in unfollowed, unfollowed  # QA: "“all” is not a track" after unfollowing all
    assert "`/vllm-path follow spec pd`" in _text(slack, "follow all")  # how, not "no track matches"
    assert runtime.store.follows(TEAM, USER) == []
    slack.ask("subscribe spec")
    said = _text(slack, "unsubscribe all")
    assert "one at a time" in said and "`/vllm-path unsubscribe spec`" in said, said
    assert [s.track_id for s in runtime.store.subscriptions(TEAM, CHANNEL)] == ["spec"]


def test_a_chinese_remind_me_leaves_out_me_and_gives_a_chinese_example(slack, runtime):
    booked = _text(slack, f"提醒 我 明天 读 {POST}")
    assert "我会在明天" in booked and "“我" not in booked, booked  # booked, 我 no word of the post's
    (reminder,) = runtime.store.reminders(TEAM, USER)
    assert reminder.post_id == POST and local_today(reminder.due_at, ZONE) == _today() + timedelta(days=1)
    none = _text(slack, "提醒 我 xyzzyqq 明天")
    assert "“xyzzyqq”" in none, none
    picked = _text(slack, "提醒 我 eagle")  # several posts: the example's day in Chinese too
    assert "不确定“eagle”" in picked and " 下周`" in picked and " next week`" not in picked, picked


def test_a_later_english_dm_on_says_the_language_changed_and_settings_say_it(slack, runtime):
    slack.ask("私信 开")
    switched = _text(slack, "dm on friday")
    assert "It now comes in English" in switched and "Chinese before" in switched, switched
    slack.ask(f"提醒 {POST} 明天")
    settings = _text(slack, "settings")
    assert "It comes in English." in settings and "Pending reminders: 1, in Chinese." in settings, settings


def test_a_negative_channel_budget_is_the_range_refusal(slack, runtime):
    refused = _text(slack, "subscribe spec -5m")
    assert "5–600 minutes a week; -5 min is outside that" in refused, refused
    assert runtime.store.subscriptions(TEAM, CHANNEL) == []
