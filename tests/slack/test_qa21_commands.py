"""QA round 21, commands: Chinese commands wrapped in polite or personal words (``请显示我的设置``,
``帮我退订``, ``别再给我发私信了``) refused as off-topic; a pause's length (``暂停三周``, ``pause 1
week``) read as a track's name; ``dm pause 2`` / ``2 wks`` refused; ``暂停一周`` not pausing the DM;
``unsubscribe me from dms`` read as a track, and ``unsubscribe me from <track>`` silent about
following it. Through the real handlers, SQLite only."""

from __future__ import annotations

import pytest

from bot.slack.grammar import parse
from bot.slack.grammar_dm import PAUSE_TWO_WEEKS, pause_length
from bot.slack.grammar_polite import polite
from tests.slack.qa_commands import (
    ALICE,
    any_migrated_db_url,  # noqa: F401  (SQLite only here)
    handlers,
)

# --- 1. Chinese polite words around one command word


@pytest.mark.parametrize(
    ("said", "kind"),
    [
        ("麻烦帮我看看我的设置吧", "settings"),
        ("查看一下所有主题", "tracks"),
        ("主题清单", "tracks"),
        ("请给我推荐", "recommend"),
        ("给我看看我的统计", "stats"),
        ("请帮我取消订阅", "stop_what"),
        ("不要再给我发通知了", "stop_what"),
        ("别再发私信", "dm"),
    ],
)
def test_chinese_polite_words_around_one_command_word_are_that_command(said, kind):
    assert parse(said).kind == kind


@pytest.mark.parametrize(
    "said", ["设置", "下一篇", "退订", "提醒", "请问推测解码是什么", "帮我解释量化", "显示 spec 的文章"]
)
def test_chinese_text_with_more_than_one_command_word_is_not_rewritten(said):
    assert polite(said) == said


def test_stop_dm_in_chinese_turns_the_dm_off(runtime):
    h = handlers(runtime, "zh-CN")
    h.command(ALICE, "dm on")
    h.command(ALICE, "别再给我发私信了")
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and not dm.enabled


# --- 2. a pause's length after `pause` / `暂停` is the DM's pause


@pytest.mark.parametrize(
    ("said", "arg", "error"),
    [
        ("pause a week", "pause", None),
        ("pause for 2 wks", PAUSE_TWO_WEEKS, None),
        ("暂停一个星期", "pause", None),
        ("暂停 十天", "", "dm.pause_length"),
        ("pause 2 months", "", "dm.pause_length"),
        ("dm pause 1", "pause", None),
        ("pause dm for 2 wk", PAUSE_TWO_WEEKS, None),
        ("dm pause 5", "", "dm.pause_length"),
    ],
)
def test_a_length_after_pause_is_the_dm_pause(said, arg, error):
    cmd = parse(said)
    assert (cmd.kind, cmd.arg, cmd.error) == ("dm", arg, error)


@pytest.mark.parametrize(
    ("said", "kind"), [("pause", "stop_what"), ("pause quant", "stop_what"), ("暂停", "stop_what")]
)
def test_pause_without_a_length_keeps_its_meaning(said, kind):
    assert parse(said).kind == kind


def test_pause_length_reads_weeks_in_short():
    assert (pause_length("3 wks"), pause_length("1 wk"), pause_length("two wks")) == ("3 weeks", "1 week", "2 weeks")
    assert pause_length("a month") == "a month"


def test_a_length_a_pause_cannot_have_names_both_and_no_track(runtime):
    text = handlers(runtime).command(ALICE, "pause 5 weeks").text
    assert "No track" not in text and "dm pause 2 weeks" in text and "5 weeks" in text


# --- 3. 暂停一周 with the DM on and no channel digest here


def test_pause_a_week_in_chinese_skips_the_dm_when_it_is_on(runtime):
    h = handlers(runtime, "zh-CN")
    h.command(ALICE, "dm on")
    h.command(ALICE, "暂停一周")
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and dm.snoozed_until is not None


def test_pause_a_week_in_chinese_with_the_dm_off_names_the_button(runtime):
    text = handlers(runtime, "zh-CN").command(ALICE, "暂停一周").text
    assert "按钮" in text


# --- 4. unsubscribe me from the DM / from a followed track


@pytest.mark.parametrize("said", ["unsubscribe me from my dms", "unsubscribe me from the direct messages"])
def test_unsubscribe_me_from_the_dm_turns_it_off(runtime, said):
    h = handlers(runtime)
    h.command(ALICE, "dm on")
    assert "No track" not in h.command(ALICE, said).text
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and not dm.enabled


@pytest.mark.parametrize(("locale", "unfollow"), [("en-US", "unfollow quant"), ("zh-CN", "unfollow quant")])
def test_unsubscribe_a_followed_track_without_a_digest_names_unfollow(runtime, locale, unfollow):
    h = handlers(runtime, locale)
    assert unfollow not in h.command(ALICE, "unsubscribe quant").text
    h.command(ALICE, "follow quant")
    assert unfollow in h.command(ALICE, "unsubscribe quant").text
