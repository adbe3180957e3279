"""The versions a text names of a model or a release (``Gemma 4``, ``GLM-4.5``, ``Kimi K2``,
``EAGLE3``, ``vLLM v0.6.0``, ``Speculators v0.5.0``): pure functions over text, read by
:class:`~bot.domain.search.evidence.EvidenceIndex`.

A *versioned name* is a word of three letters or more (the family: ``gemma``, ``glm``, ``kimi``,
``eagle``, ``vllm``) followed, after a space, a hyphen or (for four letters or more: ``qwen3``,
``eagle3``; not ``int8``, a precision) nothing, by a version: digits with dots, after at most one
letter (``k1.5``, ``v0.7``, ``r1``). A version followed by a letter or a digit is a
size or a count, not a version (``8b``, ``2k``, ``3.5x``); digits of three or more without a dot
are a chip or a card (``h100``, ``4090``), not a version.
"""

from __future__ import annotations

import re
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
        numbers = [int(n) for n in digits.split(".")]
        while len(numbers) > 1 and numbers[-1] == 0:
            numbers.pop()
        out[Version(family, letter.casefold(), tuple(numbers))] = None
    return tuple(out)


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


__all__ = ["Version", "compatible", "versions_in"]
