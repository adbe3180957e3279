"""The ``/vllm-path`` grammar: command text -> a typed :class:`Command`. Pure, no I/O.

::

    /vllm-path [help]                       help
    /vllm-path <track>|<query>              a track's path, or posts matching the query
    /vllm-path next                         my next read in each followed track
    /vllm-path read|unread <post or query>  progress
    /vllm-path follow|unfollow <track>
    /vllm-path subscribe <track> [weekday] [HH:MM] [time zone]    (in a channel)
    /vllm-path unsubscribe <track>  |  subscriptions
    /vllm-path dm on [weekday] [HH:MM] [time zone]  |  dm off
    /vllm-path lang en|zh
    /vllm-path remind <post or query> [day]  |  reminders [cancel <n>]
    /vllm-path stats                        reading insights (workspace admins and owners)

Whether ``<track>|<query>`` names a track is decided by the matcher, not here. A first word that
is close to a keyword but not one (``folow spec``) gives ``kind="did_you_mean"``.
"""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass
from typing import Literal

from rapidfuzz import fuzz, process

MAX_TEXT = 500
"""Characters of command text that are read; longer text is cut (the reply says so)."""

Kind = Literal["help", "query", "next", "read", "unread", "follow", "unfollow", "subscribe",
               "unsubscribe", "subscriptions", "dm", "lang", "remind", "reminders", "stats",
               "did_you_mean"]

KEYWORDS: dict[str, str] = {
    "help": "help", "?": "help", "帮助": "help", "h": "help",
    "next": "next", "下一篇": "next",
    "read": "read", "done": "read", "已读": "read",
    "unread": "unread", "未读": "unread",
    "follow": "follow", "关注": "follow",
    "unfollow": "unfollow", "取消关注": "unfollow",
    "subscribe": "subscribe", "sub": "subscribe", "订阅": "subscribe",
    "unsubscribe": "unsubscribe", "unsub": "unsubscribe", "取消订阅": "unsubscribe",
    "subscriptions": "subscriptions", "subs": "subscriptions",
    "dm": "dm", "私信": "dm",
    "lang": "lang", "language": "lang", "语言": "lang",
    "remind": "remind", "提醒": "remind",
    "reminders": "reminders", "提醒列表": "reminders",
    "stats": "stats", "统计": "stats",
}
"""First words that select a command (English and Chinese)."""

_FUZZY_KEYWORDS = ("help", "next", "read", "unread", "follow", "unfollow", "subscribe",
                   "unsubscribe", "subscriptions", "lang")

WEEKDAY_WORDS: dict[str, int] = {}
for _i, _names in enumerate((
        ("mon", "monday", "mondays", "周一", "星期一"), ("tue", "tues", "tuesday", "tuesdays", "周二", "星期二"),
        ("wed", "wednesday", "wednesdays", "周三", "星期三"), ("thu", "thur", "thurs", "thursday", "thursdays", "周四", "星期四"),
        ("fri", "friday", "fridays", "周五", "星期五"), ("sat", "saturday", "saturdays", "周六", "星期六"),
        ("sun", "sunday", "sundays", "周日", "星期日", "星期天"))):
    for _n in _names:
        WEEKDAY_WORDS[_n] = _i

_TIME = re.compile(r"^(\d{1,2})(?::(\d{2}))?\s*(am|pm)?$", re.IGNORECASE)
_TZ_LIKE = re.compile(r"^(?:[A-Za-z_]+(?:/[A-Za-z0-9_+\-]+)+|UTC|GMT|Z)$", re.IGNORECASE)

TZ_ABBREVIATIONS: dict[str, str] = {
    "pt": "America/Los_Angeles", "pst": "America/Los_Angeles", "pdt": "America/Los_Angeles",
    "mt": "America/Denver", "mdt": "America/Denver",
    "et": "America/New_York", "edt": "America/New_York",
    "bst": "Europe/London", "cest": "Europe/Berlin", "jst": "Asia/Tokyo", "kst": "Asia/Seoul",
    "北京时间": "Asia/Shanghai",
}
"""Unambiguous time-zone abbreviations people type, as IANA zones (CST and IST are ambiguous and
left out; zone names without a slash that zoneinfo knows, such as CET or EST, are taken as is)."""


@functools.lru_cache(maxsize=1)
def _zones() -> dict[str, str]:
    """Every IANA zone zoneinfo knows, keyed by its case-folded name (built once)."""
    from zoneinfo import available_timezones

    zones = {z.casefold(): z for z in available_timezones()}
    zones.setdefault("utc", "UTC")
    return zones


def canonical_zone(name: str) -> str | None:
    """The IANA zone for ``name`` in its canonical spelling (case-insensitive: ``europe/berlin``
    -> ``Europe/Berlin``; ``UTC`` accepted), or ``None`` when zoneinfo does not know it."""
    return _zones().get(name.strip().casefold())


def _as_zone(word: str) -> str | None:
    """The time zone a word names (IANA ``Area/City`` as typed, a slash-less zoneinfo name, or an
    abbreviation from :data:`TZ_ABBREVIATIONS`), else ``None``."""
    low = word.casefold()
    if low in WEEKDAY_WORDS:
        return None
    if low in ("utc", "gmt", "z"):
        return "UTC"
    if _TZ_LIKE.match(word):
        return word
    if low in TZ_ABBREVIATIONS:
        return TZ_ABBREVIATIONS[low]
    zone = canonical_zone(word) if word.isupper() or word[:1].isupper() else None
    return zone if zone and "/" not in zone else None


