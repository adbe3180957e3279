"""QA round 7: one rule for Chinese typography in every reply. No ASCII space between CJK text and a
bold span that starts or ends with CJK (the zero-width rule makes it format), a space between Hanzi
and a Latin word, number, code span or link label (none inside a date), no nested brackets when a
reminder moves, and no zero-width characters in the console."""

from __future__ import annotations

import re
from datetime import UTC, datetime

import time_machine

from bot.doors.console.render import mrkdwn_to_text
from bot.slack.handlers import Caller, Handlers, UserInfo
from bot.slack.mrkdwn import Mrkdwn, cjk_typeset, esc

ALICE = Caller("T1", "U1", "C1")
MONDAY = datetime(2026, 12, 7, 12, 0, tzinfo=UTC)
HAN = "\u4e00-\u9fff"


def _visible(text: str) -> str:
    return text.replace("\u200b", "").replace("\u2060", "")


def test_a_bold_chinese_span_has_no_ascii_space_and_latin_next_to_hanzi_has_one():
    cases = {
        "本频道已订阅 *推测解码* 每周推荐": "本频道已订阅*推测解码*每周推荐",
        "关于 *推测解码*，": "关于*推测解码*，",
        "先读：\u200b*\u200b引擎内部原理* 的核心路径": "先读：*引擎内部原理*的核心路径",
        "<https://a/b|Performance B>和<https://c|The State>": "<https://a/b|Performance B> 和 <https://c|The State>",
        "改为在2026年12月14日 周一": "改为在 2026年12月14日 周一",
        "`spec`和`pd`": "`spec` 和 `pd`",
        "已关注*PD 分离服务*。": "已关注 *PD 分离服务*。",
        "`计划 30分钟`、`每周 1小时`": "`计划 30分钟`、`每周 1小时`",
    }
    for given, wanted in cases.items():
        once = cjk_typeset(given)
        assert _visible(once) == wanted, (given, once)
        assert cjk_typeset(once) == once  # idempotent: every text passes more than once
        rendered = str(esc(Mrkdwn(given)))
        assert _visible(rendered) == wanted and esc(Mrkdwn(rendered)) == rendered, rendered
    assert cjk_typeset("Read *Speculative decoding* next") == "Read *Speculative decoding* next"


def test_chinese_replies_follow_the_rule_and_the_console_shows_no_zero_width(runtime):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))
    with time_machine.travel(MONDAY, tick=False):
        h.command(ALICE, "lang zh")
        replies = [
            h.command(ALICE, "subscribe spec"),
            h.command(ALICE, "follow spec"),
            h.command(ALICE, "remind p-eagle tomorrow"),
            h.command(ALICE, "remind p-eagle 2026-12-14"),
        ]
    for reply in replies:
        for block in reply.blocks:
            text = (block.get("text") or {}).get("text", "")
            seen = _visible(text)
            assert not re.search(rf"[{HAN}] \*[{HAN}]|[{HAN}]\* [{HAN}]", seen), text
            assert not re.search(rf"[{HAN}][A-Za-z]|[A-Za-z][{HAN}]", re.sub(r"<[^>]*>|`[^`]*`", "", seen)), text
            shown = mrkdwn_to_text(text)
            assert "\u200b" not in shown and "\u2060" not in shown
    moved = _visible(replies[-1].text)
    assert "改为在 2026年12月14日" in moved, moved
    outer = moved[moved.index("原定") - 1 :]
    assert not re.search(r"（[^）]*（", moved), moved  # no bracket inside a bracket
    assert "明天" in outer
