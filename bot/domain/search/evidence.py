"""How much the best posts of a search answer what the question names, past their scores:
:class:`EvidenceIndex`, between :class:`~bot.domain.search.fit.FitIndex` and
:class:`bot.domain.search.Matcher` (QA round 16).

* A question about a model or a release at a version (``gemma 3``, ``glm-4.6``, ``kimi k1.5``,
  ``vllm v0.7``; :mod:`bot.domain.search.versions`) of a family some post's title names at a
  version, the version being its subject (:data:`VERSION_BESIDE`), is answered by a post naming
  that version (``llama 3`` by Llama 3.1). When the best post names the family at another version,
  a result naming the one asked comes first; when no result names it, the best is at most
  ``closest`` (Gemma 4 for ``gemma 3``, Llama 4 for ``llama 2``): the nearest, not the answer.
* Two words that are a glossary form with one typed a letter off (``prefix cashing``, ``paged
  atention``) are read as the form (:mod:`bot.domain.search.phrase_typos`).
* A question asking how to do something (``how do i serve lora adapters``) leads with a post
  whose title says that action and that holds its telling terms, when one scores near the best
  (:data:`ACTION_MARGIN`) and the best's title does not say it.
* For a pasted error, a best post scoring under :data:`WEAK_SCORE` is at most ``closest``: a post
  shares its words only loosely (``CUDA out of memory. Tried to allocate 2.00 GiB``: 56).
* A word a post says only as the unit of a number (``hours`` of ``3.5 hours``) ties it to no
  question (``vllm office hours``): a post whose only ties to the question's words are such is no
  result; none left, the question is refused.
* A question whose telling terms no post holds (``how to serve mistral``) is refused: its posts
  share only its loose words.
* A question that is only names no post says but some post's authors name (``mistral``: the
  Realtime API post is co-written by Mistral AI) gets those posts as closest, not a refusal; a
  question asking more of it (``how to serve mistral``) is still refused.
* Posts shown tied at 100: the original articles before the summaries of another's article
  (:func:`~bot.domain.search.reorder.originals_first`).
* A question asking for an everyday attribute (``what is the price of an H100``: a form of the
  ``everyday`` glossary term ``cost``) of a chip or platform only, that the best post says in no
  form, asks for what the catalog does not hold: refused. A price form anywhere beside a chip only
  (``price of a B200``, ``h100 rental cost per hour``) is refused unless the best post says a price
  near the chip's name (not ``prefill cost``).
"""

from __future__ import annotations

import re
from functools import cached_property

from bot.domain.search.analysis import english_words, normalize, stem
from bot.domain.search.fit import FitIndex
from bot.domain.search.phrase_typos import fix_pair_typos
from bot.domain.search.reorder import Ranked, originals_first
from bot.domain.search.results import Confidence, TrackMatch
from bot.domain.search.topic import GENERIC_SHARE, Term, Topicality
from bot.domain.search.versions import Version, compatible, read_versions, versions_in

WEAK_SCORE = 60.0
"""For a pasted error (:data:`_ERROR_RE`), a best post scoring under this (0..100) is at most
``closest``: its words (``CUDA out of memory. Tried to allocate 2.00 GiB``: 56) are every runtime's.
Not for questions in words: 27 rows of the eval sets, long questions and topic questions, are
confident and right at 43-60."""

_ERROR_RE = re.compile(r"\b[A-Z][A-Za-z]*(?:Error|Exception)\b|Traceback \(most recent call last\)")
"""A pasted error: an exception's name (``torch.OutOfMemoryError``, ``ValueError``) or a traceback."""

VERSION_BESIDE = 1
"""Telling terms beside a versioned name's family up to which the version is the question's subject."""

_ATTRIBUTE_RE = re.compile(r"^(?:what|how much) (?:is|are|s|was|were) (?:the |an |a )?([a-z]+) (?:of|for) ")
"""``what is the <attribute> of <thing>``, normalized: the attribute is the question's subject."""

_HOW_TO_RE = re.compile(r"^how (?:do|can|should|would) (?:i|we|you|one) ([a-z]+) |^how to ([a-z]+) ")
"""``how do i <verb> …``, ``how to <verb> …``, normalized: the action asked for."""

ACTION_MARGIN = 10.0
"""Score points behind the best within which a post whose title says the action asked leads
(:meth:`EvidenceIndex._action_first`)."""

