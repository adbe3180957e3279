"""Reminder days typed as new users type them (QA): ``on`` before a date, month names with a year,
numeric dates whose order only their values tell (an ambiguous one refused), a time of day after
the day set aside, and Chinese typed without spaces (``明天读``, ``下周一读p-eagle``). Pure."""

from __future__ import annotations

from datetime import date

import pytest

from bot.domain.reminder_day import choose_day, day_last

TODAY = date(2026, 12, 7)  # a Monday


@pytest.mark.parametrize(
    ("typed", "day"),
    [
        ("on 2027-01-15", date(2027, 1, 15)),
        ("on jan 15", date(2027, 1, 15)),
        ("on 15 jan", date(2027, 1, 15)),
        ("15 jan 2027", date(2027, 1, 15)),
        ("on 15 January 2027", date(2027, 1, 15)),
        ("Dec 20, 2026", date(2026, 12, 20)),
        ("December 20 2026", date(2026, 12, 20)),
        ("20.12.2026", date(2026, 12, 20)),
        ("12/20", date(2026, 12, 20)),
        ("20/12", date(2026, 12, 20)),
    ],
)
def test_dates_new_users_type(typed: str, day: date) -> None:
    choice = choose_day(["p-eagle", *typed.split()], TODAY)
    assert (choice.rest, choice.day, choice.error) == (["p-eagle"], day, None)


def test_a_date_either_order_could_mean_is_refused_as_ambiguous() -> None:
    choice = choose_day(["p-eagle", "05/06"], TODAY)
    assert (choice.day, choice.error, choice.reason) == (None, "05/06", "ambiguous")


@pytest.mark.parametrize("time", ["at 14:00", "2 pm", "at 9", "下午3点"])
def test_a_time_after_the_day_is_set_aside(time: str) -> None:
    choice = choose_day(["p-eagle", "tomorrow", *time.split()], TODAY)
    assert (choice.rest, choice.day, choice.at) == (["p-eagle"], date(2026, 12, 8), time)


@pytest.mark.parametrize(
    ("typed", "day"),
    [
        ("明天读 p-eagle", date(2026, 12, 8)),
        ("下周一读p-eagle", date(2026, 12, 14)),
        ("明天提醒我读 p-eagle", date(2026, 12, 8)),
    ],
)
def test_chinese_days_typed_without_spaces(typed: str, day: date) -> None:
    choice = choose_day(day_last(typed.split(), TODAY), TODAY)
    assert (choice.rest, choice.day) == (["p-eagle"], day)
