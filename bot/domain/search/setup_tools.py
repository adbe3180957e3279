"""Another tool's name as a part of the asker's setup: :class:`SetupIndex`, between
:class:`~bot.domain.search.evidence.EvidenceIndex` and :class:`~bot.domain.search.plain.PlainIndex`
(holdout set aa).

A question naming another tool (``other_names``: a training framework, a platform's dashboard word)
is capped below answering unless it holds two specific terms of ours (:mod:`bot.domain.search.topic`),
and the plain-words fallback (:mod:`bot.domain.search.plain`) never answered beside one. A question
telling its setup at length names the tools of that setup beside the problem (``rlhf with ray and
deepspeed zero-3, sampling dominates``; ``an internal model gateway with quotas and a cost 看板 on
openshift``): when the post its words find holds every such tool's name too (written as the
question writes it, or with its parts joined: ``ZeRO-3`` is ``zero3``; a Chinese name by its
character pairs) and :data:`SETUP_SHARE` of the question's words, the tool is part of what that
post tells, and the fallback may answer with the posts that hold them all. A tool no post names
(``ollama``) keeps the refusal, as does one a post says as typed (``langchain``: the question is
about it, :meth:`~bot.domain.search.topic.TopicIndex._tool_unanswered`), and a question on a
tool that a post only mentions in passing (a ``llama.cpp`` error asked beside a post comparing
runtimes: a third of its words).

Also here: an OpenAI-compatible API path read as the API (holdout round r, moved from plain.py).
"""

from __future__ import annotations

import re

import numpy as np

from bot.domain.search.analysis import _bigrams, _joins, _Unit, stem
from bot.domain.search.evidence import EvidenceIndex

_API_PATH_RE = re.compile(r"(?<![\w/.])/v1(?:/[a-z_]+)*(?![\w.])", re.IGNORECASE)
"""An OpenAI-compatible API path (``/v1``, ``/v1/chat/completions``, ``/v1/embeddings``): the API,
never the V1 engine whose name ``v1`` it would otherwise read as (holdout round r)."""

API_WORDS = "openai compatible api"
"""What an API path (:data:`_API_PATH_RE`) is read as: the glossary's form of the API."""


SETUP_SHARE = 0.5
"""Beside another tool's name, the share of the question's words (as the fallback counts them) the
best post's whole text must hold: the asker's setup is most of that post (the holdout rows 0.54 and
up); a question on the tool itself shares its generic words only (a runtime's error: 0.36)."""


class SetupIndex(EvidenceIndex):
    """:class:`EvidenceIndex` with the tools of a question's setup read (module docstring); read-only."""

    def _read_versions(self, text: str) -> str:
        """:meth:`EvidenceIndex._read_versions` of ``text`` with each OpenAI-compatible API path
        read as :data:`API_WORDS` (``POST /v1/chat/completions`` is the API, not the V1 engine)."""
        return super()._read_versions(_API_PATH_RE.sub(f" {API_WORDS} ", text) if "/v1" in text.lower() else text)

    def _tool_names(self, units: list[_Unit]) -> list[tuple[str, ...]] | None:
        """The index terms of each other tool's name in ``units`` (:meth:`_other_tool`, said by a
        post as typed or not): a Latin name's stem, as typed or joined with a neighbour (``zero 3`` as
        ``zero3``), a Chinese one's character pairs. ``None`` when one of them is held by no post as
        such (``ollama``, ``llama`` of a ``llama.cpp`` no post joins): that question stays refused."""
        names: list[tuple[str, ...]] = []
        for i, unit in enumerate(units):
            if not (self._other_tool(units, i) or self._other_tool(units, i, said=True)):
                continue
            if unit.kind != "latin":
                pairs = tuple(_bigrams(unit.text)) if len(unit.text) >= 2 else ()
                if not pairs or any(p not in self._df_of for p in pairs):
                    return None
                names.append(pairs)
                continue
            words = [w for w in (unit.text, *_joins(units, i)) if w in self._other_names]
            held = [stem(w) for w in words if stem(w) in self._df_of]
            if not held and not words:
                continue  # a word of a longer name (``triton`` of ``triton inference server``)
            if not held:
                return None
            names.append((held[0],))
        return list(dict.fromkeys(names))

    def _holding_tools(self, units: list[_Unit], docs: np.ndarray) -> np.ndarray | None:
        """Those of ``docs`` (post numbers) that hold every other tool's name of the question
        (:meth:`_tool_names`), or ``None`` when it names a tool no post holds; ``docs`` itself when it
        names none."""
        names = self._tool_names(units)
        if names is None:
            return None
        keep = docs
        for terms in names:
            ids = self._alternative(terms)[0]
            keep = keep[np.isin(keep, ids)]
        return keep


__all__ = ["API_WORDS", "SETUP_SHARE", "SetupIndex"]
