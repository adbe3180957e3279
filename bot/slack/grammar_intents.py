"""Commands asked for in a sentence that the keyword grammar reads as a search (QA round 16): a weekly
DM asked for with its day (``send me a dm every friday``, ``dm me on fridays at 9``, ``每周五给我发私信``),
rewritten to the ``dm on`` command (``dm on friday``). Pure, read by
:func:`bot.slack.grammar_forms.retried`; questions about vLLM never match (each pattern is anchored
and holds only the app's own words)."""

from __future__ import annotations

import re

from bot.domain.words import is_schedule_word
from bot.slack.grammar_phrases import GREETING_LEAD

_ASK = (
    r"(?:(?:please|pls|can\s+you|could\s+you|would\s+you|will\s+you)\s+)?"
    r"(?:(?:i(?:'d|\s+would)\s+like|i\s+want|i\s+wanna)\s+(?:you\s+)?(?:to\s+)?)?"
)
"""Words that only make a request polite (``please``, ``can you``, ``I'd like you to``)."""

_A_DM = r"(?:an?\s+|the\s+|my\s+|one\s+)?(?:weekly\s+)?(?:dms?|direct\s+messages?|private\s+messages?|messages?)"
"""The weekly DM named as a thing to send (``a dm``, ``a weekly message``, ``my weekly dm``)."""

_A_DIGEST = (
    r"(?:an?\s+|the\s+|my\s+|one\s+)?(?:weekly\s+)?(?P<noun>reminders?|digests?|updates?|summar(?:y|ies)|emails?)"
)
"""Other names of something sent each week (``a reminder``, ``a digest``): the weekly DM when a
schedule follows (``send me a digest every friday``; QA round 17)."""

_WHEN = r"(?P<when>(?:\s+.*)?)"
"""What follows: the schedule (``every friday``, ``on mondays at 8:30``), maybe nothing."""

_DM_EN = re.compile(
    rf"^{_ASK}(?:"
    rf"(?:send|give|get)\s+(?:me|us)\s+(?:{_A_DM}|{_A_DIGEST})"  # send me a dm every friday
    rf"|(?:dm|message|ping|pm|e-?mail)\s+me(?:\s+weekly)?"  # dm me every friday
    rf"|(?:i\s+(?:want|need|would\s+like)|i'd\s+like|i'll\s+take)\s+{_A_DM}"  # i want a weekly dm on mondays
    rf"|(?:turn\s+on|enable|start|set\s+up|schedule)\s+{_A_DM}"  # turn on my dm friday 9am
    rf"){_WHEN}$",
    re.IGNORECASE,
)
"""A weekly DM asked for in English, with or without its schedule."""

_ZH_WHEN = (
    r"(?P<day>(?:每|这|下)?(?:(?:周|星期|礼拜)[一二三四五六日天]?)?)"
    r"(?P<time>(?:早上|上午|中午|下午|晚上|傍晚)?(?:\d{1,2}(?:[:：]\d{2}|点半|点\d{1,2}分?|点钟?))?)"
)
_DM_ZH = re.compile(
    rf"^(?:请|麻烦)?{_ZH_WHEN}(?P<verb>给我发|发给我|给我发送|发送给我|私信给我|私信我|发私信给我|提醒我)"
    r"(?:一条|一封|一个)?(?:每周)?(?:的)?(?:私信|消息|提醒)?(?:吧|呢|好吗|可以吗)?[。！.!]*$"
)
"""The same in Chinese (``每周五给我发私信``, ``周五早上9点私信我``, ``给我发每周私信``): ``day`` and
``time`` the schedule."""

_NO_SCHEDULE = re.compile(
    r"\b(?:please|pls|weekly|once\s+a\s+week|every\s+week|each\s+week|a\s+week|per\s+week|thanks|thank\s+you)\b",
    re.IGNORECASE,
)
"""Words after a DM request that say only "weekly" (every DM is weekly) or ask politely: left out."""

_PLURAL_DAY = re.compile(r"\b(mon|tues|wednes|thurs|fri|satur|sun)days\b", re.IGNORECASE)


def dm_request(text: str) -> str | None:
    """The ``dm on …`` command a sentence asking for the weekly DM means (``send me a dm every
    friday`` -> ``dm on every friday``; ``每周五给我发私信`` -> ``dm on 每周五``), else None; also None
    when what follows the request does not begin with a day or a time (``send me a message queue
    post``: a search). The schedule words are passed on as typed (``dm on`` reads or refuses them)."""
    said = GREETING_LEAD.sub("", " ".join(text.split())).strip(" .!?。！？")
    if (m := _DM_EN.match(said)) is not None:
        when = _PLURAL_DAY.sub(r"\1day", _NO_SCHEDULE.sub(" ", m["when"])).split()
        if (when and not is_schedule_word(when[0])) or (m["noun"] and not when):
            return None  # `send me a digest` alone: no day says it is the weekly DM
        return " ".join(["dm", "on", *when])
    if (m := _DM_ZH.match(said.replace(" ", ""))) is not None and (m["day"] or m["time"] or "私信" in said):
        if m["verb"] == "提醒我" and not m["day"].startswith("每"):
            return None  # `明天提醒我`, `周五提醒我`: a reminder, not the weekly DM
        at = "" if m["time"] in _MORNING else m["time"]  # `每周一早上`: the DM's morning hour (QA round 17)
        return " ".join(["dm", "on", *(w for w in (m["day"], at) if w)])
    return None


