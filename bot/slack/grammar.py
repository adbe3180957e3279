"""The ``/vllm-path`` grammar: command text -> a typed :class:`Command`. Pure, no I/O.

::

    /vllm-path [help]  |  <track>|<query>  |  search <query>  |  next [track]  |  stats
    /vllm-path read|unread <post or query>  |  follow|unfollow <track>  |  lang en|zh
    /vllm-path subscribe <track> [weekday] [HH:MM] [time zone]  |  unsubscribe <track>  |  subscriptions
    /vllm-path dm on [weekday] [HH:MM] [time zone]  |  dm off  |  plan <minutes a week>|off
    /vllm-path remind <post or query> [day]  |  reminders [cancel <n>]
    /vllm-path catch me up  |  what did I miss  |  跟上进度  |  我错过了什么
    /vllm-path recommend something  |  settings  |  stop [track]  |  snooze  (推荐点什么  |  设置  |  停止)

The matcher decides whether ``<track>|<query>`` is a track; :mod:`~bot.slack.grammar_schedule` reads schedules.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from bot.domain.budget import take_after, take_budget
from bot.domain.schedule import ScheduleParts
from bot.domain.text import clean
from bot.domain.words import closest
from bot.slack.grammar_dm import PAUSE_LENGTH_EN, PAUSE_LENGTH_ZH
from bot.slack.grammar_dm import dm as _dm
from bot.slack.grammar_dm import second_budget as _second_budget
from bot.slack.grammar_forms import retried
from bot.slack.grammar_phrases import (
    ABOUT_APP,
    ALONE,
    CANCEL_REMINDER,
    CANCEL_REMINDER_N,
    CATCH_UP,
    DIGEST_CLI,
    END_MARKS,
    GREETING_LEAD,
    HELP_TOPICS,
    HOME_ASKED,
    LATEST,
    LATEST_IN,
    MY_DATA,
    OWN_NAME,
    STOP_TERM,
    STOP_TOPIC,
    USAGE_WORDS,
    WEEKLY_TIME_EN,
    WEEKLY_TIME_ZH,
    ZH_DAY,
    ZH_SPAN,
    ZH_TIME,
    Kind,
    how_to_topic,
    post_arg,
)
from bot.slack.grammar_plan import plan_fields
from bot.slack.grammar_polite import polite
from bot.slack.grammar_refs import Elsewhere, cut_words, named_elsewhere, visible, zh_budget_words
from bot.slack.grammar_schedule import split_schedule

MAX_TEXT = 500
"""Characters of command text that are read; longer text is cut (the reply says so)."""

# fmt: off

KEYWORDS: dict[str, Kind] = {
    "help": "help", "?": "help", "帮助": "help", "h": "help",
    "search": "search", "搜索": "search",
    "next": "next", "下一篇": "next", "下一步": "next", "接下来": "next",
    "progress": "next", "进度": "next", "我的进度": "next",  # `next` shows each track's progress
    "read": "read", "done": "read", "已读": "read", "标记已读": "read", "标为已读": "read", "标记为已读": "read",
    "读": "read", "读完": "read", "读完了": "read", "读过": "read", "读了": "read", "已阅": "read",
    "看完": "read", "看完了": "read", "看过": "read", "已看": "read",
    "unread": "unread", "未读": "unread", "取消已读": "unread", "标为未读": "unread", "标记未读": "unread",
    "标记为未读": "unread",
    "follow": "follow", "关注": "follow",
    "unfollow": "unfollow", "取消关注": "unfollow",
    "subscribe": "subscribe", "sub": "subscribe", "订阅": "subscribe",
    "unsubscribe": "unsubscribe", "unsub": "unsubscribe", "取消订阅": "unsubscribe", "退订": "unsubscribe",
    "subscriptions": "subscriptions", "subs": "subscriptions", "订阅列表": "subscriptions", "频道订阅": "subscriptions",
    "dm": "dm", "私信": "dm",
    "lang": "lang", "language": "lang", "语言": "lang",
    "remind": "remind", "提醒": "remind",
    "reminders": "reminders", "提醒列表": "reminders", "我的提醒": "reminders",
    "stats": "stats", "统计": "stats",
    "plan": "plan", "budget": "plan", "计划": "plan", "每周": "plan",  # issue 24: minutes a week
}
"""First words that select a command (English and Chinese)."""
# fmt: on

_READ_VERBS = frozenset({"读", "读完", "读完了", "读过", "读了", "已阅", "看完", "看完了", "看过", "已看"})
"""Chinese verbs of reading that begin questions as often as commands (``读什么``, ``读书会``,
``看过哪些``): the read command only before a separate word or Latin text (``读 p-eagle``,
``读完p-eagle``, ``读 推测解码入门``), and not before a question word (``读 什么``)."""

_READ_QUESTION = re.compile(r"^(?:什么|啥|哪|几|多少|怎么|如何|为什么|吗|呢|书)")
"""The start of what follows a reading verb when the text is a question, not a command (``读 哪篇``)."""

_JOINED_KEYWORDS = sorted(
    (k for k in KEYWORDS if not k.isascii() and k != "语言" and k not in _READ_VERBS), key=len, reverse=True
)
"""Chinese keywords typed joined to what follows (``关注推测解码``), longest first; not ``语言``
(``语言模型``), nor a reading verb (:data:`_READ_VERBS`) before Chinese text."""

_ARG_LEAD = ":：,，、 "
"""Punctuation typed between a joined keyword and its argument (``已读：p-eagle``), left out."""

# fmt: off
_FUZZY_KEYWORDS = ("help", "next", "read", "unread", "follow", "unfollow", "subscribe",
                   "unsubscribe", "subscriptions", "lang", "remind", "reminders")
# fmt: on

_NEAR_KEYWORDS = (*_FUZZY_KEYWORDS, "language", "stats", "search", "dm")
"""English keywords a lone mistyped word is compared with (:func:`near_command`)."""

# fmt: off
LANG_WORDS: dict[str, str] = {
    "en": "en", "english": "en", "英文": "en", "英语": "en", "en-us": "en", "en-gb": "en",
    "zh": "zh", "chinese": "zh", "中文": "zh", "汉语": "zh", "简体中文": "zh", "zh-cn": "zh",
    "zh-hans": "zh", "cn": "zh",
}
"""What ``lang`` accepts for each language (English and Chinese names, common locale codes)."""
# fmt: on


@dataclass(frozen=True)
class Command:
    """A parsed command. ``arg``: the text after the keyword; ``schedule``: for ``subscribe`` and
    ``dm on`` (parts not typed are ``None``); ``enabled``: ``dm on|off``. ``error``: an i18n key,
    with ``error_value`` (and ``error_choices``, the zones an ambiguous abbreviation may mean);
    ``suggestion``: the command to type instead; ``note``: an i18n key the reply adds; ``steps``:
    ``subscribe … 3 steps``; ``query``: the whole text of a ``next`` or ``stop <words>`` that may
    also be a search (``qwen3 next``, ``stop tokens``), searched when ``arg`` names no track; of a
    ``snooze …`` / ``unsnooze`` too (``snooze 2w``: its length answered)."""

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
    """Minutes a week (``plan 30m``, ``dm on … 30m``, ``subscribe … 45m``); ``plan off``: ``enabled=False``."""
    after_essentials: str | None = None
    """``subscribe … then stop``: ``stop`` or ``further`` after the essential path."""
    catchup: bool | None = None
    """``dm catchup on|off``: True or False, else None."""
    club: bool | None = None
    """``subscribe … club``: a reading club (True), ``no club`` (False), else None (kept as it is)."""
    elsewhere: Elsewhere | None = None
    """A channel or person named in a command that acts only where it is typed, for whoever types it
    (``subscribe #general spec``, ``follow spec for @bob``; :data:`ELSEWHERE_KINDS`); the other
    fields are those of the command without it, ``here``: that command's text."""
    here: str = ""


_LABELLED_LINK = re.compile(r"<((?:https?|ftp)://[^<>|\s]+)\|([^<>]*)>", re.IGNORECASE)


def _link_labels(text: str) -> str:
    """A labelled link ``<url|label>`` among other words becomes its label; one that is the whole
    argument (``read <url|label>``) stays a link, which :func:`bot.domain.text.clean` makes its URL."""
    if "|" not in text or "<" not in text:
        return text
    rest = _LABELLED_LINK.sub(" ", text).split()
    if len(_LABELLED_LINK.findall(text)) == 1 and (
        not rest or (len(rest) == 1 and clean(rest[0]).casefold().lstrip("/") in KEYWORDS)
    ):
        return text
    return _LABELLED_LINK.sub(lambda m: m.group(2), text)


_STEPS = re.compile(r"^(\d{1,2})\s*(?:steps?|篇|步)?$", re.IGNORECASE)


def _take_steps(words: list[str]) -> tuple[list[str], int | None]:
    """``(the other words, N)`` of ``N steps [a week]`` (``3steps``, ``3 篇``) in ``words``; N ``None``: not given."""
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


# fmt: off
_GREETINGS = frozenset({"hi", "hello", "hey", "hi there", "hello there", "hey there", "yo", "good morning",
                        "good afternoon", "good evening", "你好", "您好", "嗨", "哈喽", "早上好", "下午好", "晚上好"})
"""A greeting alone gets the help (what a first-time user needs)."""
# fmt: on
_ADDRESSEES = ("bot", "there", "vllm-path", "vllm path")
_GREETINGS |= {f"{g}{sep}{who}" for g in _GREETINGS for sep in (" ", ", ", "，") for who in _ADDRESSEES}
"""… also said to the bot (QA: "hi bot" searched for "bot")."""

# fmt: off
_THANKS = frozenset({"thanks", "thank you", "thanks a lot", "thank you very much", "thx", "ty", "cheers",
                     "谢谢", "多谢", "感谢", "谢啦", "谢谢你"})
"""Thanks alone gets a short "you're welcome" (never a search for "thanks")."""
# fmt: on
_THANKS |= {f"{g}{sep}{who}" for g in _THANKS for sep in (" ", ", ", "，") for who in _ADDRESSEES}

_GREETINGS_OR_THANKS = _GREETINGS | _THANKS
_MARKS = " !！.。~～"  # punctuation around a greeting, thanks or "what's new" that changes nothing


# fmt: off
_NEXT_FILLER = frozenset({"what", "what's", "whats", "is", "are", "my", "me", "i", "should", "shall",
                          "do", "to", "read", "the", "up", "comes", "come", "in", "for", "on", "of"})
"""English words around "next" that ask the question and name no track (``what should i read next``)."""
# fmt: on

_NEXT_ZH_TAIL = re.compile(r"(?:的|文章|读什么|看什么|读哪篇|看哪篇|是什么|是哪篇|呢|吗)+$")
"""Chinese words that end a "what next" question and name no track (推测解码的下一篇**是什么**)."""


def _next_topic(text: str) -> str:
    """``text`` (after "next", or before it) without the words that only ask the question."""
    words = [w for w in text.casefold().replace("’", "'").strip(" ?？。").split() if w not in _NEXT_FILLER]
    return _NEXT_ZH_TAIL.sub("", re.sub(r"^(?:我的|我)", "", " ".join(words))).strip()


def _next_last(words: list[str]) -> str | None:
    """The track text of a "what next" with the keyword last (``spec next``, ``推测解码的下一篇是什么``;
    ``""``: every followed track), or ``None`` (no such question, or a longer text: a query)."""
    low = _NEXT_ZH_TAIL.sub("", " ".join(words).casefold().replace("’", "'").rstrip(" ?？。"))
    for key in ("下一篇", "下一步"):
        if low.endswith(key) and len(low) > len(key):
            return _next_topic(low[: -len(key)])
    parts = low.split()
    if 1 <= len(parts) <= 6 and parts[-1] == "next":
        return _next_topic(" ".join(parts[:-1]))
    if "next" in parts[:6] and len(parts) <= 10:  # "what's next in pd", "what should i read next for spec"
        at = parts.index("next")
        if parts[at + 1 : at + 2] in (["in"], ["for"], ["on"], ["of"]) and _next_topic(" ".join(parts[:at])) == "":
            return _next_topic(" ".join(parts[at + 2 :]))
    return None


def _keyword(words: list[str]) -> tuple[str, list[str]]:
    """The first word (case-folded, no leading ``/``) and the rest; ``关注推测解码`` gives ``关注``, ``推测解码``."""
    first, rest = words[0].casefold().lstrip("/"), words[1:]
    if first.rstrip(END_MARKS) in KEYWORDS and first.rstrip(END_MARKS):  # "help!", "next?"
        first = first.rstrip(END_MARKS)
    if first not in KEYWORDS and not first.isascii():
        joined = next((k for k in _JOINED_KEYWORDS if first.startswith(k)), None)
        if joined is None:  # a reading verb joined to Latin text: 读完p-eagle, 读https://…
            verb = next((k for k in sorted(_READ_VERBS, key=len, reverse=True) if first.startswith(k)), None)
            if verb is not None and first[len(verb) :].lstrip(_ARG_LEAD)[:1].isascii():
                joined = verb
        if joined is not None:
            arg = words[0].lstrip("/")[len(joined) :].lstrip(_ARG_LEAD)
            return joined, [arg, *rest] if arg else rest
    return first, rest


def _free_text(raw: str, words: list[str], first: str, rest: list[str], truncated: bool) -> Command:
    """Text whose first word is no keyword: a reversed "what next", a near-miss (``folow spec``) or a query."""
    if (topic := _next_last(words)) is not None:
        return Command("next", arg=topic, truncated=truncated, query=raw.strip())
    if rest and len(first) >= 4 and first.isascii() and (best := closest(first, _FUZZY_KEYWORDS, 80)):
        return Command(
            "did_you_mean", arg=raw.strip(), truncated=truncated, suggestion=f"{best} {' '.join(rest)}".strip()
        )
    return Command("query", arg=raw.strip(), truncated=truncated)


_CLUB = frozenset({"club", "读书会"})
_NO = frozenset({"no", "not", "不要", "不"})


def _take_club(words: list[str]) -> tuple[list[str], bool | None]:
    """``(the other words, True | False | None)`` of ``club`` / ``读书会`` (``no club``: False) in ``words``."""
    for i, word in enumerate(words):
        if word.casefold() in _CLUB:
            no = i > 0 and words[i - 1].casefold() in _NO
            return words[: i - 1 if no else i] + words[i + 1 :], not no
    return words, None


def _subscribe(rest: list[str]) -> dict[str, Any]:
    """``subscribe <track> [N steps] [schedule] [budget] [then stop] [club]``."""
    rest = zh_budget_words(rest)  # "订阅 spec 每周半小时" (QA round 8)
    typed = rest
    rest, club = _take_club(rest)
    rest, minutes = take_budget(rest)
    if (twice := _second_budget(rest, minutes, "subscribe", typed)) is not None:
        return {"arg": " ".join(rest), **twice}
    rest, after = take_after(rest)
    rest, steps = _take_steps(rest)
    left, fields = split_schedule(rest, "subscribe")
    return {
        "arg": " ".join(left),
        "steps": steps,
        "minutes": minutes,
        "after_essentials": after,
        "club": club,
        **fields,
    }


_ARGUMENTS: dict[str, Callable[[list[str]], dict[str, Any]]] = {
    "read": lambda rest: {"arg": post_arg(rest)},  # "read “p-eagle”", "read it" (QA round 12)
    "unread": lambda rest: {"arg": post_arg(rest)},
    "next": lambda rest: {"arg": _next_topic(" ".join(rest))},
    "lang": lambda rest: {"arg": LANG_WORDS.get(" ".join(rest).casefold(), " ".join(rest).casefold())},
    "dm": lambda rest: _dm(zh_budget_words(rest)),
    "subscribe": _subscribe,
    "plan": plan_fields,
}
"""How a keyword's arguments are read, where they are more than ``arg``."""


_ONE_ARG = r"(\S+|<[^<>]+>)"
"""One word or one Slack link: the post a plain-words command names (``mark p-eagle as read``)."""

_THE_DM = r"(?:the\s+|my\s+)?(?:weekly\s+)?(?:dms?|direct\s+messages?)"
_ZH_DM = r"\s*(?:我的)?(?:每周)?私信\s*"
"""The weekly DM named in plain words (``my weekly dm``, ``每周私信``)."""

# fmt: off
_PHRASES: tuple[tuple[re.Pattern[str], str], ...] = tuple((re.compile(p, re.IGNORECASE), r) for p, r in (
    (r"^mark\s+(?:(?:it|this|that)(?:\s+one)?\s+)?(?:as\s+)?(read|unread|done)[.!。！]*$", r"\1"),  # which post?
    (r"^i(?:['’]ve|\s+have)?\s+(?:just\s+|already\s+)?(?:read|finished)(?:\s+reading)?[.!。！]*$", "read"),
    (r"^我(?:已经|刚|刚刚)?(?:读完了|读完|读过了|读过|看完了|看完)(?:了|啦|啊)?[.!。！]*$", "read"),  # 我读完了
    (r"^mark\s+(?:as\s+)?(read|unread)\s+(.+)$", r"\1 \2"),
    (rf"^mark\s+{_ONE_ARG}\s+(?:as\s+)?(read|unread)$", r"\2 \1"),
    (rf"^i(?:['’]ve|\s+have)?\s+(?:just\s+|already\s+)?(?:read|finished)\s+{_ONE_ARG}$", r"read \1"),
    (r"^remind\s+me(?:\s+(?:to\s+read|about\s+it|of\s+it|later))?[.!。！]*$", "remind"),  # as `remind` alone
    (r"^remind\s+me\s+(?:about\s+|of\s+|to\s+read\s+)?(.+)$", r"remind \1"),
    (rf"^(?:stop|turn\s+off|disable|no\s+more)\s+{_THE_DM}$", "dm off"),
    (rf"^(?:stop|turn\s+off|disable|no\s+more)\s+{_THE_DM}\s+for\s+(.+)$", r"dm pause \1"),  # a while: a pause
    (rf"^(?:pause|snooze|mute)\s+{_THE_DM}(?:\s+(?:for\s+)?(.+))?$", r"dm pause \1"),  # `pause dm 2 weeks` too
    (rf"^(?:resume|unpause|unsnooze|unmute)\s+{_THE_DM}(?:\s+(.+))?$", r"dm resume \1"),
    (r"^(?:turn\s+on|enable|start)\s+(?:the\s+|my\s+)?(?:weekly\s+)?(?:dms?|direct\s+messages?)$", "dm on"),
    (r"^(?:cancel|delete|remove)\s+(?:a\s+|my\s+|the\s+)?reminders?$", "reminders"),
    (r"^(?:show\s+)?my\s+progress$", "next"),
    (WEEKLY_TIME_EN, r"plan \g<t> \g<m>"),  # QA round 13: `I have 30 minutes a week`; `… a month`: refused
    (WEEKLY_TIME_ZH, r"plan \g<t> \g<m>"),  # `我每周有30分钟`, `plan 我每周有30分钟` (QA round 15)
    (r"^(?:标记|标为|标记为)\s*(\S+?)\s*(?:为)?已读$", r"read \1"),
    (r"^我(?:已经)?(?:读完了|读完|读过了|读过|看完了|看完)\s*(\S+)$", r"read \1"),
    (rf"^(?:(?P<s>{ZH_SPAN}|明早|明晚)|(?P<d>{ZH_DAY}|明早|明晚)?\s*(?P<t>{ZH_TIME}))\s*提醒\s*我(?!们)\s*",
     r"提醒 \g<s> \g<d> \g<t> "),  # "半小时后提醒我", "明天上午9点提醒我读 p-eagle": the time first (QA round 12)
    (rf"^({ZH_DAY})\s*提醒\s*我(?!们)\s*", r"提醒 \1 "),  # "明天提醒我读 p-eagle": the day first
    (r"^提醒\s*我(?!们)\s*", "提醒 "),  # "提醒 我 明天 …" too: 我 is no part of the post's words
    (rf"^(?:关闭|关掉|停止){_ZH_DM}(.*)$", r"dm off \1"),  # each with what follows (QA: `暂停私信 两周`
    (rf"^(?:打开|开启){_ZH_DM}(.*)$", r"dm on \1"),  # was read as `stop 私信 两周`): the dm command
    (rf"^暂停\s*(?:(一周|1周|一个星期|一星期|两周|2周|三周|3周|一个月)\s*)?(?:的)?{_ZH_DM}(.*)$", r"dm pause \1 \2"),
    (rf"^恢复{_ZH_DM}(.*)$", r"dm resume \1"),
    (r"^(?:please\s+)?pause\s+(?:for\s+)?(?:two|2)\s*(?:weeks?|w)$|^暂停\s*(?:两|2|二)\s*(?:周|个?星期|个?礼拜)$",
     "dm pause 2 weeks"),  # the catch-up DM's *Pause two weeks* typed (QA round 20)
    (rf"^(?:please\s+)?pause\s+({PAUSE_LENGTH_EN})$|^暂停\s*(?!一周$)({PAUSE_LENGTH_ZH})$", r"dm pause \1\2"),
    (r"^(?:取消|删除)提醒$", "reminders"),
))
"""Commands typed as plain words (QA), rewritten to their keyword form before parsing: ``mark
p-eagle as read``, ``i read p-eagle``, ``remind me about p-eagle next week``, ``stop dm``,
``cancel reminder`` (the list, each with *Cancel*), ``my progress``, ``30 min a week``,
``标记 p-eagle 已读``, ``提醒我 …``, ``关闭私信``."""
# fmt: on


def _plain_words(raw: str) -> str:
    """``raw`` with the first of :data:`_PHRASES` that matches applied (the text itself when none does)."""
    for pattern, replacement in _PHRASES:
        if pattern.search(raw):
            return pattern.sub(replacement, raw, count=1).strip()
    return raw


_MENTION = re.compile(r"<[!@#][^<>\s]+>")
"""A Slack mention (``<!channel>``, ``<@U0123>``, ``<#C0123|x>``): :func:`~bot.domain.text.clean` drops it,
so a ``dm`` it was typed in would ignore it unsaid (QA)."""


_HELP_LEAD = re.compile(
    r"^(?:(?:me|us|with|on|about|for|understand(?:ing)?|to|please|pls|out|plz)(?:\s+|$))*", re.IGNORECASE
)
"""Words between ``help`` and its topic (``help me understand paged attention``)."""


ELSEWHERE_KINDS: dict[str, tuple[bool, bool]] = {
    "subscribe": (True, True), "unsubscribe": (True, True), "subscriptions": (True, False),
    "follow": (True, True), "unfollow": (True, True), "remind": (True, True),
}  # fmt: skip
"""Commands acting only where typed, for whoever types them: (is a channel named refused, a person?) (QA round 8)."""


def parse(text: str) -> Command:
    """Parse slash-command text (as Slack sends it) after :func:`bot.domain.text.clean`, with no
    invisible characters (:func:`~bot.slack.grammar_refs.visible`); a channel or person named in one
    of :data:`ELSEWHERE_KINDS` is :attr:`Command.elsewhere`, the rest parsed without it. Never raises."""
    text = visible(text or "")
    cmd = retried(_parse, text)  # `關注 量化`, `> read p-eagle`: read again tidied (QA round 15)
    if cmd.kind not in ELSEWHERE_KINDS:
        return cmd
    ref, here = named_elsewhere(text, *ELSEWHERE_KINDS[cmd.kind])
    if ref is None:
        return cmd
    alone = retried(_parse, here)
    return replace(alone if alone.kind == cmd.kind else cmd, elsewhere=ref, here=clean(here))


def _parse(text: str) -> Command:
    """:func:`parse` without what it adds."""
    raw = OWN_NAME.sub("", clean(_link_labels(text)))  # "/vllm-path spec" pasted whole
    truncated = len(raw) > MAX_TEXT
    raw = cut_words(raw, MAX_TEXT)  # at a word's end (QA: "follow spec spec …" ended in "spe")
    bare = raw.casefold().strip(_MARKS)
    if bare not in _GREETINGS_OR_THANKS:  # one before a command: read what follows
        raw = GREETING_LEAD.sub("", raw)
        bare = raw.casefold().strip(_MARKS)
    if (plain := _plain_words(polite(raw))) != raw:  # `settings please`, `stop sending me dms` (QA round 20)
        raw, bare = plain, plain.casefold().strip(_MARKS)
    words = raw.split()
    if not words or bare in _GREETINGS:  # "hi": say what I do
        return Command("help", truncated=truncated)
    if bare in _THANKS:
        return Command("thanks", truncated=truncated)
    if CATCH_UP.match(bare.strip(_MARKS + "?？").replace("’", "'")):
        return Command("catchup", truncated=truncated)
    if LATEST.match(bare.strip(_MARKS + "?？")):
        return Command("latest", truncated=truncated)
    asked = bare.strip(_MARKS + "?？").replace("’", "'")
    for pattern, alone in ALONE:
        if pattern.match(asked):  # snooze: its words ("snooze 2w", "unsnooze"), answered by them (QA round 11)
            return Command(alone, truncated=truncated, query=asked if alone == "snooze_what" else None)
    if ABOUT_APP.match(asked):  # "what can you do", "怎么用": about the app itself; "how do I subscribe": its lines
        about = "home" if HOME_ASKED.match(asked) else how_to_topic(asked)  # `home`: where App Home is (QA round 18)
        return Command("help", arg=about or "", truncated=truncated)
    if MY_DATA.match(asked):  # "delete my data", "forget me": what is kept, how to remove it (QA round 8)
        return Command("my_data", truncated=truncated)
    if (cancel := CANCEL_REMINDER_N.match(asked)) is not None:  # `取消提醒 1`: as `reminders cancel 1`
        return Command("reminders", arg=f"cancel {int(cancel.group('n'))}", truncated=truncated)
    if CANCEL_REMINDER.match(asked):
        return Command("usage", arg="reminders", truncated=truncated)
    if DIGEST_CLI.match(asked):
        return Command("digest_cli", arg=raw.strip(), truncated=truncated)
    if (stopped := STOP_TOPIC.match(asked)) is not None and not STOP_TERM.match(asked):  # not `stop sequences`
        return Command("stop_what", arg=stopped.group("t"), truncated=truncated, query=raw.strip())
    if (topic := LATEST_IN.match(raw.strip(_MARKS + "?？"))) is not None:
        arg = next(g for g in topic.group("a", "b", "c", "d", "e") if g is not None).strip()
        if arg:
            return Command("latest", arg=arg, truncated=truncated)
    if words[0].casefold() in USAGE_WORDS and len(words) <= 2:  # `digest`, `每周推荐 spec`: its usage
        return Command("usage", arg=USAGE_WORDS[words[0].casefold()], truncated=truncated)
    first, rest = _keyword(words)
    kind = KEYWORDS.get(first)
    if first in _READ_VERBS and (not rest or _READ_QUESTION.match(rest[0])):
        kind = None  # "读 什么", "看过 哪些": a question, not the read command
    asked_about = _HELP_LEAD.sub("", " ".join(rest)).strip() if kind == "help" else ""
    if (
        asked_about and asked_about.split()[0].casefold() not in KEYWORDS.keys() | HELP_TOPICS
    ):  # `help with X`: a question
        return Command("query", arg=asked_about, truncated=truncated)
    if kind is None:
        return _free_text(raw, words, first, rest, truncated)
    read = _ARGUMENTS.get(kind)
    fields = read(rest) if read else {"arg": " ".join(rest)}
    if kind == "dm" and "error" not in fields and (mention := _MENTION.search(text or "")):
        fields = {"enabled": None, "error": "dm.extra", "error_value": mention.group(0)}  # `dm on <!channel>`
    return Command(kind, truncated=truncated, **fields)


def near_command(text: str) -> str | None:
    """``text`` with its first word, a near miss of an English keyword (``hlep``, ``remnd spec``;
    rapidfuzz's ratio, cutoff 75), replaced by that keyword; else ``None`` (also for words under 3 letters)."""
    words = clean(text or "").split()
    if not words:
        return None
    first = words[0].casefold().lstrip("/")
    if len(first) < 3 or not first.isascii() or not first.isalpha() or first in KEYWORDS:
        return None
    best = closest(first, _NEAR_KEYWORDS, 75)
    return None if best is None else " ".join([best, *words[1:]])
