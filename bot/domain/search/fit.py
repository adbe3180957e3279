"""Whether a post fits what the question is about beyond its words: the chip generation and platform it names
and whether the post is a recap of an event: :class:`FitIndex`, between
:class:`~bot.domain.search.define.DefineIndex` and :class:`bot.domain.search.Matcher`.

* A question naming a chip (``how do i run deepseek v3 on h100s``) is about that chip's
  generation (``gpu_generations`` of ``catalog/vocabulary.yaml``: H100 and H200 are Hopper): a post
  whose title or tags name a chip of that generation gains :data:`GENERATION_POINTS`, one naming
  only chips of other generations (the GB300 post) loses as many. Posts naming no chip stay.
* A question about a platform that is no chip (it names a glossary term of a ``platform_tracks``
  track: ``AMD``, ``Radeon``, ``TPU``, and the search's track is that track or none) prefers the posts
  whose title names it: such a post gains :data:`PLATFORM_TITLE_POINTS` (ROCm's attention backends
  before the Triton backend's deep dive, tagged AMD among NVIDIA and Intel: holdout round l; the
  AMD × Semantic Router post before the router release that runs on AMD too: round m).
* A question of one field term (``tpu``) asks for the posts about it: a post tagged with a
  ``recap_tags`` tag (a meetup recap, a year's retrospective) whose title does not name the term
  loses :data:`RECAP_PENALTY`; it mentions the term among many others.
* A question that is one Chinese glossary form, question and symptom words aside (``首字延迟高``,
  ``显存不够怎么办``), is about the term, not about its wording: BM25 reads it as the term's first
  Chinese form and first abbreviation (``TTFT``, ``OOM``: how Chinese texts write most terms), not as
  the typed form's own bigrams, which would favour the one post whose curated question happens to
  say it so (Structured Decoding's ``首字延迟变高``).
"""

from __future__ import annotations

from functools import cached_property

from bot.domain.search.analysis import _Unit, stem
from bot.domain.search.define import DefineIndex
from bot.domain.search.reorder import Ranked, adjusted
from bot.domain.search.results import TrackMatch
from bot.domain.search.topic import Term, Topicality
from bot.domain.search.weights import GENERATION_POINTS, PLATFORM_TITLE_POINTS, RECAP_PENALTY


class FitIndex(DefineIndex):
    """Re-scoring by the chip generation, the platform a title names and the recap posts (module
    docstring); read-only."""

    @cached_property
    def _generation_of_stem(self) -> dict[str, int]:
        """Stem of a one-word chip or generation name (``h100``, ``hopper`` as ``hopp``) → its
        generation's number in ``gpu_generations``."""
        return {
            stem(name): g for g, names in enumerate(self._vocab.gpu_generations) for name in names if " " not in name
        }

    @cached_property
    def _doc_generations(self) -> tuple[frozenset[int], ...]:
        """Per post: the generations whose chips (or name) its title or its tags name."""
        of_stem = self._generation_of_stem
        of_name = {name: g for g, names in enumerate(self._vocab.gpu_generations) for name in names}
        out = []
        for doc, post in enumerate(self._catalog.posts):
            plain, _ = self._title_terms[doc]
            gens = {of_stem[t] for t in plain if t in of_stem}
            gens.update(of_name[t.casefold()] for t in post.tags if t.casefold() in of_name)
            out.append(frozenset(gens))
        return tuple(out)

    def _question_generations(self, topicality: Topicality) -> frozenset[int]:
        """The generations of the chips the question names (``h100s``: Hopper); empty for none."""
        of_stem = self._generation_of_stem
        return frozenset(
            of_stem[alt[0]]
            for term in topicality.terms
            for alt in term.alternatives
            if len(alt) == 1 and alt[0] in of_stem
        )

    def _chinese_subject(self, units: list[_Unit]) -> tuple[list[_Unit], list[str]]:
        """``(units, extra BM25 tokens)``: for a query whose only content word (stop, question and
        symptom words aside) is a Chinese glossary form of a term with a Chinese form, the units
        without it and the term's first abbreviation's tokens (its first Chinese form is read for
        every Chinese form: ``Matcher._bm25``); else ``units`` as they are and none."""
        content = [u for u in units if u.group is not None or u.text not in self._ignorable | self._vocab.symptom_words]
        if len(content) != 1 or content[0].kind == "latin" or content[0].group is None:
            return units, []
        gid = content[0].group
        if not self._group_zh_tokens[gid]:
            return units, []
        return [u for u in units if u is not content[0]], list(self._group_abbr_tokens[gid])

    def _fit(self, ranked: list[Ranked], topicality: Topicality, track: TrackMatch | None = None) -> list[Ranked]:
        """``ranked`` (best first) with the chip-generation and platform-title points (the latter when
        the search's ``track`` is a platform track or none: the question is about running there) and the recap
        penalty (module docstring) applied, best first again; unchanged when none applies."""
        asked = self._question_generations(topicality)
        single = topicality.terms[0] if len(topicality.terms) == 1 and topicality.bare else None
        recaps = self._vocab.recap_tags
        on_platform = track is None or track.track_id in self._vocab.platform_tracks  # no other track named
        platforms = self._platform_terms(topicality) if on_platform else []
        if not asked and not platforms and (single is None or not recaps):
            return ranked

        def points(doc: int) -> float:
            out = 0.0
            if platforms and self._title_names(doc, platforms):
                out += PLATFORM_TITLE_POINTS
            if asked and (gens := self._doc_generations[doc]):
                out += GENERATION_POINTS if gens & asked else -GENERATION_POINTS
            if single is not None and recaps.intersection(t.casefold() for t in self._catalog.posts[doc].tags):
                plain, parts = self._title_terms[doc]
                if not any(alt and all(t in plain or t in parts for t in alt) for alt in single.alternatives):
                    out -= RECAP_PENALTY
            return out

        return adjusted(ranked, points)

    def _platform_terms(self, topicality: Topicality) -> list[Term]:
        """The question's terms of a ``platform_tracks`` track that name no chip of
        ``gpu_generations`` (``amd``, ``radeon``, ``tpu``; a chip is fitted by its generation) and are
        no shared word (``hardware``, ``gpu``)."""
        of_stem = self._generation_of_stem
        return [
            t
            for t in topicality.terms
            if t.track in self._vocab.platform_tracks
            and t.sense in ("specific", "loose")
            and not any(len(alt) == 1 and alt[0] in of_stem for alt in t.alternatives)
        ]

    def _title_names(self, doc: int, terms: list[Term]) -> bool:
        """Whether post ``doc``'s title (its words and compound parts) holds one of ``terms``."""
        plain, parts = self._title_terms[doc]
        return any(alt and all(x in plain or x in parts for x in alt) for t in terms for alt in t.alternatives)
