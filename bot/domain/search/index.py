"""The search index over one catalog version (:class:`Index`, the base of
:class:`bot.domain.search.Matcher`; design in :mod:`bot.domain.search`)."""

from __future__ import annotations

import functools
import math
import re
from typing import TYPE_CHECKING, Any, NamedTuple, Self

import numpy as np

from bot.domain.search.analysis import (
    _CJK,
    _PARTS_RE,
    PhraseFinder,
    _bigrams,
    _cjk_segment,
    _member_terms,
    _normalize_text,
    _parts,
    _text_terms,
    _Unit,
    _unit_key,
    english_words,
    normalize,
    stem,
)
from bot.domain.search.fields import BIT_TITLE, FIELD_BITS, FIELD_WEIGHTS, MASK_VALUES, PairPostings, pair_postings
from bot.domain.search.han_typos import HanTypos
from bot.domain.search.links import LinkIndex
from bot.domain.search.paraphrase import read_in_context
from bot.domain.search.ranking import Postings, RankedIndex, ignorable_terms
from bot.domain.search.segment import Segmenter
from bot.domain.search.spelling import Speller
from bot.domain.search.subject import compound_parts, title_terms
from bot.domain.search.vocabulary import Sense, Vocabulary, default_vocabulary
from bot.domain.text import has_han

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.compiled import Catalog

_GENERIC_DF = 0.5  # a term in more than half the posts is generic ...
_GENERIC_FACTOR = 0.25  # ... and its concept weighs a quarter


_CJK_RUN_RE = re.compile(rf"[{_CJK}]+")
"""A run of Chinese (CJK) characters in normalized text."""


class _Phrase(NamedTuple):
    """What a run of query words that is a glossary or synonym form is: its synonym group (``None``
    for a term of one form), its sense, the track that teaches it."""

    group: int | None
    sense: Sense
    track: str | None


