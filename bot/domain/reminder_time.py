"""Times of day typed with a reminder's day (``tomorrow 9am``, ``at 9 on monday``, ``tomorrow
morning``, ``明天上午9点``, ``周五上午``): found and set aside, since a reminder always comes at
09:00 in the reader's zone (:data:`bot.domain.reminder_day.REMIND_AT`); :func:`means` tells
whether the words asked for that time anyway (``9am``, ``09:00``, ``at 9``, ``morning``, ``上午``).
Pure."""

from __future__ import annotations

import re
from collections.abc import Callable
from datetime import time

from bot.domain.words import MERIDIEM, clock_time, time_word

MORNING = frozenset({"morning", "上午", "早上", "早晨", "清早"})
"""Parts of the day 09:00 is in."""
LATER = frozenset({"afternoon", "evening", "night", "noon", "midday", "中午", "下午", "晚上", "傍晚", "夜里", "凌晨"})
"""Parts of the day 09:00 is not in (``noon`` is 12:00, as :func:`~bot.domain.words.time_word` reads it)."""
PARTS = MORNING | LATER
_PART_LEAD = ("in", "the", "this", "early", "late")
"""Words before a part of the day (``in the morning``, ``early morning``)."""
TIME_LEAD = frozenset({"at", "around", "about", "by", "在"})
"""Words before a time of day (``tomorrow at 14:00``)."""
_OCLOCK = frozenset({"o'clock", "oclock", "o’clock"})
_ZH_GLUED = {"明早": ("明天", "早上"), "明晚": ("明天", "晚上")}
"""Chinese words that are a day and a part of it at once."""
_NUMERIC = re.compile(r"^\d{1,2}[./]\d{1,2}")
"""``20.12``, ``12/20``: a date, a time only after ``at``."""


def _hour(word: str) -> bool:
    return word.isdigit() and int(word) < 24


def is_time(low: str) -> bool:
    """Whether the one (lower-case) word ``low`` is a time of day or a part of one (``9am``,
    ``14:00``, ``上午9点``, ``morning``, ``上午``); a bare number is not."""
    return low in PARTS or clock_time(time_word(low)) is not None


def _one_at_end(low: list[str], after_day: Callable[[list[str]], bool]) -> int:
    """How many of the last words of ``low`` are one time of day (``at 14:00``, ``2 pm``, ``at 9``,
    ``9 o'clock``, ``in the morning``, ``下午3点``; a bare hour right after a day, ``tomorrow 9``:
    ``after_day`` says whether words end with a day), 0: none."""
    if not low:
        return 0
    last, n = low[-1], 1
    if last in PARTS:
        while n < len(low) and n < 3 and low[-n - 1] in _PART_LEAD:
            n += 1
        return n
    before = low[-2] if len(low) > 1 else ""
    if (last in _OCLOCK and _hour(before)) or (last in MERIDIEM and clock_time(before + MERIDIEM[last]) is not None):
        n = 2
    elif last.isdigit() or _NUMERIC.match(last):  # 20.12, 2027, 0900: a time only after "at"
        led = len(low) > 1 and low[-2] in TIME_LEAD
        if not led and not (_hour(last) and after_day(low[:-1])):  # a bare hour: right after a day
            return 0
        if not _hour(last) and clock_time(time_word(last)) is None:
            return 0
    elif clock_time(time_word(last)) is None:
        return 0
    return n + (1 if len(low) > n and low[-n - 1] in TIME_LEAD else 0)


def at_end(low: list[str], after_day: Callable[[list[str]], bool] = lambda _: False) -> int:
    """How many of the last words of ``low`` (lower case) are times of day, one or several
    (``tomorrow morning at 9``: 3), 0: none (:func:`_one_at_end`)."""
    taken = 0
    while found := _one_at_end(low[: len(low) - taken], after_day):
        taken += found
    return taken


def means(at: str, remind_at: time) -> bool:
    """Whether the time words ``at`` (``9am``, ``at 9``, ``09:00``, ``9 o'clock``, ``morning at 9``,
    ``上午9点``, ``上午``) ask for ``remind_at`` (a part of the day alone: the one it is in)."""
    words = [w.casefold() for w in at.split()]
    later = any(w in LATER for w in words)
    rest = "".join(
        w for w in words if w not in PARTS and w not in TIME_LEAD and w not in _OCLOCK and w not in _PART_LEAD
    )
    if not rest:
        return any(w in MORNING for w in words) and not later and remind_at.hour < 12
    clock = clock_time(time_word(f"{int(rest)}:00" if rest.isdigit() and int(rest) < 24 else rest))
    if clock is None or not clock[1]:
        return False
    hour, minute = (int(x) for x in clock[0].split(":"))
    hour += 12 if later and hour < 12 and not rest.endswith(("am", "pm")) else 0
    return (hour, minute) == (remind_at.hour, remind_at.minute)


def split_glued(word: str, is_day: Callable[[str], bool]) -> list[str] | None:
    """``明天上午9点``, ``周五上午``, ``明早`` as a day and its time (``["明天", "上午9点"]``);
    ``None`` when ``word`` is no Chinese day with a time glued after it."""
    if word in _ZH_GLUED:
        return list(_ZH_GLUED[word])
    if word.isascii():
        return None
    for end in range(len(word) - 1, 0, -1):
        head, tail = word[:end], word[end:]
        if is_day(head) and (is_time(tail) or (tail[:2] in PARTS and is_time(tail[2:]))):
            return [head, tail]
    return None


SOON = "soon"
"""What :func:`span` finds: a span of hours or minutes (``in 2 hours``), which names no day of its own."""
_SPAN_UNITS = frozenset({"h", "hr", "hrs", "hour", "hours", "m", "min", "mins", "minute", "minutes", "分钟", "小时"})
_SPAN_COUNTS = frozenset({"a", "an", "one", "two", "three", "four", "five", "six", "ten", "few", "couple", "half"})
_SPAN_GLUED = re.compile(r"^\d{1,4}(?:\.\d)?(?:h|hrs?|hours?|m|mins?|minutes?)$")
"""``2h``, ``30m``, ``90min``, ``1.5h``: a count glued to its unit."""
_ZH_SPAN = re.compile(
    r"^(?:过)?(?:\d{1,4}|[一二两三四五六七八九十几半]{1,3})(?:个)?(?:半)?(?:小时|钟头|分钟|分)(?:后|以后|之后)?$"
)
"""``半小时后``, ``一小时后``, ``两个小时后``, ``30分钟后``, ``过一小时``."""


def span(low: list[str]) -> bool:
    """Whether the (lower-case) words ``low`` are all one span of hours or minutes from now (``in 2
    hours``, ``in 2h``, ``in 30 minutes``, ``in half an hour``, ``2 hours from now``, ``半小时后``):
    a reminder comes once a day at 09:00, so such a span means the next 09:00 (QA round 11: ``in
    2 hours`` was read as ``in 2 thurs``)."""
    words = list(low)
    if words[-2:] == ["from", "now"]:
        words = words[:-2]
    elif words and words[0] in ("in", "after"):
        words = words[1:]
    elif len(words) == 1 and _ZH_SPAN.match(words[0]) and not words[0].endswith("分"):
        return True
    if not words or (len(low) == len(words) and low[0] not in ("in", "after")):
        return False
    if len(words) == 1:
        return _SPAN_GLUED.match(words[0]) is not None
    counts, unit = words[:-1], words[-1]
    return unit in _SPAN_UNITS and all(w.replace(".", "").isdigit() or w in _SPAN_COUNTS for w in counts)
