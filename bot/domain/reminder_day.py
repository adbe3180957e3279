"""The day a reader asks to be reminded on, read from the end of the words typed relative to
their local today; the reminder goes out at :data:`REMIND_AT` in their Slack ``tz``. Pure.

Day phrases: ``tomorrow`` / ``明天``, ``day after tomorrow`` / ``后天``, ``next week`` / ``下周``,
``in 3 days`` / ``in a week`` / ``3天后`` / ``一周后``, a weekday (``monday(s)``, ``礼拜一``, ``下周一``:
the first one after today) and a date (``2026-12-07``, ``2026/12/07``, ``2026年12月7日``, ``12月7日``,
``dec 7th``, ``7 december``; a month-day already past is next year). ``today``, ``yesterday`` /
``昨天`` and a day more than a year away (:func:`a_year_after`) are refused (named in the error,
with the reason: :attr:`DayChoice.reason`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.domain.words import RELATIVE_DAYS, WEEKDAY_WORDS, near_day_word

REMIND_AT = time(9, 0)
"""The local time of day a reminder is sent."""
MAX_DAYS_AHEAD = 366
"""The furthest a reminder may be set, in days: the same date a year on (365 days, 366 across a
29 February: :func:`a_year_after`)."""


def a_year_after(day: date) -> date:
    """The same month and day a year after ``day`` (29 February: 28 February), the last day a
    reminder may be set for."""
    try:
        return day.replace(year=day.year + 1)
    except ValueError:  # 29 February
        return day.replace(year=day.year + 1, day=28)


_MONTH_WORDS: tuple[str, ...] = ("jan january", "feb february", "mar march", "apr april", "may", "jun june")
_MONTH_WORDS += ("jul july", "aug august", "sep sept september", "oct october", "nov november", "dec december")
_MONTHS = {name: i for i, names in enumerate(_MONTH_WORDS, 1) for name in names.split()}
_ISO = re.compile(r"^(\d{4})[-/](\d{1,2})[-/](\d{1,2})$")
_ZH_IN = re.compile(r"^(\d{1,3}|一|两|二|三)(天|周|个星期|星期)后$")
_ZH_COUNT = {"一": 1, "两": 2, "二": 2, "三": 3}
_ZH_DATE = re.compile(r"^(\d{1,2})月(\d{1,2})[日号]$")
_ZH_YEAR_DATE = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})[日号]?$")
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
_UNITS = {"day": 1, "days": 1, "d": 1, "week": 7, "weeks": 7, "w": 7}
_NUMBER_WORDS = ("one", "two", "three", "four", "five", "six", "seven", "eight", "nine", "ten")
_COUNTS = {"a": 1} | {w: i for i, w in enumerate(_NUMBER_WORDS, 1)}


@dataclass(frozen=True)
class DayChoice:
    """The words before the day phrase (``rest``) and the ``day`` (``None``: no day phrase);
    ``error`` names a day phrase that cannot be used (past, too far, no date); ``meant`` the day
    word a near-miss last word probably meant (``tomorow``; then ``day`` is ``None``); ``reason``
    why ``error``'s day cannot be used: ``"today"``, ``"past"``, ``"far"`` (more than a year
    ahead) or ``"bad"`` (no such date)."""

    rest: list[str]
    day: date | None = None
    error: str | None = None
    meant: str | None = None
    reason: str | None = None


def _month_day(month: int, day: int, today: date) -> date | None:
    if (month, day) == (today.month, today.day):
        return today  # refused by choose_day (not after today), not moved a year ahead
    for year in (today.year, today.year + 1):
        try:
            candidate = date(year, month, day)
        except ValueError:
            return None
        if candidate > today:
            return candidate
    return None


MAX_COUNT = 10_000
"""Counts of days or weeks above this are read as this (still "too far" for a reminder), so that
``in 9999999999 days`` is refused as too far instead of overflowing ``datetime.date``."""


def _relative(words: list[str], today: date) -> date | None:
    """``tomorrow``, ``后天``, ``next week``, ``in 3 days``, ``in a week``, ``3天后``, ``一周后``."""
    text = " ".join(words)
    if text in RELATIVE_DAYS:
        return today + timedelta(days=RELATIVE_DAYS[text])
    if len(words) == 3 and words[0] == "in" and (words[1].isdigit() or words[1] in _COUNTS) and words[2] in _UNITS:
        count = int(words[1]) if words[1].isdigit() else _COUNTS[words[1]]
        return today + timedelta(days=min(count, MAX_COUNT) * _UNITS[words[2]])
    if m := _ZH_IN.match(text):
        count = _ZH_COUNT.get(m.group(1)) or int(m.group(1))
        return today + timedelta(days=min(count, MAX_COUNT) * (1 if m.group(2) == "天" else 7))
    return None


def _weekday(words: list[str], today: date) -> date | None:
    """``monday``, ``礼拜一``, ``this/next/on monday``, ``下周一``: the first such weekday after today."""
    word: str | None = None
    if len(words) == 1:
        w = words[0]
        word = "周" + w[2:] if w[:2] in ("下周", "本周", "这周") and len(w) == 3 else w
    elif len(words) == 2 and words[0] in ("next", "this", "on"):
        word = words[1]
    if word not in WEEKDAY_WORDS:
        return None
    return today + timedelta(days=(WEEKDAY_WORDS[word] - today.weekday()) % 7 or 7)


def _date(words: list[str], today: date) -> date | str | None:
    """``2026-12-07``, ``2026年12月7日``, ``12月7日``, ``dec 7th``, ``7 december``; ``"bad"`` for no such date."""
    if len(words) == 1 and (m := _ZH_DATE.match(words[0])):
        return _month_day(int(m.group(1)), int(m.group(2)), today) or "bad"
    if len(words) == 1 and (m := _ISO.match(words[0]) or _ZH_YEAR_DATE.match(words[0])):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return "bad"
    if len(words) == 2:
        a, b = (_ORDINAL.sub(r"\1", w) for w in words)
        if a in _MONTHS and b.isdigit():
            return _month_day(_MONTHS[a], int(b), today) or "bad"
        if b in _MONTHS and a.isdigit():
            return _month_day(_MONTHS[b], int(a), today) or "bad"
    return None


def _phrase(words: list[str], today: date) -> date | str | None:
    """The day the whole (lower-case) phrase names, ``"bad"`` for no valid date, ``None`` for no day."""
    return next((found for read in (_relative, _weekday, _date) if (found := read(words, today)) is not None), None)


def names_a_day(word: str) -> bool:
    """Whether ``word`` alone names a reminder's day (``下周一``, ``3天后``, ``12月7日``, ``monday``):
    like a schedule word, Chinese of this kind in an English command does not make it Chinese."""
    return _phrase([word.casefold()], date(2000, 1, 1)) is not None


def choose_day(words: list[str], today: date) -> DayChoice:
    """Take the longest day phrase off the end of ``words``, relative to the reader's local ``today``."""
    low = [w.casefold().strip(",.") for w in words]
    for size in (3, 2, 1):
        if len(low) < size or (found := _phrase(low[-size:], today)) is None:
            continue
        rest = list(words[:-size])
        if isinstance(found, str) or found <= today or found > a_year_after(today):
            reason = _reason(found, today)
            return DayChoice(rest, None, " ".join(words[-size:]), reason=reason)
        return DayChoice(rest, found)
    return DayChoice(list(words), meant=near_day_word(low[-1]) if low else None)


