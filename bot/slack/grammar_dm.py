"""The ``dm`` command's words (``dm on [schedule] [budget]``, ``dm off``, ``dm pause``, ``dm resume``,
``dm catchup on|off``, in English and Chinese) and the refusal of a second budget, which ``subscribe``
shares. Pure, read by :func:`bot.slack.grammar.parse`."""

from __future__ import annotations

import re
from typing import Any

from bot.domain.budget import take_budget
from bot.slack.grammar_schedule import not_understood, split_schedule

_ON_OFF = {"on": True, "开启": True, "开": True, "off": False, "关闭": False, "关": False}
_DM_PAUSE = frozenset({"pause", "snooze", "暂停"})
_DM_RESUME = frozenset({"resume", "unpause", "unsnooze", "unmute", "恢复"})
_DM_STATUS = frozenset({"status", "状态"})
_GLUED = ("暂停", "恢复", "关闭", "开启")
"""Chinese switch words typed joined to what follows (``私信 暂停两周``): read as two words."""

A_WEEK = frozenset(
    {"1 week", "a week", "one week", "for a week", "for 1 week", "for one week", "7 days", "for 7 days"}
    | {"一周", "1周", "一个星期", "一星期", "1个星期", "一个礼拜", "一礼拜", "七天", "7天", "一周吧"}
)
"""How long ``dm pause`` lasts said in words (``dm pause 1 week``, ``暂停私信一周``): the pause
itself, accepted as ``dm pause``."""

TWO_WEEKS = frozenset(
    {"2 weeks", "two weeks", "for 2 weeks", "for two weeks", "2w", "2 w", "2wk", "2wks", "14 days", "for 14 days"}
    | {"a fortnight", "for a fortnight", "fortnight", "2 week", "two-week", "2-week", "14d"}
    | {"两周", "2周", "二周", "两个星期", "两星期", "2个星期", "两个礼拜", "两礼拜", "十四天", "14天", "两周吧"}
)
"""The other length a pause may have, the catch-up DM's *Pause two weeks* (QA round 20: ``pause dm for
2 weeks`` was refused while that button offers it): ``arg`` :data:`PAUSE_TWO_WEEKS`. Any other length
is refused, naming the two (``dm.pause_length``)."""

_IN_WEEKS = re.compile(r"^(?:for\s+)?(?:(?P<n>\d{1,2})\s*(?:wks?|weeks?|w)?|(?P<w>one|two|an?)\s+(?:wks?|weeks?))$")
"""A length in weeks written short or bare (``2 wks``, ``2 wk``, ``2``: a bare number counts weeks;
QA round 21: ``dm pause 2`` and ``pause dm 2 wks`` were refused as lengths a pause cannot have)."""

PAUSE_LENGTH_EN = (
    r"(?:for\s+)?(?:\d{1,3}|an?|one|two|three|four|five|six|a\s+few|a\s+couple\s+of)"
    r"\s*(?:w|wks?|weeks?|d|days?|mo|months?)"
)
PAUSE_LENGTH_ZH = r"(?:\d{1,3}|[一两二三四五六七八九十几半]{1,3})\s*个?(?:周|星期|礼拜|天|月)"
"""A length of time after ``pause`` / ``暂停`` (``pause 3 weeks``, ``暂停一个月``): the weekly DM's pause
(``dm pause <length>``), which is one or two weeks (QA round 21: read as a track name). ``pause``
alone asks what to stop (``stop_what``), so a length never means a channel digest."""


def pause_length(said: str) -> str:
    """``said`` (the words after ``dm pause``) in the form :data:`A_WEEK` / :data:`TWO_WEEKS` hold
    when it counts weeks in short (``2 wks`` -> ``2 weeks``, ``1`` -> ``1 week``); else casefolded."""
    length = said.casefold().strip()
    if (m := _IN_WEEKS.match(length)) is None:
        return length
    n = int(m["n"]) if m["n"] else (2 if m["w"] == "two" else 1)
    return "1 week" if n == 1 else f"{n} weeks"


PAUSE_TWO_WEEKS = "pause 2w"
"""``Command.arg`` of ``dm pause 2 weeks`` (``dm pause`` alone: ``pause``, one week)."""


