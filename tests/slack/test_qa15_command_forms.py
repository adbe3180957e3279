"""QA round 15: commands typed in Traditional characters or Cantonese (``關注 量化``, ``讀咗 p-eagle``),
weekly times said otherwise (``我每週有半個鐘``, ``… :coffee:``, ``plan 我每周有30分钟``, ``… a month``),
a post named with Slack marks or emoji codes around it (``read *p-eagle*``) or in a pasted quote line
(``> read p-eagle``), and catch-up phrasings (``补课``): each was searched, or "not sure which post"."""

from __future__ import annotations

import pytest

from bot.slack.grammar import parse
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")


@pytest.mark.parametrize(
    "typed, kind, arg",
    [
        ("追蹤 推測解碼", "follow", "推测解码"),
        ("關注 量化", "follow", "量化"),
        ("取消關注 量化", "unfollow", "量化"),
        ("標記已讀 P-EAGLE", "read", "P-EAGLE"),
        ("已讀 P-EAGLE", "read", "P-EAGLE"),
        ("讀咗 P-EAGLE", "read", "P-EAGLE"),
        ("睇咗 P-EAGLE", "read", "P-EAGLE"),
        ("睇完 P-EAGLE", "read", "P-EAGLE"),
        ("我讀完了 P-EAGLE", "read", "P-EAGLE"),
        ("关注 量化", "follow", "量化"),  # the Simplified forms, as before
        ("我读完了 P-EAGLE", "read", "P-EAGLE"),
    ],
)
def test_traditional_and_cantonese_command_words_are_commands(typed, kind, arg):
    cmd = parse(typed)
    assert (cmd.kind, cmd.arg) == (kind, arg)


@pytest.mark.parametrize("typed", ["追踪 请求延迟", "點樣喺vLLM度用量化？", "有冇講KV cache嘅文章", "推測解碼"])
def test_questions_in_traditional_or_cantonese_stay_searches(typed):
    cmd = parse(typed)
    assert cmd.kind == "query" and cmd.arg == typed.replace("？", "?")  # the words typed, not folded


@pytest.mark.parametrize(
    "typed, minutes",
    [
        ("我每週有30分鐘", 30),
        ("我每週有半個鐘", 30),
        ("每星期半個鐘", 30),
        ("每星期两个钟", 120),
        ("I have 30 minutes per week :coffee:", 30),
        ("plan 我每周有30分钟", 30),
        ("计划 我每周有1小时", 60),
    ],
)
def test_weekly_times_said_otherwise_are_a_plan(typed, minutes):
    cmd = parse(typed)
    assert (cmd.kind, cmd.minutes, cmd.error) == ("plan", minutes, None)


@pytest.mark.parametrize("typed", ["i can spend 2 hours a month", "I have 30 minutes per month", "我每月有2小时"])
def test_a_monthly_time_is_the_plan_refused_not_a_search(typed):
    cmd = parse(typed)
    assert (cmd.kind, cmd.minutes, cmd.error) == ("plan", None, "plan.bad")


def test_a_monthly_time_answers_that_plans_are_per_week(runtime):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    reply = h.command(ALICE, "i can spend 2 hours a month")
    assert "minutes a week" in reply.text and "plan 30m" in reply.text
    assert runtime.store.reader_state("T1", "U1").budget is None


@pytest.mark.parametrize(
    "typed",
    [
        "read *P-EAGLE*",
        "read _P-EAGLE_",
        "read ~P-EAGLE~",
        "read :white_check_mark: P-EAGLE",
        "read P-EAGLE :tada:",
        "> read p-eagle",
        "&gt; read p-eagle",
        "已讀 *P-EAGLE*",
    ],
)
def test_marks_and_emoji_around_a_post_are_left_out(typed):
    cmd = parse(typed)
    assert (cmd.kind, cmd.arg.casefold()) == ("read", "p-eagle")


@pytest.mark.parametrize(
    "typed", ["read *P-EAGLE*", "read :white_check_mark: P-EAGLE", "> read p-eagle", "讀咗 P-EAGLE"]
)
def test_the_post_is_marked_read(runtime, typed):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    h.command(ALICE, typed)
    assert runtime.store.read_posts("T1", "U1") == {"p-eagle"}


def test_a_traditional_follow_follows_the_track(runtime):
    h = Handlers(runtime, users_info=lambda team, user: UserInfo())
    h.command(ALICE, "追蹤 推測解碼")
    assert runtime.store.follows("T1", "U1") == ["spec"]


@pytest.mark.parametrize(
    "typed, kind",
    [
        ("补课", "catchup"),
        ("我要补课", "catchup"),
        ("有什么新的要补", "catchup"),
        ("有什么新的要补吗？", "catchup"),
        ("補課", "catchup"),
        ("最近有咩新文", "latest"),
        ("最近有什么新文", "latest"),
    ],
)
def test_catch_up_and_whats_new_phrasings(typed, kind):
    assert parse(typed).kind == kind
