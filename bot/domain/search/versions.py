"""The versions a text names of a model or a release (``Gemma 4``, ``GLM-4.5``, ``Kimi K2``,
``EAGLE3``, ``vLLM v0.6.0``, ``Speculators v0.5.0``): pure functions over text, read by
:class:`~bot.domain.search.evidence.EvidenceIndex`.

A *versioned name* is a word of three letters or more (the family: ``gemma``, ``glm``, ``kimi``,
``eagle``, ``vllm``) followed, after a space, a hyphen or (for four letters or more: ``qwen3``,
``eagle3``; not ``int8``, a precision) nothing, by a version: digits with dots, after at most one
letter (``k1.5``, ``v0.7``, ``r1``). A version followed by a letter or a digit is a
size or a count, not a version (``8b``, ``2k``, ``3.5x``); digits of three or more without a dot
are a chip or a card (``h100``, ``4090``), not a version.

A release number is often typed without its letter (``vllm 0.6``, ``deepseek 3.2``, ``0.6.0``) or
glued to its family (``qwen2.5``, no word of the posts): :func:`read_versions` writes it as the
posts do (``vllm v0.6``, ``qwen 2.5``), so its words meet theirs.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from typing import NamedTuple

_PAIR_RE = re.compile(
    r"(?<![a-z0-9])([a-z]{3,})([ _-]?)([a-z]?)(\d+(?:\.\d+)*)(?![a-z0-9]|\.\d)",
    re.IGNORECASE,
)


class Version(NamedTuple):
    """A versioned name: ``family`` (lower case), the version's letter (``""`` for none) and its
    numbers, trailing zeros dropped (``v0.6.0`` → ``(0, 6)``)."""

    family: str
    letter: str
    numbers: tuple[int, ...]


def versions_in(text: str, skip: frozenset[str] = frozenset()) -> tuple[Version, ...]:
    """The versioned names of ``text`` in order, each once; a family word in ``skip`` (stop and
    question words: ``the h100`` is no family ``the``) is none."""
    out: dict[Version, None] = {}
    for family, sep, letter, digits in _PAIR_RE.findall(text):
        family = family.casefold()
        if family in skip or ("." not in digits and len(digits) >= 3) or (not sep and len(family) < 4):
            continue
        out[Version(family, letter.casefold(), _numbers(digits))] = None
    return tuple(out)


_LOOSE_RE = re.compile(r"(?<![a-z0-9])([a-z]{3,})([ _-]?)(\d+(?:\.\d+)+)(?![a-z0-9]|\.\d)", re.IGNORECASE)
"""A family and a dotted version without its letter (``vllm 0.6``, ``qwen2.5``)."""

_BARE_RE = re.compile(r"^\s*(?:(?:version|release)\s+)?v?(\d+\.\d+(?:\.\d+)?)\s*[?.!]*\s*$", re.IGNORECASE)
"""A query that is a dotted release number alone (``0.6.0``, ``version 0.6``)."""


def read_versions(text: str, letters: Mapping[str, str], said: Iterable[Version], known: Callable[[str], bool]) -> str:
    """``text`` with each dotted version typed without its letter written with it: after a family
    whose titled versions all have one letter (``letters``: ``vllm`` -> ``v``; ``vllm 0.6`` ->
    ``vllm v0.6``), or, the query being the number alone, the letter of a version the posts say
    (``said``) that it names (``0.6.0`` -> ``v0.6.0``, as vLLM v0.6.0). A family glued to its
    version into a word the posts lack (``known`` is false), or at a version no post says
    (``qwen2.5``: ``qwen2`` is a word of Qwen2-VL; ``glm4.6``, a family of three letters the
    posts say at a version), is split from it (``qwen2.5`` -> ``qwen 2.5``).
    Pure; text without such a version is returned as it is."""
    said = list(said)
    if (bare := _BARE_RE.match(text)) is not None:
        digits = bare.group(1)
        asked = Version("", "", _numbers(digits))
        letter = next((v.letter for v in said if v.letter and compatible(asked, v._replace(family=""))), "")
        return f"{letter}{digits}" if letter else text

    held = {v._replace(letter="") for v in said}
    families = {v.family for v in said}

    def write(m: re.Match[str]) -> str:
        family, sep, digits = m.groups()
        letter = letters.get(family.casefold(), "")
        if letter:
            return f"{family}{sep or ' '}{letter}{digits}"
        asked = Version(family.casefold(), "", _numbers(digits))
        glued = not sep and (len(family) >= 4 or asked.family in families)  # glm4.6; not int8
        if glued and (not known(f"{asked.family}{asked.numbers[0]}") or asked not in held):
            return f"{family} {digits}"
        return m.group(0)

    return _LOOSE_RE.sub(write, text)


def _numbers(digits: str) -> tuple[int, ...]:
    """A version's numbers, trailing zeros dropped (``0.6.0`` -> ``(0, 6)``)."""
    numbers = [int(n) for n in digits.split(".")]
    while len(numbers) > 1 and numbers[-1] == 0:
        numbers.pop()
    return tuple(numbers)


def compatible(asked: Version, said: Version) -> bool:
    """Whether a text saying ``said`` names the version ``asked`` (same family): the letters agree
    when both have one (``K2`` is ``kimi 2``; ``R1`` is no ``v1``) and one version's numbers start
    the other's (``llama 3`` is said by ``Llama 3.1``, ``v0.6`` by ``v0.6.0``; ``gemma 3`` not by
    ``Gemma 4``, ``glm-4.6`` not by ``GLM-4.5``)."""
    if asked.family != said.family:
        return False
    if asked.letter and said.letter and asked.letter != said.letter:
        return False
    n = min(len(asked.numbers), len(said.numbers))
    return asked.numbers[:n] == said.numbers[:n]


__all__ = ["Version", "compatible", "read_versions", "versions_in"]
