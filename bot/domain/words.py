"""Time, time-zone and day words in English and Chinese: the one table ``subscribe``, ``dm on``
and ``remind`` read (weekdays, relative days, clock times, IANA zones). Pure, no I/O.
"""

from __future__ import annotations

import functools
import re
import threading
from collections.abc import Sequence
from dataclasses import dataclass

# fmt: off
WEEKDAY_WORDS: dict[str, int] = {name: day for day, names in enumerate((
    ("mon", "monday", "mondays", "周一", "星期一", "礼拜一"),
    ("tue", "tues", "tuesday", "tuesdays", "周二", "星期二", "礼拜二"),
    ("wed", "wednesday", "wednesdays", "周三", "星期三", "礼拜三"),
    ("thu", "thur", "thurs", "thursday", "thursdays", "周四", "星期四", "礼拜四"),
    ("fri", "friday", "fridays", "周五", "星期五", "礼拜五"),
    ("sat", "saturday", "saturdays", "周六", "星期六", "礼拜六"),
    ("sun", "sunday", "sundays", "周日", "周天", "星期日", "星期天", "礼拜日", "礼拜天"),
)) for name in names}
"""Weekday names people type (lower-case), as 0=Monday…6=Sunday."""

RELATIVE_DAYS: dict[str, int] = {
    "tomorrow": 1, "明天": 1, "day after tomorrow": 2, "后天": 2,
    "today": 0, "今天": 0, "tonight": 0, "now": 0, "yesterday": -1, "昨天": -1,
    "next week": 7, "下周": 7, "下星期": 7,
}
"""Days named from the reader's today, as days ahead (0 and less: refused for a reminder)."""
# fmt: on

CRON_WEEKDAY = {0: 6, 7: 6, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}
"""Cron's (and ISO's) day-of-week numbers (0 and 7 = Sunday) as 0=Monday…6=Sunday."""

SCHEDULE_FILLER = frozenset({"every", "each", "at", "on", "每", "每周", "每个"})
"""Words between schedule parts that say nothing (``every monday at 9``)."""

_NEAR_DAYS = tuple(w for w in (*WEEKDAY_WORDS, *RELATIVE_DAYS) if w.isascii() and " " not in w and len(w) >= 5)


def weekday_of(word: str) -> int | None:
    """The weekday (0=Monday) ``word`` names in any case (``Mondays``, ``礼拜一``, ``每周一``), else ``None``."""
    low = word.casefold()
    if low.startswith("每") and low[1:] in WEEKDAY_WORDS:  # 每周一: every Monday
        low = low[1:]
    return WEEKDAY_WORDS.get(low)


def is_schedule_word(word: str) -> bool:
    """Whether ``word`` only names a day or a time (``周五``, ``礼拜一``, ``明天``, ``下午3点``,
    ``每``): Chinese of this kind in an English command does not make the command Chinese."""
    low = word.casefold()
    return (
        weekday_of(low) is not None
        or low in RELATIVE_DAYS
        or low in SCHEDULE_FILLER
        or clock_time(time_word(low)) is not None
    )


NOT_DAY_WORDS = frozenset({"hours", "hour", "hrs", "minutes", "minute", "mins", "seconds", "months", "month"})
"""Units of time that are near a day word but never one (QA round 11: ``hours`` was read as ``thurs``)."""


def near_day_word(word: str) -> str | None:
    """The day word ``word`` nearly is (``tomorow``: rapidfuzz ratio >= 80, 5+ letters), else ``None``;
    never for a unit of time (:data:`NOT_DAY_WORDS`)."""
    low = word.casefold()
    if len(low) < 5 or not low.isalpha() or low in WEEKDAY_WORDS or low in RELATIVE_DAYS or low in NOT_DAY_WORDS:
        return None
    return closest(low, _NEAR_DAYS, 80)


def closest(word: str, choices: Sequence[str], cutoff: int) -> str | None:
    """The choice nearest ``word`` by rapidfuzz's ratio (0-100), if at least ``cutoff``, else None."""
    from rapidfuzz import fuzz, process  # deferred: only a near miss needs it

    best = process.extractOne(word, choices, scorer=fuzz.ratio, score_cutoff=cutoff)
    return None if best is None else str(best[0])