_FAILURE_RE = re.compile(
    r"(?<![a-z])(?:errors?|fail(?:s|ed|ing|ure)?|crash(?:es|ed|ing)?|hangs?|timeout|timed out)(?![a-z])|报错|错误"
)
"""A question about something failing (normalized): ``NCCL error``, ``nccl hangs``, ``报错``."""

_AVOIDED_RE = re.compile(r"(?:\bno|\bwithout|\binstead of|\bnot|\bavoid\w*|\bskip\w*|\breplac\w*)\W+(?:\w+\W+)?$")
"""The end of a text saying a post does without what follows (``no NCCL``, ``instead of NCCL``)."""

AUTHORED_SCORE = 40.0
"""The score (0..100, above :data:`~bot.domain.search.results.MIN_SCORE`) of a post found only by
its authors' names (:meth:`EvidenceIndex._fit`): shown as closest, never as a match."""

PRICE_TERM = "cost"
"""The ``everyday`` glossary term whose forms (``price``, ``rental``) ask what a thing costs: beside
a chip only, anywhere in the question (:meth:`EvidenceIndex._asks_unheld_attribute`)."""

PRICE_REACH = 4
"""Words between a chip's name and a price form within which a post says the chip's price."""

_NUMBER_BEFORE_RE = re.compile(r"\d(?:[\d.,]*\d)?\s*[-‑]?\s*$")
"""The end of a text that is a number (``3.5 ``, ``10-``): what precedes a unit."""


