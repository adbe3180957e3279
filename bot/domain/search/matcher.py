"""Track matching and post search (:class:`Matcher`); see :mod:`bot.domain.search` for the design."""

from __future__ import annotations

import re
from functools import cached_property

import numpy as np
from rapidfuzz import fuzz, process

from bot.domain.search.analysis import _PARTS_RE, _bigrams, _Concept, _Unit, normalize, one_han_apart, stem
from bot.domain.search.index import (
    _GENERIC_DF,
    _GENERIC_FACTOR,
    _SIM_SYNONYM,
    AMBIGUITY_MARGIN,
    HINT_EMPTY,
    MAX_CONCEPTS,
    MAX_FUZZY_WORDS,
    MAX_QUERY_CHARS,
    MAX_RAW_CONCEPTS,
    MIN_SCORE,
    SHORT_QUERY_CHARS,
    SIMILARITY_CHARS,
    TRACK_THRESHOLD,
    TYPO_HAN_SCORE,
    Index,
    _field_of,
)
from bot.domain.search.results import Confidence, LinkResult, PostMatch, SearchResult, TrackMatch
from bot.domain.text import clean, has_han

__all__ = ["CLOSEST_COVERAGE", "CONFIDENT_COVERAGE", "FUZZY_WEIGHT", "MAX_TOTAL", "RELATIVE_FLOOR", "SUGGEST_CUTOFF", "SUGGEST_MIN_CHARS", "Matcher"]

FUZZY_WEIGHT = 0.6
"""The fuzzy (coverage) score's share of the fused score; BM25 has the rest."""

RELATIVE_FLOOR = 0.6
"""A post is a good match only when it scores at least this share of the best post's score: the
results stop where the matches stop."""

CONFIDENT_COVERAGE = 0.6
"""A search is ``confident`` when its best post covers at least this weighted share (0..1) of the
query's concepts (:attr:`PostMatch.coverage`). Calibrated with ``benchmarks/relevance.py`` on the
dev sets and ``tests/data/offtopic-dev.tsv``: off-topic questions reach about 0.5 on one shared
common word (``improve``, ``best``), on-topic questions at least about 0.55."""

CLOSEST_COVERAGE = 0.35
"""Below this coverage (0..1) a search has no match (``confidence="none"``, no results): a post
sharing one common word with a longer question is not an answer. Between it and
:data:`CONFIDENT_COVERAGE` the posts are shown as the closest ones."""

MAX_TOTAL = 100
"""At most this many good matches are counted and paged through."""

_CANDIDATES = 40
"""At most this many posts (the best by their score without similarity) are re-scored with
rapidfuzz; more when a later page is asked for."""

SUGGEST_MIN_CHARS = 2
"""A did-you-mean track needs a query of at least this many letters, unless it is an alias."""

SUGGEST_CUTOFF = 75.0
"""The word-by-word ``fuzz.ratio`` score a did-you-mean track name needs (0..100; see
:meth:`Matcher.suggest_track`)."""

_MAX_URL_CHARS = 2000
_URL_RE = re.compile(r"\b[a-z][a-z0-9+.-]*://\S*", re.IGNORECASE)


def _confidence(coverage: float) -> Confidence:
    """The confidence of a search whose best post covers ``coverage`` (0..1) of the query."""
    if coverage >= CONFIDENT_COVERAGE - 1e-9:
        return "confident"
    return "closest" if coverage >= CLOSEST_COVERAGE - 1e-9 else "none"