# --- times of day

CLOCK = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", re.IGNORECASE)
"""A time as ``H[:MM][am|pm]`` (after :func:`time_word`)."""
_ZH_TIME = re.compile(r"^(上午|早上|早晨|凌晨|中午|下午|晚上|傍晚)?(\d{1,2})[点點时時](半|(\d{1,2})分?)?$")
_SPOKEN_TIMES = {"noon": "12:00", "midday": "12:00", "中午": "12:00", "midnight": "24:00"}
"""``midnight`` (and 晚上12点) is refused as a time: "friday midnight" may be either end of Friday."""
# fmt: off
_ZH_NUMBERS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
               "十": 10, "十一": 11, "十二": 12}
# fmt: on
_ZH_HOUR = re.compile(r"(十[一二]?|[一二两三四五六七八九])(?=[点點时時])")
_DOTTED = re.compile(r"^(\d{1,2})(?:\.(\d{2})|h(\d{2})?)(am|pm)?$")
_MILITARY = re.compile(r"^([01]\d|2[0-3])([0-5]\d)$")
MERIDIEM = {"am": "am", "a.m.": "am", "pm": "pm", "p.m.": "pm"}
"""``am``/``pm`` typed as a word of its own (``9:00 PM``, ``8 a.m.``)."""


def _zh_time(low: str) -> str | None:
    """``上午9点``, ``下午3点半``, ``三点`` as ``H:MM`` (24 h; 晚上12点 is ``24:00``, refused later)."""
    m = _ZH_TIME.match(_ZH_HOUR.sub(lambda h: str(_ZH_NUMBERS[h.group(1)]), low))  # 三点半 -> 3点半
    if m is None:
        return None
    hour, part = int(m.group(2)), m.group(1)
    if (part in ("下午", "晚上", "傍晚") and hour < 12) or (part == "中午" and hour < 3):
        hour += 12
    elif part in ("晚上", "凌晨") and hour == 12:
        hour = 24  # midnight: the end of that day or the start? refused (use 00:00 and the day)
    minute = 30 if m.group(3) == "半" else int(m.group(4) or 0)
    return f"{hour}:{minute:02d}"


def time_word(low: str) -> str:
    """``9.30``, ``21h30``, ``0900``, ``noon``, ``下午3点半`` as ``H:MM``; other words unchanged."""
    if low in _SPOKEN_TIMES:
        return _SPOKEN_TIMES[low]
    if m := _DOTTED.match(low):
        return f"{m.group(1)}:{m.group(2) or m.group(3) or '00'}{m.group(4) or ''}"
    if m := _MILITARY.match(low):  # 0900, 2130
        return f"{m.group(1)}:{m.group(2)}"
    return _zh_time(low) or low


def clock_time(low: str) -> tuple[str, bool] | None:
    """``(HH:MM, valid)`` for ``9:30`` or ``9am`` (after :func:`time_word`; a bare ``9`` is
    ``None``); ``("09:00", False)`` for ``13pm``, ``25:00``, ``9:75``."""
    m = CLOCK.match(low)
    if m is None or not (":" in low or low.endswith(("am", "pm"))):
        return None
    hour, minute, half = int(m.group(1)), int(m.group(2) or 0), m.group(3)
    valid = not half or 1 <= hour <= 12
    if half:
        hour = hour % 12 + (12 if half.lower() == "pm" else 0)
    if hour > 23 or minute > 59 or not valid:
        return "09:00", False
    return f"{hour:02d}:{minute:02d}", True


# --- time zones

# fmt: off
_IANA_AREAS = frozenset({"africa", "america", "antarctica", "arctic", "asia", "atlantic", "australia",
                         "europe", "indian", "pacific", "etc", "us", "canada", "brazil", "mexico", "chile"})
"""First parts of IANA ``Area/City`` names: a slashed word starting with one (or capitalised) is a
zone; any other (``p/d``) is part of the track."""

