"""The ``/vllm-path`` grammar: command text -> a typed :class:`Command`. Pure, no I/O.

::

    /vllm-path [help]                       help
    /vllm-path <track>|<query>              a track's path, or posts matching the query
    /vllm-path search <query>               posts matching the query (never a track's path)
    /vllm-path next [track]                 my next read in each followed track (or in one track)
    /vllm-path read|unread <post or query>  progress
    /vllm-path follow|unfollow <track>
    /vllm-path subscribe <track> [weekday] [HH:MM] [time zone]    (in a channel)
    /vllm-path unsubscribe <track>  |  subscriptions
    /vllm-path dm on [weekday] [HH:MM] [time zone]  |  dm off
    /vllm-path lang en|zh
    /vllm-path remind <post or query> [day]  |  reminders [cancel <n>]
    /vllm-path stats                        reading insights (workspace admins and owners)

Whether ``<track>|<query>`` names a track is decided by the matcher, not here. A first word that
is close to a keyword but not one (``folow spec``) gives ``kind="did_you_mean"``. "What next"
said the other way round (``spec next``, ``what's next?``, ``推测解码的下一篇``) is ``next``.

The grammar is one concern, the whole command language: its keyword table, the schedule words
and the phrases above are read together, and split apart they would be read apart.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process

from bot.domain.budget import OFF_WORDS, parse_minutes, take_after, take_budget
from bot.domain.schedule import WEEKDAY_NAMES, ScheduleParts
from bot.domain.text import clean

MAX_TEXT = 500
"""Characters of command text that are read; longer text is cut (the reply says so)."""

Kind = Literal["help", "query", "search", "next", "read", "unread", "follow", "unfollow", "subscribe",
               "unsubscribe", "subscriptions", "dm", "lang", "remind", "reminders", "stats",
               "did_you_mean", "thanks", "latest", "plan"]

KEYWORDS: dict[str, Kind] = {
    "help": "help", "?": "help", "帮助": "help", "h": "help",
    "search": "search", "搜索": "search",
    "next": "next", "下一篇": "next", "下一步": "next", "接下来": "next",
    "read": "read", "done": "read", "已读": "read", "标记已读": "read",
    "unread": "unread", "未读": "unread",
    "follow": "follow", "关注": "follow",
    "unfollow": "unfollow", "取消关注": "unfollow",
    "subscribe": "subscribe", "sub": "subscribe", "订阅": "subscribe",
    "unsubscribe": "unsubscribe", "unsub": "unsubscribe", "取消订阅": "unsubscribe", "退订": "unsubscribe",
    "subscriptions": "subscriptions", "subs": "subscriptions",
    "dm": "dm", "私信": "dm",
    "lang": "lang", "language": "lang", "语言": "lang",
    "remind": "remind", "提醒": "remind",
    "reminders": "reminders", "提醒列表": "reminders", "我的提醒": "reminders",
    "stats": "stats", "统计": "stats",
    "plan": "plan", "budget": "plan", "计划": "plan", "每周": "plan",  # issue 24: minutes a week
}
"""First words that select a command (English and Chinese)."""

_JOINED_KEYWORDS = sorted((k for k in KEYWORDS if not k.isascii() and k != "语言"), key=len, reverse=True)
"""Chinese keywords that may be typed joined to what follows (``关注推测解码``, ``已读p-eagle``):
Chinese is written without spaces. Longest first (``提醒列表`` before ``提醒``); not ``语言``,
which starts ordinary queries (``语言模型``)."""

_FUZZY_KEYWORDS = ("help", "next", "read", "unread", "follow", "unfollow", "subscribe",
                   "unsubscribe", "subscriptions", "lang", "remind", "reminders")

_NEAR_KEYWORDS = _FUZZY_KEYWORDS + ("language", "stats", "search", "dm")
"""English keywords a lone mistyped word is compared with (:func:`near_command`)."""

LANG_WORDS: dict[str, str] = {
    "en": "en", "english": "en", "英文": "en", "英语": "en", "en-us": "en", "en-gb": "en",
    "zh": "zh", "chinese": "zh", "中文": "zh", "汉语": "zh", "简体中文": "zh", "zh-cn": "zh",
    "zh-hans": "zh", "cn": "zh",
}
"""What ``lang`` accepts for each language (English and Chinese names, common locale codes)."""

WEEKDAY_WORDS: dict[str, int] = {}
for _i, _names in enumerate((
        ("mon", "monday", "mondays", "周一", "星期一", "礼拜一"),
        ("tue", "tues", "tuesday", "tuesdays", "周二", "星期二", "礼拜二"),
        ("wed", "wednesday", "wednesdays", "周三", "星期三", "礼拜三"),
        ("thu", "thur", "thurs", "thursday", "thursdays", "周四", "星期四", "礼拜四"),
        ("fri", "friday", "fridays", "周五", "星期五", "礼拜五"),
        ("sat", "saturday", "saturdays", "周六", "星期六", "礼拜六"),
        ("sun", "sunday", "sundays", "周日", "周天", "星期日", "星期天", "礼拜日", "礼拜天"))):
    for _n in _names:
        WEEKDAY_WORDS[_n] = _i

_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", re.IGNORECASE)
_NUMBER = re.compile(r"^\d+$")
_CRON_FIELD = re.compile(r"^[\d*/,\-]+$")
_IANA_AREAS = frozenset({"africa", "america", "antarctica", "arctic", "asia", "atlantic", "australia",
                         "europe", "indian", "pacific", "etc", "us", "canada", "brazil", "mexico", "chile"})
"""First parts of IANA ``Area/City`` names: a slashed word starting with one (or capitalised like
``Mars/Olympus``) is a time zone, checked with zoneinfo; any other slashed word (``p/d``) is part
of the track."""

TZ_ABBREVIATIONS: dict[str, str | tuple[str, ...]] = {
    # UTC
    "utc": "UTC", "gmt": "UTC", "z": "UTC", "zulu": "UTC",
    # North America: the city zones, so daylight saving applies (EST in July is EDT)
    "et": "America/New_York", "est": "America/New_York", "edt": "America/New_York",
    "eastern": "America/New_York",
    "ct": "America/Chicago", "cdt": "America/Chicago", "central": "America/Chicago",
    "mt": "America/Denver", "mst": "America/Denver", "mdt": "America/Denver",
    "mountain": "America/Denver",
    "pt": "America/Los_Angeles", "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles",
    "pacific": "America/Los_Angeles",
    "akst": "America/Anchorage", "akdt": "America/Anchorage", "hst": "Pacific/Honolulu",
    "adt": "America/Halifax", "nst": "America/St_Johns", "ndt": "America/St_Johns",
    # Europe
    "wet": "Europe/Lisbon", "west": "Europe/Lisbon",
    "cet": "Europe/Berlin", "cest": "Europe/Berlin", "met": "Europe/Berlin", "mest": "Europe/Berlin",
    "eet": "Europe/Athens", "eest": "Europe/Athens", "msk": "Europe/Moscow",
    # Asia and Oceania
    "pkt": "Asia/Karachi", "hkt": "Asia/Hong_Kong", "sgt": "Asia/Singapore",
    "jst": "Asia/Tokyo", "kst": "Asia/Seoul", "北京时间": "Asia/Shanghai",
    "aest": "Australia/Sydney", "aedt": "Australia/Sydney", "acst": "Australia/Adelaide",
    "acdt": "Australia/Adelaide", "awst": "Australia/Perth",
    "nzst": "Pacific/Auckland", "nzdt": "Pacific/Auckland",
    # Abbreviations that name several zones: the reply asks which one
    "ist": ("Asia/Kolkata", "Europe/Dublin", "Asia/Jerusalem"),
    "cst": ("America/Chicago", "Asia/Shanghai", "America/Havana"),
    "bst": ("Europe/London", "Asia/Dhaka"),
    "ast": ("America/Halifax", "Asia/Riyadh"),
    "sst": ("Pacific/Pago_Pago", "Asia/Singapore"),
}
"""The one table of time-zone abbreviations people type (case-insensitive), as IANA zones.

