"""One table of day words (bot.domain.words) for ``subscribe``, ``dm on`` and ``remind``: a
weekday typed in any of its forms books the same day whichever command reads it, and a
mistyped day in ``remind`` is asked about, not read past (issues 23 and 26)."""

from __future__ import annotations

from datetime import UTC, date, datetime

import pytest
import time_machine

from bot.domain.reminder_day import choose_day
from bot.domain.words import WEEKDAY_WORDS, near_day_word
from bot.slack.grammar import parse
from bot.slack.handlers import Caller, Handlers, UserInfo

ALICE = Caller("T1", "U1", "C1")
NOW = datetime(2026, 11, 30, 12, 0, tzinfo=UTC)  # a Monday, 13:00 in Berlin
POST = "redhat-vllm-vs-sglang"


def handlers(runtime) -> Handlers:
    return Handlers(runtime, users_info=lambda team, user: UserInfo(tz="Europe/Berlin"))


@pytest.mark.parametrize(
    "word, weekday",
    [("礼拜一", 0), ("mondays", 0), ("周日", 6), ("礼拜天", 6), ("Thursdays", 3), ("星期三", 2), ("周天", 6)],
)
def test_subscribe_dm_and_remind_read_a_weekday_word_as_the_same_day(word, weekday):
    assert parse(f"subscribe spec {word} 9am").schedule.weekday == weekday
    assert parse(f"dm on {word}").schedule.weekday == weekday
    choice = choose_day([POST, word], date(2026, 11, 30))
    assert choice.rest == [POST] and choice.day is not None and choice.day.weekday() == weekday


def test_every_weekday_word_of_the_table_is_a_day_for_remind():
    today = date(2026, 11, 30)
    for word, weekday in WEEKDAY_WORDS.items():
        day = choose_day(["p", word], today).day
        assert day is not None and day.weekday() == weekday and 0 < (day - today).days <= 7, word


@pytest.mark.parametrize(
    "typed, due",
    [
        (f"remind {POST} 礼拜一", datetime(2026, 12, 7, 8, 0, tzinfo=UTC)),
        (f"remind {POST} mondays", datetime(2026, 12, 7, 8, 0, tzinfo=UTC)),
        (f"remind {POST} 周日", datetime(2026, 12, 6, 8, 0, tzinfo=UTC)),
    ],
)
def test_remind_books_the_day_subscribe_reads(runtime, typed, due):
    with time_machine.travel(NOW, tick=False):
        reply = handlers(runtime).command(ALICE, typed)
    (reminder,) = runtime.store.reminders("T1", "U1")
    assert reminder.post_id == POST and reminder.due_at == due, reply.text
    word = typed.split()[-1]
    assert parse(f"subscribe spec {word}").schedule.weekday == due.weekday()


def test_a_mistyped_day_in_remind_gets_a_did_you_mean_and_books_nothing(runtime):
    with time_machine.travel(NOW, tick=False):
        reply = handlers(runtime).command(ALICE, "remind laguna xs2 tomorow")
        assert "Did you mean `/vllm-path remind laguna xs2 tomorrow`?" in reply.text
        assert runtime.store.reminders("T1", "U1") == []
        booked = handlers(runtime).command(ALICE, "remind laguna-xs2-dflash-llm-compressor tomorrow")
    assert "Did you mean" not in booked.text
    assert [r.post_id for r in runtime.store.reminders("T1", "U1")] == ["laguna-xs2-dflash-llm-compressor"]


@pytest.mark.parametrize(
    "word, meant",
    [
        ("tomorow", "tomorrow"),
        ("thursay", "thursday"),
        ("mondya", "monday"),
        ("tommorrow", "tomorrow"),
        ("monday", None),
        ("eagle", None),
        ("spec", None),
        ("xs2", None),
    ],
)
def test_near_day_words(word, meant):
    assert near_day_word(word) == meant


@pytest.mark.parametrize("typed", ["in 9999999999 days", "in 99999999999999999999 weeks", "99999999999天后"])
def test_a_huge_count_of_days_is_too_far_not_a_failure(runtime, typed):
    """QA: ``remind p-eagle in 9999999999 days`` overflowed ``datetime.date`` and got the generic
    failure reply; it is refused as too far, as ``in 900 days`` is, and books nothing."""
    with time_machine.travel(NOW, tick=False):
        reply = handlers(runtime).command(ALICE, f"remind {POST} {typed}")
    assert "within a year" in reply.text or "一年以内" in reply.text, reply.text
    assert runtime.store.reminders("T1", "U1") == []


@pytest.mark.parametrize(
    ("today", "last_ok"),
    [
        (date(2026, 12, 7), date(2027, 12, 7)),
        (date(2027, 12, 7), date(2028, 12, 7)),
        (date(2028, 2, 29), date(2029, 2, 28)),
    ],
)
def test_a_reminder_is_at_most_a_year_ahead(today, last_ok):
    """ "Within a year", as the refusal says: the same date a year on, not 366 days (QA,
    2026-12-07: ``remind p-eagle 2027-12-08`` was booked on 2026-12-07)."""
    assert choose_day(["in", str((last_ok - today).days), "days"], today).day == last_ok
    assert choose_day(["in", str((last_ok - today).days + 1), "days"], today).day is None
    assert choose_day([last_ok.isoformat()], today).day == last_ok
