"""The day a reader asks to be reminded on, read from the end of the words typed relative to
their local today; the reminder goes out at :data:`REMIND_AT` in their Slack ``tz``. Pure.

Day phrases: ``tomorrow`` / ``明天``, ``day after tomorrow`` / ``后天``, ``next week`` / ``下周``,
``in 3 days`` / ``in a week`` / ``3天后`` / ``一周后`` / ``过两天``, a span of hours or minutes
(``in 2 hours``, ``半小时后``: :attr:`DayChoice.soon`, the next 09:00), a weekday (``monday(s)``,
``礼拜一``, ``本周五``: the first one after today; ``下周一``: that day of next week) and a date
(``2026-12-07``, ``2026/12/07``,
``2026年12月7日``, ``12月7日``, ``dec 7th``, ``7 december``, ``15 jan 2027``, ``Dec 20, 2026``,
``20.12.2026`` and ``12/20`` when only one order is a date; a month-day already past is next year;
``on`` before any of them; a time of day after or before the day, ``at 14:00``, ``9am``,
``morning``, ``上午9点``, is set aside: :attr:`DayChoice.at`, :mod:`bot.domain.reminder_time`).
``today``, ``yesterday`` / ``昨天`` and a day more than a year away (:func:`a_year_after`) are
refused (named in the error, with the reason: :attr:`DayChoice.reason`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from zoneinfo import ZoneInfo

from bot.domain import reminder_time
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
_ZH_IN = re.compile(r"^(过)?(\d{1,3}|[一两二三四五六七八九十])(天|周|个星期|星期|个礼拜)(后|以后|之后)?$")
"""``3天后``, ``一周后``, ``过两天`` (QA round 11), ``三天以后``: ``过`` or ``后`` (or both) needed."""
_ZH_COUNT = {"一": 1, "两": 2, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_ZH_DATE = re.compile(r"^(\d{1,2})月(\d{1,2})[日号]$")
_ZH_YEAR_DATE = re.compile(r"^(\d{4})年(\d{1,2})月(\d{1,2})[日号]?$")
_ORDINAL = re.compile(r"^(\d{1,2})(?:st|nd|rd|th)$")
_NUMERIC = re.compile(r"^(\d{1,2})([./])(\d{1,2})(?:\2(\d{4}))?\.?$")
"""``20.12.2026``, ``12/20``, ``20.12.``: day and month in an order only their values can tell."""
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
    at: str | None = None
    """A time of day typed after the day (``tomorrow at 14:00``), left out: reminders come at
    :data:`REMIND_AT`, which cannot be chosen."""
    soon: str | None = None
    """A span of hours or minutes typed instead of a day (``in 2 hours``, ``半小时后``): the next
    :data:`REMIND_AT` (:func:`~bot.domain.reminder_time.span`); then ``day`` is ``None``."""


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


_SIZES = (4, 3, 2, 1)
"""How many words a day phrase may have (``in half an hour``: 4), the longest tried first."""

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
    if (m := _ZH_IN.match(text)) and (m.group(1) or m.group(4)):
        count = _ZH_COUNT.get(m.group(2)) or int(m.group(2))
        return today + timedelta(days=min(count, MAX_COUNT) * (1 if m.group(3) == "天" else 7))
    return None


_NEXT_WEEK = ("下周", "下星期", "下礼拜", "下個星期", "下个星期", "下個禮拜", "下个礼拜")
"""Chinese for "next week's": ``下周三`` is the Wednesday of the calendar week after this one (weeks
start on Monday, as Chinese calendars print them), even when this week's Wednesday is still ahead."""
_THIS_WEEK = ("本周", "这周", "這周", "本星期", "这星期", "這星期")