class Matcher(Index):
    """Track matching and post search over one catalog version.

    ``Matcher(catalog)`` builds the index with the app's shipped vocabulary;
    ``Matcher(catalog, vocabulary)`` with another (:func:`bot.domain.search.load_vocabulary` of the
    catalog folder). Building takes tens of milliseconds for a hundred posts, about a second for ten
    thousand; afterwards the matcher never changes and may be shared between threads.
    """

    _names_folded: dict[str, str] | None = None

    def track_by_name(self, key: str) -> str | None:
        """The track whose id, English or Chinese name or alias is ``key`` (case-folded, as
        :func:`bot.domain.search.track_named` compares), else ``None``; the table is built on first use
        (a track listed earlier wins a name two tracks share)."""
        table = self._names_folded
        if table is None:
            table = {}
            for track in self._catalog.tracks:
                for name in (track.id, track.names.en, track.names.zh or "", *track.aliases):
                    table.setdefault(name.casefold(), track.id)
            table.pop("", None)
            self._names_folded = table
        return table.get(key)

    def match_track(self, query: str) -> TrackMatch | None:
        """The track the query names, or ``None``.

        Scores (0..100): 100 when the normalized query equals a track's id, English or Chinese name
        or alias (spaces ignored: ``pd分离`` = ``PD 分离``); 95 when equal after vocabulary
        canonicalisation and stemming (``disaggregated`` = ``disaggregation``, ``model
        quantization`` = ``模型量化``); 90 when it is one track's Chinese name with one character
        mistyped (``推侧解码``, :func:`~bot.domain.search.analysis.one_han_apart`); 60-95 when every word
        of the query is a word of one name, rising with the share of the name covered (a word found
        in over half the posts, such as ``vllm``, weighs the share of posts without it, at least a
        quarter, and cannot name a track alone); such a partial match is dropped when another
        track scores within :data:`AMBIGUITY_MARGIN`. A typo-corrected query (``specualtive
        decodng``) scores times the correction's ``fuzz.ratio``/100. Below :data:`TRACK_THRESHOLD`
        there is no match. A query with a word that belongs to no single name (``eagle``, ``fp8 kv
        cache``, ``amd mi300x``) does not match, nor does one of :data:`SHORT_QUERY_CHARS` letters
        or fewer that is not exactly an id or alias (``tts``, ``kv``), nor a sentence much longer
        than any name. "Where do I start" with a topic (``where do I start with spec``, 从哪里开始学
        推测解码) is read as the topic.
        """
        return self._match_track(normalize(query[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS])

    @cached_property
    def _start_keys(self) -> list[str]:
        """The keys of "getting started" (the where-to-start group): with a topic, the topic wins."""
        return self._canon_keys(self._units("getting started"))

    def _match_track(self, norm: str) -> TrackMatch | None:
        """:meth:`match_track` of an already normalized query (at most MAX_QUERY_CHARS)."""
        if not norm or not self._track_names:
            return None
        exact = self._track_exact.get(norm) or self._track_exact.get(norm.replace(" ", ""))
        if exact:
            return TrackMatch(exact[0], 100.0, exact[1])
        if len(norm.replace(" ", "")) <= SHORT_QUERY_CHARS:
            return None  # an abbreviation names a track only when it is an id or alias (above)
        typo = {(tid, name) for tid, name, name_norm, _ in (self._track_names if has_han(norm) else ())
                if one_han_apart(norm, name_norm)}  # a Chinese name with one character off
        if len({tid for tid, _ in typo}) == 1:  # ... of one track
            tid, name = min(typo)
            return TrackMatch(tid, TYPO_HAN_SCORE, name)
        if len(norm.split()) > 2 * self._max_name_units + 2:
            return None  # a sentence, not a name
        corrected, factor = self._correct(norm)
        units = [u for u in self._units(corrected)
                 if not (u.group is None and (u.text in self._ignorable
                                              or u.text in self._vocab.track_stopwords))]
        q_canon = self._canon_keys(units)
        if len(q_canon) > len(self._start_keys) and set(self._start_keys) <= set(q_canon):
            q_canon = [k for k in q_canon if k not in self._start_keys]  # "where do i start with spec"
        if not q_canon:
            return None
        q_set = set(q_canon)
        per_track: dict[str, tuple[float, str, bool]] = {}  # track -> (score, name, whole name)
        q_tuple = tuple(q_canon)
        for (tid, name, _, canon), canon_set in zip(self._track_names, self._track_name_sets,
                                                    strict=True):
            if not canon:
                continue
            if q_tuple == canon:
                score, whole = 95.0, True
            else:
                if not q_set <= canon_set:
                    continue
                weights = {k: self._key_weight(k) for k in canon}
                if max(weights[k] for k in q_set) < 0.5:
                    continue  # only generic words ("vllm") in common
                covered = sum(weights[k] for k in q_set)
                score = 60.0 + 35.0 * covered / sum(weights[k] for k in set(canon))
                whole = False
            score = round(score * factor, 1)
            if score > per_track.get(tid, (0.0, "", False))[0]:
                per_track[tid] = (score, name, whole)
        ranked = sorted(per_track.items(), key=lambda kv: -kv[1][0])
        if not ranked or ranked[0][1][0] < TRACK_THRESHOLD:
            return None
        tid, (score, name, whole) = ranked[0]
        if not whole and len(ranked) > 1 and ranked[1][1][0] >= score - AMBIGUITY_MARGIN:
            return None  # a partial name of two tracks ("serving") names neither
        return TrackMatch(tid, score, name)

    def suggest_track(self, text: str) -> TrackMatch | None:
        """A did-you-mean track for text that matched nothing, or ``None``.

        Needs a real signal: a query of fewer than :data:`SUGGEST_MIN_CHARS` letters (``v``,
        ``a``, ``推``) gets a suggestion only when it is exactly a track's id or alias; stop and
        question words are left out first (``the`` alone suggests nothing). Otherwise every word
        left must be close to a word of one track name (id, English or Chinese name, alias):
        a name's score is the mean, over the query's words, of ``rapidfuzz.fuzz.ratio`` with the
        closest word of the name (after :func:`normalize`), and the best name needs at least
        :data:`SUGGEST_CUTOFF`. Word by word, not by partial alignment, so a word that merely
        contains a short alias (``world`` holds ``rl``) or a junk word beside a near one
        (``frobnicate widgets``) suggests nothing; two tracks equally close (``serving``) suggest
        neither. ``score`` is that 0..100 score, ``matched`` the name it matched.
        """
        norm = normalize(text[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS]
        if not norm:
            return None
        exact = self._track_exact.get(norm) or self._track_exact.get(norm.replace(" ", ""))
        if exact:
            return TrackMatch(exact[0], 100.0, exact[1])
        # stop and question words carry no topic: "the" or "how do i" suggests nothing
        words = [w for w in norm.split() if w not in self._ignorable]
        if len("".join(words)) < SUGGEST_MIN_CHARS:
            return None
        # track -> (score, -words in the name, name): at equal scores the shorter name is the
        # closer one ("agentc" is the alias "agentic" more than the RL alias "agentic rl")
        best: dict[str, tuple[float, int, str]] = {}
        for tid, name, name_norm, _ in self._track_names:
            name_words = name_norm.split()
            score = sum(max(fuzz.ratio(w, n) for n in name_words) for w in words) / len(words)
            if len(words) > 1:  # a typo that splits or joins words: the whole text against the name
                score = max(score, fuzz.ratio("".join(words), name_norm.replace(" ", "")))
            ranked_name = (score, -len(name_words), name)
            if tid not in best or ranked_name[:2] > best[tid][:2]:
                best[tid] = ranked_name
        ranked = sorted(best.items(), key=lambda kv: kv[1][:2], reverse=True)
        if not ranked or ranked[0][1][0] < SUGGEST_CUTOFF:
            return None
        tid, (score, size, name) = ranked[0]
        if len(ranked) > 1 and ranked[1][1][:2] >= (score, size):
            return None  # as close to another track: a guess would be a coin toss
        return TrackMatch(tid, round(score, 1), name)

    # --- post search ----------------------------------------------------------------------------

    def _concepts(self, units: list[_Unit]) -> list[_Concept]:
        """The query's concepts with their alternatives and weights (see the module docstring);
        ``units`` are the normalized query's (:meth:`_units`)."""
        content = [i for i, u in enumerate(units) if u.group is not None or u.text not in self._ignorable]
        if not content:
            return []  # only stop and question words: nothing to search for
        content_set = set(content)
        raw: list[list[tuple[tuple[str, ...], float]]] = []
        fuzzy_budget = MAX_FUZZY_WORDS
        for i, unit in enumerate(units):
            if i not in content_set:
                continue
            group_alts = ([(terms, _SIM_SYNONYM) for terms in self._group_terms[unit.group]]
                          if unit.group is not None else [])
            if unit.kind == "latin":
                alts: list[tuple[tuple[str, ...], float]] = []
                if len(unit.text) >= 2:
                    alts.append(((stem(unit.text),), 1.0))
                for j in (i - 1, i + 1):
                    if 0 <= j < len(units) and units[j].kind == "latin":
                        pair = unit.text + units[j].text if j > i else units[j].text + unit.text
                        alts.append(((stem(pair),), 1.0))
                if len(unit.text) >= 4 and unit.text not in self._surface and fuzzy_budget > 0:
                    fuzzy_budget -= 1
                    alts.extend(((stem(word),), sim) for word, sim in self._expand_word(unit.text))
                raw.append(alts + group_alts)
            elif unit.kind == "cjkword":
                raw.append([(tuple(_bigrams(unit.text)), 1.0)] + group_alts)
            elif len(unit.text) >= 2 or len(units) == 1:  # left-over CJK: one concept per bigram
                raw.extend([((bg,), 1.0)] for bg in _bigrams(unit.text))
            if len(raw) >= MAX_RAW_CONCEPTS:
                break
        concepts: list[_Concept] = []
        pending: list[int] = []
        present: list[float] = []
        dfs, idf_by_df = self._df_of, self._idf_by_df
        seen: dict[tuple[tuple[tuple[str, ...], float], ...], _Concept] = {}
        for raw_alts in raw[:MAX_RAW_CONCEPTS]:
            key = tuple(raw_alts)
            concept = seen.get(key)  # a pasted text repeats its words
            if concept is None:
                found: list[tuple[tuple[str, ...], float]] = []
                his: list[int] = []  # per alternative found: the df of its most common term ...
                los: list[int] = []  # ... and of its rarest
                for alt in dict.fromkeys(raw_alts):
                    terms = alt[0]
                    if len(terms) == 1:
                        hi = lo = dfs.get(terms[0], -1)
                        if hi < 0:
                            continue
                    else:
                        ds = [dfs.get(t, -1) for t in terms]
                        hi, lo = max(ds), min(ds)
                        if lo < 0:
                            continue  # a term found nowhere
                    found.append(alt)
                    his.append(hi)
                    los.append(lo)
                if found:
                    primary = [i for i, alt in enumerate(found) if alt[1] >= 1.0] \
                        or range(len(found))
                    # All terms of an alternative must match: its idf is its most common term's
                    # (idf falls with df); the concept weighs its best primary alternative.
                    weight = idf_by_df[min(his[i] for i in primary)]
                    df = max(los[i] for i in primary)
                    if df / max(self._n, 1) > _GENERIC_DF:
                        weight *= _GENERIC_FACTOR
                    concept = _Concept(weight, tuple(found))
                else:
                    concept = _Concept(0.0, ())
                seen[key] = concept
            if not concept.alternatives:
                pending.append(len(concepts))
            else:
                present.append(concept.weight)
            concepts.append(concept)
        if not present:
            return []
        missing = sorted(present)[len(present) // 2]  # a word found nowhere weighs a median concept
        concepts = [c if c.alternatives else _Concept(missing, ()) for c in concepts]
        if len(concepts) > MAX_CONCEPTS:  # a long query: keep its rarest (most telling) words
            concepts = sorted(concepts, key=lambda c: -c.weight)[:MAX_CONCEPTS]
        return concepts

    def _alternative(self, terms: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Posts having all ``terms``: ``(doc numbers ascending, smallest field value)``.

        Starts from the shortest posting list and looks each of its posts up in the others
        (binary search: the lists are sorted), so a rare term bounds the work."""
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
        """What the URL in ``text`` points to, or ``None`` when ``text`` is not one URL (see
        :mod:`bot.domain.search.links`): ``status`` ``post`` (with ``post_id``), ``unknown`` (a blog or
        summary host, but no catalog post: not in the catalog yet) or ``foreign``."""
        return self._links.resolve(text[:_MAX_URL_CHARS])

    def search(self, query: str, limit: int = 5, offset: int = 0) -> SearchResult:
        """Rank posts for ``query`` (see :mod:`bot.domain.search` for the scoring).

        Returns the good matches ``offset .. offset + limit`` (``limit`` clamped to 1..50,
        ``offset`` to 0..:data:`MAX_TOTAL`), best first, with ``total`` (how many good matches
        there are, at most :data:`MAX_TOTAL`) and the track the query names
        (:meth:`match_track`). A good match scores at least :data:`MIN_SCORE` and at least
        :data:`RELATIVE_FLOOR` × the best post's score. A query that is one URL is resolved
        (:meth:`resolve_link`): a catalog post's URL gives that post alone (score 100,
        ``matched="link"``); an unknown post on a blog host, or a URL elsewhere, gives no posts and
        ``link`` says which. An empty query or one of only punctuation, symbols or emoji gives no
        results and ``hint`` = :data:`HINT_EMPTY`; a query that matches nothing gives no results
        and no hint.
        """
        limit = max(1, min(int(limit), 50))
        offset = max(0, min(int(offset), MAX_TOTAL))
        if "." in query and len(query) <= _MAX_URL_CHARS:
            link = self.resolve_link(query)
            if link is not None:
                if link.status != "post" or link.post_id is None:
                    return SearchResult(query, None, (), None, 0, offset, link)
                hit = PostMatch(link.post_id, 100.0, "link", self._catalog.tracks_of(link.post_id),
                                1.0)
                return SearchResult(query, None, (hit,) if offset == 0 else (), None, 1, offset,
                                    link, "confident")
        text = query[: MAX_QUERY_CHARS * 4]
        has_link = "://" in text or "<" in text
        if has_link:  # a link inside a sentence is not a topic: drop it
            text = _URL_RE.sub(" ", clean(text))
        norm = normalize(text)[:MAX_QUERY_CHARS]
        if not norm:
            return SearchResult(query, None, (), HINT_EMPTY)
        # match_track reads the query as typed, which is `text` unless a link was dropped.
        track = self.match_track(query) if has_link else self._match_track(norm)
        units = self._units(norm)
        track = track or self._track_in(units)
        ranked, extra = self._rank(norm, offset + limit + 1, units)
        ranked = self._answered_first(norm, ranked)
        confidence = _confidence(ranked[0][3]) if ranked else "none"
        if confidence == "none":
            return SearchResult(query, track, (), None)
        floor = max(MIN_SCORE, RELATIVE_FLOOR * ranked[0][0])
        good = [r for r in ranked if r[0] >= floor - 1e-9]
        page = good[offset:offset + limit]
        matches = tuple(PostMatch(self._post_ids[doc], round(score, 1), field,
                                  self._catalog.tracks_of(self._post_ids[doc]), round(cov, 3))
                        for score, doc, field, cov in page)
        return SearchResult(query, track, matches, None, min(MAX_TOTAL, len(good) + extra), offset,
                            None, confidence)

    def _answered_first(self, norm: str, ranked: list[tuple[float, int, str, float]]
                        ) -> list[tuple[float, int, str, float]]:
        """``ranked`` with the posts whose ``answers.yaml`` lists the query itself as a phrase
        (:meth:`_answer_key`) first, at score 100 and coverage 1 (``what is vllm`` → the post that
        introduced vLLM); unchanged when no post lists it."""
        docs = self._answer_keys.get(self._answer_key(norm), ())
        if not docs:
            return ranked
        first = [(100.0, doc, "answers", 1.0) for doc in docs]
        return first + [r for r in ranked if r[1] not in docs]

    def _rank(self, norm: str, need: int = 0, units: list[_Unit] | None = None
              ) -> tuple[list[tuple[float, int, str, float]], int]:
        """``([(fused score 0..100, doc, matched field)], extra)``: the re-scored candidates
        (at least ``need`` of them when there are), best first, and how many further posts are
        good matches (counted, not ranked). ``units``: ``norm``'s, when already split."""
        units = self._units(norm) if units is None else units
        concepts = self._concepts(units)
        total = sum(c.weight for c in concepts)
        if self._n == 0:
            return [], 0
        scores = np.zeros(self._n, dtype=np.float64)
        best_part = np.zeros(self._n, dtype=np.float32)   # the largest concept contribution ...
        best_field = np.zeros(self._n, dtype=np.float32)  # ... and the field value it came from
        alternatives: dict[tuple[str, ...], tuple[np.ndarray, np.ndarray]] = {}
        dense_from = self._n // 8  # a concept touching more posts is merged with whole-array ops
        for concept in concepts:
            if not concept.alternatives or concept.weight < 0.01 * total:
                continue  # found nowhere, or too common to move a score by a point
            value = np.zeros(self._n, dtype=np.float32)  # the concept's best alternative per post
            field = np.zeros(self._n, dtype=np.float32)  # ... and its field value
            changed: list[np.ndarray] = []
            for terms, sim in concept.alternatives:
                posting = alternatives.get(terms)
                if posting is None:  # a synonym group's alternatives recur in each of its words
                    posting = alternatives[terms] = self._alternative(terms)
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
                continue
            touched = changed[0] if len(changed) == 1 else np.concatenate(changed)
            if len(touched) > dense_from:
                part = value * np.float32(concept.weight)
                scores += part
                upd = part > best_part
                np.copyto(best_field, field, where=upd)
                np.copyto(best_part, part, where=upd)
                continue
            # Only the posts this concept touched change. (A post may be listed twice; the
            # fancy-indexed updates write the same value for it twice.)
            part = value[touched] * np.float32(concept.weight)
            scores[touched] += part
            better = part > best_part[touched]
            best_part[touched[better]] = part[better]
            best_field[touched[better]] = field[touched[better]]
        coverage = scores / total if total > 0 else scores
        bm25 = self._bm25(norm, units)
        w_fuzzy = FUZZY_WEIGHT if bm25 is not None else 1.0
        ranked_part = (1.0 - w_fuzzy) * 100.0 * bm25 if bm25 is not None else 0.0
        # Bounds of the fused score before the similarity is known (it adds 0..15 fuzzy points).
        low = w_fuzzy * 100.0 * np.minimum(1.0, 0.85 * coverage) + ranked_part
        high = w_fuzzy * 100.0 * np.minimum(1.0, 0.85 * coverage + 0.15 * (coverage > 0)) \
            + ranked_part
        best_low = float(low.max())
        floor = max(MIN_SCORE, RELATIVE_FLOOR * best_low)  # the real floor is at least this
        hits = np.flatnonzero(high >= floor - 1e-9)
        if not len(hits):
            return [], 0
        keep = max(_CANDIDATES, need)
        rest = np.empty(0, dtype=np.int64)
        if len(hits) > keep:
            order = np.argpartition(-(high[hits] + self._recency[hits]), keep - 1)
            hits, rest = hits[order[:keep]], hits[order[keep:]]
        parts = _PARTS_RE.findall(norm)
        latin = " ".join(w for c, w in parts if w)[:SIMILARITY_CHARS]
        cjk = " ".join(c for c, w in parts if c)[:SIMILARITY_CHARS]
        ranked = []
        hit_docs, hit_cov = hits.tolist(), coverage[hits].tolist()
        hit_recency = self._recency[hits].tolist()
        similarity = self._similarities([d for d, c in zip(hit_docs, hit_cov, strict=True) if c > 0],
                                        latin, cjk)
        fields = dict(zip(hit_docs, zip(hit_cov, best_field[hits].tolist(), strict=True),
                          strict=True))
        for doc, cov, lo, rec in zip(hit_docs, hit_cov, low[hits].tolist(), hit_recency,
                                     strict=True):
            score = lo
            if cov > 0:
                fuzzy = min(100.0, 100.0 * (0.85 * cov + 0.15 * similarity[doc] / 100.0))
                score += w_fuzzy * (fuzzy - min(100.0, 85.0 * cov))
            if score < MIN_SCORE:
                continue
            # Among equal scores, a post whose title starts with the query is the one it names
            # ("p-eagle" -> "P-EAGLE: …" before a post that mentions P-EAGLE); then the newer.
            names_it = bool(latin) and self._titles[doc].startswith(latin)
            ranked.append((-round(score, 1), -names_it, -score, -rec, doc))
        ranked.sort()
        out = [(-r[0], r[4], _field_of(fields[r[4]][1]) if fields[r[4]][0] > 0 else "answers",
                fields[r[4]][0]) for r in ranked[:MAX_TOTAL]]
        # Posts past the re-scored ones that are good matches whatever their similarity.
        extra = 0
        if len(rest) and out:
            extra = int(np.count_nonzero(low[rest] >= max(MIN_SCORE, RELATIVE_FLOOR * out[0][0])))
        return out, extra

    def _bm25(self, norm: str, units: list[_Unit]) -> np.ndarray | None:
        """BM25 of every post (0..1, divided by the best) for the query and its synonym groups'
        terms (``units``: the query's, :meth:`_units`); ``None`` when no query token is indexed."""
        tokens = self._ranked.query_tokens(norm)
        groups = {u.group for u in units if u.group is not None}
        for gid in sorted(groups):
            tokens.extend(self._group_tokens[gid])
        raw = self._ranked.scores(tokens, self._counts)
        if raw is None:
            return None
        top = float(raw.max())
        if top <= 0:
            return None
        return raw / top

    def _similarities(self, docs: list[int], latin: str, cjk: str) -> dict[int, float]:
        """Per post of ``docs``: rapidfuzz ``partial_ratio`` (0..100) of the query's Latin words
        against the title and of its Chinese against the post's Chinese text (title, tags,
        summary), averaged when it has both (0 for a Latin part under 3 letters or a Chinese one
        under 2). One ``process.cdist`` call per part (the same scores as one call per post)."""
        parts: list[list[float]] = []
        for text, texts, shortest in ((latin, self._titles, 3), (cjk, self._zh_texts, 2)):
            if not text:
                continue
            if len(text) < shortest or not docs:
                parts.append([0.0] * len(docs))
            else:
                parts.append(process.cdist([text], [texts[d] for d in docs], scorer=fuzz.partial_ratio,
                                           processor=None, dtype=np.float64)[0].tolist())
        if not parts:
            return dict.fromkeys(docs, 0.0)
        return {d: sum(p[i] for p in parts) / len(parts) for i, d in enumerate(docs)}
