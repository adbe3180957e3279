"""A new reader's QA run, through the real handlers, store and catalog: a refused reminder day offers
examples that work; ``stop <track>``, ``snooze`` and ``digest preview`` typed in Slack are answered,
not searched; ``settings`` says the language is automatic until ``lang``; ``dm off`` twice and
``dm catchup on`` with the DM off say where things stand; reminders of a read post or a post with no
link; one date format for reminders; 每周推荐 for the digest in Chinese; ``subscriptions`` in a DM."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime

import pytest
import time_machine

from bot.slack.grammar import parse
from bot.slack.handlers import ANSWERED_IN_ACK, Caller, Handlers, UserInfo
from tests.messages import messages

ALICE = Caller("T1", "U1", "C1")
BOB = Caller("T1", "U2", "C1")
MONDAY = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)  # 13:00 in Berlin, already Tuesday 01:00 in Auckland


def handlers(runtime, tz: str = "Europe/Berlin") -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz=tz))


def test_a_refused_day_offers_tomorrow_in_the_readers_zone_and_that_example_is_accepted(runtime):
    h = handlers(runtime)
    with time_machine.travel(MONDAY, tick=False):
        text = h.command(ALICE, "remind p-eagle 2026-12-07").text
        zh = h.command(ALICE, "提醒 p-eagle 2026-12-07").text
        offered = re.findall(r"`(\d{4}-\d\d-\d\d)`", text)
        assert offered == ["2026-12-08"], text
        assert "`12月8日`" in zh and "`2026-12-08`" in zh and "2026-12-07`" not in zh, zh
        assert runtime.store.reminders("T1", "U1") == []
        ok = h.command(ALICE, f"remind p-eagle {offered[0]}").text
        assert "I will remind you of" in ok and "Tuesday 8 Dec 2026 (tomorrow)" in ok, ok
        ok_zh = h.command(ALICE, "提醒 p-eagle 12月8日").text
        assert "无法识别" not in ok_zh, ok_zh
        far = handlers(runtime, "Pacific/Auckland")  # UTC+13: Tuesday there
        kiwi = far.command(BOB, "remind p-eagle yesterday").text
    assert "`2026-12-09`" in kiwi, kiwi


@pytest.mark.parametrize(
    "text, kind, arg",
    [
        ("stop spec", "stop_what", "spec"),
        ("stop the quant digest", "stop_what", "quant"),
        ("停止 推测解码", "stop_what", "推测解码"),
        ("stop it please", "stop_what", ""),
        ("snooze", "snooze_what", ""),
        ("snooze it", "snooze_what", ""),
        ("digest preview", "digest_cli", "digest preview"),
        ("digest preview --track spec --channel C9", "digest_cli", "digest preview --track spec --channel C9"),
        ("stop dm", "dm", ""),
    ],
)
def test_stop_snooze_and_digest_preview_are_commands(text, kind, arg):
    cmd = parse(text)
    assert (cmd.kind, cmd.arg) == (kind, arg)
    assert kind == "dm" or kind in ANSWERED_IN_ACK


def test_stop_a_track_lists_what_stops_it_and_stops_nothing(runtime):
    h = handlers(runtime)
    h.command(ALICE, "subscribe spec monday 09:00")
    h.command(ALICE, "follow spec")
    h.command(ALICE, "dm on")
    text = h.command(ALICE, "stop spec").text
    assert "What would you like to stop for Speculative decoding?" in text, text
    assert "This channel's Speculative decoding digest: `/vllm-path unsubscribe spec`" in text
    assert "`/vllm-path unfollow spec`" in text and "`/vllm-path dm off`" in text
    elsewhere = h.command(Caller("T1", "U1", "C2"), "stop quant").text
    assert "`/vllm-path unsubscribe quant` in the channel" in elsewhere and "unfollow" not in elsewhere, elsewhere
    assert runtime.store.subscriptions("T1", "C1") and runtime.store.get_dm("T1", "U1").enabled
    assert "spec" in runtime.store.follows("T1", "U1")
    zh = h.command(ALICE, "停止 推测解码").text
    assert "本频道的推测解码每周推荐" in zh and "周报" not in zh, zh
    searched = h.command(ALICE, "stop tokens").text
    assert "What would you like to stop" not in searched and "stop tokens" in searched, searched


def test_snooze_and_digest_preview_typed_in_slack_say_where_they_are(runtime):
    h = handlers(runtime)
    h.command(ALICE, "subscribe spec monday 09:00")
    snooze = h.command(ALICE, "snooze").text
    assert "the Snooze a week button on a channel's digest" in snooze, snooze
    assert runtime.store.subscriptions("T1", "C1")[0].status == "active"
    preview = h.command(ALICE, "digest preview --track speculative").text
    assert "`vllm-path digest preview --track spec --channel C1`" in preview, preview
    typed = h.command(ALICE, "vllm-path digest preview quant").text
    assert "`vllm-path digest preview --track quant --channel C1`" in typed, typed
    in_dm = h.command(Caller("T1", "U1", "D1"), "digest preview").text
    assert "--track &lt;track&gt; --channel &lt;channel id&gt;" in in_dm, in_dm


def test_settings_language_is_automatic_until_lang(runtime):
    h = handlers(runtime)
    auto = h.command(ALICE, "settings").text
    assert "automatic (English now)" in auto and "`/vllm-path lang en` / `/vllm-path lang zh`" in auto, auto
    assert "自动（现在是中文）" in h.command(ALICE, "设置").text
    h.command(ALICE, "lang en")
    fixed = h.command(ALICE, "settings").text
    assert "automatic" not in fixed and "Language: English." in fixed, fixed


def test_dm_off_twice_and_catchup_with_the_dm_off(runtime):
    h = handlers(runtime)
    h.command(ALICE, "dm on")
    assert h.command(ALICE, "dm off").text == "Weekly DM off."
    again = h.command(ALICE, "dm off").text
    assert "already off" in again, again
    catchup = h.command(ALICE, "dm catchup on").text
    assert "Catch-up line in your weekly DM: on" in catchup and "`/vllm-path dm on`" in catchup, catchup
    assert runtime.store.get_dm("T1", "U1").catchup
    h.command(ALICE, "dm on")
    assert "itself is off" not in h.command(ALICE, "dm catchup on").text


def test_remind_a_read_post_is_set_and_says_so_and_a_post_without_a_link_is_refused(runtime):
    h = handlers(runtime)
    h.command(ALICE, "read p-eagle")
    read = h.command(ALICE, "remind p-eagle").text
    assert "I will remind you of" in read and "\nYou have read it already; the reminder is set anyway." in read, read
    cat = runtime.holder.catalog
    unlinked = next(p.id for p in cat.posts if p.url is None)
    refused = h.command(ALICE, f"remind {unlinked}").text
    assert "has no link yet" in refused and "I set no reminder" in refused, refused
    assert [r.post_id for r in runtime.store.reminders("T1", "U1")] == ["p-eagle"]


def test_the_reminders_list_names_the_day_as_the_confirmation_does(runtime):
    h = handlers(runtime)
    with time_machine.travel(MONDAY, tick=False):
        said = h.command(ALICE, "remind p-eagle next monday").text
        listed = h.command(ALICE, "reminders").text
    day = re.search(r"on (Monday \d+ Dec 2026, 09:00 Europe/Berlin)", said)
    assert day is not None, said
    assert f"1. {day.group(1)} · " in listed and "2026-12-14" not in listed, listed


def test_the_chinese_strings_call_the_digest_one_name():
    zh, en = messages("zh"), messages("en")
    assert not [k for k, v in zh.items() if "周报" in v]
    summaries = [k for k, v in zh.items() if "摘要" in v and "summary" not in en.get(k, "").casefold()]
    assert summaries == [], summaries


def test_chinese_track_lists_and_the_stop_reply_use_full_width_marks(runtime):
    h = handlers(runtime)
    h.command(ALICE, "subscribe spec monday 09:00")
    h.command(ALICE, "subscribe quant monday 09:00")
    zh = h.command(ALICE, "停止").text
    assert "`/vllm-path unsubscribe spec`、`/vllm-path unsubscribe quant`" in zh or (
        "`/vllm-path unsubscribe quant`、`/vllm-path unsubscribe spec`" in zh
    ), zh
    helped = json.dumps(h.command(ALICE, "帮助").blocks, ensure_ascii=False)
    assert "`agentic` 智能体" in helped and "、`apis`" in helped and "), `" not in helped, helped


def test_subscriptions_in_a_dm_point_to_a_channel_and_clubs_are_marked(runtime):
    h = handlers(runtime)
    dm = h.command(Caller("T1", "U1", "D1"), "subscriptions").text
    assert "A DM has no digests: digests are set up in a channel" in dm, dm
    h.command(ALICE, "subscribe spec monday 09:00 club")
    h.command(ALICE, "subscribe quant monday 09:00")
    listed = h.command(ALICE, "subscriptions").text
    lines = listed.split("\n")
    assert [("reading club" in line) for line in lines if "*" in line] == [
        "Speculative" in line for line in lines if "*" in line
    ], listed
    assert any("reading club" in line for line in lines)
