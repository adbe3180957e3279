"""QA leftovers a reader met, through the real handlers, store and catalog: ``recommend something``,
``settings`` and ``stop`` alone are understood (in Chinese too); a reminder's confirmation marks the
reminded post and names its day plainly; the plan table counts what is left; ``latest <topic>``."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest
import time_machine

from bot.slack.grammar import parse
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")
SUNDAY = datetime(2026, 12, 6, 10, 0, tzinfo=UTC)  # a Sunday, 11:00 in Berlin


def handlers(runtime) -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))


def _buttons(reply) -> list[tuple[str, dict]]:
    """``(action id, decoded value)`` of every button of a reply, in order."""
    found = []
    for block in reply.blocks:
        elements = block.get("elements", []) + ([block["accessory"]] if "accessory" in block else [])
        for el in elements:
            if el.get("type") == "button":
                found.append((el["action_id"], json.loads(el.get("value") or "{}")))
    return found


def _all(reply) -> str:
    """A reply's fallback text and its blocks' text (a notice may be in the blocks only)."""
    return reply.text + json.dumps(reply.blocks, ensure_ascii=False)


@pytest.mark.parametrize(
    "text, kind",
    [
        ("recommend something", "recommend"),
        ("any recommendations?", "recommend"),
        ("推荐点什么", "recommend"),
        ("settings", "settings"),
        ("my settings", "settings"),
        ("设置", "settings"),
        ("stop", "stop_what"),
        ("Stop!", "stop_what"),
        ("停止", "stop_what"),
        ("stop dm", "dm"),  # still the DM's own command
        ("stop tokens", "query"),  # a sampling parameter's name: a search (test_new_user_fixes_5)
        ("recommend quantization posts", "query"),
        ("设置 max-num-seqs", "query"),
    ],
)
def test_recommend_settings_and_stop_alone_are_commands(text, kind):
    assert parse(text).kind == kind


def test_recommend_gives_a_new_reader_the_getting_started_track_and_a_reader_their_next_step(runtime):
    h = handlers(runtime)
    first = h.command(ALICE, "recommend something")
    assert "My recommendation" in first.text and "Getting started" in first.text, first.text
    assert "No post matches" not in first.text
    h.command(ALICE, "read p-eagle")
    after = _all(h.command(ALICE, "recommend something"))
    assert "next step in each track you follow or have started" in after, after
    assert "Speculative decoding" in after and "spec-decode" in after  # the track's next step
    zh = _all(h.command(ALICE, "推荐点什么"))
    assert "我的推荐" in zh and "没有与" not in zh, zh


def test_settings_says_each_setting_and_how_to_change_it(runtime):
    h = handlers(runtime)
    h.command(ALICE, "plan 45m")
    h.command(ALICE, "follow spec")
    text = h.command(ALICE, "settings").text
    assert "45 min a week" in text and "`/vllm-path plan 30m`" in text, text
    assert "Your weekly DM is off" in text and "`/vllm-path dm on" in text
    assert "`/vllm-path lang zh`" in text and "Europe/Berlin" in text and "`spec`" in text
    h.command(ALICE, "dm on friday 08:30")
    assert "Weekly DM on: Fridays at 08:30" in h.command(ALICE, "my settings").text
    zh = h.command(ALICE, "设置").text
    assert "你的设置" in zh and "每周 45 分钟" in zh and "`/vllm-path lang en`" in zh, zh


def test_stop_alone_asks_what_to_stop_with_the_exact_commands(runtime):
    h = handlers(runtime)
    h.command(ALICE, "dm on")
    h.command(ALICE, "subscribe spec monday 09:00")
    h.command(ALICE, "remind p-eagle next week")
    text = h.command(ALICE, "stop").text
    assert "What would you like to stop?" in text, text
    assert "`/vllm-path dm off`" in text and "`/vllm-path unsubscribe spec`" in text
    assert "1 pending" in text and "`/vllm-path reminders`" in text
    # nothing was stopped by asking
    assert runtime.store.get_dm("T1", "U1").enabled and runtime.store.subscriptions("T1", "C1")
    zh = h.command(ALICE, "停止").text
    assert "你想停止什么" in zh and "`/vllm-path dm off`" in zh, zh


def test_the_reminder_confirmations_mark_read_marks_the_reminded_post(runtime):
    h = handlers(runtime)
    reply = h.command(ALICE, "remind p-eagle next week")
    marks = [value for action, value in _buttons(reply) if action.startswith("mark_read")]
    assert [v["p"] for v in marks][:1] == ["p-eagle"], marks  # the first, beside the notice (QA round 7)
    h.action(ALICE, "mark_read", marks[0])
    assert "p-eagle" in runtime.store.read_posts("T1", "U1")
    assert "spec-decode" not in runtime.store.read_posts("T1", "U1")  # the track's first step stays unread
    again = h.command(ALICE, "remind p-eagle next week")  # read already: nothing to mark
    assert "p-eagle" not in [v["p"] for a, v in _buttons(again) if a.startswith("mark_read")]


def test_remind_next_monday_on_a_sunday_names_the_day_it_booked(runtime):
    """``next monday`` on a Sunday is tomorrow (today's rule): the confirmation says so plainly, with
    the weekday and day of month in the reader's zone and language."""
    h = handlers(runtime)
    with time_machine.travel(SUNDAY, tick=False):
        text = h.command(ALICE, "remind p-eagle next monday").text
        zh = h.command(Caller("T1", "U2", "C1"), "提醒我 spec-decode 下周一").text  # U2 keeps Chinese
    assert "on Monday 7 Dec 2026 (tomorrow), 09:00 Europe/Berlin." in text, text
    assert "明天（2026年12月7日 周一）09:00 Europe/Berlin" in zh, zh
    tomorrow = datetime(2026, 12, 7, 8, 0, tzinfo=UTC)
    assert [r.due_at for u in ("U1", "U2") for r in runtime.store.reminders("T1", u)] == [tomorrow] * 2
    with time_machine.travel(SUNDAY, tick=False):
        later = h.command(ALICE, "remind p-eagle in 8 days").text
    assert "on Monday 14 Dec 2026, 09:00 Europe/Berlin instead of Monday 7 Dec 2026 (tomorrow)" in later, later


def test_the_plan_lists_the_readers_tracks_first_with_what_is_left(runtime):
    h = handlers(runtime)
    whole = h.command(ALICE, "plan 30m")
    assert "Quantization" in _all(whole) and "Engine internals" in _all(whole)  # no progress: every track
    h.command(ALICE, "follow quant")
    h.command(ALICE, "read p-eagle")  # starts spec without following it
    table = _all(h.command(ALICE, "plan"))
    assert table.index("*Quantization*") < table.index("*Speculative decoding*"), table
    assert "*Speculative decoding*: 44 min to go (1 of 8 essential read)" in table  # 54 min less P-EAGLE's 10
    assert "*Quantization*: 36 min to go (0 of 4 essential read)" in table
    assert "Engine internals" not in table and "12 other tracks" in table
    zh = _all(h.command(ALICE, "计划"))
    assert "*推测解码\u200b*\u200b：还剩 44 分钟（核心路径已读 1/8）" in zh and "另有 12 个" in zh, (
        zh
    )  # spaced to format


def test_latest_topic_shows_a_tracks_newest_posts_or_the_posts_on_it_newest_first(runtime):
    h = handlers(runtime)
    assert parse("最新 推测解码").kind == "latest" and parse("最新的推测解码文章").arg == "推测解码"
    zh = _all(h.command(ALICE, "最新 推测解码"))
    assert "推测解码的最新文章" in zh, zh  # the track's newest posts, not a search for "最新 推测解码"
    eagle = h.command(ALICE, "latest eagle")
    text = _all(eagle)
    assert "“latest eagle”" in text
    assert text.index("Speeding up LLM inference with P-EAGLE") < text.index("EAGLE 3.1"), text  # Sep before May
