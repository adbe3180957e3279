"""The schedule at the end of ``subscribe`` and ``dm on`` (weekday, time, zone in any order). Pure."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from bot.domain.schedule import WEEKDAY_NAMES, ScheduleParts
from bot.domain.words import (
    CRON_WEEKDAY,
    MERIDIEM,
    SCHEDULE_FILLER,
    Zone,
    clock_time,
    time_word,
    weekday_of,
    zone_of,
    zone_pair_of,
)

_Split = tuple[list[str], dict[str, Any]]
"""The words left before a schedule, and the :class:`~bot.slack.grammar.Command` fields it gives."""

_EXAMPLE_ZONE = "Europe/Berlin"
_NUMBER = re.compile(r"^\d+$")
_CRON_FIELD = re.compile(r"^[\d*/,\-]+$")
_BAD_TIME = re.compile(r"^\d{1,2}(?::\d+|am|pm)$")
"""Looks like a time but is none (``9:5``, ``9:75`` after the other readers refused it)."""


def _right_form(prefix: str, rest: list[str], weekday: int | None, at_time: str | None, zone: str | None) -> str:
    """The command as the grammar reads it: ``/vllm-path subscribe quant sun 09:00 Europe/Berlin``."""
    day = WEEKDAY_NAMES[weekday] if weekday is not None else "mon"
    words = [prefix, *rest, day, at_time or "09:00", zone or _EXAMPLE_ZONE]
    return "/vllm-path " + " ".join(w for w in words if w)


def _crontab(words: list[str], prefix: str) -> _Split | None:
    """The refusal of crontab text ending ``words`` (a run of cron fields holding a ``*``), with the
    weekday and time of a plain weekly line (``0 9 * * 0``) suggested; ``None``: no crontab."""
    start = len(words)
    while start > 0 and _CRON_FIELD.match(words[start - 1]):
        start -= 1
    run = words[start:]
    if not any("*" in w for w in run):
        return None
    weekday = at_time = None
    if len(run) >= 5:
        minute, hour, dom, month, dow = run[-5:]
        numbers = (dom, month) == ("*", "*") and all(_NUMBER.match(x) for x in (minute, hour, dow))
        if numbers and int(minute) < 60 and int(hour) < 24 and int(dow) <= 7:
            weekday, at_time = CRON_WEEKDAY[int(dow)], f"{int(hour):02d}:{int(minute):02d}"
    return words[:start], {
        "error": "sub.crontab",
        "error_value": " ".join(run),
        "suggestion": _right_form(prefix, words[:start], weekday, at_time, None),
    }


def _join_meridiem(words: list[str]) -> list[str]:
    """``9:00 PM`` and ``8 a.m.`` typed as two words become one (``9:00pm``, ``8am``)."""
    out: list[str] = []
    for word in words:
        half = MERIDIEM.get(word.casefold())
        if half and out and re.match(r"^\d{1,2}(?::\d{2})?$", out[-1]):
            out[-1] += half
        else:
            out.append(word)
    return out


@dataclass
class _Parts:
    """The schedule parts read so far, from the end of the words."""

    weekday: int | None = None
    at_time: str | None = None
    zone: Zone | None = None
    zone_word: str = ""
    bad_time: str | None = None
    number: str | None = None
    second_day: str | None = None

    def take(self, rest: list[str]) -> int:
        """Read the last word of ``rest`` (two for a two-word zone); how many it used, 0: no part."""
        word = rest[-1]
        if word.casefold() in SCHEDULE_FILLER:
            return 1
        after_at = self.at_time is None and len(rest) > 1 and rest[-2].casefold() == "at"
        if after_at and _NUMBER.match(word) and int(word) < 24:
            word = f"{int(word)}:00"  # "at 9": an hour
        if self.zone is None:
            used = self._take_zone(rest, word)
            if used:
                return used
        low = time_word(word.casefold())
        clock = clock_time(low) if self.at_time is None else None
        if clock is not None:
            at_time, valid = clock
            self.bad_time = self.bad_time if valid else word
            self.at_time = at_time if self.bad_time is None else "09:00"
        elif self.weekday is None and weekday_of(low) is not None:
            self.weekday = weekday_of(low)
        elif self.second_day is None and weekday_of(low) is not None:
            self.second_day = word  # "dm on sat sun": once a week, refused below
        elif _BAD_TIME.match(low):
            self.bad_time = self.bad_time or word
        elif _NUMBER.match(low) and self.number is None:
            self.number = word  # a weekday (or an hour) given as a number: refused below
        else:
            return 0
        return 1

    def _take_zone(self, rest: list[str], word: str) -> int:
        pair = zone_pair_of(rest[-2], word) if len(rest) >= 2 else None
        if pair is not None:
            self.zone, self.zone_word = pair, f"{rest[-2]} {word}"
            return 2
        found = zone_of(word)
        if found is not None:
            self.zone, self.zone_word = found, word
            return 1
        return 0

    def split(self, rest: list[str], prefix: str) -> _Split:
        """The schedule read, or the refusal of a part, with the right form where it can be told."""
        zone = self.zone or Zone()
        if self.number is not None and self.weekday is not None and self.at_time is None and int(self.number) < 24:
            self.at_time, self.number = f"{int(self.number):02d}:00", None  # "monday 9": 9 is an hour
        if self.number is not None:
            value = int(self.number)
            if self.weekday is None and len(self.number) == 1:
                self.weekday = CRON_WEEKDAY.get(value)  # "7": cron's and ISO's Sunday
            elif self.at_time is None and value < 24:
                self.at_time = f"{value:02d}:00"  # "mon 9", "12": an hour without minutes
            return rest, {
                "error": "sub.weekday_number",
                "error_value": self.number,
                "suggestion": _right_form(prefix, rest, self.weekday, self.at_time, zone.zone),
            }
        if zone.choices:
            return rest, {
                "error": "sub.ambiguous_tz",
                "error_value": self.zone_word,
                "error_choices": zone.choices,
                "suggestion": _right_form(prefix, rest, self.weekday, self.at_time, zone.choices[0]),
            }
        if zone.unknown:
            return rest, {"error": "sub.bad_tz", "error_value": self.zone_word}
        if self.bad_time is not None:
            return rest, {"error": "sub.bad_time", "error_value": self.bad_time}
        if self.second_day is not None:
            days = [w for w in rest if weekday_of(time_word(w.casefold())) is None]  # "sat sun mon": one day
            form = _right_form(prefix, days, self.weekday, self.at_time, zone.zone)
            return rest, {"error": "sub.second_day", "error_value": self.second_day, "suggestion": form}
        schedule = ScheduleParts(weekday=self.weekday, at_time=self.at_time, timezone=zone.zone)
        return rest, {"schedule": schedule, "note": zone.note}


def not_understood(words: list[str]) -> list[str]:
    """The words of ``words`` that are no schedule part on their own (``foo`` of ``friday foo``):
    what a refusal names, not the valid weekday before it."""
    return [w for w in words if not _Parts().take([w])]


def split_schedule(words: list[str], prefix: str) -> _Split:
    """Take weekday, time and zone off the end of ``words`` (:data:`_Split`). Refused, with the right
    form for ``prefix`` (``subscribe``): crontab text, a numbered weekday, a bad time, an ambiguous
    (``IST``) or unknown zone, a second weekday (``sat sun``: ``sub.second_day``)."""
    words = _join_meridiem(words)
    cron = _crontab(words, prefix)
    if cron is not None:
        return cron
    parts, rest = _Parts(), list(words)
    while rest and (used := parts.take(rest)):
        del rest[-used:]
    return parts.split(rest, prefix)
