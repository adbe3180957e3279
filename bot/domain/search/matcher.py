"""Post search (:class:`Matcher`, over :class:`~bot.domain.search.plain.PlainIndex`): concepts,
coverage, BM25 fusion, the on-topic decision, confidence; design in :mod:`bot.domain.search`."""

from __future__ import annotations

import dataclasses
import re
from functools import cached_property

import numpy as np
from rapidfuzz import fuzz, process

from bot.domain.search.analysis import (
    _PARTS_RE,
    _bigrams,
    _Concept,
    _member_terms,
    _Unit,
    english_words,
    normalize,
    stem,
)
from bot.domain.search.fields import field_of
from bot.domain.search.index import _GENERIC_DF, _GENERIC_FACTOR
from bot.domain.search.links import link_words
from bot.domain.search.pasted import words_first
from bot.domain.search.plain import PlainIndex
from bot.domain.search.reorder import (
    NEWEST_LEAD,
    Ranked,
    answered_first,
    checklist_first,
    general_first,
    generality,
    id_first,
    in_track_first,
    linked_first,
    newest_first,
)
from bot.domain.search.results import (
    HINT_EMPTY,
    MAX_QUERY_CHARS,
    MIN_SCORE,
    Confidence,
    LinkResult,
    PostMatch,
    SearchResult,
)
from bot.domain.search.subject import lift_subjects
from bot.domain.search.topic import Topicality, _joins
from bot.domain.search.weights import (
    _CANDIDATES,
    _SIM_SYNONYM,
    CONFIDENT_COVERAGE,
    EXACT_TITLE_BONUS,
    FUZZY_WEIGHT,
    MAX_FUZZY_WORDS,
    MAX_RAW_CONCEPTS,
    MAX_TOTAL,
    RELATIVE_FLOOR,
    SIMILARITY_CHARS,
    SUBJECT_FACTOR,
)
from bot.domain.text import clean

_MAX_URL_CHARS = 2000
_URL_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*", re.IGNORECASE)

_Alt = tuple[tuple[str, ...], float]
"""An alternative of a concept: the terms a post must all hold, and their similarity (0..1)."""


