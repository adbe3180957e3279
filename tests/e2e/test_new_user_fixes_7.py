"""The reader's commands, what a new user's seventh break test found (QA), end to end through the
HTTP door (signed requests, the stand-in Slack, the real store and catalog): a search whose first
word is a known word (``sglang vs vllm``, ``ready for production``) is no mistyped command; one
track among unknown words is done as several are (``unsubscribe spec banana``); a reminder number
is never given to another reminder; a word that is no track suggests the track it is close to, else
no made-up example; a second ``dm pause`` says the DM is paused already; ``unfollow`` of tracks
not followed says "either … or"; a question's heading quotes the words searched (``qwen3 是什么``)."""

from __future__ import annotations

import re

import pytest

from bot.slack.mrkdwn import esc
from tests.e2e.helpers import CHANNEL, TEAM, USER, reply_text, zoned_standin_fixture

_text = reply_text


standin = zoned_standin_fixture("Europe/Berlin")


def _name(runtime, tid: str, lang: str = "en") -> str:
    return esc(str(runtime.holder.catalog.track(tid).names.get(lang)))


@pytest.mark.parametrize(
    ("typed", "post"),
    [("sglang vs vllm", "redhat-vllm-vs-sglang"), ("vllm vs sglang", "redhat-vllm-vs-sglang")],
)
def test_a_search_whose_first_word_is_known_is_no_mistyped_command(slack, typed, post):
    reply = _text(slack, typed)
    assert "Did you mean" not in reply, reply
    assert "`/vllm-path lang" not in reply, reply
    assert post in reply, reply  # the search's answer, not the help


def test_an_everyday_first_word_is_searched_not_corrected(slack):
    reply = _text(slack, "ready for production")
    assert "read for production" not in reply, reply
    assert "production" in reply, reply


def test_a_mistyped_command_still_gets_its_suggestion(slack):
    assert "Did you mean `/vllm-path follow spec`?" in _text(slack, "folow spec")


@pytest.mark.parametrize(
    ("subscribe", "unsubscribe", "unknown"),
    [
        ("subscribe spec banana", "unsubscribe spec banana", "banana"),
        ("订阅 推测解码 香蕉", "取消订阅 spec 香蕉", "香蕉"),
    ],
)
def test_one_track_among_unknown_words_is_done_and_the_words_named(slack, runtime, subscribe, unsubscribe, unknown):
    def tracks() -> list[str]:
        return sorted(s.track_id for s in runtime.store.subscriptions(TEAM, CHANNEL))

    reply = _text(slack, subscribe)
    assert tracks() == ["spec"], reply
    assert f"“{unknown}”" in reply, reply
    gone = _text(slack, unsubscribe)
    assert tracks() == [], gone
    assert f"“{unknown}”" in gone, gone
    assert f"“spec {unknown}”" not in gone, gone  # not the whole text as no track


def test_a_mistyped_day_among_tracks_is_refused_whole(slack, runtime):
    reply = _text(slack, "subscribe spec pd fridya")
    assert "“fridya”" in reply and "didn't understand" in reply, reply
    assert runtime.store.subscriptions(TEAM, CHANNEL) == []  # not set up for Monday instead


def test_a_number_once_shown_never_names_another_reminder(slack, runtime):
    slack.ask("remind p-eagle in 2 weeks")
    first = _text(slack, "reminders cancel 1")
    assert "Cancelled" in first, first
    slack.ask("remind spec-decode tomorrow")  # due before the cancelled one: numbered after it all the same
    listed = _text(slack, "reminders")
    assert re.search(r"(?m)^2\. ", listed) and not re.search(r"(?m)^1\. ", listed), listed
    again = _text(slack, "reminders cancel 1")
    assert "already cancelled" in again, again
    assert [r.post_id for r in runtime.store.reminders(TEAM, USER)] == ["spec-decode"]  # still set


def test_a_word_that_is_no_track_suggests_the_closest_track(slack, runtime):
    near = _text(slack, "follow spc pd")
    assert "“spc”" in near and "`/vllm-path follow spec`" in near, near
    far = _text(slack, "follow pd banana")
    assert "“banana”" in far and "`/vllm-path follow spec`" not in far, far  # no made-up example


def test_a_second_dm_pause_says_it_is_paused_already(slack, runtime):
    slack.ask("dm on friday 09:00")
    first = _text(slack, "dm pause")
    until = runtime.store.get_dm(TEAM, USER).snoozed_until
    second = _text(slack, "dm pause")
    assert "already paused" in second, second
    assert runtime.store.get_dm(TEAM, USER).snoozed_until == until, (first, second)


def test_unfollowing_tracks_not_followed_says_either_or(slack, runtime):
    reply = _text(slack, "unfollow spec quant")
    assert f"either *{_name(runtime, 'spec')}* or *{_name(runtime, 'quant')}*" in reply, reply
    slack.ask("lang zh")
    zh = _text(slack, "unfollow spec quant")
    assert "你都没有关注" in zh, zh


@pytest.mark.parametrize(
    ("typed", "heading"),
    [("qwen3 是什么", "与“qwen3”匹配的文章"), ("what is qwen3?", "Posts matching “qwen3”")],
)
def test_a_question_heading_quotes_the_words_searched(slack, typed, heading):
    reply = _text(slack, typed)
    assert heading in reply, reply


def test_a_partly_known_search_names_the_words_it_has_nothing_on(slack):
    reply = _text(slack, "stop tokens")
    assert "the rest of it" not in reply, reply
    assert "nothing on *stop*" in reply and "search tokens" in reply, reply