def _weekday(words: list[str], today: date) -> date | None:
    """``monday``, ``礼拜一``, ``this/next/on monday``, ``本周五``: the first such weekday after today;
    ``下周三`` (:data:`_NEXT_WEEK`): that day of next week (QA round 16: on a Monday it named this
    week's Wednesday)."""
    word: str | None = None
    next_week = False
    if len(words) == 1:
        w = words[0]
        prefix = next((p for p in (*_NEXT_WEEK, *_THIS_WEEK) if w.startswith(p) and len(w) == len(p) + 1), None)
        word = "周" + w[len(prefix) :] if prefix else w
        next_week = prefix in _NEXT_WEEK
    elif len(words) == 2 and words[0] in ("next", "this", "on"):
        word = words[1]
    if word not in WEEKDAY_WORDS:
        return None
    if next_week:
        return today + timedelta(days=7 - today.weekday() + WEEKDAY_WORDS[word])
    return today + timedelta(days=(WEEKDAY_WORDS[word] - today.weekday()) % 7 or 7)


def this_week_gone(words: list[str], today: date) -> int | None:
    """The weekday (0 Monday) ``words`` name as this week's (``this friday``, ``本周五``, ``这周一``)
    when that day is ``today`` or already past in this week, so that :func:`_weekday` reads it as
    next week's (QA round 17: said in the reply, not silently); else None."""
    low = [w.casefold().strip(",.") for w in words]
    word: str | None = None
    if len(low) == 2 and low[0] == "this":
        word = low[1]
    elif len(low) == 1 and (p := next((p for p in _THIS_WEEK if low[0].startswith(p)), None)):
        word = "周" + low[0][len(p) :] if len(low[0]) == len(p) + 1 else None
    if word not in WEEKDAY_WORDS:
        return None
    day = WEEKDAY_WORDS[word]
    return day if day <= today.weekday() else None


def _numeric(word: str, today: date) -> date | str | None:
    """``20.12.2026``, ``12/20``: the one date its numbers can be (a month is at most 12);
    ``"ambiguous"`` when both orders are dates (``05/06``), ``"bad"`` for none, ``None``: no such form."""
    m = _NUMERIC.match(word)
    if m is None:
        return None
    days = {d for d in numeric_readings(word, today) if d is not None}
    return days.pop() if len(days) == 1 else "ambiguous" if days else "bad"


def numeric_readings(word: str, today: date) -> tuple[date | None, date | None]:
    """The dates ``12/05`` or ``12.05.2027`` can be, month first and day first (``None``: not a
    date that way, or not such a form); a year-less one is the next such day after ``today``."""
    m = _NUMERIC.match(word)
    if m is None:
        return None, None
    a, b, year = int(m.group(1)), int(m.group(3)), m.group(4)

    def read(month: int, day: int) -> date | None:
        if not year:
            return _month_day(month, day, today)
        try:
            return date(int(year), month, day)
        except ValueError:
            return None

    return read(a, b), read(b, a)


def _named_month(words: list[str], today: date) -> date | str | None:
    """``dec 7th``, ``7 december``, ``15 jan 2027``, ``december 20 2026`` (a comma already gone)."""
    year = int(words[-1]) if len(words) == 3 and re.fullmatch(r"\d{4}", words[-1]) else None
    if len(words) != 2 and year is None:
        return None
    a, b = (_ORDINAL.sub(r"\1", w) for w in words[:2])
    month, day = (_MONTHS[a], b) if a in _MONTHS else (_MONTHS.get(b, 0), a)
    if not month or not day.isdigit():
        return None
    if year is None:
        return _month_day(month, int(day), today) or "bad"
    try:
        return date(year, month, int(day))
    except ValueError:
        return "bad"


def _date(words: list[str], today: date) -> date | str | None:
    """``2026-12-07``, ``2026年12月7日``, ``12月7日``, ``dec 7th``, ``7 december``, ``15 jan 2027``,
    ``20.12.2026``; ``"bad"`` for no such date, ``"ambiguous"`` for ``05/06``."""
    if len(words) == 1 and (m := _ZH_DATE.match(words[0])):
        return _month_day(int(m.group(1)), int(m.group(2)), today) or "bad"
    if len(words) == 1 and (m := _ISO.match(words[0]) or _ZH_YEAR_DATE.match(words[0])):
        try:
            return date(int(m.group(1)), int(m.group(2)), int(m.group(3)))
        except ValueError:
            return "bad"
    if len(words) == 1:
        return _numeric(words[0], today)
    return _named_month(words, today)


