"""The ``plan`` command's words (``plan 30m``, ``plan off``, ``计划 30分钟``) and a weekday typed with
them (``plan 1 hour every friday``, ``计划 每周五读1小时``, ``每周五 1小时``: QA round 18, refused whole
before). Pure, read by :func:`bot.slack.grammar.parse`."""

from __future__ import annotations

import re
from typing import Any

from bot.domain.budget import OFF_WORDS, parse_minutes
from bot.domain.schedule import ScheduleParts
from bot.domain.words import SCHEDULE_FILLER, time_word, weekday_of
from bot.slack.grammar_refs import zh_budget_words, zh_minutes

_WEEK_WORDS = ("每周", "每星期", "每个星期", "每礼拜")
"""Chinese for "a week", said of a plan's minutes (``每周 1小时``): no part of the amount."""

_ZH_DAY_GLUED = re.compile(r"^((?:每|每个)?(?:周|星期|礼拜)[一二三四五六日天])(?:读|阅读|有|看)?(.+)$")
"""A Chinese weekday glued to the amount (``每周五读1小时``): the day, then the amount."""

_ZH_DAY_DIGITS = "一二三四五六日"
"""A weekday's own character after ``每周`` read as the keyword (``每周五 1小时``: ``五``), Monday first."""


_READ_WORDS = frozenset({"读", "阅读", "看"})
"""Chinese for "read" between a plan's day and its amount (``每周五读 1 小时``): no part of either."""


def budget_phrase(fields: dict[str, Any]) -> bool:
    """Whether ``fields`` (:func:`plan_fields` of text typed without ``plan``) are a weekly budget with
    a day (``1 hour every friday``, ``周五读1小时``: QA round 19): minutes AND a weekday, no error;
    a duration alone, or a day alone, is no plan (a search keeps such words)."""
    return not fields.get("error") and fields.get("minutes") is not None and fields.get("schedule") is not None


def _day_of(word: str) -> int | None:
    """The weekday (0 = Monday) ``word`` names (``friday``, ``fridays``, ``周五``, ``每周五``), else None."""
    return weekday_of(time_word(word.casefold()))


def _split_days(words: list[str]) -> tuple[list[str], int | None]:
    """``words`` without the weekday they name and the words leading to it (``every``, ``on``), and
    that weekday; a glued Chinese day (:data:`_ZH_DAY_GLUED`) and a lone weekday character first
    (``五`` of ``每周五 1小时``) count. Without one weekday (none, or two): ``words`` as they were."""
    split: list[str] = []
    for i, word in enumerate(words):
        glued = _ZH_DAY_GLUED.match(word)
        if i == 0 and len(word) == 1 and word in _ZH_DAY_DIGITS and len(words) > 1:
            split.append("周" + ("日" if word == "日" else word))
        elif glued is not None and zh_minutes(word) is None:  # `每周一百分钟`: 100 minutes, no Monday
            split.extend(glued.groups())
        else:
            split.append(word)
    split = [w for w in split if w not in _READ_WORDS]  # `每周五读 1 小时` (QA round 19)
    days = [d for w in split if (d := _day_of(w)) is not None]
    if len(set(days)) != 1:
        return words, None
    kept = [w for w in split if _day_of(w) is None and w.casefold() not in SCHEDULE_FILLER]
    return kept, days[0]


def plan_fields(rest: list[str]) -> dict[str, Any]:
    """``plan 30m`` (``1h``, ``计划 30分钟``): ``minutes``; ``plan off``: ``enabled=False``; ``plan``
    alone: no fields (show the plan); anything else: ``error="plan.bad"``. Chinese durations
    (``每周半小时``, ``一个半小时``: :func:`~bot.slack.grammar_refs.zh_minutes`) too. A weekday with
    the minutes (``plan 1h friday``) is ``schedule`` (its ``weekday`` only), the minutes set as ever."""
    words, weekday = _split_days(rest)
    text = " ".join(w for w in zh_budget_words(words) if w not in _WEEK_WORDS).strip()
    if weekday is not None and not text:  # a day and no amount (`每周一`): what is meant is unclear
        words, weekday = rest, None
        text = " ".join(w for w in zh_budget_words(words) if w not in _WEEK_WORDS).strip()
    if not text:
        return {}
    if text.casefold() in OFF_WORDS:
        return {"enabled": False}
    negative = text.startswith("-")  # "plan -5m": out of range, not unreadable
    amount = text[1:].strip() if negative else text
    minutes = parse_minutes(amount)
    if minutes is None and amount.isascii() and amount.isdigit():  # not "²": a digit int() refuses
        minutes = int(amount)  # "plan 30": minutes
    if minutes is None:
        shown = " ".join(rest) if weekday is not None else text
        return {"error": "plan.bad", "error_value": shown}
    fields: dict[str, Any] = {"enabled": True, "minutes": -minutes if negative else minutes}
    if weekday is not None:
        fields["schedule"] = ScheduleParts(weekday=weekday)
    return fields