TZ_ABBREVIATIONS: dict[str, str | tuple[str, ...]] = {
    # UTC
    "utc": "UTC", "gmt": "UTC", "z": "UTC", "zulu": "UTC",
    # North America: the city zones, so daylight saving applies (EST in July is EDT)
    "et": "America/New_York", "est": "America/New_York", "edt": "America/New_York", "eastern": "America/New_York",
    "ct": "America/Chicago", "cdt": "America/Chicago", "central": "America/Chicago", "mt": "America/Denver",
    "mst": "America/Denver", "mdt": "America/Denver", "mountain": "America/Denver", "pt": "America/Los_Angeles",
    "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles", "pacific": "America/Los_Angeles",
    "akst": "America/Anchorage", "akdt": "America/Anchorage", "hst": "Pacific/Honolulu", "adt": "America/Halifax",
    "nst": "America/St_Johns", "ndt": "America/St_Johns",
    # Europe
    "wet": "Europe/Lisbon", "west": "Europe/Lisbon", "cet": "Europe/Berlin", "cest": "Europe/Berlin",
    "met": "Europe/Berlin", "mest": "Europe/Berlin", "eet": "Europe/Athens", "eest": "Europe/Athens",
    "msk": "Europe/Moscow",
    # Asia and Oceania
    "pkt": "Asia/Karachi", "hkt": "Asia/Hong_Kong", "sgt": "Asia/Singapore", "jst": "Asia/Tokyo", "kst": "Asia/Seoul",
    "北京时间": "Asia/Shanghai", "aest": "Australia/Sydney", "aedt": "Australia/Sydney", "acst": "Australia/Adelaide",
    "acdt": "Australia/Adelaide", "awst": "Australia/Perth", "nzst": "Pacific/Auckland", "nzdt": "Pacific/Auckland",
    # Abbreviations that name several zones: the reply asks which one
    "ist": ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"),
    "cst": ("America/Chicago", "Asia/Shanghai", "America/Havana"), "bst": ("Europe/London", "Asia/Dhaka"),
    "ast": ("America/Halifax", "Asia/Riyadh"), "sst": ("Pacific/Pago_Pago", "Asia/Singapore"),
}
"""Time-zone abbreviations (case-insensitive) as IANA zones: a city zone that observes it, so
daylight saving applies (``EST`` and ``EDT`` are both ``America/New_York``; zoneinfo's fixed
``EST`` is never used). A tuple: several zones, the parser lists the choices."""

CITY_ZONES: dict[str, str] = {
    "beijing": "Asia/Shanghai", "北京": "Asia/Shanghai", "shenzhen": "Asia/Shanghai", "深圳": "Asia/Shanghai",
    "hangzhou": "Asia/Shanghai", "杭州": "Asia/Shanghai", "guangzhou": "Asia/Shanghai", "广州": "Asia/Shanghai",
    "上海": "Asia/Shanghai", "china": "Asia/Shanghai", "中国": "Asia/Shanghai", "香港": "Asia/Hong_Kong",
    "台北": "Asia/Taipei", "东京": "Asia/Tokyo", "新加坡": "Asia/Singapore", "new york": "America/New_York",
    "nyc": "America/New_York", "boston": "America/New_York", "washington": "America/New_York",
    "san francisco": "America/Los_Angeles", "sf": "America/Los_Angeles", "bay area": "America/Los_Angeles",
    "silicon valley": "America/Los_Angeles", "seattle": "America/Los_Angeles", "san jose": "America/Los_Angeles",
    "austin": "America/Chicago", "dallas": "America/Chicago", "bangalore": "Asia/Kolkata",
    "bengaluru": "Asia/Kolkata", "mumbai": "Asia/Kolkata", "delhi": "Asia/Kolkata", "new delhi": "Asia/Kolkata",
    "hyderabad": "Asia/Kolkata", "india": "Asia/Kolkata", "munich": "Europe/Berlin", "münchen": "Europe/Berlin",
    "uk": "Europe/London", "tel aviv": "Asia/Jerusalem", "hong kong": "Asia/Hong_Kong",
}
"""Places (case-insensitive) that are not the city of an IANA ``Area/City`` name, as their zone."""
# fmt: on

ZONE_NOTES: dict[str, str] = {"mst": "tz.mst_note"}
"""Abbreviations whose mapping the reply explains (an i18n key)."""


_ZONES_LOCK = threading.Lock()
"""Held while the zone tables are first built: concurrent first commands (``subscribe … Berlin``
right after a start) wait for one build instead of each walking the tz database (~40 ms)."""