class Matcher(PlainIndex):
    """Track matching and post search over one catalog version, with the shipped vocabulary or
    another (:func:`bot.domain.search.load_vocabulary`). Building takes tens of milliseconds for a
    hundred posts, about a second for ten thousand; the matcher is then read-only and thread-safe."""

    def _concepts(self, units: list[_Unit]) -> list[_Concept]:
        """The weighted concepts of the query's ``units`` that some post holds (a word found nowhere,
        or another tool's name, ranks nothing and counts against nothing); at most
        :data:`~bot.domain.search.weights.MAX_CONCEPTS`, field terms first (:meth:`TopicIndex._keep_concepts`)."""
        concepts: list[_Concept] = []
        seen: dict[tuple[_Alt, ...], _Concept] = {}
        for raw_alts, subject in self._raw_concepts(units):
            key = tuple(raw_alts)
            concept = seen.get(key)  # a pasted text repeats its words
            if concept is None:
                concept = seen[key] = self._weigh(raw_alts)
            if concept.alternatives:
                concepts.append(concept._replace(weight=concept.weight * SUBJECT_FACTOR) if subject else concept)
        # topic.py: "setup", "full" are no subject; a long query keeps its field terms, then its rarest words
        return self._keep_concepts(self._cap_everyday(concepts, units))

    def _raw_concepts(self, units: list[_Unit]) -> list[tuple[list[_Alt], bool]]:
        """Per content word, or per glossary form of several words (one concept: ``first token``
        is not "first" and "token" anywhere), its concept's alternatives and whether it is the
        subject of a symptom word (:meth:`_subjects`); at most :data:`MAX_RAW_CONCEPTS`."""
        raw: list[tuple[list[_Alt], bool]] = []
        budget = [MAX_FUZZY_WORDS]  # unknown words left to typo-correct
        spans = self._spans(units)
        subjects = self._subjects(spans)
        for n, (i, span) in enumerate(spans):
            if len(span) > 1:
                text = " ".join(u.text for u in span)
                own = [(_member_terms(text, self._vocab.question_words), 1.0)]
                if len(span) == 2 and span[0].kind == span[1].kind == "latin":  # "wide ep" as "wideep"
                    own.append(((stem(span[0].text + span[1].text),), 1.0))
                group = span[0].group
                alts = own + ([(t, _SIM_SYNONYM) for t in self._group_terms[group]] if group is not None else [])
                raw.append((alts, n in subjects))
            elif span[0].group is not None or span[0].text not in self._unranked:
                raw.extend((alts, n in subjects) for alts in self._unit_alternatives(units, i, budget))
            if len(raw) >= MAX_RAW_CONCEPTS:
                break
        return raw[:MAX_RAW_CONCEPTS]

    def _subjects(self, spans: list[tuple[int, list[_Unit]]]) -> set[int]:
        """The spans (by position) that are the subject of a symptom word: the glossary form next
        before it, else after it, stop words between them aside (``my TTFT is too high``, ``high
        TTFT``, ``首 token 延迟太高``): the measure the question is about, not a word of its setting
        (``with long prompts``)."""
        content = [
            n for n, (_, span) in enumerate(spans) if span[0].group is not None or span[0].text not in self._ignorable
        ]
        out: set[int] = set()
        for k, n in enumerate(content):
            first = spans[n][1][0]
            if first.group is None and first.text in self._vocab.symptom_words:
                near = [m for m in content[max(k - 1, 0) : k] + content[k + 1 : k + 2] if spans[m][1][0].sense]
                out.update(near[:1])  # the word before it ("TTFT too high"), else after ("high TTFT")
        return out

    def _unit_alternatives(self, units: list[_Unit], i: int, budget: list[int]) -> list[list[_Alt]]:
        """The concepts of ``units[i]`` (with its synonym group's alternatives): none for another
        tool's name; a Chinese word (a segment of the query) is one concept of all its bigrams."""
        unit = units[i]
        group_alts = (
            [(terms, _SIM_SYNONYM) for terms in self._group_terms[unit.group]] if unit.group is not None else []
        )
        if unit.kind == "latin":
            if self._other_tool(units, i):
                return []  # a word of another tool's name (ollama, llama of llama.cpp)
            if (name := self._lettered_name(units, i)) is not None:
                return [[((name,), 1.0)]]  # "llm-d", "p-eagle": a name with a one-letter part is the name
            return [self._latin_alternatives(units, i, budget) + group_alts]
        if len(unit.text) >= 2 or unit.group is not None or len(units) == 1:
            return [[(tuple(_bigrams(unit.text)), 1.0), *group_alts]]
        return []  # a lone character beside other words: a particle

    def _lettered_name(self, units: list[_Unit], i: int) -> str | None:
        """The indexed join of the Latin word ``units[i]`` (2+ letters) with a one-letter neighbour
        that is no stop word (``llm`` + ``d``: ``llmd``; not ``i`` + ``serve``), else ``None``."""
        if len(units[i].text) < 2:
            return None
        for j in (i - 1, i + 1):
            if 0 <= j < len(units) and units[j].kind == "latin" and len(units[j].text) == 1:
                if units[j].text in self._ignorable:
                    continue
                join = stem(units[j].text + units[i].text if j < i else units[i].text + units[j].text)
                if join in self._df_of:
                    return join
        return None

    def _latin_alternatives(self, units: list[_Unit], i: int, budget: list[int]) -> list[_Alt]:
        """A Latin word's stem, its joins with its neighbours and, for an unknown word of 4+ letters
        while ``budget`` lasts, its typo corrections and completions."""
        text = units[i].text
        alts: list[_Alt] = [((stem(text),), 1.0)] if len(text) >= 2 else []
        alts.extend(((stem(pair),), 1.0) for pair in _joins(units, i))
        if len(text) >= 4 and text not in self._surface and text not in english_words() and budget[0] > 0:
            budget[0] -= 1
            alts.extend(((stem(word),), sim) for word, sim in self._speller.expand(text))
        return alts

    def _weigh(self, raw_alts: list[_Alt]) -> _Concept:
        """The concept of the ``raw_alts`` whose terms are all indexed, weighing its best exact
        alternative's idf (of its most common term; a quarter when generic), at most its most
        common synonym's (posts holding it); weight 0 for none."""
        dfs = self._df_of
        found: list[_Alt] = []
        his: list[int] = []  # per alternative found: the df of its most common term ...
        los: list[int] = []  # ... and of its rarest
        for alt in dict.fromkeys(raw_alts):
            ds = [dfs.get(t, -1) for t in alt[0]]
            if not ds or min(ds) < 0:
                continue  # a term found nowhere
            found.append(alt)
            his.append(max(ds))
            los.append(min(ds))
        if not found:
            return _Concept(0.0, ())
        primary = [i for i, alt in enumerate(found) if alt[1] >= 1.0] or range(len(found))
        # As common as its most common synonym: "long prompts" weighs what "long context" does.
        synonyms = (a[0] for a in found if abs(a[1] - _SIM_SYNONYM) < 1e-9)
        common = max((len(self._alternative(terms)[0]) for terms in synonyms), default=0)
        weight = self._idf_by_df[max(min(his[i] for i in primary), common)]
        if max(los[i] for i in primary) / max(self._n, 1) > _GENERIC_DF:
            weight *= _GENERIC_FACTOR
        return _Concept(weight, tuple(found))

    def resolve_link(self, text: str) -> LinkResult | None:
        """What the URL in ``text`` points to (:class:`LinkResult`), or ``None`` when ``text`` is
        not one URL (see :mod:`bot.domain.search.links`)."""
        return self._links.resolve(text[:_MAX_URL_CHARS])

    def search(self, query: str, limit: int = 5, offset: int = 0) -> SearchResult:
        """Rank posts for ``query`` (scoring: :mod:`bot.domain.search`).

        Returns the good matches ``offset .. offset + limit`` (``limit`` clamped to 1..50,
        ``offset`` to 0..:data:`MAX_TOTAL`), best first, with ``total`` (at most :data:`MAX_TOTAL`)
        and the track the query names. A query that is one URL (:meth:`resolve_link`) gives that
        post alone (score 100, ``matched="link"``) or, for no catalog post, no posts and ``link``.
        A query with nothing to search for gives ``hint`` = :data:`HINT_EMPTY`.
        """
        limit = max(1, min(int(limit), 50))
        offset = max(0, min(int(offset), MAX_TOTAL))
        if "." in query and len(query) <= _MAX_URL_CHARS:
            link = self.resolve_link(query)
            if link is not None and (link.status != "foreign" or " " not in clean(query).strip()):  # words: a search
                if link.status != "post" or link.post_id is None:
                    return SearchResult(query, None, (), None, 0, offset, link)
                hit = PostMatch(link.post_id, 100.0, "link", self._catalog.tracks_of(link.post_id), 1.0)
                return SearchResult(query, None, (hit,) if offset == 0 else (), None, 1, offset, link, "confident")
        text = words_first(query)[: MAX_QUERY_CHARS * 4]  # pasted.py: a fenced paste is read after the words
        lead = NEWEST_LEAD.match(text)
        newest = lead is not None and bool(text[lead.end() :].strip())
        if newest and lead is not None:
            text = text[lead.end() :]
        has_link = "://" in text or "<" in text
        if has_link:  # a link inside a sentence: the words of its site and path (links.py)
            text = _URL_RE.sub(link_words, clean(text))
        norm = normalize(self._read_versions(text))[:MAX_QUERY_CHARS]  # vllm 0.6 as v0.6 (evidence.py)
        if not norm:
            return SearchResult(query, None, (), HINT_EMPTY)
        # match_track reads the query as typed, which is `text` unless a link was dropped.
        named = self.match_track(query) if has_link else self._match_track(norm)
        answer_key = self._answer_key(norm)
        norm = self._rewrite(norm)  # "decoding faster" is read as "speculative decoding"
        units = self._units(norm, query=True)
        topicality = self._topicality(units)
        topic = self._topic_track(units)
        answered = answer_key in self._answer_keys
        contained = self._track_in(units)
        on_topic = topicality.on_topic or topic is not None or named is not None or answered
        if not (on_topic or self._holds_track_name(contained) or self._names_a_post(units)):
            if (fixed := self._han_fixed(norm)) != norm:  # 量话: 量化 typed one character off
                return dataclasses.replace(self.search(fixed, limit, offset), query=query)
            return self._plain_result(query, norm, units, topicality, limit, offset)  # plain.py: curated questions
        track = named or topic or contained or self._name_word_track(units)
        ranked, extra, _ = self._rank(norm, offset + limit + 1, units)
        if contained is not None and track is contained:
            ranked = in_track_first(ranked, contained.track_id, self._catalog.tracks_of, self._post_ids)
        ranked = self._fit(self._explainers_and_launches(ranked, units, topicality), topicality, track)  # fit.py
        told = self._telling_terms(topicality)
        held = (lambda doc: sum(self._holds(doc, t) for t in told)) if len(told) >= 3 else None
        ranked = id_first(
            self._doc_of_id.get(text.strip().lower()),
            linked_first(answered_first(self._answer_keys.get(answer_key, ()), ranked), self._linked, held, len(told)),
        )
        ranked = checklist_first(ranked, held, len(told))  # a long list of terms: the post on all of them
        if not ranked:
            return SearchResult(query, track, (), None, topic=topic is not None)
        floor = max(MIN_SCORE, RELATIVE_FLOOR * min(100.0, ranked[0][0]))
        good = [r for r in ranked if r[0] >= floor - 1e-9]
        if named is None and topic is None and self._tool_unanswered(good[0][1], topicality):  # another tool
            return SearchResult(query, None, (), None, known=topicality.words or None)
        good, confidence = self._vet(good, self._confidence(good[0], topicality), text, topicality)  # evidence.py
        # beside another tool (`pytorch dataloader … on windows`) only a post holding its terms (scope.py)
        if not good or (confidence == "closest" and topicality.beside_tool) or self._tool_not_ours(good[0], topicality):
            return SearchResult(query, None, (), None, known=topicality.words or None)
        terms = told
        if newest:  # "latest eagle": the posts on it newest first
            good = newest_first(
                good, self._catalog, self._post_ids, lambda d: not terms or self._answers_terms(d, terms)
            )
        elif not terms or track is not None:  # "what is vllm": every title says it; a track named: its path
            good = general_first(good, self._path_order(track) if track else self._generality, self._post_ids)
        page = good[offset : offset + limit]
        matches = tuple(
            PostMatch(
                self._post_ids[doc],
                round(min(100.0, score), 1),  # ranked on the raw score, which bonuses can take past 100
                field,
                self._catalog.tracks_of(self._post_ids[doc]),
                round(cov, 3),
                bool(self._linked[doc]),
            )
            for score, doc, field, cov in page
        )
        return SearchResult(
            query,
            track,
            matches,
            None,
            min(MAX_TOTAL, len(good) + extra),
            offset,
            None,
            confidence,
            topic=topic is not None,
        )

    def _confidence(self, best: Ranked, topicality: Topicality) -> Confidence:
        """``confident`` when the best post is a listed answer, or holds the query's telling
        specific terms (:meth:`TopicIndex._answers_terms`), or, the query having none (``run vllm
        on my desk``), covers :data:`CONFIDENT_COVERAGE` of its concepts; else ``closest``: the
        evidence is weak."""
        if best[2] == "answers":
            return "confident"
        if terms := self._telling_terms(topicality):
            return "confident" if self._answers_terms(best[1], terms) else "closest"
        return "confident" if best[3] >= CONFIDENT_COVERAGE - 1e-9 else "closest"

    @cached_property
    def _generality(self) -> dict[str, tuple[int, float]]:
        """:func:`~bot.domain.search.reorder.generality` of the catalog's posts, kept with the index."""
        start = self._match_track("getting started")
        return generality(self._catalog, self._post_ids, start.track_id if start is not None else None)

    @cached_property
    def _doc_of_id(self) -> dict[str, int]:
        return {pid: doc for doc, pid in enumerate(self._post_ids)}

    def _rank(self, norm: str, need: int, units: list[_Unit]) -> tuple[list[Ranked], int, list[_Concept]]:
        """``(ranked, extra, concepts)``: the re-scored candidates (at least ``need`` when there are),
        best first, how many further posts are good matches (counted, not ranked), the query's concepts."""
        concepts = self._concepts(units)
        if self._n == 0:
            return [], 0, concepts
        coverage, best_field = self._coverage(concepts)
        bm25 = self._bm25(norm, units)
        w_fuzzy = FUZZY_WEIGHT if bm25 is not None else 1.0
        ranked_part = (1.0 - w_fuzzy) * 100.0 * bm25 if bm25 is not None else 0.0
        # Bounds of the fused score before the similarity is known (it adds 0..15 fuzzy points).
        low = w_fuzzy * 85.0 * coverage + ranked_part
        high = low + w_fuzzy * 15.0 * (coverage > 0)
        floor = max(MIN_SCORE, RELATIVE_FLOOR * min(100.0, float(low.max())))  # the real floor is at least this
        hits = np.flatnonzero(high >= floor - 1e-9)
        if not len(hits):
            return [], 0, concepts
        keep = max(_CANDIDATES, need)
        rest = np.empty(0, dtype=np.int64)
        if len(hits) > keep:
            order = np.argpartition(-(high[hits] + self._recency[hits]), keep - 1)
            hits, rest = hits[order[:keep]], hits[order[keep:]]
        out = self._rescore(norm, hits, coverage, best_field, low, w_fuzzy)
        out = lift_subjects(out, concepts, self._title_terms)  # subject.py: the title's subject leads
        # Posts past the re-scored ones that are good matches whatever their similarity.
        extra = 0
        if len(rest) and out:
            extra = int(np.count_nonzero(low[rest] >= max(MIN_SCORE, RELATIVE_FLOOR * min(100.0, out[0][0]))))
        return out, extra, concepts

    def _coverage(self, concepts: list[_Concept]) -> tuple[np.ndarray, np.ndarray]:
        """Per post: its coverage of the concepts (0..1, a little over with field bonuses; float64)
        and the field value of its largest concept contribution (float32; what ``matched`` names)."""
        total = sum(c.weight for c in concepts)
        scores = np.zeros(self._n, dtype=np.float64)
        best_part = np.zeros(self._n, dtype=np.float32)  # the largest concept contribution ...
        best_field = np.zeros(self._n, dtype=np.float32)  # ... and the field value it came from
        postings: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
        dense_from = self._n // 8  # a concept touching more posts is merged with whole-array ops
        for concept in concepts:
            if not concept.alternatives or concept.weight < 0.01 * total:
                continue  # found nowhere, or too common to move a score by a point
            value, field, touched = self._concept_values(concept, postings)
            if touched is None:
                continue
            if len(touched) > dense_from:
                part = value * np.float32(concept.weight)
                scores += part
                upd = part > best_part
                np.copyto(best_field, field, where=upd)
                np.copyto(best_part, part, where=upd)
                continue
            # Only the touched posts change (one listed twice gets the same value twice).
            part = value[touched] * np.float32(concept.weight)
            scores[touched] += part
            better = part > best_part[touched]
            best_part[touched[better]] = part[better]
            best_field[touched[better]] = field[touched[better]]
        return (scores / total if total > 0 else scores), best_field

    def _concept_values(
        self, concept: _Concept, postings: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]]
    ) -> tuple[np.ndarray, np.ndarray, np.ndarray | None]:
        """Per post, the value of the concept's best alternative (field value × similarity) and its
        field value, and the posts touched (``None``: none); ``postings`` memoises :meth:`_alternative`."""
        value = np.zeros(self._n, dtype=np.float32)
        field = np.zeros(self._n, dtype=np.float32)
        changed: list[np.ndarray] = []
        for terms, sim in concept.alternatives:
            posting = postings.get(terms)
            if posting is None:
                posting = postings[terms] = self._alternative(terms)
            ids, vals = posting
            if not len(ids):
                continue
            cand = vals * np.float32(sim)
            if not changed:  # the first alternative found: every post of it is better than 0
                value[ids] = cand
                field[ids] = vals
                changed.append(ids)
                continue
            better = cand > value[ids]
            sel = ids[better]
            value[sel] = cand[better]
            field[sel] = vals[better]
            changed.append(sel)
        if not changed:
            return value, field, None
        return value, field, changed[0] if len(changed) == 1 else np.concatenate(changed)

    def _rescore(
        self, norm: str, hits: np.ndarray, coverage: np.ndarray, best_field: np.ndarray, low: np.ndarray, w_fuzzy: float
    ) -> list[Ranked]:
        """The candidates ``hits`` with the rapidfuzz similarity added, best first (at least
        :data:`MIN_SCORE`, at most :data:`MAX_TOTAL`); among equal rounded scores, a title starting
        with the query, then the closer title (rapidfuzz alone: two titles that both say the query's
        words score 100), then the higher exact score, then the newer."""
        parts = _PARTS_RE.findall(norm)
        latin = " ".join(w for c, w in parts if w)[:SIMILARITY_CHARS]
        cjk = " ".join(c for c, w in parts if c)[:SIMILARITY_CHARS]
        hit_docs, hit_cov = hits.tolist(), coverage[hits].tolist()
        phrases = (f" {latin} ", f" {latin.replace(' ', '')} ") if " " in latin else ()  # "paged attention"
        similarity = self._similarities([d for d, c in zip(hit_docs, hit_cov, strict=True) if c > 0], latin, cjk)
        ranked = []
        for doc, cov, lo, rec in zip(hit_docs, hit_cov, low[hits].tolist(), self._recency[hits].tolist(), strict=True):
            score = lo
            if cov > 0:
                score += w_fuzzy * 0.15 * similarity[doc]
            if phrases and any(p in f" {self._titles[doc]} " for p in phrases):
                score += EXACT_TITLE_BONUS  # the title says the query's words as typed, not a synonym
            if score >= MIN_SCORE:
                names_it = bool(latin) and self._titles[doc].startswith(latin)
                ranked.append((-round(score, 1), -names_it, -similarity.get(doc, 0.0), -score, -rec, doc, cov))
        ranked.sort()
        fields = dict(zip(hit_docs, best_field[hits].tolist(), strict=True))
        return [(-r[0], r[5], field_of(fields[r[5]]) if r[6] > 0 else "answers", r[6]) for r in ranked[:MAX_TOTAL]]

    def _bm25(self, norm: str, units: list[_Unit]) -> np.ndarray | None:
        """BM25 of every post (0..1, divided by the best) for the query and the canonical form of
        each of its synonym groups (not every form: a group's abbreviations and Chinese names are
        rare terms that would crowd the query's own words out of the rarest scored; typed in Chinese,
        its first Chinese form; a Chinese subject alone: fit.py); ``None``: no token indexed."""
        own, abbr = self._chinese_subject(units)  # fit.py: 首字延迟高 read as TTFT
        tokens = self._bm25_tokens(own) + abbr
        for gid in sorted({u.group for u in units if u.group is not None}):
            tokens.extend(self._group_tokens[gid])
        for gid in sorted({u.group for u in units if u.group is not None and u.kind != "latin"}):
            tokens.extend(self._group_zh_tokens[gid])
        raw = self._ranked.scores(tokens, self._counts)
        top = 0.0 if raw is None else float(raw.max())
        return raw / top if raw is not None and top > 0 else None

    @cached_property
    def _unranked(self) -> frozenset[str]:
        """Words that rank no post: stop, question and symptom words (``high`` of ``my TTFT is too
        high``), Chinese running words (``运行``: no Model Runner; English ones are capped as everyday)."""
        return self._ignorable | self._vocab.symptom_words | {w for w in self._vocab.running_words if not w.isascii()}

    def _bm25_tokens(self, units: list[_Unit]) -> list[str]:
        """The BM25 tokens of a query's units (as :func:`~bot.domain.search.ranking.bm25_tokens`
        reads catalog text): Latin stems and joins of neighbours, a Chinese word's bigrams; stop,
        question and symptom words and lone Chinese characters left out."""
        out: list[str] = []
        prev = ""
        for unit in units:
            skip = unit.group is None and unit.text in self._unranked
            if unit.kind != "latin":
                prev = ""
                if not skip and (len(unit.text) >= 2 or unit.group is not None):
                    out.extend(_bigrams(unit.text))
                continue
            if skip:
                prev = ""
                continue
            if prev:
                out.append(stem(prev + unit.text))
            prev = unit.text
            if len(unit.text) >= 2:
                out.append(stem(unit.text))
        return out

    def _similarities(self, docs: list[int], latin: str, cjk: str) -> dict[int, float]:
        """Per post of ``docs``: rapidfuzz ``partial_ratio`` (0..100) of the query's Latin words
        against the title and of its Chinese against the post's Chinese text, averaged when it has
        both (0 for a Latin part under 3 letters or a Chinese one under 2)."""
        parts: list[list[float]] = []
        for text, texts, shortest in ((latin, self._titles, 3), (cjk, self._zh_texts, 2)):
            if not text:
                continue
            if len(text) < shortest or not docs:
                parts.append([0.0] * len(docs))
                continue
            choices = [texts[d] for d in docs]
            scores = process.cdist([text], choices, scorer=fuzz.partial_ratio, processor=None, dtype=np.float64)
            parts.append(scores[0].tolist())
        if not parts:
            return dict.fromkeys(docs, 0.0)
        return {d: sum(p[i] for p in parts) / len(parts) for i, d in enumerate(docs)}
