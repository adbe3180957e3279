"""Post search (:class:`Matcher`, over :class:`~bot.domain.search.tracks.TrackIndex`): concepts,
coverage, BM25 fusion, confidence; design in :mod:`bot.domain.search`."""

from __future__ import annotations

import re
from functools import cached_property

import numpy as np
from rapidfuzz import fuzz, process

from bot.domain.search.analysis import _PARTS_RE, _bigrams, _Concept, _Unit, normalize, stem
from bot.domain.search.fields import field_of
from bot.domain.search.index import _GENERIC_DF, _GENERIC_FACTOR
from bot.domain.search.results import (
    HINT_EMPTY,
    MAX_QUERY_CHARS,
    MIN_SCORE,
    Confidence,
    LinkResult,
    PostMatch,
    SearchResult,
    TrackMatch,
)
from bot.domain.search.tracks import CONTAINED_SCORE, TrackIndex
from bot.domain.text import clean

FUZZY_WEIGHT = 0.6
"""The fuzzy (coverage) score's share of the fused score; BM25 has the rest."""

RELATIVE_FLOOR = 0.6
"""A post is a good match only when it scores at least this share of the best post's score: the
results stop where the matches stop."""

CONFIDENT_COVERAGE = 0.6
"""A search is ``confident`` when its best post covers at least this weighted share (0..1) of the
query's concepts (:attr:`PostMatch.coverage`). Calibrated with ``benchmarks/relevance.py``:
off-topic questions reach about 0.5 at most, on-topic rows 0.6 and above but for two."""

CLOSEST_COVERAGE = 0.41
"""Below this coverage (0..1) a search has no match (``confidence="none"``, no results); between
it and :data:`CONFIDENT_COVERAGE` the posts are shown as the closest ones. Off-topic questions
whose one common word a post holds (best, time, memory, cache) reach 0.35-0.41; the eval sets'
half-answered questions 0.42 and above (0.35 until stop 36 showed 21 of 87 off-topic rows posts)."""

STRONG_VALUE = 0.8
"""A concept a post holds at least at this posting value (its id, tags or title, not only its summary)
is held strongly. A query with a word no post holds (and no track's name) is answered only by a post
that holds a concept strongly that is not an everyday word (``everyday_words``): ``how to train my
dog``, ``serve a volleyball``, ``best gpu for gaming`` hold only one (:meth:`Matcher._lopsided`)."""

MAX_TOTAL = 100
"""At most this many good matches are counted and paged through."""

MAX_CONCEPTS = 12
"""At most this many concepts (words, bigrams) of a query are scored: the rarest ones."""

MAX_RAW_CONCEPTS = 32
"""At most this many concepts are read from a query before the rarest are chosen."""

MAX_FUZZY_WORDS = 6
"""At most this many unknown words of a query are typo-corrected (each costs a rapidfuzz scan)."""

SIMILARITY_CHARS = 100
"""Only this many characters of a query's Latin (and Chinese) text are compared by rapidfuzz."""

_SIM_SYNONYM = 0.9  # the similarity of a synonym (typo corrections, completions: spelling.SIM_*)

_CANDIDATES = 40
"""At most this many posts (the best before similarity) are re-scored with rapidfuzz; more when a
later page is asked for."""

_MAX_URL_CHARS = 2000
_URL_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*", re.IGNORECASE)

_Alt = tuple[tuple[str, ...], float]
"""An alternative of a concept: the terms a post must all hold, and their similarity (0..1)."""

_OTHER_TOOL = _Concept(-1.0, ())
"""Marks the concept of another tool's name while the query's concepts are weighed."""

_Ranked = tuple[float, int, str, float]
"""A ranked post: fused score (0..100), doc number, matched field, coverage (0..1)."""


def _confidence(coverage: float) -> Confidence:
    """The confidence of a search whose best post covers ``coverage`` (0..1) of the query."""
    if coverage >= CONFIDENT_COVERAGE - 1e-9:
        return "confident"
    return "closest" if coverage >= CLOSEST_COVERAGE - 1e-9 else "none"


def _joins(units: list[_Unit], i: int) -> list[str]:
    """``units[i]``'s Latin word joined with the Latin word before it, then with the one after."""
    text = units[i].text
    return [
        text + units[j].text if j > i else units[j].text + text
        for j in (i - 1, i + 1)
        if 0 <= j < len(units) and units[j].kind == "latin"
    ]


