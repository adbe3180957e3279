"""What a new user hit next (QA), end to end through the HTTP door (signed requests, the stand-in
Slack, the real store and catalog): Chinese reminders typed without spaces (``提醒我明天读 p-eagle``,
``明天提醒我读 p-eagle``); ``on`` before a date and dates with month names or numbers (an
ambiguous ``05/06`` refused naming the ISO forms); the exact id typed wins the "which post?"
example; ``follow spec foo pd`` follows the tracks and names ``foo``; a repeated ``reminders cancel
1`` cancels nothing more; ``help!`` and ``help reminders``; the command's own name pasted in its
text; ``unsubscribe all`` by the owner; a command in Chinese words answered in Chinese; a time of
day on a reminder and ``dm pause 2 weeks`` explained."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

from bot.domain.reminder_day import local_today
from tests.e2e.helpers import TEAM, USER, reply_text, zoned_standin_fixture

ZONE = "Asia/Shanghai"


standin = zoned_standin_fixture(ZONE)


_text = reply_text


def _today() -> date:
    return local_today(datetime.now(UTC), ZONE)


def _days(runtime) -> dict[str, date]:
    return {r.post_id: local_today(r.due_at, ZONE) for r in runtime.store.reminders(TEAM, USER)}


def _next_monday() -> date:
    today = _today()
    return today + timedelta(days=(0 - today.weekday()) % 7 or 7)


def test_chinese_reminders_typed_without_spaces(slack, runtime):
    tomorrow = _today() + timedelta(days=1)
    assert "我会在明天" in _text(slack, "提醒我明天读 p-eagle")
    assert _days(runtime) == {"p-eagle": tomorrow}
    assert "私信提醒你" in _text(slack, "提醒我下周一读 spec-decode")
    assert _days(runtime)["spec-decode"] == _next_monday()
    slack.ask("reminders cancel 1")
    slack.ask("reminders cancel 2")
    assert "我会在明天" in _text(slack, "明天提醒我读 p-eagle")
    assert _days(runtime) == {"p-eagle": tomorrow}


def test_on_before_a_date_and_dates_with_names_or_numbers(slack, runtime):
    later = _today() + timedelta(days=40)
    month = later.strftime("%b")
    for typed in (
        f"on {later.isoformat()}",
        f"on {month} {later.day}",
        f"on {later.day} {month}",
        f"{later.day} {month} {later.year}",
        f"on {later.day} {later.strftime('%B')} {later.year}",
        f"{later.strftime('%B')} {later.day}, {later.year}",
        f"{later.day:02d}.{later.month:02d}.{later.year}" if later.day > 12 else f"{month} {later.day} {later.year}",
    ):
        slack.ask("remind p-eagle tomorrow")  # moved back each time
        reply = _text(slack, f"remind p-eagle {typed}")
        assert "I will remind you" in reply, (typed, reply)
        assert _days(runtime) == {"p-eagle": later}, typed
    refused = _text(slack, "remind p-eagle 05/06")
    assert "“05/06” could be" in refused and "-05-06" in refused and "-06-05" in refused, refused


def test_the_typed_id_is_the_example_of_which_post(slack, runtime):
    picked = _text(slack, "remind p-eagle please tomorrow")
    assert "not sure which post" in picked and "`/vllm-path remind p-eagle tomorrow`" in picked, picked
    assert "I will remind you" in _text(slack, "remind p eagle tomorrow")  # the id spelled with a space
    assert set(_days(runtime)) == {"p-eagle"}


def test_follow_several_with_a_word_that_is_no_track(slack, runtime):
    said = _text(slack, "follow spec foo pd")
    assert "“foo” is not a track" in said and "No track matches" not in said, said
    assert sorted(runtime.store.follows(TEAM, USER)) == ["pd", "spec"]
    said = _text(slack, "unfollow spec foo")
    assert "“foo” is not a track" in said, said
    assert runtime.store.follows(TEAM, USER) == ["pd"]


def test_a_repeated_cancel_cancels_nothing_more(slack, runtime):
    slack.ask("remind spec-decode tomorrow")
    slack.ask("remind p-eagle in 3 days")
    first = _text(slack, "reminders cancel 1")
    assert "Cancelled the reminder of How Speculative Decoding" in first, first
    again = _text(slack, "reminders cancel 1")
    assert "Reminder 1" in again and "already cancelled" in again, again
    assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["p-eagle"]
    assert "2. " in again and "1. " not in again  # p-eagle keeps its number
    slack.ask("remind spec-decode tomorrow")  # set again: its cancelled one leaves no gap
    listed = _text(slack, "reminders")
    assert "1. " in listed and "2. " in listed and "3. " not in listed, listed
    assert "Cancelled the reminder of P-EAGLE" in _text(slack, "reminders cancel 2")
    assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["spec-decode"]


def test_help_with_punctuation_and_a_topic_and_the_command_name_pasted(slack, runtime):
    assert "Pick a topic" in _text(slack, "help!")
    topic = _text(slack, "help reminders")
    assert "`/vllm-path remind p-eagle next monday`" in topic and "Pick a topic" not in topic, topic
    assert "`/vllm-path dm on friday 08:30`" in _text(slack, "help dm") and "subscribe" not in _text(slack, "help dm")
    assert "`/vllm-path plan 30m`" in _text(slack, "help plan")
    assert "Pick a topic" in _text(slack, "vllm-path help")
    track = _text(slack, "/vllm-path /vllm-path spec")
    assert "Posts matching" not in track and "essential" in track, track


def test_unsubscribe_all_by_the_owner_is_no_refusal(slack, runtime):
    slack.ask("subscribe spec")
    said = _text(slack, "unsubscribe all")
    assert "one at a time" in said and "whoever set it up" not in said, said
    assert "`/vllm-path unsubscribe spec`" in said


def test_a_command_in_chinese_words_is_answered_in_chinese(slack, runtime):
    assert "已开启每周私信" in _text(slack, "dm 周六 9点")
    assert "私信提醒你" in _text(slack, "remind p-eagle 下周一")
    assert "已开启每周私信" in _text(slack, "dm on 周五 08:30")  # QA round 18: Chinese words, a Chinese answer


def test_a_time_of_day_and_a_pause_length_are_explained(slack, runtime):
    timed = _text(slack, "remind spec-decode tomorrow at 14:00")
    assert "Reminders come at 09:00" in timed and "set for that day at 09:00" in timed, timed  # QA round 10: set
    assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["spec-decode"]
    paused = _text(slack, "dm pause 3 weeks")  # QA round 20: two weeks is the nudge's pause
    assert "A pause is one or two weeks" in paused and "`/vllm-path dm pause`" in paused, paused