A US or European abbreviation maps to the zone of a city that observes it, so daylight saving
applies whichever half of the pair is typed: ``EST``, ``EDT`` and ``ET`` are all
``America/New_York`` (09:00 ``EST`` is 14:00 UTC in January and 13:00 UTC in July). ``MST`` is
``America/Denver``, which observes daylight saving; Arizona does not: type ``America/Phoenix``
there (the reply says so, :data:`ZONE_NOTES`). ``CET``/``CEST`` are ``Europe/Berlin`` (Central
European Time, same rules as Paris). A tuple means the abbreviation names several zones (``IST``
is India, Ireland and Israel; ``CST`` US Central, China and Cuba; ``BST`` British Summer Time and
Bangladesh): the parser refuses it and lists the choices. zoneinfo's own slash-less legacy
names (``EST`` = fixed UTC-5, ``MST`` = fixed UTC-7) are never used for these."""

CITY_ZONES: dict[str, str] = {
    "beijing": "Asia/Shanghai", "北京": "Asia/Shanghai", "shenzhen": "Asia/Shanghai",
    "深圳": "Asia/Shanghai", "hangzhou": "Asia/Shanghai", "杭州": "Asia/Shanghai",
    "guangzhou": "Asia/Shanghai", "广州": "Asia/Shanghai", "上海": "Asia/Shanghai",
    "china": "Asia/Shanghai", "中国": "Asia/Shanghai", "香港": "Asia/Hong_Kong",
    "台北": "Asia/Taipei", "东京": "Asia/Tokyo", "新加坡": "Asia/Singapore",
    "new york": "America/New_York", "nyc": "America/New_York", "boston": "America/New_York",
    "washington": "America/New_York", "san francisco": "America/Los_Angeles",
    "sf": "America/Los_Angeles", "bay area": "America/Los_Angeles",
    "silicon valley": "America/Los_Angeles", "seattle": "America/Los_Angeles",
    "san jose": "America/Los_Angeles", "austin": "America/Chicago", "dallas": "America/Chicago",
    "bangalore": "Asia/Kolkata", "bengaluru": "Asia/Kolkata", "mumbai": "Asia/Kolkata",
    "delhi": "Asia/Kolkata", "new delhi": "Asia/Kolkata", "hyderabad": "Asia/Kolkata",
    "india": "Asia/Kolkata", "munich": "Europe/Berlin", "münchen": "Europe/Berlin",
    "uk": "Europe/London", "tel aviv": "Asia/Jerusalem", "hong kong": "Asia/Hong_Kong",
}
"""Places people name instead of a zone (case-insensitive; one or two words) that are not the
city of an IANA ``Area/City`` name, as the zone they keep. An IANA city typed alone (``Berlin``,
``Tokyo``, ``New York``, ``los_angeles``) is read without this table (:func:`_city_zone`)."""

ZONE_NOTES: dict[str, str] = {"mst": "tz.mst_note"}
"""Abbreviations whose mapping the reply explains (an i18n key)."""


@functools.lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """Every IANA zone zoneinfo knows, keyed by its case-folded name (built once)."""
    from zoneinfo import available_timezones

    zones = {z.casefold(): z for z in available_timezones()}
    zones.setdefault("utc", "UTC")
    return zones


@functools.lru_cache(maxsize=1)
def _cities() -> dict[str, str]:
    """IANA zones by their city alone (``berlin`` -> ``Europe/Berlin``, ``new york`` ->
    ``America/New_York``), for the cities only one zone has (built once)."""
    seen: dict[str, list[str]] = {}
    for zone in _zones().values():
        area, _, city = zone.rpartition("/")
        if area.split("/")[0].casefold() in _IANA_AREAS - {"etc", "us", "canada", "brazil", "mexico", "chile"}:
            seen.setdefault(city.replace("_", " ").casefold(), []).append(zone)
    return {city: zones[0] for city, zones in seen.items() if len(zones) == 1}


def _city_zone(text: str) -> str | None:
    """The zone of a place: :data:`CITY_ZONES`, else an IANA city typed alone (any case, space
    or underscore), else ``None``."""
    low = text.casefold().replace("_", " ")
    return CITY_ZONES.get(low) or _cities().get(low)


def canonical_zone(name: str) -> str | None:
    """The IANA zone for ``name`` in its canonical spelling (case-insensitive: ``europe/berlin``
    -> ``Europe/Berlin``; ``UTC`` accepted), or ``None`` when zoneinfo does not know it."""
    return _zones().get(name.strip().casefold())


@dataclass(frozen=True)
class _Zone:
    """What a word says about the time zone: ``zone`` (canonical IANA name), or ``unknown``
    (it looks like an IANA name zoneinfo does not know), or ``choices`` (an ambiguous
    abbreviation); ``note`` is an i18n key explaining the mapping."""

    zone: str | None = None
    unknown: bool = False
    choices: tuple[str, ...] = ()
    note: str | None = None


_UTC_OFFSET = re.compile(r"^(?:utc|gmt)([+-])(\d{1,2})(?::?(\d{2}))?$")


def _offset_zone(low: str) -> _Zone | None:
    """``UTC+8``, ``GMT-5``, ``utc+05:30`` (case-folded): a fixed offset as IANA's ``Etc/GMT``
    zone, whose sign is reversed (UTC+8 is ``Etc/GMT-8``) and which has no daylight saving (the
    reply says so); an offset IANA has no ``Etc`` zone for (half hours, beyond -12..+14) is an
    unknown zone. ``None``: not an offset."""
    m = _UTC_OFFSET.match(low)
    if m is None:
        return None
    sign, hours, minutes = m.group(1), int(m.group(2)), int(m.group(3) or 0)
    east = hours if sign == "+" else -hours
    if minutes or not -12 <= east <= 14:
        return _Zone(unknown=True)
    if east == 0:
        return _Zone(zone="UTC")
    return _Zone(zone=f"Etc/GMT{'-' if east > 0 else '+'}{abs(east)}", note="tz.offset_note")


def _as_zone(word: str) -> _Zone | None:
    """The time zone a word names (an IANA ``Area/City`` in any case, an abbreviation from
    :data:`TZ_ABBREVIATIONS`, a fixed offset such as ``UTC+8`` (:func:`_offset_zone`), or a
    slash-less zoneinfo name typed capitalised such as ``Japan``), else ``None`` (the word is not
    a time zone)."""
    low = word.casefold()
    if low in WEEKDAY_WORDS:
        return None
    offset = _offset_zone(low)
    if offset is not None:
        return offset
    if low in TZ_ABBREVIATIONS:
        mapped = TZ_ABBREVIATIONS[low]
        if isinstance(mapped, tuple):
            return _Zone(choices=mapped)
        return _Zone(zone=mapped, note=ZONE_NOTES.get(low))
    if "/" in word:
        area, _, city = word.partition("/")
        if area.casefold() not in _IANA_AREAS and not (area[:1].isupper() and city[:1].isupper()):
            return None  # "p/d", "prefill/decode": part of the track
        zone = canonical_zone(word)
        return _Zone(zone=zone) if zone else _Zone(unknown=True)
    zone = (canonical_zone(word) if word[:1].isupper() else None) or _city_zone(word)
    return _Zone(zone=zone) if zone else None


def _as_zone_pair(first: str, second: str) -> _Zone | None:
    """A zone typed as two words: ``America/New York``, ``New York``, ``san francisco``."""
    if "/" in first:
        zone = canonical_zone(f"{first}_{second}")
        return _Zone(zone=zone) if zone else None
    zone = _city_zone(first) if second.casefold() == "time" else _city_zone(f"{first} {second}")
    return _Zone(zone=zone) if zone else None


_ZH_TIME = re.compile(r"^(上午|早上|早晨|凌晨|中午|下午|晚上|傍晚)?(\d{1,2})[点點时時](半|(\d{1,2})分?)?$")
_SPOKEN_TIMES = {"noon": "12:00", "midday": "12:00", "中午": "12:00", "midnight": "24:00"}
"""``midnight`` (and 晚上12点) is refused as a time: "friday midnight" may be either end of Friday."""
_ZH_NUMBERS = {"一": 1, "二": 2, "两": 2, "三": 3, "四": 4, "五": 5, "六": 6, "七": 7, "八": 8, "九": 9,
               "十": 10, "十一": 11, "十二": 12}
_ZH_HOUR = re.compile(r"(十[一二]?|[一二两三四五六七八九])(?=[点點时時])")
_SCHEDULE_FILLER = frozenset({"every", "each", "at", "on", "每", "每周", "每个"})
"""Words between schedule parts that say nothing (``every monday at 9``)."""


def _time_word(low: str) -> str:
    """A time typed another common way, as ``H:MM`` (``9.30``, ``21h``, ``21h30``, ``noon``,
    ``上午9点``, ``下午3点半``); other words unchanged."""
    if low in _SPOKEN_TIMES:
        return _SPOKEN_TIMES[low]
    m = re.match(r"^(\d{1,2})(?:\.(\d{2})|h(\d{2})?)(am|pm)?$", low)
    if m:
        return f"{m.group(1)}:{m.group(2) or m.group(3) or '00'}{m.group(4) or ''}"
    m = re.match(r"^([01]\d|2[0-3])([0-5]\d)$", low)  # 0900, 2130
    if m:
        return f"{m.group(1)}:{m.group(2)}"
    low = _ZH_HOUR.sub(lambda h: str(_ZH_NUMBERS[h.group(1)]), low)  # 三点半 -> 3点半
    m = _ZH_TIME.match(low)
    if m:
        hour = int(m.group(2))
        if m.group(1) in ("下午", "晚上", "傍晚") and hour < 12 or m.group(1) == "中午" and hour < 3:
            hour += 12
        elif m.group(1) in ("晚上", "凌晨") and hour == 12:
            hour = 24  # midnight: the end of that day or the start? refused (use 00:00 and the day)
        minute = 30 if m.group(3) == "半" else int(m.group(4) or 0)
        return f"{hour}:{minute:02d}"
    return low


@dataclass(frozen=True)
class Command:
    """A parsed command.

    ``arg`` is the rest of the text (the track or query) after the keyword; for ``subscribe`` and
    ``dm on`` the schedule is split out as ``schedule`` (:class:`~bot.domain.schedule.ScheduleParts`,
    validated; parts not typed are ``None``); ``enabled`` for ``dm on|off``. ``error`` is an i18n
    key with ``error_value`` when a part could not be parsed (``error_choices``: the zones an
    ambiguous abbreviation may mean); ``suggestion`` is the command to type instead (for a
    near-miss keyword, or the right form of a schedule that was refused); ``note`` an i18n key the
    reply adds (how an abbreviation was read); ``truncated`` says the input was longer than
    :data:`MAX_TEXT`;
    ``steps`` the steps per week a ``subscribe`` asks for (``3 steps``; checked by the use case);
    ``query`` the whole text when a ``next`` was read from text that may also be a search
    (``qwen3 next``): the use case searches it when ``arg`` names no track.
    """

    kind: Kind
    arg: str = ""
    schedule: ScheduleParts | None = None
    enabled: bool | None = None
    steps: int | None = None
    suggestion: str | None = None
    error: str | None = None
    error_value: str | None = None
    error_choices: tuple[str, ...] = ()
    note: str | None = None
    truncated: bool = False
    query: str | None = None
    minutes: int | None = None
    """A weekly reading budget in minutes (``plan 30m``, ``dm on … 30m``, ``subscribe … 45m``;
    :mod:`bot.domain.budget`); for ``plan``, ``enabled=False`` is ``plan off``."""
    after_essentials: str | None = None
    """``subscribe … then stop``: ``stop`` or ``further`` after the essential path."""


@dataclass(frozen=True)
class _Split:
    """The schedule parts taken off the end of a command's words (see :func:`_split_schedule`)."""

    rest: list[str]
    schedule: ScheduleParts | None = None
    error: str | None = None
    error_value: str | None = None
    error_choices: tuple[str, ...] = ()
    suggestion: str | None = None
    note: str | None = None