def _zones() -> dict[str, str]:
    """Every IANA zone zoneinfo knows, keyed by its case-folded name (built once)."""
    with _ZONES_LOCK:
        return _zone_tables()[0]


def _cities() -> dict[str, str]:
    """IANA zones by their city alone (``new york`` -> ``America/New_York``), where unique."""
    with _ZONES_LOCK:
        return _zone_tables()[1]


@functools.cache
def _zone_tables() -> tuple[dict[str, str], dict[str, str]]:
    """``(zones by case-folded name, zones by unique city)``, built once (callers hold the lock)."""
    from zoneinfo import available_timezones

    zones = {z.casefold(): z for z in available_timezones()}
    zones.setdefault("utc", "UTC")
    seen: dict[str, list[str]] = {}
    for zone in zones.values():
        area, _, city = zone.rpartition("/")
        if area.split("/")[0].casefold() in _IANA_AREAS - {"etc", "us", "canada", "brazil", "mexico", "chile"}:
            seen.setdefault(city.replace("_", " ").casefold(), []).append(zone)
    return zones, {city: zs[0] for city, zs in seen.items() if len(zs) == 1}


def city_zone(text: str) -> str | None:
    """The zone of a place: :data:`CITY_ZONES`, else an IANA city typed alone, else ``None``."""
    low = text.casefold().replace("_", " ")
    return CITY_ZONES.get(low) or _cities().get(low)


def canonical_zone(name: str) -> str | None:
    """``europe/berlin`` -> ``Europe/Berlin`` (any case), ``None`` when zoneinfo does not know it."""
    return _zones().get(name.strip().casefold())


@dataclass(frozen=True)
class Zone:
    """A word's time zone: ``zone`` (IANA), ``unknown`` (an IANA-like name zoneinfo lacks) or
    ``choices`` (an ambiguous abbreviation); ``note``: an i18n key explaining the mapping."""

    zone: str | None = None
    unknown: bool = False
    choices: tuple[str, ...] = ()
    note: str | None = None


_UTC_OFFSET = re.compile(r"^(?:utc|gmt)([+-])(\d{1,2})(?::?(\d{2}))?$")


def _offset_zone(low: str) -> Zone | None:
    """``utc+8`` as ``Etc/GMT-8`` (IANA reverses the sign); an offset with no ``Etc`` zone (half
    hours, beyond -12..+14) is unknown; ``None``: not an offset."""
    if (m := _UTC_OFFSET.match(low)) is None:
        return None
    sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
    east = hours if sign == "+" else -hours
    if minutes or not -12 <= east <= 14:
        return Zone(unknown=True)
    if east == 0:
        return Zone(zone="UTC")
    return Zone(zone=f"Etc/GMT{'-' if east > 0 else '+'}{abs(east)}", note="tz.offset_note")


def _known(zone: str | None) -> Zone | None:
    return Zone(zone=zone) if zone else None


def zone_of(word: str) -> Zone | None:
    """The zone a word names (``Area/City`` in any case, an abbreviation, ``UTC+8``, a capitalised
    zoneinfo name such as ``Japan``, a city), else ``None``."""
    low = word.casefold()
    if low in WEEKDAY_WORDS:
        return None
    if (offset := _offset_zone(low)) is not None:
        return offset
    if low in TZ_ABBREVIATIONS:
        mapped = TZ_ABBREVIATIONS[low]
        return Zone(choices=mapped) if isinstance(mapped, tuple) else Zone(zone=mapped, note=ZONE_NOTES.get(low))
    if "/" in word:
        area, _, city = word.partition("/")
        if area.casefold() not in _IANA_AREAS and not (area[:1].isupper() and city[:1].isupper()):
            return None  # "p/d", "prefill/decode": part of the track
        return _known(canonical_zone(word)) or Zone(unknown=True)
    return _known((canonical_zone(word) if word[:1].isupper() else None) or city_zone(word))


def zone_pair_of(first: str, second: str) -> Zone | None:
    """A zone typed as two words: ``America/New York``, ``New York``, ``san francisco``, ``tokyo time``."""
    if "/" in first:
        return _known(canonical_zone(f"{first}_{second}"))
    return _known(city_zone(first) if second.casefold() == "time" else city_zone(f"{first} {second}"))