def second_budget(words: list[str], minutes: int | None, command: str, typed: list[str]) -> dict[str, Any] | None:
    """``words`` (the first budget, ``minutes``, taken out) still holding a second one (``dm on friday
    08:30 30m 1h``): ``error="budget.twice"`` naming it, with the command as ``typed`` (all its
    words, ``club`` too) without the second; else None."""
    left, again = take_budget(words) if minutes is not None else (words, None)
    if again is None:
        return None
    at = next((i for i, (a, b) in enumerate(zip(left, words, strict=False)) if a != b), len(left))
    second = words[at : at + len(words) - len(left)]
    starts = [i for i in range(len(typed) - len(second) + 1) if typed[i : i + len(second)] == second]
    kept = typed[: starts[-1]] + typed[starts[-1] + len(second) :] if starts else [*left, f"{minutes}m"]
    form = " ".join([command, *kept])
    return {"schedule": None, "error": "budget.twice", "error_value": " ".join(second), "suggestion": form}


_FILLER = frozenset({"please", "pls", "now", "吧", "了", "一下", "呢"})
"""Words around a ``dm`` command that change nothing (``pause dm please``, ``暂停私信吧``)."""


def _unglued(words: list[str]) -> list[str]:
    """``words`` without :data:`_FILLER` (typed apart or ending a Chinese word), and with a Chinese
    switch word joined to what follows split off (``暂停两周``: ``暂停``, ``两周``)."""
    words = [w for w in words if w.casefold() not in _FILLER]
    if words and not words[-1].isascii() and words[-1][-1] in "吧了呢" and len(words[-1]) > 1:
        words = [*words[:-1], words[-1][:-1]]
    first = words[0] if words else ""
    glued = next((k for k in _GLUED if first.startswith(k) and len(first) > len(k)), None)
    return [glued, first[len(glued) :], *words[1:]] if glued else words


def dm(rest: list[str]) -> dict[str, Any]:
    """``dm``, ``dm off``, ``dm on [schedule] [budget]`` (anything else after ``on``: ``dm.unknown_part``;
    a whole schedule without ``on``, ``dm friday 08:30``, is ``on`` too), ``dm pause`` (``arg="pause"``:
    skip a week; ``dm pause 1 week`` / ``私信 暂停一周`` too, :data:`A_WEEK`; ``dm pause 2 weeks``:
    ``arg=PAUSE_TWO_WEEKS``, :data:`TWO_WEEKS`), ``dm resume``
    (``arg="resume"``: the skip undone), ``dm catchup on|off`` (``私信 跟上进度 开|关``: ``catchup``);
    words not understood (``dm off 2 weeks``, ``dm foo``; ``dm pause 3 weeks``: ``dm.pause_length``):
    ``error="dm.extra"``, nothing changed; two budgets: ``budget.twice``."""
    rest = _unglued(rest)
    typed = rest
    rest, minutes = take_budget(rest)
    if (twice := second_budget(rest, minutes, "dm", typed)) is not None:
        return {"enabled": True, **twice}
    switch = rest[0].casefold() if rest else ""
    if switch in ("catchup", "跟上进度") and len(rest) == 2 and rest[1].casefold() in _ON_OFF:
        return {"enabled": None, "catchup": _ON_OFF[rest[1].casefold()]}
    if switch in _DM_PAUSE and (length := pause_length(" ".join(typed[1:]))) in A_WEEK | TWO_WEEKS:
        return {"enabled": None, "arg": PAUSE_TWO_WEEKS if length in TWO_WEEKS else "pause"}
    if switch in ("off", "stop", "关闭", "关", *_DM_PAUSE, *_DM_RESUME, *_DM_STATUS) and len(typed) > 1:
        error = "dm.pause_length" if switch in _DM_PAUSE else "dm.extra"  # `dm pause 3 weeks`: one or two
        return {"enabled": None, "error": error, "error_value": " ".join(typed[1:])}
    if switch in ("off", "stop", "关闭", "关"):
        return {"enabled": False}
    if switch in _DM_RESUME:
        return {"enabled": None, "arg": "resume"}
    if switch in _DM_PAUSE or switch in _DM_STATUS:
        return {"enabled": None, "arg": "pause" if switch in _DM_PAUSE else ""}
    if switch not in ("on", "start", "开启", "开"):
        left, fields = split_schedule(rest, "dm on") if rest else (rest, {})
        if rest and not left and "error" not in fields and fields.get("schedule") is not None:
            return {"enabled": True, "minutes": minutes, **fields}  # ``dm friday 08:30``: on is meant
        return {"enabled": None, "error": "dm.extra", "error_value": " ".join(typed)} if typed else {"enabled": None}
    left, fields = split_schedule(rest[1:], "dm on")
    if left and "error" not in fields:  # the words not understood, not a valid weekday before them
        fields.update(schedule=None, error="dm.unknown_part", error_value=" ".join(not_understood(left) or left))
    return {"enabled": True, "minutes": minutes, **fields}