class Matcher(TrackIndex):
    """Track matching and post search over one catalog version, with the shipped vocabulary or
    another (:func:`bot.domain.search.load_vocabulary`). Building takes tens of milliseconds for a
    hundred posts, about a second for ten thousand; the matcher is then read-only and thread-safe."""

    def _concepts(self, units: list[_Unit]) -> list[_Concept]:
        """The weighted concepts of the query's ``units``. A concept found nowhere weighs a median
        concept, another tool's name (``other_names``) the heaviest one; at most the
        :data:`MAX_CONCEPTS` rarest are kept."""
        concepts: list[_Concept] = []
        seen: dict[tuple[_Alt, ...], _Concept] = {}
        for raw_alts in self._raw_concepts(units):
            if raw_alts is None:
                concepts.append(_OTHER_TOOL)
                continue
            key = tuple(raw_alts)
            concept = seen.get(key)  # a pasted text repeats its words
            if concept is None:
                concept = seen[key] = self._weigh(raw_alts)
            concepts.append(concept)
        present = [c.weight for c in concepts if c.alternatives]
        if not present:
            return []  # only stop and question words, or nothing known: nothing to search for
        missing = sorted(present)[len(present) // 2]  # a word found nowhere weighs a median concept
        concepts = [
            c if c.alternatives else _Concept(max(present) if c is _OTHER_TOOL else missing, ()) for c in concepts
        ]
        if len(concepts) > MAX_CONCEPTS:  # a long query: keep its rarest (most telling) words
            concepts = sorted(concepts, key=lambda c: -c.weight)[:MAX_CONCEPTS]
        return concepts

    def _raw_concepts(self, units: list[_Unit]) -> list[list[_Alt] | None]:
        """Per content unit, its concepts' alternatives (``None``: a word of another tool's name);
        at most :data:`MAX_RAW_CONCEPTS`."""
        raw: list[list[_Alt] | None] = []
        budget = [MAX_FUZZY_WORDS]  # unknown words left to typo-correct
        for i, unit in enumerate(units):
            if unit.group is None and unit.text in self._ignorable:
                continue
            raw.extend(self._unit_alternatives(units, i, budget))
            if len(raw) >= MAX_RAW_CONCEPTS:
                break
        return raw[:MAX_RAW_CONCEPTS]

    def _unit_alternatives(self, units: list[_Unit], i: int, budget: list[int]) -> list[list[_Alt] | None]:
        """The concepts of ``units[i]`` (with its synonym group's alternatives); a CJK chunk's bigrams."""
        unit = units[i]
        group_alts = (
            [(terms, _SIM_SYNONYM) for terms in self._group_terms[unit.group]] if unit.group is not None else []
        )
        if unit.kind == "latin":
            if self._other_tool(units, i):
                return [None]  # a word of another tool's name (ollama, llama of llama.cpp)
            return [self._latin_alternatives(units, i, budget) + group_alts]
        if unit.kind == "cjkword":
            return [[(tuple(_bigrams(unit.text)), 1.0), *group_alts]]
        if len(unit.text) >= 2 or len(units) == 1:  # left-over CJK: one concept per bigram
            return [[((bg,), 1.0)] for bg in _bigrams(unit.text)]
        return []

    def _other_tool(self, units: list[_Unit], i: int) -> bool:
        """Whether ``units[i]``, alone or joined with a neighbour, is another tool's name (``other_names``)
        that no post says as typed (``windows`` is not the ``window`` of sliding-window attention)."""
        return any(w in self._other_names and w not in self._surface for w in (units[i].text, *_joins(units, i)))

    def _latin_alternatives(self, units: list[_Unit], i: int, budget: list[int]) -> list[_Alt]:
        """A Latin word's stem, its joins with its neighbours and, for an unknown word of 4+ letters
        while ``budget`` lasts, its typo corrections and completions."""
        text = units[i].text
        alts: list[_Alt] = [((stem(text),), 1.0)] if len(text) >= 2 else []
        alts.extend(((stem(pair),), 1.0) for pair in _joins(units, i))
        if len(text) >= 4 and text not in self._surface and budget[0] > 0:
            budget[0] -= 1
            alts.extend(((stem(word),), sim) for word, sim in self._expand_word(text))
        return alts

    def _weigh(self, raw_alts: list[_Alt]) -> _Concept:
        """The concept of the ``raw_alts`` whose terms are all indexed, weighing its best exact
        alternative's idf (of its most common term; a quarter when generic); weight 0 for none."""
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
        weight = self._idf_by_df[min(his[i] for i in primary)]
        if max(los[i] for i in primary) / max(self._n, 1) > _GENERIC_DF:
            weight *= _GENERIC_FACTOR
        return _Concept(weight, tuple(found))

    def _alternative(self, terms: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Posts having all ``terms``: ``(doc numbers ascending, smallest field value)``, by binary
        search of the shortest posting's posts in the others."""
        if len(terms) == 1:
            return self._posting(terms[0])
        postings = sorted((self._posting(t) for t in terms), key=lambda p: len(p[0]))
        ids, vals = postings[0]
        for ids2, vals2 in postings[1:]:
            if not len(ids) or not len(ids2):
                return ids[:0], vals[:0]
            pos = np.searchsorted(ids2, ids)
            np.minimum(pos, len(ids2) - 1, out=pos)
            found = ids2[pos] == ids
            ids, vals = ids[found], np.minimum(vals[found], vals2[pos[found]])
        return ids, vals

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
            if link is not None:
                if link.status != "post" or link.post_id is None:
                    return SearchResult(query, None, (), None, 0, offset, link)
                hit = PostMatch(link.post_id, 100.0, "link", self._catalog.tracks_of(link.post_id), 1.0)
                return SearchResult(query, None, (hit,) if offset == 0 else (), None, 1, offset, link, "confident")
        text = query[: MAX_QUERY_CHARS * 4]
        has_link = "://" in text or "<" in text
        if has_link:  # a link inside a sentence is not a topic: drop it
            text = _URL_RE.sub(" ", clean(text))
        norm = normalize(text)[:MAX_QUERY_CHARS]
        if not norm:
            return SearchResult(query, None, (), HINT_EMPTY)
        # match_track reads the query as typed, which is `text` unless a link was dropped.
        track = self.match_track(query) if has_link else self._match_track(norm)
        answer_key = self._answer_key(norm)
        norm = self._rewrite(norm)  # "decoding faster" is read as "speculative decoding"
        units = self._units(norm)
        track = track or self._track_in(units)
        ranked, extra, concepts = self._rank(norm, offset + limit + 1, units)
        ranked = self._answered_first(answer_key, ranked)
        confidence = _confidence(ranked[0][3]) if ranked else "none"
        if confidence == "none":
            return SearchResult(query, track, (), None)
        if not self._names_topic(track) and (known := self._lopsided(units, concepts, ranked[0][1])) is not None:
            return SearchResult(query, track, (), None, known=known)
        floor = max(MIN_SCORE, RELATIVE_FLOOR * ranked[0][0])
        good = [r for r in ranked if r[0] >= floor - 1e-9]
        page = good[offset : offset + limit]
        matches = tuple(
            PostMatch(
                self._post_ids[doc], round(score, 1), field, self._catalog.tracks_of(self._post_ids[doc]), round(cov, 3)
            )
            for score, doc, field, cov in page
        )
        return SearchResult(query, track, matches, None, min(MAX_TOTAL, len(good) + extra), offset, None, confidence)

    def _answered_first(self, answer_key: tuple[str, ...], ranked: list[_Ranked]) -> list[_Ranked]:
        """``ranked`` with the posts whose ``answers.yaml`` lists the query as a phrase first, at
        score 100 and coverage 1."""
        if not (docs := self._answer_keys.get(answer_key, ())):
            return ranked
        first = [(100.0, doc, "answers", 1.0) for doc in docs]
        return first + [r for r in ranked if r[1] not in docs]

    def _names_topic(self, track: TrackMatch | None) -> bool:
        """Whether the query names a track, or holds a track name of two words or more (``模型量化``,
        not the one word ``router`` of ``router keeps disconnecting wifi``)."""
        if track is None or track.score > CONTAINED_SCORE:
            return track is not None
        return len(self._canon_keys(self._units(normalize(track.matched)))) >= 2

    @cached_property
    def _everyday(self) -> frozenset[str]:
        """The vocabulary's ``everyday_words`` as the index holds them (stems; Chinese words as written)."""
        return frozenset({stem(w) for w in self._vocab.everyday_words} | self._vocab.everyday_words)

    def _lopsided(self, units: list[_Unit], concepts: list[_Concept], doc: int) -> str | None:
        """For a query with a word no post holds whose best post ``doc`` holds none of its concepts
        at :data:`STRONG_VALUE` but everyday words: the query's words that post holds ("" for none);
        else ``None`` (an answer). A lone Chinese character ending the query, its object, is such a
        word (狗 of 怎么训练我的狗; not 用 of 怎么用vllm部署模型)."""
        last = units[-1] if units else None
        lone_han = (
            last is not None and last.kind == "cjkchunk" and len(last.text) == 1 and last.text not in self._ignorable
        )
        if all(c.alternatives for c in concepts) and not lone_han:
            return None
        held: set[str] = set()
        for concept in concepts:
            for terms, sim in concept.alternatives:  # a typo's correction counts at its similarity
                ids, vals = self._alternative(terms)
                at = int(np.searchsorted(ids, doc))
                if at < len(ids) and ids[at] == doc and vals[at] * sim >= STRONG_VALUE:
                    if not set(concept.alternatives[0][0]) <= self._everyday:
                        return None
                    held.update(t for alt in concept.alternatives for t in alt[0])
                    break
        return " ".join(
            u.text for u in units if stem(u.text) in held or (u.kind != "latin" and set(_bigrams(u.text)) <= held)
        )

    def _rank(self, norm: str, need: int, units: list[_Unit]) -> tuple[list[_Ranked], int, list[_Concept]]:
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
        low = w_fuzzy * 100.0 * np.minimum(1.0, 0.85 * coverage) + ranked_part
        high = w_fuzzy * 100.0 * np.minimum(1.0, 0.85 * coverage + 0.15 * (coverage > 0)) + ranked_part
        floor = max(MIN_SCORE, RELATIVE_FLOOR * float(low.max()))  # the real floor is at least this
        hits = np.flatnonzero(high >= floor - 1e-9)
        if not len(hits):
            return [], 0, concepts
        keep = max(_CANDIDATES, need)
        rest = np.empty(0, dtype=np.int64)
        if len(hits) > keep:
            order = np.argpartition(-(high[hits] + self._recency[hits]), keep - 1)
            hits, rest = hits[order[:keep]], hits[order[keep:]]
        out = self._rescore(norm, hits, coverage, best_field, low, w_fuzzy)
        # Posts past the re-scored ones that are good matches whatever their similarity.
        extra = 0
        if len(rest) and out:
            extra = int(np.count_nonzero(low[rest] >= max(MIN_SCORE, RELATIVE_FLOOR * out[0][0])))
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
    ) -> list[_Ranked]:
        """The candidates ``hits`` with the rapidfuzz similarity added, best first (at least
        :data:`MIN_SCORE`, at most :data:`MAX_TOTAL`); among equal rounded scores, a title starting
        with the query, then the higher exact score, then the newer."""
        parts = _PARTS_RE.findall(norm)
        latin = " ".join(w for c, w in parts if w)[:SIMILARITY_CHARS]
        cjk = " ".join(c for c, w in parts if c)[:SIMILARITY_CHARS]
        hit_docs, hit_cov = hits.tolist(), coverage[hits].tolist()
        similarity = self._similarities([d for d, c in zip(hit_docs, hit_cov, strict=True) if c > 0], latin, cjk)
        ranked = []
        for doc, cov, lo, rec in zip(hit_docs, hit_cov, low[hits].tolist(), self._recency[hits].tolist(), strict=True):
            score = lo
            if cov > 0:
                fuzzy = min(100.0, 100.0 * (0.85 * cov + 0.15 * similarity[doc] / 100.0))
                score += w_fuzzy * (fuzzy - min(100.0, 85.0 * cov))
            if score >= MIN_SCORE:
                names_it = bool(latin) and self._titles[doc].startswith(latin)
                ranked.append((-round(score, 1), -names_it, -score, -rec, doc, cov))
        ranked.sort()
        fields = dict(zip(hit_docs, best_field[hits].tolist(), strict=True))
        return [(-r[0], r[4], field_of(fields[r[4]]) if r[5] > 0 else "answers", r[5]) for r in ranked[:MAX_TOTAL]]

    def _bm25(self, norm: str, units: list[_Unit]) -> np.ndarray | None:
        """BM25 of every post (0..1, divided by the best) for the query and its synonym groups;
        ``None`` when no query token is indexed."""
        tokens = self._ranked.query_tokens(norm)
        for gid in sorted({u.group for u in units if u.group is not None}):
            tokens.extend(self._group_tokens[gid])
        raw = self._ranked.scores(tokens, self._counts)
        top = 0.0 if raw is None else float(raw.max())
        return raw / top if raw is not None and top > 0 else None

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
