"""A weekly reading budget in minutes: the words people type for it, and what fits in it. Pure.

:data:`DEFAULT_MINUTES` finishes every essential path (at most :data:`ESSENTIAL_MAX_MINUTES`)
within :data:`FINISH_WEEKS` weeks whatever its steps' lengths: a week takes steps while they
:func:`fit`, so any two weeks in a row hold more than the budget ``B``, and five weeks would need
more than ``2B`` minutes (``tests/plan/test_budget.py``).
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence

ESSENTIAL_MAX_MINUTES = 90
"""The longest an essential path may be (minutes of reading; the catalog's rule)."""
ESSENTIAL_STEPS_MAX = 8
"""The most steps an essential path may have (the catalog's rule)."""
FINISH_WEEKS = 4
"""Every essential path finishes within this many weeks at the default budget."""
DEFAULT_MINUTES = 45
"""Minutes a week when none is set: ESSENTIAL_MAX_MINUTES / 2 (the module docstring says why)."""
MIN_MINUTES = 5
MAX_MINUTES = 600
UNKNOWN_STEP_MINUTES = 10
"""Minutes a step of unknown length counts for when planning (never shown as its length)."""

_EN = re.compile(
    r"^(?:(?P<h>\d+(?:\.\d+)?)\s*(?:h|hr|hrs|hour|hours)\s*(?:(?P<hm>\d+)\s*(?:m|min|mins|minutes?)?)?"
    r"|(?P<m>\d+)\s*(?:m|min|mins|minute|minutes))$"
)
_ZH_NUM: dict[str, float] = dict(zip("一两二三四五六七八九十", (1, 2, 2, 3, 4, 5, 6, 7, 8, 9, 10), strict=True))
_ZH_NUM |= {"半": 0.5, "十五": 15, "二十": 20, "三十": 30, "四十": 40, "四十五": 45, "六十": 60, "九十": 90}
_ZH = re.compile(r"^(?P<n>\d+(?:\.\d+)?|[半一两二三四五六七八九十]+)\s*(?P<u>分钟|分|小时|个小时|钟头|个钟头)$")
_SAID = {"halfanhour": 30, "anhour": 60, "onehour": 60, "twohours": 120, "anhourandahalf": 90}
"""Durations said in words (``plan half an hour``); digits and Chinese (``半小时``) go through :func:`parse_minutes`."""
OFF_WORDS = frozenset({"off", "none", "stop", "clear", "reset", "关闭", "关", "取消"})
_FILLER = frozenset({"a", "per", "week", "weekly", "/week", "每周", "一周", "每星期", "a week"})


def _zh_number(text: str) -> float | None:
    return float(text) if text.replace(".", "", 1).isdigit() else _ZH_NUM.get(text)


def parse_minutes(text: str) -> int | None:
    """Minutes in one duration (``30 min``, ``1.5h``, ``1h30``, ``半小时``, ``1小时``), else ``None``
    (a bare number too). The range is not checked (:func:`check_minutes`)."""
    low = text.casefold().replace(" ", "").strip("/")
    for suffix in ("perweek", "aweek", "/week", "week", "每周", "一周"):
        if low.endswith(suffix) and len(low) > len(suffix):
            low = low[: -len(suffix)]
    if low in _SAID:
        return _SAID[low]
    if m := _EN.match(low):
        return int(m.group("m")) if m.group("m") else round(float(m.group("h")) * 60) + int(m.group("hm") or 0)
    z = _ZH.match(low)
    n = None if z is None else _zh_number(z.group("n"))
    if z is None or n is None:
        return None
    return round(n) if z.group("u") in ("分钟", "分") else round(n * 60)


def check_minutes(minutes: int) -> bool:
    """Whether ``minutes`` is an allowed weekly budget (:data:`MIN_MINUTES`..:data:`MAX_MINUTES`)."""
    return MIN_MINUTES <= minutes <= MAX_MINUTES


def take_budget(words: Sequence[str]) -> tuple[list[str], int | None]:
    """``(other words, minutes or None)``: one duration (``45 min`` may be two words, ``1h 30m``
    is 90 minutes, ``-5m`` is -5 for the range check to refuse, and a following ``a week`` goes
    too) taken out of ``words``. ``21h`` is a clock time: the short
    ``h`` form is a duration only up to :data:`MAX_SHORT_HOURS` hours."""
    out = list(words)
    for i, typed in enumerate(out):
        sign = -1 if typed.startswith("-") and len(typed) > 1 else 1  # "-5m": out of range, not unread
        word = typed[1:] if sign < 0 else typed
        pair = f"{word}{out[i + 1]}" if i + 1 < len(out) else None
        minutes: int | None = None
        if said := next((n for n in (6, 3, 2) if "".join(out[i : i + n]).casefold() in _SAID), 0):
            end, minutes = i + said, _SAID["".join(out[i : i + said]).casefold()]
        elif pair is not None and word.replace(".", "", 1).isdigit() and parse_minutes(pair) is not None:
            end, minutes = i + 2, parse_minutes(pair)
        elif not word.isdigit() and (minutes := parse_minutes(word)) is not None and not _clock_like(word, out):
            end = i + 1
        else:
            continue
        if minutes is not None and _HOURS_END.search("".join(out[i:end])):  # "1h 30m": 90 minutes
            end, minutes = _and_minutes(out, end, minutes)
        while end < len(out) and out[end].casefold() in _FILLER:
            end += 1
        return out[:i] + out[end:], None if minutes is None else sign * minutes
    return out, None


_HOURS_END = re.compile(
    r"(?:\d|[半一两二三四五六七八九十])\s*(?:h|hr|hrs|hour|hours|小时|个小时|钟头|个钟头)$", re.IGNORECASE
)
"""A duration in whole hours (``1h``, ``2 hours``, ``1小时``) that minutes may follow as another word."""
_MINUTES_ONLY = re.compile(r"^\d+\s*(?:m|min|mins|minutes?|分钟|分)$", re.IGNORECASE)


def _and_minutes(words: Sequence[str], end: int, minutes: int) -> tuple[int, int]:
    """``(end, minutes)`` with the minutes that follow an hours duration at ``words[end]`` (``1h
    30m``, ``1 hour 30 minutes``, ``1小时 30分钟``) added: one duration, not two."""
    for n in (1, 2):
        more = "".join(words[end : end + n])
        if len(words) >= end + n and _MINUTES_ONLY.match(more) and (extra := parse_minutes(more)) is not None:
            return end + n, minutes + extra
    return end, minutes


MAX_SHORT_HOURS = 3
"""The most hours the bare ``Nh`` form means as a budget beside a schedule (``21h`` is a time)."""
_SHORT_HOURS = re.compile(r"^(\d+(?:\.\d+)?)h(\d+)?$", re.IGNORECASE)


_CLOCK = re.compile(r"^\d{1,2}[:.]\d{2}(?:am|pm)?$|^\d{1,2}(?:am|pm)$", re.IGNORECASE)
"""A clock time written out (``08:30``, ``8.30pm``, ``9am``)."""


def _clock_like(word: str, words: Sequence[str] = ()) -> bool:
    """Whether ``word`` (``21h``) is more likely a clock time than a duration: the ``Nh`` form over
    :data:`MAX_SHORT_HOURS` hours, unless another of ``words`` already is a clock time (``dm on
    friday 08:30 10h``: ten hours a week)."""
    m = _SHORT_HOURS.match(word)
    return bool(m and float(m.group(1)) > MAX_SHORT_HOURS) and not any(_CLOCK.match(w) for w in words)


def step_cost(minutes: int | None) -> int:
    """What a step costs a week's budget: its minutes, else :data:`UNKNOWN_STEP_MINUTES`."""
    return minutes if minutes else UNKNOWN_STEP_MINUTES


def fit(lengths: Sequence[int | None], budget: int) -> int:
    """How many of the next steps (minutes, ``None`` unknown) fit ``budget`` minutes; at least one."""
    used, n = 0, 0
    for length in lengths:
        cost = step_cost(length)
        if n and used + cost > budget:
            break
        used += cost
        n += 1
        if used >= budget:
            break
    return n


def weeks_to_finish(lengths: Sequence[int | None], budget: int) -> int:
    """Weeks the steps of ``lengths`` take at ``budget`` minutes a week under :func:`fit`."""
    weeks, rest = 0, list(lengths)
    while rest:
        rest = rest[fit(rest, budget) :]
        weeks += 1
    return weeks


def finish_day(today: dt.date, weeks: int) -> dt.date:
    """The end of the last of ``weeks`` weeks from ``today`` (``today`` + 7 × ``weeks`` - 1 days)."""
    return today + dt.timedelta(days=max(0, 7 * weeks - 1)) if weeks else today


_STOP_AFTER = (("then", "stop"), ("stop", "after"), ("essentials", "only"), ("只读核心",), ("读完核心停止",))
_FURTHER_AFTER = (("then", "further"), ("and", "further"), ("继续延伸阅读",))


def take_after(words: Sequence[str]) -> tuple[list[str], str | None]:
    """``(other words, "stop" | "further" | None)``: ``then stop`` or ``then further`` taken out."""
    low = [w.casefold() for w in words]
    for forms, value in ((_STOP_AFTER, "stop"), (_FURTHER_AFTER, "further")):
        for form in forms:
            n = len(form)
            for i in range(len(low) - n + 1):
                if tuple(low[i : i + n]) == form:
                    return list(words[:i]) + list(words[i + n :]), value
    return list(words), None