_EXAMPLE_ZONE = "Europe/Berlin"
_CRON_WEEKDAY = {0: 6, 7: 6, 1: 0, 2: 1, 3: 2, 4: 3, 5: 4, 6: 5}
"""Cron's day-of-week numbers (0 and 7 = Sunday, 1 = Monday; ISO's 1-7 agree from 1 to 7) as
0=Monday…6=Sunday."""


def _right_form(prefix: str, rest: list[str], weekday: int | None, at_time: str | None,
                zone: str | None) -> str:
    """The command written the way the grammar reads it, for an error reply:
    ``/vllm-path subscribe quant sun 09:00 Europe/Berlin``."""
    day = WEEKDAY_NAMES[weekday] if weekday is not None else "mon"
    words = [prefix, *rest, day, at_time or "09:00", zone or _EXAMPLE_ZONE]
    return "/vllm-path " + " ".join(w for w in words if w)


def _crontab(words: list[str]) -> tuple[int, list[str], int | None, str | None] | None:
    """Where crontab text starts in ``words`` (five fields ``min hour dom month dow``, or any run
    of numbers and ``*``/``,``/``-``/``/`` that holds a ``*``), with the weekday and time it
    names when it is a plain weekly line (``0 9 * * 0``), else ``None``."""
    start = len(words)
    while start > 0 and _CRON_FIELD.match(words[start - 1]):
        start -= 1
    run = words[start:]
    if not any("*" in w for w in run):
        return None
    weekday = at_time = None
    if len(run) >= 5:
        minute, hour, dom, month, dow = run[-5:]
        if (dom, month) == ("*", "*") and _NUMBER.match(minute) and _NUMBER.match(hour) \
                and _NUMBER.match(dow) and int(minute) < 60 and int(hour) < 24 and int(dow) <= 7:
            weekday, at_time = _CRON_WEEKDAY[int(dow)], f"{int(hour):02d}:{int(minute):02d}"
    return start, run, weekday, at_time