def _soon(words: list[str], today: date) -> str | None:
    """:data:`~bot.domain.reminder_time.SOON` for a span of hours or minutes (``in 2 hours``), else None."""
    return reminder_time.SOON if reminder_time.span(words) else None


def _phrase(words: list[str], today: date) -> date | str | None:
    """The day the whole (lower-case) phrase names, ``"bad"`` for no valid date, ``None`` for no day;
    :data:`~bot.domain.reminder_time.SOON` for a span of hours or minutes (``in 2 hours``)."""
    readers = (_relative, _weekday, _date, _soon)
    return next((found for read in readers if (found := read(words, today)) is not None), None)


def names_a_day(word: str) -> bool:
    """Whether ``word`` alone names a reminder's day (``下周一``, ``3天后``, ``12月7日``, ``monday``):
    like a schedule word, Chinese of this kind in an English command does not make it Chinese; a day
    with its time glued after it (``明天上午9点``) too."""
    return _is_day(word) or reminder_time.split_glued(word, _is_day) is not None


def _is_day(word: str, today: date = date(2000, 1, 1)) -> bool:
    """Whether ``word`` alone names a day from ``today``."""
    return _phrase([word.casefold()], today) is not None


def _ends_with_day(low: list[str], today: date) -> bool:
    """Whether the (lower-case) words ``low`` end with a day phrase (``p-eagle tomorrow``)."""
    return any(_phrase(low[-n:], today) is not None for n in _SIZES if len(low) >= n)


def _unglue_times(words: list[str], today: date) -> list[str]:
    """``words`` with each Chinese day that has a time glued after it (``明天上午9点``, ``周五上午``,
    ``明早``) split into the day and the time (:func:`~bot.domain.reminder_time.split_glued`)."""
    out: list[str] = []
    for w in words:
        out.extend(reminder_time.split_glued(w, lambda head: _is_day(head, today)) or [w])
    return out


def choose_day(words: list[str], today: date) -> DayChoice:
    """Take the longest day phrase off the end of ``words``, relative to the reader's local ``today``
    (``on`` before it too: ``on 15 jan 2027``); times of day after it or right before it are left out
    (:attr:`DayChoice.at`: ``tomorrow 9am``, ``9:00 tomorrow``, ``at 9 on monday``, ``明天上午9点``;
    QA round 10: ``p-eagle 9:00`` was searched for as a post)."""
    words = _unglue_times(words, today)
    low = [w.casefold().strip(",.") if not _NUMERIC.match(w) else w for w in words]
    for size in _SIZES:  # "in 2h": a span, before "2h" could be read as 02:00
        if len(low) >= size and reminder_time.span(low[-size:]):
            return DayChoice(list(words[:-size]), soon=" ".join(words[-size:]))
    at = None
    if timed := reminder_time.at_end(low, lambda head: _ends_with_day(head, today)):
        at, words, low = " ".join(words[-timed:]), words[:-timed], low[:-timed]
    for size in _SIZES:
        if len(low) < size or (found := _phrase(low[-size:], today)) is None:
            continue
        rest = list(words[:-size])
        if rest and rest[-1].casefold() == "on":  # "remind p-eagle on jan 15"
            rest, size = rest[:-1], size + 1
        if found == reminder_time.SOON:  # "in 2 hours at 9"
            return DayChoice(rest, soon=" ".join(words[-size:]), at=at)
        if isinstance(found, str) or found <= today or found > a_year_after(today):
            reason = _reason(found, today)
            return DayChoice(rest, None, " ".join(words[-size:]), reason=reason)
        if before := reminder_time.at_end([w.casefold().strip(",.") for w in rest]):  # "p-eagle 9:00 tomorrow"
            at, rest = " ".join([*rest[-before:], *([at] if at else [])]), rest[:-before]
        return DayChoice(rest, found, at=at)
    return DayChoice(list(words), meant=near_day_word(low[-1]) if low else None, at=at)


_READ_WORDS = frozenset({"读", "看", "阅读", "读一下", "看一下", "to", "read", "about", "of"})
"""Words between a leading day phrase and the post (``明天 读 p-eagle``, ``tomorrow to read p-eagle``)."""