class EvidenceIndex(FitIndex):
    """:class:`FitIndex` with the checks of the module docstring on the best posts; read-only."""

    def _rewrite(self, norm: str) -> str:
        """:meth:`Index._rewrite` after reading two words that are a glossary form with one typed a
        letter off as the form (:func:`~bot.domain.search.phrase_typos.fix_pair_typos`: ``prefix
        cashing`` as ``prefix caching``)."""

        def keep(word: str) -> bool:  # a stop word, a form, a word some post says: as typed
            return word in self._ignorable or word in self._forms or self._df_of.get(stem(word), 0) > 0

        return super()._rewrite(fix_pair_typos(norm, self._speller.near, stem, self._pair_forms, keep))

    def _fit(self, ranked: list[Ranked], topicality: Topicality, track: TrackMatch | None = None) -> list[Ranked]:
        """:meth:`FitIndex._fit`; when nothing is found for a question whose telling terms no post
        says but some post's authors name (``mistral``: the Realtime API post is co-written by
        Mistral AI), those posts at :data:`AUTHORED_SCORE` (field ``authors``): the nearest the
        catalog has, shown as closest (:meth:`_vet`)."""
        ranked = super()._fit(ranked, topicality, track)
        if ranked or not self._names_only_unheld(topicality):
            return ranked
        return [(AUTHORED_SCORE, doc, "authors", 0.0) for doc in self._authored(topicality)]

    def _authored(self, topicality: Topicality) -> list[int]:
        """The posts whose authors name every telling term of the question (a word of an author's
        name, stemmed, for each term's forms: ``mistral`` of ``Mistral AI``), the question being
        those terms alone (``mistral``, ``mistral ai``); none for a question asking more of them
        (``how to serve mistral``: no post teaches it, refused)."""
        told = self._telling_terms(topicality)
        if len(told) < len(topicality.terms):  # how to serve mistral: a how-to no post gives (QA 16)
            return []
        forms = [{" ".join(a) for a in t.alternatives if a} for t in told]
        return [
            doc
            for doc, names in enumerate(self._author_words)
            if told and all(any(f" {f} " in names for f in alts) for alts in forms)
        ]

    @cached_property
    def _summaries(self) -> frozenset[int]:
        """The doc numbers of the posts whose link is a summary of another's article (``read_link``)."""
        manifest = self._catalog.manifest
        return frozenset(d for d, p in enumerate(self._catalog.posts) if p.read_link(manifest)[1] == "summary")

    @cached_property
    def _author_words(self) -> tuple[str, ...]:
        """Per post, its authors' names as stemmed words, space-padded (`` mistral ai ``)."""
        return tuple(
            " " + " ".join(stem(w) for a in p.authors for w in normalize(a).split()) + " " for p in self._catalog.posts
        )

    def _read_versions(self, text: str) -> str:
        """``text`` with its release numbers typed loosely written as the posts write them
        (:func:`~bot.domain.search.versions.read_versions`: ``vllm 0.6`` as ``vllm v0.6``, ``qwen2.5``
        as ``qwen 2.5``, ``0.6.0`` alone as ``v0.6.0``)."""

        def known(word: str) -> bool:
            return word in self._forms or self._df_of.get(stem(word), 0) > 0

        return read_versions(text, self._family_letters, self._said_versions, known)

    @cached_property
    def _said_versions(self) -> tuple[Version, ...]:
        """Every versioned name the posts say (:attr:`_post_versions`), each once."""
        return tuple(dict.fromkeys(v for vs in self._post_versions for v in vs))

    @cached_property
    def _family_letters(self) -> dict[str, str]:
        """The families whose versions in posts' titles all have one letter, and it (``vllm`` ->
        ``v``, ``kimi`` -> ``k``, ``deepseek`` -> ``v``)."""
        seen: dict[str, set[str]] = {}
        for p in self._catalog.posts:
            for v in versions_in(p.title, self._ignorable):
                seen.setdefault(v.family, set()).add(v.letter)
        return {f: next(iter(ls)) for f, ls in seen.items() if len(ls) == 1 and "" not in ls}

    @cached_property
    def _pair_forms(self) -> frozenset[tuple[str, ...]]:
        """The glossary and synonym forms of two or three Latin words, as word keys (``('prefix', 'cach')``)."""
        return frozenset(k for k in self._phrases if len(k) in (2, 3) and all(w.isascii() and w.isalpha() for w in k))

    @cached_property
    def _post_versions(self) -> tuple[tuple[Version, ...], ...]:
        """Per post, the versioned names of its title, tags, English summary and questions."""
        skip = self._ignorable
        return tuple(
            versions_in(" \n ".join((p.title, *p.tags, p.summary.en, *p.questions.en)), skip)
            for p in self._catalog.posts
        )

    @cached_property
    def _titled_families(self) -> frozenset[str]:
        """The families a post's title names at a version (``gemma``, ``llama``, ``kimi``, ``vllm``)."""
        skip = self._ignorable
        return frozenset(v.family for p in self._catalog.posts for v in versions_in(p.title, skip))

    @cached_property
    def _post_texts(self) -> tuple[str, ...]:
        """Per post, its title, tags, summaries and questions, lower case (:meth:`_unit_ties_only`)."""
        return tuple(
            " \n ".join((p.title, *p.tags, p.summary.en, *p.questions.en)).casefold() for p in self._catalog.posts
        )

    def _vet(
        self, good: list[Ranked], confidence: Confidence, text: str, topicality: Topicality
    ) -> tuple[list[Ranked], Confidence]:
        """The good matches ``good`` (best first) and the ``confidence`` of the best after the
        module docstring's checks, for the query ``text`` as typed; no matches: refuse."""
        norm = normalize(text)
        if good[0][2] == "answers" and good[0][3] > 0:
            return good, confidence
        if good[0][2] in ("answers", "authors"):  # an answer's words, none of its concepts (mistral ai)
            confidence = "closest" if confidence == "confident" else confidence
        if good[0][2] == "authors":  # only an author names it (_fit): the nearest, never the answer
            return good, confidence
        if self._names_only_unheld(topicality) and (authored := self._authored(topicality)):
            return [(AUTHORED_SCORE, doc, "authors", 0.0) for doc in authored], "closest"
        if self._asks_unheld_attribute(norm, good[0][1], topicality) or self._names_only_unheld(topicality):
            return [], "none"
        good = [r for r in good if not self._unit_ties_only(r[1], norm)]
        if not good:
            return [], "none"
        good = self._action_first(good, norm, topicality)
        asked = [
            v for v in versions_in(self._read_versions(text), self._ignorable) if v.family in self._titled_families
        ]
        if asked and self._version_is_subject(asked, topicality):
            good, confidence = self._versioned(good, confidence, asked)
        if _ERROR_RE.search(text) or _FAILURE_RE.search(norm):
            good, confidence = self._users_first(good, confidence, topicality)
        if confidence == "confident" and good[0][0] < WEAK_SCORE and _ERROR_RE.search(text):
            confidence = "closest"
        return originals_first(good, self._summaries.__contains__), confidence

    def _version_is_subject(self, asked: list[Version], topicality: Topicality) -> bool:
        """Whether the versioned names ``asked`` are what the question is about: at most
        :data:`VERSION_BESIDE` telling terms beside their families (``gemma 3``, ``llama 5 scout``);
        in a long question (``on an old vllm 0.5 the gpu sits idle …``) the version is its setting."""
        told = self._telling_terms(topicality)
        return sum(not any(v.family in t.text for v in asked) for t in told) <= VERSION_BESIDE

    def _versioned(
        self, good: list[Ranked], confidence: Confidence, asked: list[Version]
    ) -> tuple[list[Ranked], Confidence]:
        """``good`` and its ``confidence`` for a question naming the versions ``asked`` (of families a
        title names at a version): when the best post names them all, as they are; when no post of
        ``good`` does, ``closest`` (the nearest version, not the one asked); else, the best naming
        the family at another version, the posts naming them all first."""

        def names(doc: int) -> bool:
            return all(any(compatible(v, s) for s in self._post_versions[doc]) for v in asked)

        if names(good[0][1]):
            return good, confidence
        lead = [r for r in good if names(r[1])]
        if not lead:
            return good, "closest" if confidence == "confident" else confidence
        said = {s.family for s in self._post_versions[good[0][1]]}
        if any(v.family in said for v in asked):  # the best names another version: the right one leads
            return lead + [r for r in good if not names(r[1])], confidence
        return good, confidence

    def _users_first(
        self, good: list[Ranked], confidence: Confidence, topicality: Topicality
    ) -> tuple[list[Ranked], Confidence]:
        """``good`` and its ``confidence`` for a question about something failing (``RuntimeError:
        NCCL error``): a post saying only that it does without a telling term of the question
        (:meth:`_avoids`: ``a proxy, and no NCCL``) answers no failure in it. When the best is one,
        such posts go after the others and the search is at most ``closest``: the posts left
        scored below one that was no answer."""
        told = self._telling_terms(topicality)
        if not told or not self._avoids(good[0][1], told):
            return good, confidence
        rest = [r for r in good if not self._avoids(r[1], told)]
        if not rest:
            return good, "closest" if confidence == "confident" else confidence
        moved = rest + [r for r in good if self._avoids(r[1], told)]
        return moved, "closest" if confidence == "confident" else confidence  # the best read was no answer

    def _avoids(self, doc: int, told: list[Term]) -> bool:
        """Whether the post ``doc`` says some term of ``told`` only after a word doing without it
        (:data:`_AVOIDED_RE`: ``no NCCL``, ``without NCCL``, ``instead of NCCL``), in its English."""
        body = self._post_texts[doc]
        for term in told:
            forms = "|".join(re.escape(" ".join(a)) for a in term.alternatives if a)
            spots = [m.start() for m in re.finditer(rf"(?<![a-z0-9])(?:{forms})", body)] if forms else []
            if spots and all(_AVOIDED_RE.search(body[max(0, s - 30) : s]) for s in spots):
                return True
        return False

    def _names_only_unheld(self, topicality: Topicality) -> bool:
        """Whether every telling term of the question (:meth:`TopicIndex._telling_terms`) is one no
        post holds (``mistral`` of ``how to serve mistral``): the posts found share its loose words
        (``serve``) only, and the catalog has nothing on what it names."""
        told = self._telling_terms(topicality)
        return bool(told) and not any(
            all(self._df_of.get(a, 0) > 0 for a in alt) for t in told for alt in t.alternatives if alt
        )

    def _action_first(self, good: list[Ranked], norm: str, topicality: Topicality) -> list[Ranked]:
        """``good`` with, for a question asking how to do something (``how do i serve lora
        adapters``), the first post within :data:`ACTION_MARGIN` points of the best whose title says
        that action (``serve``) and that holds the question's telling terms first, when the best's
        title does not say it: a post on doing it, not one on another matter of the same thing (the
        LoRA backdoor threat)."""
        match = _HOW_TO_RE.match(norm)
        told = self._telling_terms(topicality)
        if match is None or not told:
            return good
        verb = match.group(1) or match.group(2)
        if verb in self._ignorable or verb in self._vocab.symptom_words:
            return good
        action = f" {stem(verb)} "
        if action in self._title_words[good[0][1]]:
            return good
        for i, ranked in enumerate(good[1:], 1):
            if ranked[0] < good[0][0] - ACTION_MARGIN:
                break
            if action in self._title_words[ranked[1]] and self._answers_terms(ranked[1], told):
                return [ranked, *good[:i], *good[i + 1 :]]
        return good

    def _unit_ties_only(self, doc: int, norm: str) -> bool:
        """Whether the post ``doc`` says the query's words (stop words, words most posts hold and
        words it lacks aside) only as units of numbers (``3.5 hours``), and says one so."""
        body = self._post_texts[doc]
        units = 0
        for word in dict.fromkeys(norm.split()):
            if not word.isalnum() or word in self._ignorable:
                continue
            key = stem(word)
            if self._df_of.get(key, 0) > GENERIC_SHARE * self._n:
                continue  # vllm: every post says it
            spots = [m.start() for m in re.finditer(rf"(?<![a-z0-9]){re.escape(key)}", body)]
            if not spots:
                continue
            if word in self._forms or word not in english_words():
                return False  # a field word (gpus of 8 GPUs, nemotron) is a tie however it is said
            if not all(_NUMBER_BEFORE_RE.search(body[max(0, s - 12) : s]) for s in spots):
                return False  # a real tie
            units += 1
        return units > 0

    @cached_property
    def _everyday_forms(self) -> dict[str, tuple[str, ...]]:
        """Each Latin form of an ``everyday`` glossary term (``price`` of ``cost``) and the stems of
        all its term's Latin forms."""
        out: dict[str, tuple[str, ...]] = {}
        for term in self._vocab.glossary:
            if term.sense != "everyday":
                continue
            latin = [f for f in term.forms if f.isascii()]
            stems = tuple(dict.fromkeys(" ".join(stem(w) for w in f.split()) for f in latin))
            out.update(dict.fromkeys(latin, stems))
        return out

    def _asks_unheld_attribute(self, norm: str, doc: int, topicality: Topicality) -> bool:
        """Whether ``norm`` asks ``what is the <attribute> of <thing>`` with an attribute that is a
        form of an ``everyday`` glossary term (``price``, ``cost``) about a thing of a platform track
        only (its telling terms all of a ``platform_tracks`` track: a chip, ``h100``), and the best
        post ``doc`` says the attribute in no form: the catalog's posts run on the chip, they do not
        sell it. The cost of a technique (``prefix caching``) is a trade-off its posts weigh."""
        match = _ATTRIBUTE_RE.match(norm)
        stems = self._everyday_forms.get(match.group(1)) if match is not None else None
        priced = next((w for w in norm.split() if w in self._everyday_forms and w in self._price_forms), None)
        told = self._telling_terms(topicality)
        if not (stems or priced) or not told or any(t.track not in self._vocab.platform_tracks for t in told):
            return False
        body = self._post_texts[doc]
        if stems and not any(re.search(rf"(?<![a-z]){re.escape(s)}", body) for s in stems):
            return True
        chip_words = {w for t in told for a in t.alternatives for w in a}
        if priced is None or len(told) > 1 or self._other_field_words(norm, chip_words):
            return False  # two chips: a comparison; cost per token on b200: serving's economics
        # a chip's price anywhere in the question (price of a b200, h100 rental cost per hour): the
        # post must say a price of the chip, near its name, not of something else (prefill cost)
        chips = "|".join(re.escape(" ".join(a)) for t in told for a in t.alternatives if a)
        near = rf"(?:{chips})\W(?:\W*\w+){{0,{PRICE_REACH}}}?\W*(?:{'|'.join(self._everyday_forms[priced])})"
        back = rf"(?:{'|'.join(self._everyday_forms[priced])})\w*\W(?:\W*\w+){{0,{PRICE_REACH}}}?\W*(?:{chips})"
        return not (re.search(near, body) or re.search(back, body))

    def _other_field_words(self, norm: str, chip_words: set[str]) -> bool:
        """Whether ``norm`` holds a glossary form that is neither a price form nor a word (stemmed)
        of ``chip_words`` (``token`` of ``cost per token on b200``, ``vllm``)."""
        return any(
            w in self._forms and w not in self._price_forms and stem(w) not in chip_words and w not in self._ignorable
            for w in norm.split()
        )

    @cached_property
    def _price_forms(self) -> frozenset[str]:
        """The Latin forms of the glossary's :data:`PRICE_TERM` (``cost``, ``price``, ``rental``)."""
        term = next((t for t in self._vocab.glossary if t.forms[0] == PRICE_TERM), None)
        return frozenset(f for f in term.forms if f.isascii()) if term is not None else frozenset()


__all__ = ["WEAK_SCORE", "EvidenceIndex"]
