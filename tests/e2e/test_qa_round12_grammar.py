"""What the twelfth QA round found in the grammar, end to end through the HTTP door (signed
requests, the stand-in Slack, the real store and catalog): a Chinese reminder with its time first
(``半小时后提醒我``, ``明天上午9点提醒我``, ``2小时后提醒我读 p-eagle``) is the same as its English form (it
was searched for as a post); "I read it" phrasings (``mark as read``, ``I read it``, ``我读完了``, ``read
the first one``) ask which post, marking nothing (they searched for "as", "it", "了"); a post id in
quotes (``read “p-eagle”``) is that post (it was refused as unclear)."""

from __future__ import annotations

from datetime import date, timedelta

import pytest

from bot.domain import paths
from tests.e2e.helpers import reply_text, zoned_standin_fixture
from tests.e2e.reminder_days import ZONE, today
from tests.e2e.reminder_days import next_nine as _next_nine
from tests.e2e.reminder_days import pending as _set

standin = zoned_standin_fixture(ZONE)
_text = reply_text


def _tomorrow() -> date:
    return today() + timedelta(days=1)


@pytest.mark.parametrize(
    ("typed", "said", "day"),
    [
        ("2小时后提醒我读 p-eagle", "所以“2小时后”已设为下一个 09:00。", _next_nine),
        ("半小时后提醒我读p-eagle", "所以“半小时后”已设为下一个 09:00。", _next_nine),
        ("明天上午9点提醒我读 p-eagle", "09:00", _tomorrow),
        ("明天上午9点 提醒我 p-eagle", "09:00", _tomorrow),
    ],
)
def test_a_chinese_reminder_with_its_time_first_reminds_of_the_post(slack, runtime, typed, said, day):
    reply = _text(slack, typed)
    assert said in reply and "匹配的文章" not in reply and "不确定" not in reply, reply
    assert _set(runtime) == [("p-eagle", day(), 9)]


@pytest.mark.parametrize(
    ("typed", "said", "day"),
    [
        ("半小时后提醒我", "所以“半小时后”已设为下一个 09:00。", _next_nine),
        ("2小时后提醒我", "所以“2小时后”已设为下一个 09:00。", _next_nine),
        ("明天上午9点提醒我", "09:00", _tomorrow),
    ],
)
def test_a_chinese_reminder_with_its_time_first_and_no_post_is_the_followers_next_read(
    slack, runtime, typed, said, day
):
    slack.ask("关注 spec")
    expected = paths.track_state(runtime.holder.catalog, "spec").next
    assert expected is not None
    reply = _text(slack, typed)
    assert said in reply and "匹配的文章" not in reply, reply
    assert _set(runtime) == [(expected.post_id, day(), 9)]


@pytest.mark.parametrize("typed", ["半小时后提醒我", "明天上午9点提醒我"])
def test_a_chinese_reminder_with_its_time_first_and_no_track_asks_which_post(slack, runtime, typed):
    reply = _text(slack, typed)
    assert "提醒哪篇文章？" in reply and "匹配的文章" not in reply, reply
    assert _set(runtime) == []


@pytest.mark.parametrize(
    ("typed", "said"),
    [
        ("mark as read", "Which post?"),
        ("mark read", "Which post?"),
        ("mark it as read", "Which post?"),
        ("I read it", "Which post?"),
        ("i've read it", "Which post?"),
        ("i’ve read it", "Which post?"),
        ("read the first one", "Which post?"),
        ("read it", "Which post?"),
        ("我读完了", "哪一篇？"),
        ("我看完了", "哪一篇？"),
        ("已读 这篇", "哪一篇？"),
    ],
)
def test_i_read_it_asks_which_post_and_marks_nothing(slack, runtime, typed, said):
    slack.ask("follow spec")
    reply = _text(slack, typed)
    assert said in reply, reply
    assert "No post matches" not in reply and "没有与" not in reply, reply
    assert runtime.store.read_posts(slack.team, slack.user) == set()


@pytest.mark.parametrize(
    "typed", ["read “p-eagle”", "read ‘p-eagle’", 'read "p-eagle"', "read “p-eagle“", "已读 「p-eagle」"]
)
def test_a_post_id_in_quotes_is_marked_read(slack, runtime, typed):
    reply = _text(slack, typed)
    assert "not sure which post" not in reply and "不确定" not in reply, reply
    assert runtime.store.read_posts(slack.team, slack.user) == {"p-eagle"}


def test_a_post_id_in_quotes_is_reminded_of(slack, runtime):
    reply = _text(slack, "remind “p-eagle” tomorrow")
    assert "Which post" not in reply and "not sure" not in reply, reply
    assert _set(runtime) == [("p-eagle", _tomorrow(), 9)]


@pytest.mark.parametrize("typed", ["remind me", "remind me to read", "remind me later"])
def test_remind_me_alone_is_remind_alone(slack, runtime, typed):
    # it searched for a post named "me" ("No post matches “me”, so no reminder was set")
    slack.ask("follow spec")
    reply = _text(slack, typed)
    assert "No post matches" not in reply and "I will remind you of" in reply, reply
    step = paths.track_state(runtime.holder.catalog, "spec", set()).next
    assert step is not None and [r[0] for r in _set(runtime)] == [step.post_id]