_MERIDIEM = {"am": "am", "a.m.": "am", "pm": "pm", "p.m.": "pm"}


def _join_meridiem(words: list[str]) -> list[str]:
    """``9:00 PM`` and ``8 a.m.`` typed as two words become one (``9:00pm``, ``8am``)."""
    out: list[str] = []
    for word in words:
        half = _MERIDIEM.get(word.casefold())
        if half and out and re.match(r"^\d{1,2}(?::\d{2})?$", out[-1]):
            out[-1] += half
        else:
            out.append(word)
    return out


def _split_schedule(words: list[str], prefix: str) -> _Split:
    """Take weekday, time and time zone off the end of ``words`` (any order after the track).

    Refused with a message that shows the right form (``prefix`` is the command, e.g.
    ``subscribe``): crontab text (``0 9 * * 0``), a weekday given as a number (``7``), a time
    that is not ``HH:MM``/``9am``, an ambiguous zone abbreviation (``IST``: the choices are
    listed) and an ``Area/City`` zone zoneinfo does not know."""
    words = _join_meridiem(words)
    cron = _crontab(words)
    if cron is not None:
        start, run, cron_day, cron_time = cron
        return _Split(words[:start], error="sub.crontab", error_value=" ".join(run),
                      suggestion=_right_form(prefix, words[:start], cron_day, cron_time, None))
    weekday: int | None = None
    at_time: str | None = None
    zone: _Zone | None = None
    bad_time: str | None = None
    number: str | None = None
    rest = list(words)
    while rest:
        word = rest[-1]
        if word.casefold() in _SCHEDULE_FILLER:
            rest.pop()
            continue
        if _NUMBER.match(word) and at_time is None and len(rest) > 1 and rest[-2].casefold() == "at" \
                and int(word) < 24:
            word = f"{int(word)}:00"  # "at 9": an hour
        low = _time_word(word.casefold())
        if low.startswith("每") and low[1:] in WEEKDAY_WORDS:  # 每周一: every Monday
            low = low[1:]
        pair = _as_zone_pair(rest[-2], word) if zone is None and len(rest) >= 2 else None
        if pair is not None:
            zone, zone_word = pair, f"{rest[-2]} {word}"
            rest.pop()
        found = _as_zone(word) if zone is None else None
        if pair is not None:
            pass
        elif found is not None:
            zone = found
            zone_word = word
        elif at_time is None and _TIME.match(low) and (":" in low or low.endswith(("am", "pm"))):
            m = _TIME.match(low)
            assert m is not None
            hour, minute = int(m.group(1)), int(m.group(2) or 0)
            if m.group(3):
                if not 1 <= hour <= 12:
                    bad_time = word
                hour = hour % 12 + (12 if m.group(3).lower() == "pm" else 0)
            if hour > 23 or minute > 59:
                bad_time = word
            at_time = f"{hour:02d}:{minute:02d}" if bad_time is None else "09:00"
        elif weekday is None and low in WEEKDAY_WORDS:
            weekday = WEEKDAY_WORDS[low]
        elif re.match(r"^\d{1,2}:\d+$", low) or re.match(r"^\d{1,2}(am|pm)$", low):
            bad_time = bad_time or word
        elif _NUMBER.match(low) and number is None:
            number = word  # a weekday (or an hour) given as a number: refused below
        else:
            break
        rest.pop()
    typed_zone = zone.zone if zone is not None else None
    if number is not None and weekday is not None and at_time is None and int(number) < 24:
        at_time, number = f"{int(number):02d}:00", None  # "monday 9": the weekday is a name, 9 an hour
    if number is not None:
        value = int(number)
        if weekday is None and len(number) == 1:
            weekday = _CRON_WEEKDAY.get(value)  # "7": cron's and ISO's Sunday
        elif at_time is None and value < 24:
            at_time = f"{value:02d}:00"  # "mon 9", "12": an hour without minutes
        return _Split(rest, error="sub.weekday_number", error_value=number,
                      suggestion=_right_form(prefix, rest, weekday, at_time, typed_zone))
    if zone is not None and zone.choices:
        return _Split(rest, error="sub.ambiguous_tz", error_value=zone_word, error_choices=zone.choices,
                      suggestion=_right_form(prefix, rest, weekday, at_time, zone.choices[0]))
    if zone is not None and zone.unknown:
        return _Split(rest, error="sub.bad_tz", error_value=zone_word)
    if bad_time is not None:
        return _Split(rest, error="sub.bad_time", error_value=bad_time)
    return _Split(rest, ScheduleParts(weekday=weekday, at_time=at_time, timezone=typed_zone),
                  note=zone.note if zone is not None else None)


