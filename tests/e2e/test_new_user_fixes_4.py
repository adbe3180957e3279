"""Reminders a new user tripped on (QA), end to end through the HTTP door (signed requests, the
stand-in Slack, the real store and catalog): marking a post read says its reminder is cancelled
(typed, in Chinese and by *Mark read*); ``cancel reminder 1`` / ``取消提醒 1`` cancel as ``reminders
cancel 1`` does and ``取消 1`` gets the usage; a time of day glued to a Chinese day is explained as
in English; "the numbers below stay" only above a list; ``提醒我读 nope`` names ``nope``."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.domain.reminder_day import local_today
from bot.slack.i18n import day_text
from tests.e2e.helpers import PATIENCE_S, TEAM, USER, block_texts, reply_text, zoned_standin_fixture

ZONE = "Asia/Shanghai"


standin = zoned_standin_fixture(ZONE)


_text = reply_text


def _tomorrow(lang: str) -> str:
    return day_text(local_today(datetime.now(UTC), ZONE) + timedelta(days=1), lang)


def _pending(runtime) -> list[str]:
    return [r.post_id for r in runtime.store.reminders(TEAM, USER)]


def test_marking_read_says_the_reminder_is_cancelled(slack, runtime, standin):
    slack.ask("remind p-eagle tomorrow")
    reply = _text(slack, "read p-eagle")
    assert f"Your reminder of it for {_tomorrow('en')} is cancelled." in reply, reply
    assert _pending(runtime) == []
    assert "reminder" not in _text(slack, "read p-eagle").casefold()  # read already: nothing to cancel
    slack.ask("unread p-eagle")
    slack.ask("提醒我明天读 p-eagle")
    reply = _text(slack, "读 p-eagle")
    assert f"你设在 {_tomorrow('zh')} 的这篇文章的提醒已一并取消。" in reply, reply
    slack.ask("unread p-eagle")
    answer = slack.ask("remind p-eagle tomorrow").body  # *Mark read* on the confirmation
    _, url = slack.click(answer, "mark_read:")
    clicked = standin.wait_for_response(url, timeout=PATIENCE_S).body
    said = str(clicked.get("text", "")) + block_texts(clicked.get("blocks") or [])
    assert f"Your reminder of it for {_tomorrow('en')} is cancelled." in said, said
    assert _pending(runtime) == []


@pytest.mark.parametrize(
    ("typed", "done", "command"),
    [
        ("cancel reminder 1", "Cancelled the reminder of", "reminders cancel 1"),
        ("取消提醒 1", "已取消提醒", "提醒列表 取消 1"),
    ],
)
def test_cancel_reminder_n_cancels_as_reminders_cancel_n(slack, runtime, typed, done, command):
    slack.ask("remind p-eagle tomorrow")
    slack.ask("remind spec-decode in 3 days")
    reply = _text(slack, typed)
    assert done in reply and "P-EAGLE" in reply, reply
    assert _pending(runtime) == ["spec-decode"]
    again, same = _text(slack, typed), _text(slack, command)  # the same reply, nothing more cancelled
    assert again == same and "P-EAGLE" in again, again
    assert _pending(runtime) == ["spec-decode"]
    usage = _text(slack, "取消 1")
    assert "reminders cancel 1" in usage and "匹配" not in usage, usage
    assert _pending(runtime) == ["spec-decode"]


@pytest.mark.parametrize("typed", ["提醒我明天下午2点读 p-eagle", "提醒我明天14:00读 p-eagle"])
def test_a_time_glued_to_a_chinese_day_is_explained(slack, runtime, typed):
    reply = _text(slack, typed)
    assert "09:00" in reply and "所以已设为那天 09:00" in reply, reply  # QA round 10: set for that day at 09:00
    assert "不确定" not in reply and _pending(runtime) == ["p-eagle"]


def test_numbers_below_only_above_a_list(slack, runtime):
    slack.ask("remind p-eagle tomorrow")
    slack.ask("reminders cancel 1")
    en = _text(slack, "reminders cancel 1")
    assert "already cancelled" in en and "numbers below" not in en, en
    zh = _text(slack, "提醒列表 取消 1")
    assert "已经取消过了" in zh and "下面的编号" not in zh, zh
    slack.ask("remind spec-decode in 3 days")
    listed = _text(slack, "reminders cancel 1")
    assert "The numbers below stay as they are." in listed, listed


def test_remind_to_read_an_unknown_post_names_the_post(slack, runtime):
    reply = _text(slack, "提醒我读 nope")
    assert "没有与“nope”匹配的文章" in reply, reply
    assert _pending(runtime) == []