def day_last(words: list[str], today: date) -> list[str]:
    """``words`` with a day phrase typed first (``明天 读 p-eagle``: remind me tomorrow to read it)
    moved to the end, where :func:`choose_day` reads it, and the reading words after it left out;
    ``words`` as they are when a day phrase ends them or none begins them."""
    words = _unglue(words, today)
    low = [w.casefold().strip(",.，") for w in words]
    if len(words) < 2 or any(_phrase(low[-n:], today) is not None for n in _SIZES if len(low) > n):
        return list(words)
    for size in _SIZES:
        if len(low) > size and _phrase(low[:size], today) is not None:
            after = size
            timed = (
                reminder_time.is_time(low[after]) and after < len(low) - 1
            )  # 明天 下午2点 读, tomorrow morning to read
            after += 1 if timed else 0
            while after < len(low) - 1 and low[after] in _READ_WORDS:
                after += 1
            return [*words[after:], *words[:size], *([words[size]] if timed else [])]
    return list(words)


_ZH_READ_WORDS = ("阅读", "读一下", "看一下", "读", "看")
"""Chinese reading words before a post (``提醒我读 p-eagle``), the longest first."""


def drop_read_words(words: list[str]) -> list[str]:
    """``words`` without Chinese reading words before the post (``读 nope``, ``读nope``: ``nope``),
    as when a day comes first; the words as they are when nothing follows them."""
    if len(words) > 1 and words[0] in _ZH_READ_WORDS:
        return list(words[1:])
    lead = next((r for r in _ZH_READ_WORDS if words and words[0].startswith(r)), "")
    if lead and words[0][len(lead) :].isascii():
        return [words[0][len(lead) :], *words[1:]]
    return list(words)


def _unglue(words: list[str], today: date) -> list[str]:
    """``明天读``, ``下周一读p-eagle``, ``明天提醒我读``: a first word of Chinese that starts with a day
    (the longest) and goes on with reading words (or a post) split into the day and the rest."""
    first = words[0] if words else ""
    if first.isascii():
        return list(words)
    for end in range(len(first) - 1, 0, -1):
        if _phrase([first[:end].casefold()], today) is None:
            continue
        tail = re.sub(r"^(?:提醒我|提醒)", "", first[end:])
        if (timed := _ZH_TIME.match(tail)) is not None and timed.end() < len(tail):  # 明天下午2点读, 明天14:00读
            rest = _unglue([first[:end] + tail[timed.end() :], *words[1:]], today)
            return [rest[0], timed.group(0), *rest[1:]]
        if timed is not None and len(words) > 1:  # 明天上午9点 读 p-eagle: the day, its time, the rest
            return [first[:end], tail, *words[1:]]
        lead = next((r for r in sorted(_READ_WORDS, key=len, reverse=True) if tail.startswith(r)), "")
        if lead or tail[:1].isascii():
            return [
                first[:end],
                *([lead] if lead else []),
                *([tail[len(lead) :]] if tail[len(lead) :] else []),
                *words[1:],
            ]
    return list(words)


_ZH_TIME = re.compile(
    r"^(?:(?:上午|下午|晚上|早上|早晨|中午|傍晚)?\d{1,2}(?:点半|点\d{1,2}分?|点)|\d{1,2}:\d{2}|上午|下午|晚上|早上|早晨|中午|傍晚)"
)
"""A time of day glued after a Chinese day (``明天下午2点读``, ``明天14:00读``): ``_unglue`` splits it off."""


def _reason(found: date | str, today: date) -> str:
    """Why ``found`` (a day, or ``"bad"``) is no reminder day: :attr:`DayChoice.reason`."""
    if isinstance(found, str):
        return "ambiguous" if found == "ambiguous" else "bad"
    return "today" if found == today else "past" if found < today else "far"


def local_today(now: datetime, zone: str) -> date:
    """The reader's date at ``now`` (aware) in IANA ``zone``."""
    return now.astimezone(ZoneInfo(zone)).date()


def due_at(day: date, zone: str) -> datetime:
    """The instant (aware UTC) of :data:`REMIND_AT` on ``day`` in IANA ``zone``."""
    return datetime.combine(day, REMIND_AT, tzinfo=ZoneInfo(zone)).astimezone(UTC)
