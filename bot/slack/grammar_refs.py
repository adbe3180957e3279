"""What the grammar reads before and around a command's words (QA round 8): characters nobody sees
(``next`` + U+200B), a cut at a word's end, Chinese durations (``每周半小时``, ``一个半小时``) and a
channel or person named in a command that acts only where it is typed and for whoever types it
(``subscribe #general spec``, ``follow spec for @bob``). Pure, read by :func:`bot.slack.grammar.parse`."""

from __future__ import annotations

import re
from dataclasses import dataclass

from bot.domain.budget import parse_minutes

_INVISIBLE = re.compile("[\u00ad\u180e\u200b\u200c\u200d\u200e\u200f\u202a-\u202e\u2060-\u2064\u2066-\u2069\ufeff]")
"""Characters with no width (zero-width space, word joiner, byte-order mark, soft hyphen, and the
direction marks and embeddings, QA round 9: U+200E U+200F before ``next`` was searched): dropped (a
zero-width space is most often inside a word, as Slack's and web pages' formatting leave it)."""
_ODD_SPACES = re.compile("[\u00a0\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")
"""Spaces that are not U+0020 (no-break, thin, ideographic …): a space."""


_STRAIGHT_QUOTES = str.maketrans({"\u2018": "'", "\u2019": "'", "\u02bc": "'", "\u201c": '"', "\u201d": '"'})
"""Curly quotes (Slack on macOS and iOS turns ``'`` into ``’`` as one types, QA round 10: ``i’ve
read p-eagle`` marked nothing, ``what’s new`` opened a track): straight ones."""


def visible(text: str) -> str:
    """``text`` without invisible characters anywhere in it (QA: ``next`` + U+200B searched for
    “next”), with every kind of space a plain one and curly quotes straight (:data:`_STRAIGHT_QUOTES`)."""
    return _ODD_SPACES.sub(" ", _INVISIBLE.sub("", text)).translate(_STRAIGHT_QUOTES)