_LABELLED_LINK = re.compile(r"<((?:https?|ftp)://[^<>|\s]+)\|([^<>]*)>", re.IGNORECASE)


def _link_labels(text: str) -> str:
    """A labelled link ``<url|label>`` among other words becomes its label (the words the person
    sees); a link that is the whole argument (``read <url|label>``, ``<url|label>``) stays a link,
    so that :func:`bot.domain.text.clean` makes it its URL (a pasted link is a query)."""
    if "|" not in text or "<" not in text:
        return text
    rest = _LABELLED_LINK.sub(" ", text).split()
    if len(_LABELLED_LINK.findall(text)) == 1 and (
            not rest or (len(rest) == 1 and clean(rest[0]).casefold().lstrip("/") in KEYWORDS)):
        return text
    return _LABELLED_LINK.sub(lambda m: m.group(2), text)


_STEPS = re.compile(r"^(\d{1,2})\s*(?:steps?|篇|步)?$", re.IGNORECASE)


def _take_steps(words: list[str]) -> tuple[list[str], int | None]:
    """Take ``N steps`` (``3 steps``, ``3steps``, ``2 step``, ``3 篇``; optionally followed by ``a
    week`` / ``per week``) out of ``words``; returns the other words and N (``None``: not given)."""
    low = [w.casefold() for w in words]
    for i, word in enumerate(low):
        m = _STEPS.match(word)
        if not m:
            continue
        glued = not word.isdigit()
        nxt = low[i + 1] if i + 1 < len(low) else ""
        if not glued and nxt not in ("step", "steps", "篇", "步"):
            continue
        end = i + 1 if glued else i + 2
        while end < len(low) and low[end] in ("a", "per", "week", "每周", "/week"):
            end += 1
        return words[:i] + words[end:], int(m.group(1))
    return words, None


