"""How many of a short question's ideas a post holds, counted as ideas rather than tokens
(:func:`held_concepts`, holdout round x; used by :mod:`bot.domain.search.plain`).

The plain-words fallback counts shared tokens: Latin stems, Chinese character pairs (half a word
each). A short Chinese question then shares too few "words" to be answered even when a post holds
every idea in it (``kernel 卡死`` shares two; ``前缀 … 重算`` shares two of three ideas), while a
question about one idea said three ways (``路由器`` as ``路由``, ``由器`` and the glossary's
``router``) looks like three shared words. Counting ideas tells them apart: a Latin stem is one
idea, a Chinese glossary form with the English words it stands for is one, and a run of adjacent
character pairs the post holds (or lacks) is one. The near misses of the off-topic sets hold one
idea of the catalog beside one it lacks (a router beside dropping off, sleep beside insomnia); an
on-topic short question holds two or more.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence

from bot.domain.search.analysis import _bigrams, _parts


def held_concepts(
    text: str,
    latin: Sequence[Sequence[str]],
    forms: Mapping[str, tuple[str, ...]],
    cutter: re.Pattern[str] | None,
    holds: Callable[[str], bool],
    siblings: Mapping[str, str] | None = None,
) -> tuple[int, int]:
    """``(held, lacked)``: the ideas of ``text`` (normalized, Simplified) a post holds and lacks.

    ``latin`` are its Latin ideas, each its stems (stop words left out): a word, or the words of one
    glossary form (``false alarms``: one idea, two stems); ``forms`` maps each
    Chinese glossary form to the English stems of its term (a form in ``text`` and those stems are
    one idea, held when the post holds any of its pairs or stems); ``cutter`` cuts the stop and
    question words out of Chinese runs; ``holds(token)`` says whether the post holds a token (a
    stem or a character pair). The other character pairs of a Chinese piece are grouped into runs
    of adjacent pairs the post holds alike (a run is one idea: ``工具结果`` held, ``答瞎`` lacked).
    ``siblings`` maps a form to its term's Chinese forms (space-joined): a held run inside one of
    a held form's siblings is that form's idea again (``学习`` beside ``打分奖励``, whose term is
    also ``强化学习``), not a second one.
    """
    held = lacked = 0
    for idea in latin:
        held, lacked = (held + 1, lacked) if any(holds(t) for t in idea) else (held, lacked + 1)
    present = [(form, words) for form, words in forms.items() if form in text]
    said: list[str] = []  # the sibling forms of the held forms
    runs: list[tuple[bool, str, bool]] = []  # (held, characters, holds a form's pair)
    for cjk, _ in _parts(text):
        for piece in cutter.split(cjk) if cjk and cutter is not None else [cjk] if cjk else []:
            if len(piece) < 2:
                continue
            status: list[bool | None] = [None] * (len(piece) - 1)
            for form, words in present:
                start = piece.find(form)
                if start < 0:
                    continue
                found = any(holds(p) for p in _bigrams(form)) or any(holds(w) for w in words)
                if found and siblings is not None:
                    said.append(siblings.get(form, form))
                while start >= 0:
                    status[start : start + len(form) - 1] = [found] * (len(form) - 1)
                    start = piece.find(form, start + 1)
            mine: list[tuple[bool, str, bool]] = []
            for i, pair in enumerate(_bigrams(piece)):
                in_form = status[i] is not None
                now = bool(status[i]) if in_form else holds(pair)
                if mine and mine[-1][0] == now:
                    mine[-1] = (now, mine[-1][1] + pair[1], mine[-1][2] or in_form)
                else:
                    mine.append((now, pair, in_form))
            runs.extend(mine)
    for now, chars, has_form in runs:
        if now and not has_form and any(chars in s for s in said):
            continue  # a held form's term said again (学习 of 强化学习 beside 打分奖励)
        held, lacked = (held + 1, lacked) if now else (held, lacked + 1)
    return held, lacked


__all__ = ["held_concepts"]