def cut_words(text: str, limit: int) -> str:
    """``text`` cut to at most ``limit`` characters at the end of a word (QA: ``follow spec spec …``
    cut to “spe”); a word that would leave less than half of ``limit`` (one very long word: ``plan
    999…9m``, whose number is then said cut short) is cut where it must be."""
    if len(text) <= limit:
        return text
    head = text[: limit + 1]
    at = max(head.rfind(" "), head.rfind("\n"))
    return (text[:at] if at > limit // 2 else text[:limit]).rstrip()


_ZH_DIGITS = dict(zip("零一二两三四五六七八九", (0, 1, 2, 2, 3, 4, 5, 6, 7, 8, 9), strict=True))


def _zh_int(text: str) -> int | None:
    """A number 0-999 written in digits or Chinese numerals (``45``, ``四十五``, ``十五``, ``两``,
    ``一百二十``, ``两百``, ``一百零五``), else None."""
    if text.isdigit():
        return int(text)
    if "百" in text:
        hundreds, _, rest = text.partition("百")
        h = _ZH_DIGITS.get(hundreds) if hundreds else None
        if h is None:
            return None
        rest = rest.removeprefix("零")
        if not rest:
            return h * 100
        if len(rest) == 1 and rest in _ZH_DIGITS and text.endswith("百" + rest):  # 一百五: a hundred and fifty
            return h * 100 + _ZH_DIGITS[rest] * (1 if "零" in text else 10)
        below = _zh_int(rest)
        return None if below is None or "百" in rest else h * 100 + below
    if not text or any(c not in _ZH_DIGITS and c != "十" for c in text):
        return None
    if "十" not in text:
        return _ZH_DIGITS[text] if len(text) == 1 else None
    tens, _, ones = text.partition("十")
    if len(tens) > 1 or len(ones) > 1:
        return None
    return (_ZH_DIGITS[tens] if tens else 1) * 10 + (_ZH_DIGITS[ones] if ones else 0)


_ZH_WEEKLY = re.compile(r"^(?:每周|每星期|每个星期|每礼拜|每个礼拜|一周|每週)|(?:每周|一周|左右|吧)$")
_HOUR = r"(?:个)?(?:小时|钟头)"
_ZH_HOURS_HALF = re.compile(r"^(?P<h>[\d零一二两三四五六七八九十]+)个半(?:小时|钟头)$")
_ZH_HOURS_MIN = re.compile(
    rf"^(?P<h>[\d零一二两三四五六七八九十]+){_HOUR}(?:零)?(?P<m>[\d零一二两三四五六七八九十]+)(?:分钟|分)?$"
)
_ZH_QUARTERS = re.compile(r"^(?P<q>[一两二三\d])刻钟$")
_ZH_NUMBER = r"[\d零一二两三四五六七八九十百]+"
_ZH_PLAIN = re.compile(rf"^(?P<n>{_ZH_NUMBER})(?P<unit>分钟|分|{_HOUR})(?P<half>半)?$")
"""``十二分钟``, ``一百分钟``, ``十一小时``, ``一小时半`` (QA round 9: numbers past 二十 and 四十五 were not read)."""


def zh_minutes(word: str) -> int | None:
    """Minutes in one Chinese duration the budget words do not read (``每周半小时``, ``一个半小时``,
    ``1小时30分``, ``三刻钟``), else None (also for what :func:`~bot.domain.budget.parse_minutes` reads)."""
    low = word.replace(" ", "")
    if not low or low.isascii() or parse_minutes(low) is not None:
        return None
    for _ in range(2):  # "每周半小时吧": both ends
        low = _ZH_WEEKLY.sub("", low)
    if not low:
        return None
    if (m := _ZH_HOURS_HALF.match(low)) and (h := _zh_int(m["h"])) is not None:
        return h * 60 + 30
    if (m := _ZH_HOURS_MIN.match(low)) and (h := _zh_int(m["h"])) is not None and (n := _zh_int(m["m"])) is not None:
        return h * 60 + n
    if (m := _ZH_QUARTERS.match(low)) and (q := _zh_int(m["q"])) is not None:
        return q * 15
    if (m := _ZH_PLAIN.match(low)) and (n := _zh_int(m["n"])) is not None:
        if m["unit"] in ("分钟", "分"):
            return None if m["half"] else n
        return n * 60 + (30 if m["half"] else 0)
    return parse_minutes(low)


def zh_budget_words(words: list[str]) -> list[str]:
    """``words`` with each Chinese duration :func:`zh_minutes` reads written ``<n>m`` (``plan``,
    ``dm on`` and ``subscribe`` read that)."""
    return [f"{n}m" if (n := zh_minutes(w)) is not None else w for w in words]


_CHANNEL = re.compile(
    r"<#(?P<id>[CG][A-Z0-9]+)(?:\|(?P<label>[^<>|]*))?>"
    r"|(?<![\w&#/@<|])#(?P<name>[^\s#<>@,，。.!！?？:：;；]+)"
)
"""A channel: ``<#C0123|general>`` (escaped) or ``#general`` (the manifest's ``should_escape: false``)."""
_PERSON = re.compile(
    r"<@(?P<id>[UW][A-Z0-9]+)(?:\|(?P<label>[^<>|]*))?>|<!(?P<group>here|channel|everyone)(?:\|[^<>]*)?>"
    r"|<!subteam\^(?P<team>[A-Z0-9]+)(?:\|(?P<team_label>[^<>]*))?>"
    r"|(?<![\w@.])@(?P<name>[\w][\w.\-]*)"
)
"""A person or a group: ``<@U0123|bob>``, ``<!here>``, ``<!subteam^S1|@team>`` or ``@bob`` typed plain."""
_SELF = frozenset({"me", "myself", "我", "vllm-path"})
"""Names that are no one else: the caller, the app itself."""
_LINKING = r"(?:\s+(?:to|in|into|for|on|at|with|from|of|the|channel|给|到|在|为))*\s*"
"""Words that join a channel or person to the command (``subscribe spec to #ml-reading``): left out with it."""


@dataclass(frozen=True)
class Elsewhere:
    """A channel or person a command named: ``kind`` ``channel`` or ``person``; ``ref`` as shown in a
    reply (``#general``, ``<#C0123>``, ``@bob``, ``<@U0123>``); ``channel_id`` for an escaped channel."""

    kind: str
    ref: str
    channel_id: str | None = None


def _channel(m: re.Match[str]) -> Elsewhere | None:
    if m["id"]:
        return Elsewhere("channel", f"<#{m['id']}>", m["id"])
    name = m["name"].rstrip(".-_")
    return None if not name or name.isdigit() else Elsewhere("channel", f"#{name}")


def _person(m: re.Match[str]) -> Elsewhere | None:
    if m["id"]:
        return Elsewhere("person", f"<@{m['id']}>")
    if m["group"]:
        return Elsewhere("person", f"@{m['group']}")
    if m["team"]:
        return Elsewhere("person", f"<!subteam^{m['team']}>")
    name = m["name"].rstrip(".-")
    return None if not name or name.casefold() in _SELF else Elsewhere("person", f"@{name}")


def named_elsewhere(text: str, channels: bool, people: bool) -> tuple[Elsewhere | None, str]:
    """The first channel (when ``channels``) or person (when ``people``) ``text`` (as Slack sent it)
    names, and ``text`` without any of them and the words joining them to the command (``to``,
    ``for``); ``(None, text)`` when it names none."""
    found: list[tuple[int, Elsewhere]] = []
    spans: list[tuple[int, int]] = []
    for pattern, read, wanted in ((_CHANNEL, _channel, channels), (_PERSON, _person, people)):
        if not wanted:
            continue
        for m in pattern.finditer(text):
            if (ref := read(m)) is not None:
                found.append((m.start(), ref))
                spans.append((m.start(), m.end()))
    if not found:
        return None, text
    rest = text
    for start, end in sorted(spans, reverse=True):
        lead = re.search(_LINKING + "$", rest[:start], re.IGNORECASE)
        cut = lead.start() if lead and lead.group(0).strip() else start
        rest = rest[:cut] + " " + rest[end:]
    return min(found, key=lambda f: f[0])[1], " ".join(rest.split())