@dataclass(frozen=True)
class Command:
    """A parsed command.

    ``arg`` is the rest of the text (the track or query) after the keyword; for ``subscribe`` and
    ``dm`` the schedule parts are split out: ``weekday`` 0=Monday…6=Sunday, ``at_time`` ``HH:MM``
    (24 h), ``timezone`` as typed (validated later with zoneinfo); ``enabled`` for ``dm on|off``;
    ``steps`` the steps per week a ``subscribe`` asks for (``3 steps``; checked by the use case).
    ``error`` is an i18n key with ``error_value`` when a part could not be parsed; ``truncated``
    says the input was longer than :data:`MAX_TEXT`.
    """

    kind: Kind
    arg: str = ""
    weekday: int | None = None
    at_time: str | None = None
    timezone: str | None = None
    enabled: bool | None = None
    steps: int | None = None
    suggestion: str | None = None
    error: str | None = None
    error_value: str | None = None
    truncated: bool = False


def _split_schedule(words: list[str]) -> tuple[list[str], int | None, str | None, str | None, str | None, str | None]:
    """Take weekday, time and time zone off the end of ``words``; return the rest and the parts."""
    weekday = at_time = tz = None
    error = error_value = None
    rest = list(words)
    # Scan from the end: time zone, time, weekday may come in any order after the track.
    while rest:
        word = rest[-1]
        low = word.casefold()
        if tz is None and _as_zone(word):
            tz = _as_zone(word)
        elif at_time is None and _TIME.match(low) and (":" in low or low.endswith(("am", "pm"))):
            m = _TIME.match(low)
            hour, minute = int(m.group(1)), int(m.group(2) or 0)
            if m.group(3):
                if not 1 <= hour <= 12:
                    error, error_value = "sub.bad_time", word
                hour = hour % 12 + (12 if m.group(3).lower() == "pm" else 0)
            if hour > 23 or minute > 59:
                error, error_value = "sub.bad_time", word
            at_time = f"{hour:02d}:{minute:02d}"
        elif weekday is None and low in WEEKDAY_WORDS:
            weekday = WEEKDAY_WORDS[low]
        elif re.match(r"^\d{1,2}:\d+$", low) or re.match(r"^\d{1,2}(am|pm)$", low):
            error, error_value = "sub.bad_time", word
            rest.pop()
            continue
        else:
            break
        rest.pop()
    return rest, weekday, at_time, tz, error, error_value


_MARKUP = re.compile(r"<([^<>]*)>")


def _unmarkup(match: re.Match) -> str:
    body = match.group(1)
    if body.startswith(("!", "@")):
        return " "  # <!channel>, <!here>, <@U123>: never part of a query
    if "|" in body:
        return body.split("|", 1)[1]  # <#C123|general>, <https://…|label>: keep the label
    return " " if body.startswith("#") else body  # <#C123> without a label; a bare <url>


def plain_text(text: str) -> str:
    """Slack's escaped command text as the person typed it: mentions and channel pings dropped,
    links and channel references reduced to their labels, ``&amp;``/``&lt;``/``&gt;`` decoded."""
    text = _MARKUP.sub(_unmarkup, text)
    return text.replace("&lt;", "<").replace("&gt;", ">").replace("&amp;", "&")


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


def parse(text: str) -> Command:
    """Parse slash-command text (as Slack sends it, escaped). Never raises; unknown text is a
    ``query``."""
    raw = plain_text(text or "")
    truncated = len(raw) > MAX_TEXT
    raw = raw[:MAX_TEXT]
    words = raw.split()
    if not words:
        return Command("help", truncated=truncated)
    first = words[0].casefold().lstrip("/")
    rest = words[1:]
    arg = " ".join(rest)
    kind = KEYWORDS.get(first)
    if kind is None:
        # A near-miss of a keyword followed by more words ("folow spec", "subscibe pd monday").
        if rest and len(first) >= 4 and first.isascii():
            best = process.extractOne(first, _FUZZY_KEYWORDS, scorer=fuzz.ratio, score_cutoff=80)
            if best:
                return Command("did_you_mean", arg=raw.strip(), suggestion=f"{best[0]} {arg}".strip(),
                               truncated=truncated)
        return Command("query", arg=raw.strip(), truncated=truncated)
    if kind in ("help", "next", "subscriptions", "stats"):
        return Command(kind, arg=arg, truncated=truncated)
    if kind == "lang":
        return Command("lang", arg=arg.casefold(), truncated=truncated)
    if kind == "dm":
        if not rest:
            return Command("dm", enabled=None, truncated=truncated)
        switch = rest[0].casefold()
        if switch in ("off", "stop", "关闭", "关"):
            return Command("dm", enabled=False, truncated=truncated)
        if switch in ("on", "start", "开启", "开"):
            left, weekday, at_time, tz, err, errv = _split_schedule(rest[1:])
            return Command("dm", enabled=True, weekday=weekday, at_time=at_time, timezone=tz,
                           error=err or ("dm.unknown_part" if left else None),
                           error_value=errv or (" ".join(left) or None), truncated=truncated)
        return Command("dm", enabled=None, arg=arg, truncated=truncated)
    if kind == "subscribe":
        rest, steps = _take_steps(rest)
        left, weekday, at_time, tz, err, errv = _split_schedule(rest)
        return Command("subscribe", arg=" ".join(left), weekday=weekday, at_time=at_time,
                       timezone=tz, steps=steps, error=err, error_value=errv, truncated=truncated)
    return Command(kind, arg=arg, truncated=truncated)