class Index:
    """The read-only index of one catalog version; ``vocabulary`` defaults to the shipped one
    (:func:`bot.domain.search.vocabulary.default_vocabulary`)."""

    def __init__(self, catalog: Catalog, vocabulary: Vocabulary | None = None) -> None:
        self._vocab = vocab = vocabulary if vocabulary is not None else default_vocabulary()
        self._ignorable = vocab.ignorable
        self._other_names = vocab.other_names
        self._catalog = catalog
        posts = catalog.posts
        self._n = len(posts)
        self._post_ids: tuple[str, ...] = tuple(p.id for p in posts)
        self._doc_index = {pid: i for i, pid in enumerate(self._post_ids)}
        self._titles = tuple(_normalize_text(p.title) for p in posts)
        self._title_terms = title_terms([p.title for p in posts])  # subject.py: what a title is about
        self._linked = tuple(p.url is not None for p in posts)
        ignorable = vocab.ignorable
        # Titles' stems without stop words, padded (" extract hidden state vllm "), and every post's
        # tags and aliases as normalized text: the catalog's own names (TopicIndex._names_a_post).
        self._title_words = tuple(
            f" {' '.join(stem(w) for w in t.split() if w not in ignorable)} " for t in self._titles
        )
        self._tag_names = frozenset(normalize(n) for p in posts for n in (*p.tags, *p.aliases)) - {""}
        # Newer first on ties: a tiny bonus (< 1e-6 of a score point) by publication rank.
        order = sorted(range(self._n), key=lambda i: (posts[i].published.latest, posts[i].id))
        recency = np.zeros(self._n, dtype=np.float64)
        recency[order] = np.arange(1, self._n + 1) / (self._n + 1)
        self._recency = recency * 1e-9
        self._build_vocabulary(catalog)
        self._build_index(catalog)
        self._build_tracks(catalog)
        # BM25 reads a synonym group as its canonical form (typed in Chinese: and its first Chinese
        # form, so 快取 and 缓存 rank alike); not every form: abbreviations and rare names would
        # crowd the query's own words out of the rarest terms scored. The canonical form's joins of
        # a question word (``firsttoken`` of ``time to first token``: "first" alone is no token) are
        # read too: without them a TTFT question ranks by "time" and "token" anywhere.
        loose = vocab.question_words
        self._group_tokens = [
            list(dict.fromkeys([*self._ranked.query_tokens(g[0]), *_member_terms(g[0], loose)]))
            if loose.intersection(w for _, w in _parts(g[0]))
            else self._ranked.query_tokens(g[0])
            for g in vocab.synonyms
        ]
        self._group_zh_tokens = [
            self._ranked.query_tokens(next((m for m in group if not m.isascii()), "")) for group in vocab.synonyms
        ]
        # Each group's first abbreviation, for a question that is one Chinese form alone (首字延迟高 as
        # ``ttft``: fit.FitIndex._chinese_subject).
        abbr_of = {t.forms: t.abbr[0] for t in vocab.glossary if t.abbr}
        self._group_abbr_tokens = [self._ranked.query_tokens(abbr_of.get(group, "")) for group in vocab.synonyms]
        self._links = LinkIndex(catalog, vocab)
        self._answer_keys = self._build_answer_keys()
        self._problems = {normalize(p): normalize(t) for p, t in vocab.problems if normalize(p)}
        # a phrase is a whole Latin word run; Chinese has no spaces, so inside a CJK run too
        self._problem_finder = PhraseFinder(self._problems)
        self._freeze()

    def _freeze(self) -> None:
        """Make the arrays read-only (safe to share between threads)."""
        arrays: list[np.ndarray] = [self._flat_docs, self._flat_vals, self._recency]
        arrays.extend(a for pair in self._merged.values() for a in pair)
        for array in arrays:
            array.flags.writeable = False

    _TRANSIENT = ("_catalog", "_vocab")
    """What :meth:`__getstate__` leaves out: the catalog and vocabulary it was built from (given back
    to :meth:`restore`)."""

    def __getstate__(self) -> dict[str, Any]:
        """The built index without the catalog and vocabulary (:mod:`bot.domain.search.cache`)."""
        return {k: v for k, v in self.__dict__.items() if k not in self._TRANSIENT}

    @classmethod
    def restore(cls, state: dict[str, Any], catalog: Catalog, vocabulary: Vocabulary) -> Self:
        """An index of ``catalog`` from the :meth:`__getstate__` of one built over the same catalog
        and ``vocabulary`` (the caller vouches for that: :func:`bot.domain.search.cache.matcher_for`)."""
        index = cls.__new__(cls)
        index.__dict__.update(state)
        index._catalog, index._vocab = catalog, vocabulary
        index._freeze()
        return index

    def _build_vocabulary(self, catalog: Catalog) -> None:
        """Synonym groups and glossary forms keyed by unit sequences (:class:`_Phrase`); the Chinese
        dictionary of catalog words (stop, question and symptom words included: 什么是推测解码 → 什么 /
        是 / 推测解码; 首字延迟太高 → 首字延迟 / 太高) and the query segmenter with it as its user dictionary."""
        vocab = self._vocab
        members = [m for group in vocab.synonyms for m in group]
        forms = [f for term in vocab.glossary for f in term.forms]
        words = (*members, *forms, *vocab.ignorable, *vocab.topic_phrases, *vocab.symptom_words)
        parts = {w: _parts(w) for w in words}
        cjk_words = {c for word_parts in parts.values() for c, _ in word_parts if c}
        self._cjk_dict = frozenset(cjk_words)
        self._cjk_max = max((len(w) for w in cjk_words), default=1)
        self._cjk_firsts = frozenset(w[0] for w in cjk_words if len(w) > 1)
        names = [n for t in catalog.tracks for n in (t.names.zh or "", *t.aliases)]
        tags = [tag for p in catalog.posts for tag in p.tags if not tag.isascii()]
        # Other things' Chinese names (量化交易, 矿卡) are cut whole: jieba's own dictionary splits them
        # into words of ours (量化 / 交易) and a lone character (矿 / 卡), and the name is not seen.
        # So are the training words (预训练 is no 预 beside 训练, nor a typo of 后训练), the words asking
        # for a piece of work (写诗, 招聘) and the running words (跑起来).
        others = {
            c
            for name in (*vocab.other_names, *vocab.training_words, *vocab.task_words, *vocab.running_words)
            for c, _ in _parts(name)
            if c
        }
        self._segmenter = Segmenter(cjk_words | others | {c for text in (*names, *tags) for c, _ in _parts(text) if c})

        def key_of(word: str) -> tuple[str, ...]:  # a vocabulary word's unit keys (its parts read once)
            norm = " ".join(c or w for c, w in parts[word])
            return tuple(_unit_key(u) for u in self._units(norm, phrases=False))

        group_of = {m.casefold(): gid for gid, group in enumerate(vocab.synonyms) for m in group}
        self._phrases: dict[tuple[str, ...], _Phrase] = {}
        self._group_terms: list[tuple[tuple[str, ...], ...]] = []
        for gid, group in enumerate(vocab.synonyms):
            for member in group:
                if key := key_of(member):
                    self._phrases.setdefault(key, _Phrase(gid, "specific", None))
            terms = (_member_terms(m, vocab.question_words) for m in group)
            self._group_terms.append(tuple(dict.fromkeys(t for t in terms if t)))
        for term in vocab.glossary:  # a glossary form's sense and track (a vocabulary group is specific)
            for form in term.forms:
                if key := key_of(form):
                    self._phrases[key] = _Phrase(group_of.get(form), term.sense_of(form), term.track)
        self._forms = frozenset(f.casefold() for f in (*members, *forms))
        self._phrase_max = max((len(k) for k in self._phrases), default=1)
        self._phrase_firsts = frozenset(k[0] for k in self._phrases)
        self._start_group = group_of.get("getting started")  # "where do i start" frames a topic question
        self._topic_keys = frozenset(k for p in vocab.topic_phrases if (k := key_of(p)))
        self._topic_max = max((len(k) for k in self._topic_keys), default=1)

    def _build_index(self, catalog: Catalog) -> None:
        """The inverted index (per term, a slice of two flat arrays: posts ascending, field values),
        the BM25 index over the same terms and the typo index, from one analysis of each text."""
        surface: set[str] = set()  # Latin words of titles, tags, ids (then track names, vocabulary)
        prose: set[str] = set()  # Latin words of summaries
        chunks = self._post_chunks(catalog, surface, prose)
        per_post = len(FIELD_BITS)  # title, tags and ids come first: the post's names
        name_terms = {t for i, chunk in enumerate(chunks) if i % per_post < 3 for t in chunk}
        pairs = pair_postings(chunks, self._n)
        self._term_index = index = pairs.index
        self._flat_docs = pairs.docs
        self._flat_vals = MASK_VALUES[pairs.masks]
        counts = np.bincount(pairs.terms, minlength=len(index))
        ends = np.cumsum(counts)
        self._starts = (ends - counts).tolist()
        self._ends = ends.tolist()
        self._counts = counts.tolist()
        self._ranked = self._build_ranked(pairs)
        self._merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}  # read by _posting meanwhile
        self._merged = self._build_track_field(catalog, surface)
        # Posts per term (0 for a term only in track names), and idf by df.
        self._df_of: dict[str, int] = dict(zip(index, self._counts, strict=True))
        for term in self._merged:
            self._df_of.setdefault(term, 0)
        n = self._n
        self._idf_by_df = [math.log(1.0 + (n - df + 0.5) / (df + 0.5)) for df in range(n + 1)]
        for member in (
            *(m for group in self._vocab.synonyms for m in group),
            *(f for t in self._vocab.glossary for f in t.forms),
        ):
            surface.update(w for c, w in _parts(member) if w)
        english = english_words()
        self._speller = Speller(surface, prose, self._other_names, self._df, stem)
        self._surface = self._speller.surface
        # Latin words of the catalog's names (titles, tags, ids, track names, the glossary) that are no
        # everyday English word (nixl, deepseek, h100): each makes a question on-topic.
        self._field_words = frozenset(w for w in surface if w not in english and not w.isdigit() and len(w) >= 2)
        name_terms.update(self._merged)  # the terms of track names
        name_terms.difference_update(stem(w) for w in surface if w in english)
        self._field_stems = frozenset(name_terms | set(map(stem, self._field_words)))
        """Index terms of the posts' names (titles, tags, ids, joins of their neighbouring words:
        ``gptoss``) and of track names that are no everyday English word's stem."""

    def _post_chunks(self, catalog: Catalog, surface: set[str], prose: set[str]) -> list[list[str]]:
        """The terms of each field of each post (as ``fields.FIELD_BITS``); collects Latin words of
        names into ``surface``, of summaries and answers into ``prose``, Chinese into ``_zh_texts``."""
        chunks: list[list[str]] = []
        zh_texts: list[str] = []
        answers_of = self._vocab.answers
        for post in catalog.posts:
            cjk_runs: list[str] = []
            chunks.append([*_text_terms(post.title, True, surface, cjk_runs), *compound_parts(post.title)])
            # Tags (and ids) are read as one text: a few harmless joins span two tags.
            chunks.append(_text_terms("\n".join(post.tags), True, surface, cjk_runs))
            chunks.append(_text_terms(" ".join((post.id, *post.aliases)), True, surface))
            chunks.append(_text_terms(post.summary.en, False, prose))
            chunks.append(_text_terms(post.summary.zh or "", False, prose, cjk_runs))
            answers = answers_of.get(post.id)
            chunks.append(_text_terms("\n".join(answers), True, prose) if answers else [])
            questions = (*post.questions.en, *post.questions.zh)
            chunks.append(_text_terms("\n".join(questions), True, prose) if questions else [])
            zh_texts.append(" ".join(cjk_runs))
        self._zh_texts = tuple(zh_texts)
        return chunks

    def _build_ranked(self, pairs: PairPostings) -> RankedIndex:
        """BM25 over the same terms, stop and question words left out, title terms counted twice."""
        index = pairs.index
        skip = np.zeros(len(index) + 1, dtype=bool)
        skip[[index[t] for t in ignorable_terms(self._vocab) if t in index]] = True
        kept = ~skip[pairs.terms]
        tf = (pairs.counts[kept] + np.where(pairs.masks[kept] & BIT_TITLE, 1.0, 0.0)).astype(np.float32)
        return RankedIndex(Postings(pairs.terms[kept], pairs.docs[kept], tf, self._n), index, self._vocab)

    def _build_track_field(self, catalog: Catalog, surface: set[str]) -> dict[str, tuple[np.ndarray, np.ndarray]]:
        """Per term of a track name or alias (a post's weakest field): the posts of its tracks
        merged with the term's own posting, ``(docs, values)``."""
        doc_index = self._doc_index
        track_docs: dict[str, list[np.ndarray]] = {}
        for track in catalog.tracks:
            track_order = catalog.orders.get(track.id, ())
            members = np.array(sorted(doc_index[p] for p in track_order if p in doc_index), dtype=np.int32)
            name_terms: set[str] = set()
            for text in (track.id, track.names.en, track.names.zh or "", *track.aliases):
                name_terms.update(_text_terms(text, True, surface))
            for term in name_terms:
                track_docs.setdefault(term, []).append(members)
        merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        for term, arrays in track_docs.items():
            dense = np.zeros(self._n, dtype=np.float32)
            for track_members in arrays:
                dense[track_members] = FIELD_WEIGHTS["track"]
            if term in self._term_index:
                own_ids, own_vals = self._posting(term)
                dense[own_ids] = own_vals
            merged_ids = np.flatnonzero(dense).astype(np.int32)
            merged[term] = (merged_ids, dense[merged_ids])
        return merged

    def _build_tracks(self, catalog: Catalog) -> None:
        """Each track's names as normalized text and canonical unit keys."""
        self._track_names: list[tuple[str, str, str, tuple[str, ...]]] = []
        for track in catalog.tracks:
            for name in (track.id, track.names.en, track.names.zh or "", *track.aliases):
                norm = normalize(name)
                if norm:
                    self._track_names.append((track.id, name, norm, tuple(self._canon_keys(self._units(norm)))))
        self._track_name_sets = [frozenset(c) for *_, c in self._track_names]
        self._name_heads: dict[str, list[tuple[str, str, tuple[str, ...], int]]] | None = None
        self._track_exact: dict[str, tuple[str, str]] = {}
        for tid, name, norm, _ in self._track_names:
            self._track_exact.setdefault(norm, (tid, name))
            self._track_exact.setdefault(norm.replace(" ", ""), (tid, name))
        # An abbreviation of a track's own name (not of an alias: MTP is a subject of spec, no name
        # of it) names the track as its alias would: "SD" opens spec as "PD" opens pd.
        names = {(t.id, n) for t in catalog.tracks for n in (t.id, t.names.en, t.names.zh or "")}
        for term in self._vocab.glossary:
            named = self._track_exact.get(normalize(term.term))
            if named is not None and named[0] == term.track and named in names:
                for abbr in term.abbr:
                    self._track_exact.setdefault(normalize(abbr).replace(" ", ""), named)
        self._max_name_units = max((len(c) for *_, c in self._track_names), default=0)

    def _build_answer_keys(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        """:meth:`_answer_key` of each ``answers.yaml`` phrase (comma-separated parts) → doc numbers."""
        out: dict[tuple[str, ...], list[int]] = {}
        for pid, entries in self._vocab.answers.items():
            if (doc := self._doc_index.get(pid)) is None:
                continue  # a post that was removed
            for phrase in (p for e in entries for p in e.split(",")):
                key = self._answer_key(normalize(phrase))
                if key and doc not in out.setdefault(key, []):
                    out[key].append(doc)
        return {k: tuple(v) for k, v in out.items()}

    def _rewrite(self, norm: str) -> str:
        """Normalized text with each vocabulary ``problems`` phrase replaced by its topic
        (``make decoding faster`` → ``make speculative decoding``), then read in its context
        (:func:`~bot.domain.search.paraphrase.read_in_context`). A query already naming the topic's
        term keeps its words (``does speculative decoding speed things up``: ``decoding speed`` is
        then how much it helps, and rewriting it broke the term apart)."""
        if found := self._problem_finder.find(norm):
            named = {u.group for u in self._units(norm, phrases=True) if u.group is not None}
            for start, end, phrase in reversed(found):
                topic = self._problems[phrase]
                if not named & {u.group for u in self._units(topic) if u.group is not None}:
                    norm = norm[:start] + topic + norm[end:]
        return read_in_context(norm)  # paraphrase.py: thruput, `on device` beside a GPU, prefill and decode apart

    def _han_fixed(self, norm: str) -> str:
        """Normalized text with each Chinese glossary word typed one character off read as it
        (:class:`~bot.domain.search.han_typos.HanTypos`: ``量话`` → ``量化``, ``前缀缓纯`` →
        ``前缀缓存``); for a query that found nothing as typed only (:meth:`Matcher.search`):
        everyday words next to each other are often one character off a term (``上跑`` of ``上线``)."""
        if not has_han(norm):
            return norm
        return _CJK_RUN_RE.sub(lambda m: self._han_typos.fix(self._segmenter.cut(m.group(0))), norm)

    @functools.cached_property
    def _han_typos(self) -> HanTypos:
        """The glossary's Chinese forms for reading a character typed off (:mod:`~bot.domain.search.han_typos`)."""
        return HanTypos((f for term in self._vocab.glossary for f in term.forms), self._vocab.ignorable)

    def _answer_key(self, norm: str) -> tuple[str, ...]:
        """Normalized text's words, stemmed, stop words (not question words) left out, sorted."""
        stop = self._vocab.stopwords
        return tuple(sorted({_unit_key(u) for u in self._units(norm, phrases=False) if u.text not in stop}))

    def _units(self, norm: str, phrases: bool = True, query: bool = False) -> list[_Unit]:
        """Split normalized text into units and mark the glossary and synonym forms covering them
        (``group``, ``sense``, ``track``). A query's (``query``) Chinese runs are cut into words by
        the segmenter; catalog text's by forward maximum matching over the Chinese dictionary."""
        units: list[_Unit] = []
        for cjk, latin in _PARTS_RE.findall(norm):
            if not cjk:
                units.append(_Unit(latin, "latin"))
            elif query:
                units.extend(
                    _Unit(w, "cjkword" if w in self._cjk_dict else "cjkchunk") for w in self._segmenter.cut(cjk)
                )
            else:
                for piece, known in _cjk_segment(cjk, self._cjk_dict, self._cjk_max, self._cjk_firsts):
                    units.append(_Unit(piece, "cjkword" if known else "cjkchunk"))
        if not phrases:
            return units
        keys = [_unit_key(u) for u in units]
        i = 0
        firsts = self._phrase_firsts
        while i < len(units):
            if keys[i] not in firsts:  # no phrase starts with this word
                i += 1
                continue
            for n in range(min(self._phrase_max, len(units) - i), 0, -1):
                phrase = self._phrases.get(tuple(keys[i : i + n]))
                if phrase is not None:
                    for j in range(i, i + n):
                        units[j] = _Unit(units[j].text, units[j].kind, phrase.group, phrase.sense, phrase.track, i)
                    i += n
                    break
            else:
                i += 1
        return units

    @staticmethod
    def _canon_keys(units: list[_Unit]) -> list[str]:
        """Unit keys with each synonym span collapsed to its group (``=<id>``)."""
        out: list[str] = []
        prev_group: int | None = None
        for unit in units:
            if unit.group is not None:
                if unit.group != prev_group:
                    out.append(f"={unit.group}")
                prev_group = unit.group
                continue
            prev_group = None
            if unit.kind == "cjkchunk":
                out.extend(_bigrams(unit.text))
            elif unit.kind == "latin" and len(unit.text) < 2:
                continue
            else:
                out.append(_unit_key(unit))
        return out

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

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """``(doc numbers ascending, field values)`` of a term (views into the flat arrays)."""
        if (merged := self._merged.get(term)) is not None:
            return merged
        i = self._term_index[term]
        start, end = self._starts[i], self._ends[i]
        return self._flat_docs[start:end], self._flat_vals[start:end]

    def _df(self, term: str) -> int:
        """Posts with the term in their own text (not counting track names)."""
        i = self._term_index.get(term)
        return 0 if i is None else self._counts[i]