_GREETINGS = frozenset({"hi", "hello", "hey", "hi there", "hello there", "hey there", "yo", "good morning",
                        "good afternoon", "good evening", "你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好"})
"""A greeting alone gets the help (what a first-time user needs)."""

_GREETING_LEAD = re.compile(
    r"^(?:(?:hi|hello|hey) there|good (?:morning|afternoon|evening)|hi|hello|hey|yo|thanks|thank you|thx"
    r"|你好|您好|嗨|哈喽|早上好|下午好|晚上好|谢谢|多谢)[\s,，!！.。~～]+(?=\S)", re.IGNORECASE)
"""A greeting or thanks before the command (``hey, what's next?``, ``thanks, next``, ``你好，推测解码``):
read what follows."""

_THANKS = frozenset({"thanks", "thank you", "thanks a lot", "thank you very much", "thx", "ty", "cheers",
                     "谢谢", "多谢", "感谢", "谢啦", "谢谢你"})
"""Thanks alone gets a short "you're welcome" (never a search for "thanks")."""

_GREETINGS_OR_THANKS = _GREETINGS | _THANKS

_MARKS = " !！.。~～"
"""Punctuation around a greeting, thanks or "what's new" that changes nothing."""

_LATEST = re.compile(
    r"^(?:(?:show me|give me|list)\s+)?(?:(?:what'?s|what is|whats|anything|any)\s+(?:new|the latest|news)"
    r"(?:\s+(?:posts?|articles?))?(?:\s+(?:this week|this month|today|lately|recently|on the blog|in vllm"
    r"|on the vllm blog))?"
    r"|(?:the\s+)?(?:latest|newest|new|recent|most recent)"
    r"(?:\s+(?:vllm\s+)?(?:blog(?:\s+(?:posts?|articles?))?|posts?|articles?|news))?"
    r"(?:\s+(?:on the blog|from the blog|please|pls))?"
    r"|(?:最近|本周|这周)?(?:有)?(?:什么)?(?:最新|新)(?:的)?(?:文章|博客|博文)?(?:有哪些|有什么)?(?:吗|呢)?"
    r"|(?:最近|本周|这周)(?:有什么|有哪些)?(?:的)?(?:文章|博客|博文|更新)(?:有哪些|有什么)?(?:吗|呢)?)$")
