"""Other ways of typing the same command (QA round 15): Traditional characters and Cantonese words
(``關注 量化``, ``讀咗 p-eagle``, ``我每週有半個鐘``), a pasted quote line (``> read p-eagle``) and
emoji codes (``I have 30 minutes per week :coffee:``). :func:`retried` reads text that parsed as no
command once more in its :func:`tidy` form. Pure, read by :func:`bot.slack.grammar.parse`."""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Protocol, TypeVar

from bot.domain.text import TRADITIONAL, has_han
from bot.slack.grammar_intents import dm_request, other_request, progress_request, weekly_zh
from bot.slack.grammar_phrases import EMOJI_CODE
from bot.slack.grammar_plan import budget_phrase, plan_fields

_MORE_TRADITIONAL = str.maketrans("標蹤週鐘訂補課幾鬧曉歡寫紹簡", "标踪周钟订补课几闹晓欢写绍简")
"""Traditional characters of command words that the shared table (:data:`bot.domain.text.TRADITIONAL`,
read with it) does not hold."""

_WORDS: tuple[tuple[re.Pattern[str], str], ...] = tuple(
    (re.compile(p), r)
    for p, r in (
        (r"睇", "看"),  # Cantonese: 睇咗, 睇完
        (r"(读|看)咗", r"\1完"),  # 读咗 p-eagle: 读完 p-eagle
        (r"咩", "什么"),  # 最近有咩新文
        (r"嘅", "的"),
        (r"([\d一二两三四五六七八九十半])\s*个钟(?!头)", r"\1个小时"),  # 半个钟, 两个钟: hours
    )
)
"""Cantonese command words and hours (``钟`` for ``小时``), after the Traditional characters are
folded: their Mandarin forms."""

_FOLLOW = re.compile(r"^(取消)?追蹤\s+")
"""``追蹤 <track>`` typed as a command word (Taiwan's word for following an account or a topic):
``关注``; not the Simplified ``追踪`` (tracing: ``追踪 请求延迟`` stays a search), nor joined to a word."""

_QUOTE_LEAD = re.compile(r"^(?:\s*(?:>|&gt;)\s*)+")
"""A pasted quote line's marks (``> read p-eagle``)."""


def tidy(text: str) -> str:
    """``text`` without a quote line's leading ``>`` and emoji codes typed as words, Traditional
    characters folded to Simplified and Cantonese command words (``讀咗``, ``睇完``, ``咩``, ``半個鐘``)
    and ``追蹤`` written as in Mandarin (``读完``, ``看完``, ``什么``, ``半个小时``, ``关注``), spaces made
    single. Pure."""
    out = " ".join(w for w in _QUOTE_LEAD.sub("", text).split() if not EMOJI_CODE.match(w))
    if not has_han(out):
        return out
    out = _FOLLOW.sub(r"\1关注 ", out).translate(_MORE_TRADITIONAL).translate(TRADITIONAL)
    for pattern, replacement in _WORDS:
        out = pattern.sub(replacement, out)
    return out


class _Parsed(Protocol):
    @property
    def kind(self) -> str: ...
    @property
    def error(self) -> str | None: ...


P = TypeVar("P", bound=_Parsed)


def retried(parse: Callable[[str], P], text: str) -> P:
    """``parse(text)``; when that is a search (``query``) or a near miss (``did_you_mean``) and
    :func:`tidy` changes ``text``, ``parse`` of the tidied text if that is something else (a
    command: ``關注 量化`` is ``follow 关注 量化``), else the first (a search keeps the words typed).
    Text still read as a search, or as a command whose words were not understood (``dm me every
    friday``; ``每周五给我发私信`` as ``每周``, a plan), that asks for the weekly DM in a sentence
    is read as the ``dm on`` command it means (:func:`~bot.slack.grammar_intents.dm_request`; QA
    round 16): taken when it parses with no error, or when the text was a search or ``每周…`` read
    as a plan (QA round 17: ``每周一早上给我发私信``). ``每周`` before a weekday that is no DM request
    (``每周一``, ``每周五 1小时``) is the ``weekly`` usage (:func:`~bot.slack.grammar_intents.weekly_zh`);
    a search asking for one's progress in a track (``how far am I in spec``) is ``next <track>``
    (:func:`~bot.slack.grammar_intents.progress_request`). Text that is a weekly budget with a day
    and nothing else (``1 hour every friday``, ``每周五读 1 小时``: :func:`~bot.slack.grammar_plan.budget_phrase`)
    is ``plan`` with those words."""
    cmd = parse(text)
    if cmd.kind in ("query", "did_you_mean") and (tidied := tidy(text)) != text:
        again = parse(tidied)
        cmd = cmd if again.kind == "query" else again
    if cmd.kind in ("query", "usage", "did_you_mean") or cmd.error:
        words = tidy(text).split()  # `1 hour every friday`, `周五读1小时`: a plan (QA round 19)
        if words and words[0].casefold() not in ("plan", "计划") and budget_phrase(plan_fields(words)):
            return parse("plan " + " ".join(words))
    if cmd.kind == "query" or cmd.error:
        meant = dm_request(tidy(text))
        if meant is not None and ((again := parse(meant)).error is None or cmd.kind in ("query", "plan")):
            return again
        if cmd.kind in ("plan", "query") and weekly_zh(tidy(text)):
            return parse("weekly")
    if cmd.kind == "query" and (progress := progress_request(tidy(text))) is not None:
        return parse(progress)
    if cmd.kind == "query" and (other := other_request(tidy(text))) is not None:
        again = parse(other)  # `send me the spec track`: the track; `send me eagle` stays a search
        return again if again.kind != "query" or _THE_TRACK_ASKED.search(text) else cmd
    return cmd


_THE_TRACK_ASKED = re.compile(r"\s(?:track|reading\s+path|path)\W*$", re.IGNORECASE)
"""A request ending with "track" (``send me the spec track``): the words before it are searched for
as a track name, not with the request around them."""