_MORNING = frozenset({"早上", "上午"})
"""A morning named with no clock time: the weekly DM's default hour (09:00) is one."""

_ZH_WEEKLY = re.compile(r"^(?:请|麻烦)?(?:每|每个)(?:周|星期|礼拜)(?P<rest>.*)$")
_ZH_SENDING = re.compile(r"发给我|给我发|私信|提醒我|推送给我|通知我|告诉我")


def weekly_zh(text: str) -> bool:
    """Whether ``text`` (typed after ``每周``, read as ``plan`` and not understood as minutes) names
    a weekday or asks for something sent (``每周一``, ``每周五 1小时``, ``每周发给我推测解码``; QA round
    17): a schedule, answered by what each weekly thing is (the ``weekly`` usage), not "minutes"."""
    m = _ZH_WEEKLY.match("".join(text.split()))
    if m is None:
        return False
    rest = m["rest"]
    return rest[:1] in tuple("一二三四五六日天") or _ZH_SENDING.search(rest) is not None


_TRACK_WORDS = r"(?P<t>[^?？]{1,40}?)"
_PROGRESS_OF = tuple(
    re.compile(p, re.IGNORECASE)
    for p in (
        rf"^how\s+far\s+(?:along\s+)?(?:am\s+i|have\s+i\s+(?:got|gotten|come|read))\s+"
        rf"(?:along\s+)?(?:in|with|on|through|into)\s+(?:the\s+)?{_TRACK_WORDS}(?:\s+track)?$",
        rf"^(?:show\s+(?:me\s+)?)?my\s+(?:reading\s+)?progress\s+(?:(?:in|on|for|with|of)\s+)?(?:the\s+)?"
        rf"{_TRACK_WORDS}(?:\s+track)?$",
        rf"^how\s+(?:much|many(?:\s+posts?)?)\s+(?:of|in)\s+(?:the\s+)?{_TRACK_WORDS}(?:\s+track)?\s+"
        r"(?:have\s+i|did\s+i|i(?:'ve|\s+have)?)\s+(?:read|done|finished)(?:\s+(?:so\s+far|already|yet))?$",
        rf"^我(?:的)?{_TRACK_WORDS}(?:的)?(?:阅读)?进度(?:怎么样|如何)?(?:呢|啊)?$",
        rf"^(?:我{_TRACK_WORDS}|{_TRACK_WORDS.replace('t>', 'u>')}我)(?:已经)?(?:读|看)了"
        r"(?:多少|几篇|多少篇)(?:了|文章)?(?:呢|啊)?$",
    )
)
"""One's progress in a named track asked for in a sentence (``how far am I in spec``, ``my progress
in pd``, ``how much of spec have I read``, ``推测解码我读了多少``): ``t`` the track's words."""


def progress_request(text: str) -> str | None:
    """The ``next <track words>`` command a question about one's progress in a track means (QA round
    17: ``how far am I in spec`` was refused, ``my progress in pd`` searched), else None. Only the
    person's own progress (I, my, 我): ``progress bar in vllm`` is no such question."""
    said = GREETING_LEAD.sub("", " ".join(text.split())).strip(" .!?。！？").replace("’", "'")
    for pattern in _PROGRESS_OF:
        if (m := pattern.match(said)) is not None and (track := (m["t"] or m.groupdict().get("u") or "").strip()):
            return f"next {track}"
    return None


_DAY_NAME = r"(?:mon|tues|wednes|thurs|fri|satur|sun)days?|weekly|every\s+week"
_POINTER_EN = re.compile(
    rf"^(?:(?:every|each|on)\s+)?(?:{_DAY_NAME})\s+(?:the\s+)?(?:dms?|digests?|reminders?|messages?|emails?|updates?)"
    r"|(?:(?:send|give)\s+(?:me|us)\s+)?(?:an?\s+)?(?:dms?|digests?|reminders?|emails?)\s+(?:weekly|every\s+week)"
    r"|(?:send|give)\s+(?:me|us)\s+(?:an?\s+|the\s+|my\s+)?(?:weekly\s+)?(?:digests?|reminders?|emails?|updates?)"
    r"|(?:给我)?发私信(?:给我)?|私信我|给我私信$",
    re.IGNORECASE,
)
"""A weekly thing named with no command (``friday dm``, ``weekly digest``, ``发私信``): the ``weekly``
usage, which says how to turn on each (QA round 17: each was refused as off-topic)."""

_SEND_ME = re.compile(r"^(?:please\s+)?(?:send|give|show)\s+(?:me|us)\s+(?P<x>.+)$", re.IGNORECASE)
_THE_TRACK = re.compile(r"^(?:the\s+)?(?P<t>.+?)\s+(?:track|reading\s+path|path)$", re.IGNORECASE)


def other_request(text: str) -> str | None:
    """The command a sentence read as a search means (QA round 17), tried after :func:`dm_request`:
    ``friday dm`` -> ``weekly`` (its usage); ``send me the spec track`` -> ``spec``; ``send me X``
    -> ``X`` when :func:`retried` parses ``X`` as a command (``send me the latest post``), else None."""
    said = GREETING_LEAD.sub("", " ".join(text.split())).strip(" .!?。！？")
    if _POINTER_EN.fullmatch(said):
        return "weekly"
    if (m := _SEND_ME.match(said)) is None:
        return None
    asked = m["x"]
    if (track := _THE_TRACK.match(asked)) is not None:
        return track["t"]
    return asked
