"""Definition questions: :class:`DefineIndex`, between :class:`~bot.domain.search.scope.ScopeIndex`
and :class:`~bot.domain.search.fit.FitIndex`.

A question that asks what one term is (``definition_words`` of ``catalog/vocabulary.yaml``: ``what
is kv cache``, ``kv cache 是什么``, ``什么是前缀缓存``, ``explain tensor parallelism``, ``chunked
prefill explained``, ``intro to torch.compile``), its other words being only that term (and terms
most posts hold: ``vllm``), asks for the post that introduces the term, not for the posts that use it
in a specialised setting (an external KV cache, FP8 KV-cache quantization). That post, the term's
*introducer*, gains :data:`~bot.domain.search.weights.DEFINITION_BONUS`: the glossary's ``intro``
post of the term (``quantization``: the quantization guide, not the PTPC-FP8 post that opens the
quantization path), else the earliest essential
step, in reading order, of the term's track (its glossary ``track``, else the track whose name holds
the term: ``kv cache`` of "Agentic serving & KV cache") that holds the term; for ``kv cache``
the PagedAttention launch post, not PegaFlow. ``mean``, ``means``, ``meaning`` and ``stand`` frame a
definition only in a question opening with a question word (``what does apc stand for``; not ``mean
ttft``). A question of two telling terms or more (``fp8 kv cache 是什么``) asks about their
combination: no introducer. Asking how to use a term (``how to use X``, ``X 怎么用``) frames it as a
definition does (QA round 20). A term typed alone keeps its ranking: the shared eval's ``lora`` and
``wide ep`` expect the posts naming the term in their titles, not its introducer.
"""

from __future__ import annotations

from functools import cached_property

from bot.domain.search.analysis import _Unit, _unit_key, normalize
from bot.domain.search.reorder import Ranked, adjusted
from bot.domain.search.scope import ScopeIndex
from bot.domain.search.topic import Term, Topicality
from bot.domain.search.weights import DEFINITION_BONUS
from bot.domain.text import has_han

_OPENING_ONLY = frozenset({"mean", "means", "meaning", "stand", "stands"})
"""Definition words that frame a definition only in a question opening with a question word (``what
does continuous batching mean``; not ``mean ttft is too high``)."""


class DefineIndex(ScopeIndex):
    """Definition questions lead with the post introducing their term (module docstring); read-only."""

    def _keys_of(self, words: list[str]) -> frozenset[tuple[str, ...]]:
        """The unit keys of each of ``words`` (read as a query is: ``什么是`` as 什么 / 是)."""
        keys = (tuple(_unit_key(u) for u in self._units(normalize(w), query=True)) for w in words)
        return frozenset(k for k in keys if k)

    @cached_property
    def _definition_keys(self) -> frozenset[tuple[str, ...]]:
        """The unit keys of each of ``definition_words``."""
        return self._keys_of(list(self._vocab.definition_words))

    @cached_property
    def _latin_definition_keys(self) -> frozenset[tuple[str, ...]]:
        """:attr:`_definition_keys` of the words without Chinese, read without the segmenter: a query
        of Latin words only needs these, so a cold ``search nixl`` does not load rjieba and its
        dictionary (~0.1 s of CPU, ``benchmarks/cli_cold.py``)."""
        return self._keys_of([w for w in self._vocab.definition_words if not has_han(w)])

    def _definition_framing(self, units: list[_Unit]) -> list[bool]:
        """Per unit, whether it is a word of a definition phrase (longest phrase first, never inside
        a glossary form); the :data:`_OPENING_ONLY` ones only after an opening question word."""
        keys = [_unit_key(u) for u in units]
        cjk = any(u.kind != "latin" for u in units)
        definitions = self._definition_keys if cjk else self._latin_definition_keys
        longest = max((len(k) for k in definitions), default=0)
        opening = bool(units) and units[0].text in self._vocab.question_words
        framing = [False] * len(units)
        i = 0
        while i < len(units):
            n = next(
                (
                    n
                    for n in range(min(longest, len(units) - i), 0, -1)
                    if all(u.start < 0 for u in units[i : i + n])
                    and tuple(keys[i : i + n]) in definitions
                    and (opening or n > 1 or units[i].text not in _OPENING_ONLY)
                ),
                0,
            )
            for j in range(i, i + n):
                framing[j] = True
            i += max(n, 1)
        return framing

    def _defined_term(self, units: list[_Unit]) -> Term | None:
        """The one term a definition question asks about (module docstring), else ``None``."""
        framing = self._definition_framing(units)
        if not any(framing):
            return None
        rest = [u for u, f in zip(units, framing, strict=True) if not f]
        topicality = self._topicality(rest)
        telling = self._telling_terms(topicality)
        return telling[0] if topicality.bare and len(telling) == 1 else None

    @cached_property
    def _doc_of_post(self) -> dict[str, int]:
        """Post id → its doc number."""
        return {pid: doc for doc, pid in enumerate(self._post_ids)}

    @cached_property
    def _intro_of_form(self) -> dict[str, int]:
        """A glossary form (normalized) → the doc number of its term's ``intro`` post."""
        return {
            normalize(form): self._doc_of_post[term.intro]
            for term in self._vocab.glossary
            if term.intro is not None and term.intro in self._doc_of_post
            for form in term.forms
        }

    def _introducer(self, term: Term, units: list[_Unit]) -> int | None:
        """The doc number of the post introducing ``term`` (module docstring), or ``None``."""
        if (doc := self._intro_of_form.get(term.text)) is not None:
            return doc
        track = term.track if term.track is not None and self._catalog.has_track(term.track) else None
        if track is None:  # the track whose name holds the term ("kv cache" of "... & KV cache")
            rest = [u for u, f in zip(units, self._definition_framing(units), strict=True) if not f]
            contained = self._track_in(rest) or self._name_word_track(rest)
            track = contained.track_id if contained is not None else None
        if track is None:
            return None
        for pid in self._catalog.essentials(track):
            doc = self._doc_of_post.get(pid)
            if doc is not None and self._holds(doc, term):
                return doc
        return None

    def _explainers_and_launches(
        self, ranked: list[Ranked], units: list[_Unit], topicality: Topicality
    ) -> list[Ranked]:
        """:meth:`TopicIndex._explainers_and_launches`, then, for a definition question, its term's
        introducer :data:`~bot.domain.search.weights.DEFINITION_BONUS` higher (module docstring)."""
        ranked = super()._explainers_and_launches(ranked, units, topicality)
        term = self._defined_term(units)
        doc = self._introducer(term, units) if term is not None else None
        if doc is None:
            return ranked
        return adjusted(ranked, lambda d: DEFINITION_BONUS if d == doc else 0.0)


__all__ = ["DefineIndex"]
