"""Commands wrapped in words that only make them polite or personal (QA round 20): ``settings
please``, ``list tracks``, ``show me my reminders``, ``unsubscribe me``, ``stop sending me dms``.
:func:`polite` rewrites such text to the bare command (``settings``, ``tracks``, ``reminders``,
``stop``, ``stop dms``) before the grammar reads it. Pure, read by :func:`bot.slack.grammar.parse`.

Only a closed set of filler words (please, me, my, all, the, show, list …) is left out, and only
around a command word that is a whole command alone: text with any other word is not touched, so a
question that holds one of these words stays a search (``stop sequences not working``, ``show
me fp8 results``)."""

from __future__ import annotations

import re

_PLEASE = r"(?:please|pls|plz|kindly)"
_LEAD = (
    rf"(?:{_PLEASE}\s+)?(?:(?:can|could|would|will)\s+you\s+)?(?:{_PLEASE}\s+)?"
    r"(?:(?:show|list|see|view|check|open|give|get|display)\s+)?(?:me\s+)?"
    r"(?:all\s+(?:of\s+)?(?:the\s+|my\s+)?|the\s+|my\s+)?"
)
"""Words before a command word that only ask politely or say "mine" (``please show me all my``)."""

_TAIL = rf"(?:\s+(?:{_PLEASE}|now|for\s+me|thanks|thank\s+you|again))*"
"""Words after it that change nothing (``settings please``, ``tracks for me``)."""

_ALONE_WORDS = {
    "settings": "settings", "preferences": "settings", "prefs": "settings", "tracks": "tracks",
    "reminders": "reminders", "subscriptions": "subscriptions", "subs": "subscriptions", "stats": "stats",
    "statistics": "stats", "progress": "next", "next": "next", "help": "help", "commands": "help",
    "recommendations": "recommend", "recommendation": "recommend",
}  # fmt: skip
"""Command words that are a whole command alone, and that command."""

_ALONE = re.compile(rf"^{_LEAD}(?P<w>{'|'.join(_ALONE_WORDS)}){_TAIL}[.!?。！？]*$", re.IGNORECASE)

_STOP_SENDING = re.compile(
    rf"^(?:{_PLEASE}\s+)?(?:stop|quit|no\s+more)\s+(?:sending|messaging|pinging|emailing|dm(?:ing|['’]ing)|notifying)"
    rf"(?:\s+(?:me|us))(?:\s+(?P<x>.+?))?{_TAIL}[.!?。！？]*$",
    re.IGNORECASE,
)
"""``stop sending me X``: ``stop X`` (``stop sending me dms``: ``stop dms``, the ``dm off`` phrase;
``stop sending me messages``: ``stop messages``, what to stop); ``stop messaging me``: ``stop``."""

_UNSUBSCRIBE_ME = re.compile(
    rf"^(?:{_PLEASE}\s+)?(?P<v>unsubscribe|unsub|unfollow|opt\s+out|opt-out)\s+me"
    r"(?:\s+from(?:\s+(?P<x>.+?))?)?"
    rf"{_TAIL}[.!?。！？]*$",
    re.IGNORECASE,
)
"""``unsubscribe me`` / ``unsubscribe me from everything``: ``stop`` (what is sent to the reader and
how to stop each); ``unsubscribe me from spec``: ``unsubscribe spec``."""

_THE_DM = re.compile(r"^(?:the\s+|my\s+|your\s+)?(?:weekly\s+)?(?:dms?|direct\s+messages?)$", re.IGNORECASE)
"""The weekly DM named after ``unsubscribe me from`` (``dms``, ``the weekly dm``): ``dm off``, as
``stop sending me dms`` (QA round 21: read as a track, "no track matches")."""

_ZH_LEAD = (
    r"(?:请|麻烦|劳驾)?(?:你)?(?:帮我|给我|替我|为我)?"
    r"(?:显示|列出|查看|看看|看一下|打开|给我)?(?:一下)?(?:我的|所有的?|全部的?)?"
)
"""Chinese words before a command word that only ask politely or say "mine"/"all" (``请显示我的``,
``列出所有``, ``帮我``): :data:`_LEAD`'s counterpart."""

_ZH_TAIL = r"(?:一下|吧|呢|啊|了|谢谢|谢啦|好吗|可以吗)*"
"""Chinese words after it that change nothing (``设置一下``, ``下一篇吧``)."""

_ZH_ALONE_WORDS = {
    "设置": "settings", "偏好设置": "settings", "主题": "tracks", "主题列表": "tracks", "路径": "tracks",
    "阅读路径": "tracks", "下一篇": "next", "进度": "next", "提醒": "reminders", "订阅": "subscriptions",
    "统计": "stats", "帮助": "help", "命令": "help", "推荐": "recommend", "退订": "stop", "取消订阅": "stop",
}  # fmt: skip
"""Chinese command words that are a whole command alone, and the command their polite form is
(``退订`` with a polite word, ``帮我退订``, is ``unsubscribe me``: ``stop``)."""

_ZH_ALONE = re.compile(
    rf"^{_ZH_LEAD}(?P<w>{'|'.join(sorted(_ZH_ALONE_WORDS, key=len, reverse=True))}){_ZH_TAIL}[.!?。！？]*$"
)

_ZH_STOP_SENDING = re.compile(
    r"^(?:请)?(?:别再|不要再|不用再|别|不要)(?:给我|跟我|向我)?(?:发|推送|发送)(?P<x>私信|消息|通知|提醒)?(?:了|啦|吧)*[.!?。！？]*$"
)
"""``别再给我发私信了`` / ``不要再给我发消息``: as ``stop sending me dms`` (``dm off``) / ``… messages``
(``stop``: what is sent and how to stop each)."""

_EVERYTHING = frozenset({"everything", "all", "all of it", "it", "this", "the bot", "this bot", "the app", "this app"})


def polite(raw: str) -> str:
    """``raw`` as the bare command it asks for when it is one command word with only polite or
    personal words around it (``settings please`` -> ``settings``, ``list tracks`` -> ``tracks``,
    ``show me my progress`` -> ``next``), ``stop sending me X`` (-> ``stop X``) or ``unsubscribe me
    [from X]`` (-> ``stop``, ``dm off`` for the DM, or ``unsubscribe X``); the Chinese forms alike
    (``请显示我的设置`` -> ``settings``, ``别再给我发私信了`` -> ``dm off``); else ``raw`` itself."""
    said = " ".join(raw.split()).replace("’", "'")
    if (m := _ALONE.match(said)) is not None and said.casefold() != m["w"].casefold():
        command = _ALONE_WORDS[m["w"].casefold()]
        mine = command == "stats" and re.search(r"\bmy\b", said, re.IGNORECASE)
        return "my stats" if mine else command  # `my stats`: one's own progress, not the team's
    if (m := _ZH_ALONE.match(said)) is not None and said != m["w"]:  # `请显示我的设置`, `帮我退订` (QA round 21)
        return _ZH_ALONE_WORDS[m["w"]]
    if (m := _ZH_STOP_SENDING.match(said)) is not None:
        return "dm off" if m["x"] == "私信" else "stop"
    if (m := _STOP_SENDING.match(said)) is not None:
        return f"stop {m['x']}" if m["x"] else "stop"
    if (m := _UNSUBSCRIBE_ME.match(said)) is not None:
        what = (m["x"] or "").casefold()
        if _THE_DM.match(what):
            return "dm off"
        if not what or what in _EVERYTHING or m["v"].casefold().startswith("opt"):
            return "stop"
        return f"{'unfollow' if m['v'].casefold() == 'unfollow' else 'unsubscribe'} {m['x']}"
    return raw