"""Asking for the newest posts (``what's new?``, ``latest posts``, ``最新文章``), not for a topic."""

_NEXT_FILLER = frozenset({"what", "what's", "whats", "is", "are", "my", "me", "i", "should", "shall",
                          "do", "to", "read", "the", "up", "comes", "come", "in", "for", "on", "of"})
"""English words around "next" that ask the question and name no track (``what should i read next``)."""

_NEXT_ZH_TAIL = re.compile(r"(?:的|文章|读什么|看什么|读哪篇|看哪篇|是什么|是哪篇|呢|吗)+$")
"""Chinese words that end a "what next" question and name no track (推测解码的下一篇**是什么**)."""


def _next_topic(text: str) -> str:
    """``text`` (after "next", or before it) without the words that only ask the question."""
    words = [w for w in text.casefold().replace("’", "'").strip(" ?？。").split() if w not in _NEXT_FILLER]
    return _NEXT_ZH_TAIL.sub("", re.sub(r"^(?:我的|我)", "", " ".join(words))).strip()


def _next_last(words: list[str]) -> str | None:
    """The track text of a "what next" with the keyword last, or ``None``: ``spec next``,
    ``what should I read next?`` (``""``, every followed track), ``推测解码下一篇``,
    ``推测解码的下一篇是什么``; at most five words before it (a longer text is a query)."""
    low = " ".join(words).casefold().replace("’", "'").rstrip(" ?？。")
    low = _NEXT_ZH_TAIL.sub("", low)
    for key in ("下一篇", "下一步"):
        if low.endswith(key) and len(low) > len(key):
            return _next_topic(low[: -len(key)])
    parts = low.split()
    if 1 <= len(parts) <= 6 and parts[-1] == "next":
        return _next_topic(" ".join(parts[:-1]))
    if "next" in parts[:6] and len(parts) <= 10:  # "what's next in pd", "what should i read next for spec"
        at = parts.index("next")
        if parts[at + 1:at + 2] in (["in"], ["for"], ["on"], ["of"]) and _next_topic(" ".join(parts[:at])) == "":
            return _next_topic(" ".join(parts[at + 2:]))
    return None


