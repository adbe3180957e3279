"""The reader's flow, leftovers a new user hit (QA), end to end through the HTTP door (signed
requests, the stand-in Slack, the real store and catalog): a reminder's time typed without a day
asks for a day (in English and Chinese), setting nothing; ``暂停私信 两周`` and the other Chinese
pause and resume wordings are the ``dm`` command; ``subscribe`` / ``unsubscribe`` of several tracks
do each and name what was not done; ``follow spec pd`` says where the reader stands in each;
bold next to CJK text is spaced so that Slack formats it; ``what's new`` says the order it lists;
``stop sequences`` is a search; a long list of reminders counts the ones it leaves out, and a
reply longer than a section goes on in a second one."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime, timedelta

import pytest

from bot.slack.mrkdwn import Mrkdwn, esc
from tests.e2e.helpers import CHANNEL, TEAM, USER, reply_text, zoned_standin_fixture

ZONE = "Asia/Shanghai"
OTHER = "U0E2EOTHER"


standin = zoned_standin_fixture(ZONE)


_text = reply_text


def _pending(runtime) -> list[str]:
    return [r.post_id for r in runtime.store.reminders(TEAM, USER)]


def _name(runtime, tid: str, lang: str = "en") -> str:
    return str(runtime.holder.catalog.track(tid).names.get(lang))


@pytest.mark.parametrize(
    ("typed", "asked", "example"),
    [
        ("remind p-eagle at 3pm", "Which day?", "`/vllm-path remind p-eagle tomorrow`"),
        ("remind me at 3pm to read p-eagle", "Which day?", "`/vllm-path remind p-eagle tomorrow`"),
        ("提醒我下午3点读 p-eagle", "哪一天提醒你？", "`/vllm-path remind p-eagle 明天`"),
        ("提醒我 15:00 读 p-eagle", "哪一天提醒你？", "`/vllm-path remind p-eagle 明天`"),
    ],
)
def test_a_time_without_a_day_asks_for_a_day_and_sets_nothing(slack, runtime, typed, asked, example):
    reply = _text(slack, typed)
    assert "09:00" in reply and asked in reply and example in reply, reply
    assert "not sure which post" not in reply and "不确定" not in reply, reply
    assert _pending(runtime) == []


@pytest.mark.parametrize(
    "typed",
    [
        "暂停私信 三周",
        "暂停私信三周",
        "私信 暂停三周",
        "pause dm 3 weeks",
        "pause my dm for 3 weeks",
        "stop dm for 3 weeks",
    ],
)
def test_a_pause_longer_than_two_weeks_is_the_dm_pause_refused(slack, runtime, typed):
    slack.ask("dm on friday 09:00")
    reply = _text(slack, typed)  # QA round 20: one or two weeks, as the buttons offer
    assert "暂停只能是一周或两周" in reply or "A pause is one or two weeks" in reply, reply
    assert "三周" in reply or "3 weeks" in reply, reply
    dm = runtime.store.get_dm(TEAM, USER)
    assert dm is not None and dm.enabled and dm.snoozed_until is None  # nothing changed


@pytest.mark.parametrize(
    "typed",
    ["暂停 私信", "暂停私信一周", "暂停一周私信", "私信暂停一周", "暂停每周私信", "暂停私信吧", "pause dm for a week"],
)
def test_chinese_and_english_pause_wordings_pause_the_dm(slack, runtime, typed):
    slack.ask("dm on friday 09:00")
    reply = _text(slack, typed)
    dm = runtime.store.get_dm(TEAM, USER)
    assert dm is not None and dm.snoozed_until is not None, reply
    resumed = _text(slack, "恢复 私信")
    assert "没有理解" not in resumed and "无法理解" not in resumed, resumed
    dm = runtime.store.get_dm(TEAM, USER)
    assert dm is not None and dm.snoozed_until is None and dm.enabled


def test_subscribe_and_unsubscribe_several_tracks_do_each(slack, runtime):
    def tracks() -> list[str]:
        return sorted(s.track_id for s in runtime.store.subscriptions(TEAM, CHANNEL))

    reply = _text(slack, "subscribe spec pd foo friday 10:00")
    assert tracks() == ["pd", "spec"]
    for tid in ("spec", "pd"):
        assert f"*{_name(runtime, tid)}* digest on Fridays at 10:00" in reply, reply
    assert "“foo” is not a track" in reply, reply
    other = dataclasses.replace(slack, user=OTHER)
    refused = _text(other, "unsubscribe spec pd quant")
    assert tracks() == ["pd", "spec"]  # not theirs to stop
    for tid in ("spec", "pd"):
        assert f"*{_name(runtime, tid)}*: Only the person who set up this digest" in refused, refused
    assert f"This channel has no *{_name(runtime, 'quant')}* digest." in refused, refused
    done = slack.ask("取消订阅 spec pd").body
    assert tracks() == [], done
    assert str(done.get("text", "")).count("本频道已取消") == 2, done


def test_follow_several_says_where_the_reader_stands_in_each(slack, runtime):
    one = _text(slack, "follow quant")
    assert f"*{_name(runtime, 'quant')}*: 0 of" in one, one  # the single follow's progress line
    reply = _text(slack, "follow spec pd")
    for tid in ("spec", "pd"):
        assert f"*{_name(runtime, tid)}*: 0 of" in reply, reply  # the same line for each
    assert reply.count("mark_read:") >= 2, reply  # a *Mark read* for each next step
    assert sorted(runtime.store.follows(TEAM, USER)) == ["pd", "quant", "spec"]


_BARE = re.compile(r"[\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef][*_~]\S|\S[*_~][\u3000-\u30ff\u4e00-\u9fff\uff00-\uffef]")
"""A formatting mark between a CJK character or punctuation and another character, unspaced."""


@pytest.mark.parametrize("typed", ["关注 spec quant", "计划", "设置", "提醒我明天读 p-eagle"])
def test_bold_next_to_chinese_is_spaced_so_that_it_formats(slack, runtime, typed):
    body = slack.ask(typed).body
    texts = [b["text"]["text"] for b in body.get("blocks") or [] if isinstance(b.get("text"), dict)]
    joined = "\n".join(texts)
    assert "*" in joined, joined
    assert not _BARE.search(joined), _BARE.search(joined)


def test_text_a_reader_typed_next_to_chinese_cannot_format():
    typed = esc("中*文*、和_斜_")
    assert "\u2060*\u2060" in typed and "\u200b" not in typed  # escaped, never spaced into formatting
    ours = esc(Mrkdwn("已关注 *量化*。和*PD*、"))  # Chinese typography (QA round 7): spaces set by one rule
    assert ours == "已关注\u200b*\u200b量化\u200b*\u200b。和 *PD\u200b*\u200b、"
    assert esc(ours) == ours and ours.unescape() == "已关注*量化*。和 *PD*、"
    assert esc(Mrkdwn("*推测解码* · 6")) == "*推测解码* · 6"  # at a word's edge already


def test_whats_new_says_the_order_it_lists(slack, runtime):
    cat = runtime.holder.catalog
    alone = _text(slack, "what's new")
    assert "the vLLM blog's first, then other blogs'; newest first in each" in alone, alone  # QA round 7
    assert "if you follow any" not in alone and "your tracks" not in alone, alone
    slack.ask("follow pd")
    mine = _text(slack, "what's new")
    assert "the vLLM blog's in the tracks you follow first" in mine, mine
    assert "the vLLM blog's first, then other blogs'; in each, your tracks' first, newest first" in mine, mine
    first = re.search(r"· `([a-z0-9-]+)`_", mine)
    assert first is not None and "pd" in cat.tracks_of(first.group(1)), mine
    assert cat.post(first.group(1)).source.kind == "vllm-blog"
    zh = _text(slack, "最新文章")
    assert "先 vLLM 博客，后其他博客；各自先列你关注的主题，均从新到旧" in zh, zh


@pytest.mark.parametrize("typed", ["stop sequences", "stop_token_ids", "stopping criteria", "停止词"])
def test_a_sampling_parameter_named_stop_is_searched(slack, runtime, typed):
    reply = _text(slack, typed)
    assert "is not a track" not in reply and "No track matches" not in reply, reply
    assert "没有与" not in reply or "匹配的主题" not in reply, reply
    assert "What would you like to stop" not in reply and "你想停止什么" not in reply, reply
    assert "stop sequences" not in typed or "“stop sequences”" in reply, reply  # the search of the whole text


def test_a_long_list_of_reminders_counts_those_it_leaves_out(slack, runtime):
    cat = runtime.holder.catalog
    posts = [p.id for p in cat.posts if p.url is not None][:27]
    start = datetime.now(UTC) + timedelta(days=2)
    for i, pid in enumerate(posts):
        runtime.store.add_reminder(TEAM, USER, pid, start + timedelta(days=i), ZONE, lang="en")
    body = slack.ask("reminders").body
    blocks = body.get("blocks") or []
    assert len(blocks) <= 50
    listed = [b for b in blocks if b.get("accessory", {}).get("action_id", "").startswith("cancel_reminder:")]
    said = reply_text(slack, "reminders")
    assert f"… and {len(posts) - len(listed)} more" in said, said


def test_a_reply_longer_than_a_section_goes_on_in_another(slack, runtime):
    every = " ".join(tr.id for tr in runtime.holder.catalog.tracks)
    body = slack.ask(f"subscribe {every}").body
    texts = [b["text"]["text"] for b in body.get("blocks") or [] if b.get("type") == "section"]
    assert all(len(x) <= 3000 for x in texts) and len(texts) >= 2, [len(x) for x in texts]
    joined = "\n".join(texts)
    for tr in runtime.holder.catalog.tracks:  # each track's line, none cut off
        assert f"*{esc(tr.names.get('en'))}*" in joined, tr.id