_READ_WORDS = frozenset({"读", "看", "阅读", "读一下", "看一下", "to", "read", "about", "of"})
"""Words between a leading day phrase and the post (``明天 读 p-eagle``, ``tomorrow to read p-eagle``)."""


def day_last(words: list[str], today: date) -> list[str]:
    """``words`` with a day phrase typed first (``明天 读 p-eagle``: remind me tomorrow to read it)
    moved to the end, where :func:`choose_day` reads it, and the reading words after it left out;
    ``words`` as they are when a day phrase ends them or none begins them."""
    low = [w.casefold().strip(",.，") for w in words]
    if len(words) < 2 or any(_phrase(low[-n:], today) is not None for n in (3, 2, 1) if len(low) > n):
        return list(words)
    for size in (3, 2, 1):
        if len(low) > size and _phrase(low[:size], today) is not None:
            after = size
            while after < len(low) - 1 and low[after] in _READ_WORDS:
                after += 1
            return [*words[after:], *words[:size]]
    return list(words)


def _reason(found: date | str, today: date) -> str:
    """Why ``found`` (a day, or ``"bad"``) is no reminder day: :attr:`DayChoice.reason`."""
    if isinstance(found, str):
        return "bad"
    return "today" if found == today else "past" if found < today else "far"


def local_today(now: datetime, zone: str) -> date:
    """The reader's date at ``now`` (aware) in IANA ``zone``."""
    return now.astimezone(ZoneInfo(zone)).date()


def due_at(day: date, zone: str) -> datetime:
    """The instant (aware UTC) of :data:`REMIND_AT` on ``day`` in IANA ``zone``."""
    return datetime.combine(day, REMIND_AT, tzinfo=ZoneInfo(zone)).astimezone(UTC)
