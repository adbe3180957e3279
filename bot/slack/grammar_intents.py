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

_WHEN = r"(?P<when>(?:\s+.*)?)"
"""What follows: the schedule (``every friday``, ``on mondays at 8:30``), maybe nothing."""

_DM_EN = re.compile(
    rf"^{_ASK}(?:"
    rf"(?:send|give|get)\s+(?:me|us)\s+{_A_DM}"  # send me a dm every friday
    rf"|(?:dm|message|ping|pm)\s+me(?:\s+weekly)?"  # dm me every friday
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
    rf"^(?:请|麻烦)?{_ZH_WHEN}(?:给我发|发给我|给我发送|发送给我|私信给我|私信我|发私信给我)"
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
        if when and not is_schedule_word(when[0]):
            return None
        return " ".join(["dm", "on", *when])
    if (m := _DM_ZH.match(said.replace(" ", ""))) is not None and (m["day"] or m["time"] or "私信" in said):
        return " ".join(["dm", "on", *(w for w in (m["day"], m["time"]) if w)])
    return None
