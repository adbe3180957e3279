"""QA round 17, commands: Chinese weekly-DM requests after ``每周`` (read as a plan), ``progress``
before a search's words, one's progress in a named track, natural requests refused as off-topic,
a plan set while the weekly DM is paused, did-you-mean replies, and this week's day already gone in
a reminder. Each through the real handlers, with the ordinary searches that look alike unchanged."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta

import pytest

from bot.domain import paths
from bot.domain.reminder_day import local_today, this_week_gone
from bot.slack.grammar import parse
from tests.slack.qa_commands import (
    ALICE,
    any_migrated_db_url,  # noqa: F401  (SQLite only here)
    handlers,
)
from tests.slack.qa_commands import body as _body

OFF_TOPIC = ("none of it is on that", "没有一篇讲这个")


def _handlers(runtime):
    return handlers(runtime)


def _zh(text: str) -> bool:
    return any("\u4e00" <= c <= "\u9fff" for c in text)


# --- 1. a weekday after 每周 is a schedule, not minutes


@pytest.mark.parametrize(
    ("typed", "weekday", "at"),
    [
        ("每周一早上给我发私信", 0, None),
        ("每周一早上9点提醒我", 0, "09:00"),
        ("每周三上午给我发私信", 2, None),
        ("每周五晚上8点提醒我", 4, "20:00"),
    ],
)
def test_a_chinese_weekly_dm_request_turns_the_dm_on(runtime, typed, weekday, at):
    cmd = parse(typed)
    assert (cmd.kind, cmd.enabled, cmd.error) == ("dm", True, None), cmd
    assert cmd.schedule is not None and (cmd.schedule.weekday, cmd.schedule.at_time) == (weekday, at)
    reply = _handlers(runtime).command(ALICE, typed)
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and dm.enabled and dm.weekday == weekday, reply.text
    assert "每周分钟数" not in reply.text and "已开启每周私信" in reply.text


# `每周五 1小时` left this list: a plan with its day (QA round 18)
@pytest.mark.parametrize("typed", ["每周一", "每周发给我推测解码", "每星期三", "发私信"])
def test_a_weekday_after_weekly_gets_the_weekly_pointer_in_chinese(runtime, typed):
    reply = _handlers(runtime).command(ALICE, typed)
    assert "每周分钟数" not in reply.text and "minutes a week" not in reply.text, reply.text
    assert "`/vllm-path dm on" in reply.text and "计划" in reply.text, reply.text
    assert runtime.store.get_dm("T1", "U1") is None  # pointed at, nothing turned on


@pytest.mark.parametrize(("typed", "minutes"), [("每周 1小时", 60), ("每周一小时", 60), ("每周30分钟", 30)])
def test_a_weekly_time_after_weekly_stays_the_plan(typed, minutes):
    cmd = parse(typed)
    assert (cmd.kind, cmd.minutes, cmd.error) == ("plan", minutes, None), cmd


def test_weekly_words_that_are_not_minutes_still_get_the_plan_error():
    assert parse("每周 abc").error == "plan.bad"


@pytest.mark.parametrize("typed", ["每周发布的模型", "每周 新闻"])
def test_other_weekly_words_are_not_the_pointer(typed):
    assert parse(typed).kind != "usage", parse(typed)


@pytest.mark.parametrize("typed", ["明天提醒我读 p-eagle", "周五提醒我读 p-eagle"])
def test_a_one_off_reminder_stays_a_reminder(typed):
    assert parse(typed).kind == "remind"


# --- 2. `progress` before a search's words


@pytest.mark.parametrize("typed", ["progress bar in vllm", "progress on amd support", "progress in llm inference"])
def test_progress_before_words_naming_no_track_is_a_search(runtime, typed):
    text = _handlers(runtime).command(ALICE, typed).text
    assert "No track matches" not in text and "is not a track" not in text, text
    assert "Your next reads" not in text and "essential read" not in text, text


@pytest.mark.parametrize("typed", ["progress spec", "progress on spec", "progress"])
def test_progress_of_a_track_or_alone_is_still_progress(runtime, typed):
    h = _handlers(runtime)
    h.command(ALICE, "follow spec")
    text = h.command(ALICE, typed).text
    assert "essential read" in text, text


# --- 3. progress in a named track


@pytest.mark.parametrize(
    ("typed", "track"),
    [
        ("how far am I in spec", "spec"),
        ("my progress spec", "spec"),
        ("how much of spec have I read", "spec"),
        ("how far along am I with spec", "spec"),
        ("how far am I in pd", "pd"),
        ("my progress in pd", "pd"),
        ("How far have I got in the spec track?", "spec"),
        ("show my progress on pd", "pd"),
        ("推测解码我读了多少", "spec"),
        ("我的推测解码进度", "spec"),
    ],
)
def test_progress_in_a_named_track_shows_that_track(runtime, typed, track):
    h = _handlers(runtime)
    essential = paths.essentials(runtime.holder.catalog, track)
    h.command(ALICE, "read " + essential[0])
    cmd = parse(typed)
    assert cmd.kind == "next", cmd
    text = h.command(ALICE, typed).text
    want = f"1/{len(essential)}" if _zh(typed) else f"1 of {len(essential)} essential read"
    assert want in text and "matches" not in text, text


@pytest.mark.parametrize(
    "typed",
    [
        "how far can speculative decoding go",
        "how much memory does vllm need",
        "what have i read about eagle",
        "how far is pd from production",
    ],
)
def test_questions_like_a_progress_question_stay_searches(typed):
    assert parse(typed).kind == "query", parse(typed)


# --- 4. natural requests, never the off-topic refusal


@pytest.mark.parametrize(
    ("typed", "weekday"),
    [
        ("send me a reminder every monday", 0),
        ("send me a digest every friday", 4),
        ("email me every friday", 4),
        ("please send me a weekly summary on tuesdays", 1),
    ],
)
def test_a_weekly_thing_with_its_day_turns_the_dm_on(runtime, typed, weekday):
    reply = _handlers(runtime).command(ALICE, typed)
    dm = runtime.store.get_dm("T1", "U1")
    assert dm is not None and dm.enabled and dm.weekday == weekday, reply.text


@pytest.mark.parametrize(
    "typed", ["friday dm", "weekly digest", "weekly dm", "send me a digest", "send me a reminder", "every monday dm"]
)
def test_a_weekly_thing_without_a_command_gets_a_pointer(runtime, typed):
    text = _handlers(runtime).command(ALICE, typed).text
    assert not any(off in text for off in OFF_TOPIC), text
    assert "`/vllm-path dm on" in text and "`/vllm-path subscribe" in text, text
    assert runtime.store.get_dm("T1", "U1") is None


@pytest.mark.parametrize(("typed", "minutes"), [("one hour a week", 60), ("I have 90 minutes weekly", 90)])
def test_a_weekly_time_in_words_is_the_plan(runtime, typed, minutes):
    cmd = parse(typed)
    assert (cmd.kind, cmd.minutes) == ("plan", minutes), cmd
    assert f"{minutes} min a week" in _handlers(runtime).command(ALICE, typed).text


def test_send_me_the_latest_post_is_whats_new(runtime):
    assert parse("send me the latest post").kind == "latest"
    assert "Newest posts" in _handlers(runtime).command(ALICE, "send me the latest post").text


def test_send_me_a_track_shows_the_track(runtime):
    h = _handlers(runtime)
    assert h.command(ALICE, "send me the spec track").text == h.command(ALICE, "spec").text


@pytest.mark.parametrize(
    "typed", ["send me eagle", "send me a message queue post", "weekly active users", "friday deployment"]
)
def test_sentences_that_only_look_like_a_request_stay_searches(typed):
    assert parse(typed).kind == "query", parse(typed)


# --- 5. a plan set while the weekly DM is paused


@pytest.mark.parametrize(
    ("lang", "typed", "said"), [("en", "plan 30m", "Paused: no DM until"), ("zh", "计划 30分钟", "已暂停")]
)
def test_a_plan_set_with_the_dm_paused_says_until_when(runtime, lang, typed, said):
    h = _handlers(runtime)
    h.command(ALICE, f"lang {lang}")
    h.command(ALICE, "dm on")
    before = _body(h.command(ALICE, typed))
    assert said not in before  # on and not paused: nothing said of it
    h.command(ALICE, "dm pause")
    reply = h.command(ALICE, typed)
    assert said in reply.text and said in _body(reply), reply.text
    assert "2026" in reply.text.split(said)[1] or "20" in reply.text.split(said)[1]  # a date follows
    h.command(ALICE, "dm resume")
    assert said not in _body(h.command(ALICE, typed))


# --- 6. did-you-mean


@pytest.mark.parametrize(
    ("typed", "meant"),
    [("red spec", "read spec"), ("red pd", "read pd"), ("red p-eagle", "read p-eagle"), ("nxt", "next")],
)
def test_a_mistyped_command_leads_with_did_you_mean_in_two_lines(runtime, typed, meant):
    text = _handlers(runtime).command(ALICE, typed).text
    assert text.startswith(f"Did you mean `/vllm-path {meant}`?"), text
    assert "`/vllm-path help`" in text and len(text.splitlines()) <= 2, text
    assert "No post matches" not in text


def test_folow_spec_gets_the_short_did_you_mean(runtime):
    text = _handlers(runtime).command(ALICE, "folow spec").text
    assert "Did you mean `/vllm-path follow spec`?" in text and len(text.splitlines()) <= 2, text


@pytest.mark.parametrize("typed", ["text pd", "red hat vllm", "reed solomon codes"])
def test_words_not_a_mistyped_command_are_searched(runtime, typed):
    text = _handlers(runtime).command(ALICE, typed).text
    assert "Did you mean `/vllm-path" not in text, text


# --- 7. this week's day already today or past


def test_this_weeks_day_gone_is_named():
    friday, saturday, monday = date(2026, 12, 11), date(2026, 12, 12), date(2026, 12, 7)
    assert this_week_gone(["this", "friday"], friday) == 4
    assert this_week_gone(["本周五"], saturday) == 4
    assert this_week_gone(["这周一"], monday) == 0
    assert this_week_gone(["this", "friday"], monday) is None  # still ahead: this week's
    assert this_week_gone(["friday"], saturday) is None  # no "this": the next one, as always
    assert this_week_gone(["next", "wednesday"], friday) is None
    assert this_week_gone(["下周一"], monday) is None


@pytest.mark.parametrize("lang", ["en", "zh"])
def test_a_reminder_for_this_weeks_today_says_it_is_next_weeks(runtime, lang):
    h = _handlers(runtime)
    h.command(ALICE, f"lang {lang}")
    today = local_today(datetime.now(UTC), runtime.settings.default_timezone)
    names = ("monday", "tuesday", "wednesday", "thursday", "friday", "saturday", "sunday")
    day = f"this {names[today.weekday()]}" if lang == "en" else "本周" + "一二三四五六日"[today.weekday()]
    text = h.command(ALICE, f"remind p-eagle {day}").text
    said = "is today, so I set it for next week" if lang == "en" else "所以设在下周"
    assert said in text, text
    due = runtime.store.reminders("T1", "U1")[0].due_at
    assert due.date() == today + timedelta(days=7)


def test_next_wednesday_is_still_the_coming_one(runtime):
    text = _handlers(runtime).command(ALICE, "remind p-eagle next wednesday").text
    assert "next week's" not in text