def parse(text: str) -> Command:
    """Parse slash-command text (as Slack sends it, escaped). Never raises; unknown text is a
    ``query``.

    The text is normalised by :func:`bot.domain.text.clean` first, the same function search uses:
    Slack markup and entities decoded (a pasted link becomes its URL; a labelled link among other
    words its label), NFKC (full-width ``ｆｏｌｌｏｗ　ｓｐｅｃ`` reads ``follow spec``), whitespace
    collapsed."""
    raw = clean(_link_labels(text or ""))
    truncated = len(raw) > MAX_TEXT
    raw = raw[:MAX_TEXT]
    bare = raw.casefold().strip(_MARKS)
    if bare not in _GREETINGS_OR_THANKS:  # one before a command: read what follows
        raw = _GREETING_LEAD.sub("", raw)
        bare = raw.casefold().strip(_MARKS)
    words = raw.split()
    if not words or bare in _GREETINGS:  # "hi": say what I do
        return Command("help", truncated=truncated)
    if bare in _THANKS:
        return Command("thanks", truncated=truncated)
    if _LATEST.match(bare.strip(_MARKS + "?？")):
        return Command("latest", truncated=truncated)
    first = words[0].casefold().lstrip("/")
    rest = words[1:]
    if first not in KEYWORDS and not first.isascii():
        joined = next((k for k in _JOINED_KEYWORDS if first.startswith(k)), None)
        if joined is not None:  # "关注推测解码" reads "关注 推测解码"
            first, rest = joined, [words[0].lstrip("/")[len(joined):], *rest]
    arg = " ".join(rest)
    kind = KEYWORDS.get(first)
    if kind is None and (topic := _next_last(words)) is not None:
        return Command("next", arg=topic, truncated=truncated, query=raw.strip())
    if kind is None:
        # A near-miss of a keyword followed by more words ("folow spec", "subscibe pd monday").
        if rest and len(first) >= 4 and first.isascii():
            best = process.extractOne(first, _FUZZY_KEYWORDS, scorer=fuzz.ratio, score_cutoff=80)
            if best:
                return Command("did_you_mean", arg=raw.strip(), suggestion=f"{best[0]} {arg}".strip(),
                               truncated=truncated)
        return Command("query", arg=raw.strip(), truncated=truncated)
    if kind == "next":
        return Command(kind, arg=_next_topic(arg), truncated=truncated)
    if kind in ("help", "subscriptions", "stats"):
        return Command(kind, arg=arg, truncated=truncated)
    if kind == "lang":
        chosen = arg.casefold()
        return Command("lang", arg=LANG_WORDS.get(chosen, chosen), truncated=truncated)
    if kind == "plan":
        return parse_plan(rest, truncated)
    if kind == "dm":
        rest, minutes = take_budget(rest)
        if not rest:
            return Command("dm", enabled=None, truncated=truncated)
        switch = rest[0].casefold()
        if switch in ("off", "stop", "关闭", "关"):
            return Command("dm", enabled=False, truncated=truncated)
        if switch in ("on", "start", "开启", "开"):
            split = _split_schedule(rest[1:], "dm on")
            unknown = bool(split.rest) and split.error is None
            return Command("dm", enabled=True, minutes=minutes, schedule=None if unknown else split.schedule,
                           error="dm.unknown_part" if unknown else split.error,
                           error_value=" ".join(split.rest) if unknown else split.error_value,
                           error_choices=split.error_choices, suggestion=split.suggestion,
                           note=split.note, truncated=truncated)
        return Command("dm", enabled=None, arg=arg, truncated=truncated)
    if kind == "subscribe":
        rest, minutes = take_budget(rest)
        rest, after = take_after(rest)
        rest, steps = _take_steps(rest)
        split = _split_schedule(rest, "subscribe")
        return Command("subscribe", arg=" ".join(split.rest), schedule=split.schedule, steps=steps,
                       minutes=minutes, after_essentials=after,
                       error=split.error, error_value=split.error_value,
                       error_choices=split.error_choices, suggestion=split.suggestion,
                       note=split.note, truncated=truncated)
    return Command(kind, arg=arg, truncated=truncated)


def parse_plan(rest: list[str], truncated: bool = False) -> Command:
    """``plan 30m`` / ``plan 1h`` / ``plan 45 min`` / ``计划 30分钟`` / ``每周 1小时``: ``minutes``;
    ``plan off``: ``enabled=False``; ``plan`` alone: ``enabled=None`` (show the plan); anything
    else: ``error="plan.bad"`` with the text in ``error_value``."""
    text = " ".join(rest).strip()
    if not text:
        return Command("plan", truncated=truncated)
    if text.casefold() in OFF_WORDS:
        return Command("plan", enabled=False, truncated=truncated)
    minutes = parse_minutes(text)
    if minutes is None and text.isdigit():
        minutes = int(text)  # "plan 30": minutes
    if minutes is None:
        return Command("plan", error="plan.bad", error_value=text, truncated=truncated)
    return Command("plan", enabled=True, minutes=minutes, truncated=truncated)


def near_command(text: str) -> str | None:
    """The command ``text`` probably meant when it matched no post and its first word is a near
    miss of an English keyword (``hlep``, ``remnd spec``, ``reminder``, ``subscription``, ``dms
    on``): that keyword and the rest of the text, else ``None``. Words shorter than three
    letters and keywords themselves give ``None`` (rapidfuzz's ratio, cutoff 75)."""
    words = clean(text or "").split()
    if not words:
        return None
    first = words[0].casefold().lstrip("/")
    if len(first) < 3 or not first.isascii() or not first.isalpha() or first in KEYWORDS:
        return None
    best = process.extractOne(first, _NEAR_KEYWORDS, scorer=fuzz.ratio, score_cutoff=75)
    if best is None:
        return None
    return " ".join([best[0], *words[1:]])
