"""A post named by when it came out: ``四月首尔那场 meetup``, ``the aug 2025 korea meetup``,
``2025年9月的韩国 meetup``. A question naming a month (in English, a month's name or its common
abbreviation; in Chinese, ``四月`` or ``4月``), with or without a year, prefers among its matches the
posts published in that month or the month after (a recap is written after the event it recaps:
the first Korea meetup of August 2025 was written up in September), in that year when one is named:
they gain :data:`DATE_BONUS` points, twice as many when the question names the year too (a date). A
year alone names no date (``2025`` may be a subject: a year
in review). Words that are a month only beside a number (``may``, ``march``, ``dec`` of ``spec
dec``) count only then.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Sequence

from bot.domain.search.analysis import _Unit
from bot.domain.search.reorder import Ranked, adjusted

DATE_BONUS = 15.0
"""Score points for a matching post published in the month a question names (or the month after)."""

_MONTHS = {
    **dict.fromkeys(("january", "jan"), 1),
    **dict.fromkeys(("february", "feb"), 2),
    **dict.fromkeys(("march", "mar"), 3),
    **dict.fromkeys(("april", "apr"), 4),
    "may": 5,
    **dict.fromkeys(("june", "jun"), 6),
    **dict.fromkeys(("july", "jul"), 7),
    **dict.fromkeys(("august", "aug"), 8),
    **dict.fromkeys(("september", "sep", "sept"), 9),
    **dict.fromkeys(("october", "oct"), 10),
    **dict.fromkeys(("november", "nov"), 11),
    **dict.fromkeys(("december", "dec"), 12),
}
"""English month names and abbreviations (normalized, lower case) → month number."""

_BESIDE_A_NUMBER = frozenset({"may", "march", "mar", "dec"})
"""Month words that are other words too (``may``, ``march``, ``spec dec``): a month only next to a number."""

_HAN_NUMBERS = {"一": 1, "二": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9, "十": 10}
_HAN_MONTH_RE = re.compile(r"(十[一二]?|[一二三四五六七八九])月")
_YEAR_RE = re.compile(r"(?:19|20)\d\d")


def _han_month(text: str) -> int | None:
    match = _HAN_MONTH_RE.search(text)
    if match is None:
        return None
    digits = match.group(1)
    return 10 + _HAN_NUMBERS.get(digits[1:], 0) if digits.startswith("十") else _HAN_NUMBERS[digits]


def named_month(units: Sequence[_Unit]) -> tuple[int, int | None] | None:
    """``(month, year or None)`` that the query's ``units`` name (module docstring), else ``None``."""
    texts = [u.text for u in units]
    year = next((int(t) for t in texts if _YEAR_RE.fullmatch(t)), None)
    for i, text in enumerate(texts):
        if text.isdigit() and i + 1 < len(texts) and texts[i + 1] == "月" and 1 <= int(text) <= 12:
            return int(text), year  # "9 月", "2025 年 9 月"
        if units[i].kind != "latin":
            if (month := _han_month(text)) is not None:
                return month, year
            continue
        month = _MONTHS.get(text)
        if month is None:
            continue
        beside = [texts[j] for j in (i - 1, i + 1) if 0 <= j < len(texts)]
        if text in _BESIDE_A_NUMBER and not any(b.isdigit() or b.rstrip("stndrh").isdigit() for b in beside):
            continue
        return month, year
    return None


def _in_month(day: dt.date, month: int, year: int | None) -> bool:
    """Whether ``day`` falls in ``month`` (of ``year`` when given) or in the month after."""
    for offset in (0, 1):
        m, y = (month + offset - 1) % 12 + 1, (year + (month + offset - 1) // 12) if year is not None else None
        if day.month == m and (y is None or day.year == y):
            return True
    return False


def dated_first(
    ranked: list[Ranked], units: Sequence[_Unit], published: Callable[[int], tuple[dt.date, dt.date]]
) -> list[Ranked]:
    """``ranked`` (best first) with the posts published in the month the query names (or the month
    after; ``published(doc)``: the first and last day of post number ``doc``'s publication) gaining
    :data:`DATE_BONUS` (twice that when a year is named too); unchanged when it names no month."""
    named = named_month(units)
    if named is None:
        return ranked
    month, year = named

    def points(doc: int) -> float:
        first, last = published(doc)
        if not (_in_month(first, month, year) or _in_month(last, month, year)):
            return 0.0
        return DATE_BONUS * (2 if year is not None else 1)  # a month and its year: a date, twice as telling

    return adjusted(ranked, points)


__all__ = ["DATE_BONUS", "dated_first", "named_month"]
