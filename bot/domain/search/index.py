"""The search index over one catalog version: constants, construction and lookup helpers.

:class:`Index` is the base of :class:`bot.domain.search.Matcher`; see :mod:`bot.domain.search` for the design.
"""

from __future__ import annotations

import bisect
import gc
import itertools
import math
from functools import lru_cache
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz import fuzz, process

from bot.domain.search.analysis import (
    _PARTS_RE,
    _bigrams,
    _cjk_segment,
    _deletes,
    _member_terms,
    _normalize_text,
    _parts,
    _text_terms,
    _Unit,
    _unit_key,
    normalize,
    stem,
    swapped,
)
from bot.domain.search.links import LinkIndex
from bot.domain.search.ranking import Postings, RankedIndex, ignorable_terms
from bot.domain.search.results import TrackMatch
from bot.domain.search.vocabulary import Vocabulary, default_vocabulary

if TYPE_CHECKING:  # pragma: no cover
    from bot.domain.catalog.compiled import Catalog

MAX_QUERY_CHARS = 200
"""Only this many characters of a (normalized) query are read; keeps long Slack input fast."""

MAX_CONCEPTS = 12
"""At most this many concepts (words, bigrams) of a query are scored: the rarest ones, when a
long query has more."""

MAX_RAW_CONCEPTS = 32
"""At most this many concepts are read from a query before the rarest are chosen."""

SIMILARITY_CHARS = 100
"""Only the first this many characters of a query's Latin (and Chinese) text are compared with
rapidfuzz against titles."""

FULL_SCAN_CHARS = 8
"""An unknown word this long with no known word one edit away is compared with every known word
of a compatible length (``rapidfuzz.process.extract``), to catch two typos in one long word."""

MAX_FUZZY_WORDS = 6
"""At most this many unknown words of a query are typo-corrected (each costs a rapidfuzz scan)."""

HINT_EMPTY = ("Type a topic, a model or a track to search for, for example: speculative decoding, "
              "量化, torch.compile, pd.")
"""The hint for a query with nothing to search for (empty, punctuation, emoji)."""

MIN_SCORE = 35.0
"""Post results scoring below this (0..100) are not returned as matches."""

TRACK_THRESHOLD = 80.0
"""A track match needs at least this score (0..100)."""

SHORT_QUERY_CHARS = 3
"""A query of at most this many letters (``tts``, ``kv``, ``sd``) names a track only when it is
exactly the track's id or one of its aliases: short abbreviations are too ambiguous to expand."""

AMBIGUITY_MARGIN = 3.0
"""A partial-name track match is dropped when another track scores within this margin."""

FUZZY_CUTOFF = 85.0
"""``rapidfuzz.fuzz.ratio`` cutoff for typo correction of words of 4+ characters."""

NEAR_CUTOFF = 80.0
"""The ``fuzz.ratio`` cutoff for a known word that is an unknown word of :data:`NEAR_MIN_CHARS` or
more with two neighbouring letters swapped (``eagel``, ``qaunt``, ``medsua``: 80-83, under
:data:`FUZZY_CUTOFF`); a mistyped letter in so short a word is too often another word."""

NEAR_MIN_CHARS = 5
"""Shorter unknown words are corrected only at :data:`FUZZY_CUTOFF` (one edit in four letters is
a quarter of the word)."""

CONTAINED_SCORE = 70.0
"""The score of a track whose name a query holds among other words (:meth:`Index._track_in`)."""

TYPO_HAN_SCORE = 90.0
"""The track score of a query that is one track's Chinese name with one character mistyped."""

FIELD_WEIGHTS = {"title": 1.0, "tags": 0.9, "id": 0.8, "answers": 0.7, "summary": 0.6, "track": 0.4}
"""How much a match in each field of a post counts (the best field of a term wins). ``answers``
are the questions and terms of ``catalog/answers.yaml`` (no multi-field bonus)."""

_FIELD_BONUS = 0.03
"""Added to a term's best field weight for each further field (of title, tags, id, summary) it
occurs in; at most 0.09, so the best field can still be read back from the value."""

# Similarity of a concept's alternatives.
_SIM_SYNONYM = 0.9
_SIM_FUZZY = 0.9
_SIM_PREFIX = 0.75
_GENERIC_DF = 0.5      # a term in more than half the posts is generic ...
_GENERIC_FACTOR = 0.25  # ... and its concept weighs a quarter

_BIT_TITLE, _BIT_TAGS, _BIT_ID, _BIT_SUMMARY, _BIT_ANSWERS = 1, 2, 4, 8, 16
_FIELD_BITS = np.array([_BIT_TITLE, _BIT_TAGS, _BIT_ID, _BIT_SUMMARY, _BIT_SUMMARY, _BIT_ANSWERS],
                       dtype=np.uint8)
"""The field of each text :meth:`Index._build_index` reads per post, in order (title, tags, ids,
English summary, Chinese summary, answers)."""


def _mask_value(mask: int) -> float:
    """The posting value of a term found in the fields of ``mask`` (bits as ``_FIELD_BITS``): the
    best field's weight, plus :data:`_FIELD_BONUS` per further field of title, tags, id and
    summary; a term only in the summary or in no such field weighs ``answers`` when it is there."""
    fields = [(bit, FIELD_WEIGHTS[f]) for bit, f in ((_BIT_TITLE, "title"), (_BIT_TAGS, "tags"),
                                                     (_BIT_ID, "id"), (_BIT_SUMMARY, "summary"))
              if mask & bit]
    value = max((w for _, w in fields), default=0.0)
    if len(fields) > 1:
        value += _FIELD_BONUS * (len(fields) - 1)
    if mask & _BIT_ANSWERS and value < FIELD_WEIGHTS["answers"]:
        value = FIELD_WEIGHTS["answers"]
    return value


_MASK_VALUES = np.array([_mask_value(m) for m in range(32)], dtype=np.float32)

_FIELD_OF: dict[float, str] = {}
"""Memo of :func:`_field_of` (posting values are few distinct floats)."""


def _field_of(value: float) -> str:
    """The field whose weight a posting value carries (weight plus at most 0.09 of bonus)."""
    field = _FIELD_OF.get(value)
    if field is None:  # posting values are a few dozen distinct floats: remember each one's field
        field = _FIELD_OF[value] = max(
            ((w, f) for f, w in FIELD_WEIGHTS.items() if w <= value + 1e-4),
            default=(0.0, "track"))[1]
    return field


class Index:
    """The read-only index of one catalog version (the base of :class:`bot.domain.search.Matcher`).

    ``vocabulary`` defaults to the app's shipped ``catalog/vocabulary.yaml``
    (:func:`bot.domain.search.vocabulary.default_vocabulary`).
    """

    def __init__(self, catalog: Catalog, vocabulary: Vocabulary | None = None) -> None:
        self._vocab = vocab = vocabulary if vocabulary is not None else default_vocabulary()
        self._ignorable = vocab.ignorable
        self._other_names = vocab.other_names
        self._catalog = catalog
        posts = catalog.posts
        self._n = len(posts)
        self._post_ids: tuple[str, ...] = tuple(p.id for p in posts)
        self._titles = tuple(_normalize_text(p.title) for p in posts)
        # Newer first on ties: a tiny bonus (< 1e-6 of a score point) by publication rank.
        order = sorted(range(self._n), key=lambda i: (posts[i].published.latest, posts[i].id))
        recency = np.zeros(self._n, dtype=np.float64)
        recency[order] = np.arange(1, self._n + 1) / (self._n + 1)
        self._recency = recency * 1e-9
        # The build allocates hundreds of thousands of small objects and frees none: pausing the
        # cyclic garbage collector meanwhile saves it from rescanning the catalog again and again.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            self._build_vocabulary(catalog)
            self._build_index(catalog)
            self._build_tracks(catalog)
            self._group_tokens = [
                list(dict.fromkeys(t for m in group for t in self._ranked.query_tokens(m)))
                for group in vocab.synonyms]
            self._links = LinkIndex(catalog, vocab)
            self._answer_keys = self._build_answer_keys()
        finally:
            if gc_was_enabled:
                gc.enable()
        arrays: list[np.ndarray] = [self._flat_docs, self._flat_vals, self._recency]
        arrays.extend(a for pair in self._merged.values() for a in pair)
        for array in arrays:
            array.flags.writeable = False  # read-only: safe to share between threads
        self._expand_word = lru_cache(maxsize=8192)(self._expand_word_uncached)

    # --- building -------------------------------------------------------------------------------

    def _build_vocabulary(self, catalog: Catalog) -> None:
        """Synonym groups keyed by unit sequences; the Chinese segmentation dictionary."""
        cjk_words: set[str] = set()
        for group in self._vocab.synonyms:
            for member in group:
                cjk_words.update(c for c, _ in _parts(member) if c)
        # Stop and question words are words too: 什么是推测解码 splits into 什么 / 是 / 推测解码
        # (then both are ignorable), not into an unknown chunk 什么是 and 推测解码.
        for word in self._vocab.ignorable:
            cjk_words.update(c for c, _ in _parts(word) if c)
        self._cjk_dict = frozenset(cjk_words)
        self._cjk_max = max((len(w) for w in cjk_words), default=1)
        self._cjk_firsts = frozenset(w[0] for w in cjk_words if len(w) > 1)
        self._phrases: dict[tuple[str, ...], int] = {}
        self._group_terms: list[tuple[tuple[str, ...], ...]] = []
        for gid, group in enumerate(self._vocab.synonyms):
            for member in group:
                key = tuple(_unit_key(u) for u in self._units(normalize(member), phrases=False))
                if key:
                    self._phrases.setdefault(key, gid)
            self._group_terms.append(tuple(dict.fromkeys(
                t for t in (_member_terms(m) for m in group) if t)))
        self._phrase_max = max(len(k) for k in self._phrases)
        self._phrase_firsts = frozenset(k[0] for k in self._phrases)

    def _build_index(self, catalog: Catalog) -> None:
        """Inverted index: per term, the posts (ascending) and field values, stored as slices of
        two flat arrays (``term -> (start, end)``); terms also found in track names are merged
        with the track field into their own arrays.

        Each text is analysed once; the terms of all posts' fields go into one flat list, and the
        per-(term, post) work (which fields hold the term, its value, BM25 term frequencies) is
        done with array operations on the sorted (term, post) pairs."""
        chunks: list[list[str]] = []  # the terms of one field of one post, fields in _FIELD_BITS
        surface: set[str] = set()  # Latin words of titles, tags, ids (then track names, vocabulary)
        prose: set[str] = set()    # Latin words of summaries
        zh_texts: list[str] = []
        answers_of = self._vocab.answers
        for post in catalog.posts:
            cjk_runs: list[str] = []
            chunks.append(_text_terms(post.title, True, surface, cjk_runs))
            # One pass per field: tags (and ids) are read as one text, so a few joins span two
            # tags ("rl" + "rollout"); they are harmless and it halves the tokenizer calls.
            chunks.append(_text_terms("\n".join(post.tags), True, surface, cjk_runs))
            chunks.append(_text_terms(" ".join((post.id, *post.aliases)), True, surface))
            chunks.append(_text_terms(post.summary.en, False, prose))
            chunks.append(_text_terms(post.summary.zh or "", False, prose, cjk_runs))
            answers = answers_of.get(post.id)
            chunks.append(_text_terms("\n".join(answers), True, prose) if answers else [])
            zh_texts.append(" ".join(cjk_runs))
        self._zh_texts = tuple(zh_texts)
        n = self._n
        all_terms = list(itertools.chain.from_iterable(chunks))
        index = {t: i for i, t in enumerate(dict.fromkeys(all_terms))}
        self._term_index = index
        lengths = np.fromiter(map(len, chunks), dtype=np.int64, count=len(chunks))
        term_ids = np.fromiter(map(index.__getitem__, all_terms), dtype=np.int64,
                               count=len(all_terms))
        # One key per occurrence, term-major: sorting groups a term's posts, ascending.
        chunk_docs = np.repeat(np.arange(n, dtype=np.int32), len(_FIELD_BITS))
        keys = term_ids * max(n, 1)
        keys += np.repeat(chunk_docs, lengths)
        del term_ids
        bits = np.repeat(np.tile(_FIELD_BITS, n), lengths)
        order = np.argsort(keys)  # the keys' order; equal keys are merged below, so any sort
        keys, bits = keys[order], bits[order]
        del order
        first = np.flatnonzero(np.concatenate(([True], keys[1:] != keys[:-1]))) if len(keys) \
            else np.zeros(0, dtype=np.int64)
        masks = np.bitwise_or.reduceat(bits, first) if len(first) else bits
        pair_terms = keys[first] // max(n, 1)
        pair_docs = (keys[first] % max(n, 1)).astype(np.int32)
        self._flat_docs = pair_docs
        self._flat_vals = _MASK_VALUES[masks]
        counts = np.bincount(pair_terms, minlength=len(index))
        ends = np.cumsum(counts)
        self._starts = (ends - counts).tolist()
        self._ends = ends.tolist()
        self._counts = counts.tolist()
        # Ranked retrieval (BM25) over the same terms, stop and question words left out, title
        # terms counted twice.
        skip = np.zeros(len(index) + 1, dtype=bool)
        skip[[index[t] for t in ignorable_terms(self._vocab) if t in index]] = True
        kept = ~skip[pair_terms]
        tf = np.where(masks[kept] & _BIT_TITLE, 2.0, 1.0).astype(np.float32)
        self._ranked = RankedIndex(Postings(pair_terms[kept], pair_docs[kept], tf, n), index,
                                   self._vocab)
        self._merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # The names and aliases of a post's tracks are its weakest field.
        doc_index = {pid: i for i, pid in enumerate(self._post_ids)}
        track_docs: dict[str, list[np.ndarray]] = {}
        for track in catalog.tracks:
            track_order = catalog.orders.get(track.id, ())
            members = np.array(sorted(doc_index[p] for p in track_order if p in doc_index),
                               dtype=np.int32)
            name_terms: set[str] = set()
            for text in (track.id, track.names.en, track.names.zh or "", *track.aliases):
                name_terms.update(_text_terms(text, True, surface))
            for term in name_terms:
                track_docs.setdefault(term, []).append(members)
        for term, arrays in track_docs.items():
            dense = np.zeros(self._n, dtype=np.float32)
            for track_members in arrays:
                dense[track_members] = FIELD_WEIGHTS["track"]
            if term in self._term_index:
                own_ids, own_vals = self._posting(term)
                dense[own_ids] = own_vals
            merged_ids = np.flatnonzero(dense).astype(np.int32)
            self._merged[term] = (merged_ids, dense[merged_ids])
        # Posts per term for query analysis (0 for a term only in track names): has/df/idf in
        # one lookup; idf by df, computed once per df value (as _idf).
        self._df_of: dict[str, int] = dict(zip(index, self._counts, strict=True))
        for term in self._merged:
            self._df_of.setdefault(term, 0)
        self._idf_by_df = [math.log(1.0 + (n - df + 0.5) / (df + 0.5)) for df in range(n + 1)]
        # Known Latin words (for typo correction): the posts', the tracks' and the vocabulary's.
        for member in (m for group in self._vocab.synonyms for m in group):
            surface.update(w for c, w in _parts(member) if w)
        names = {w for w in surface if len(w) >= 2}
        surface = names | {w for w in prose if len(w) >= 2}
        self._surface = frozenset(surface)
        self._surface_sorted = sorted(surface)
        by_len: dict[int, list[str]] = {}
        for word in surface:
            if len(word) >= 3 and not word.isdigit():
                by_len.setdefault(len(word), []).append(word)
        # The symmetric-delete index covers the words people search by name (titles, tags, ids,
        # tracks, vocabulary); summary-only words are corrected by the full scan (long words).
        deletes: dict[str, list[str]] = {}
        for word in names:
            if len(word) >= 3 and not word.isdigit():
                for variant in _deletes(word):
                    deletes.setdefault(variant, []).append(word)
        self._surface_by_len = {k: tuple(v) for k, v in by_len.items()}
        self._deletes = deletes

    def _build_tracks(self, catalog: Catalog) -> None:
        """Each track's names as normalized text and canonical unit keys."""
        self._track_names: list[tuple[str, str, str, tuple[str, ...]]] = []
        for track in catalog.tracks:
            for name in (track.id, track.names.en, track.names.zh or "", *track.aliases):
                norm = normalize(name)
                if norm:
                    self._track_names.append(
                        (track.id, name, norm, tuple(self._canon_keys(self._units(norm)))))
        self._track_name_sets = [frozenset(c) for *_, c in self._track_names]
        self._name_heads: dict[str, list[tuple[str, str, tuple[str, ...]]]] | None = None
        self._track_exact: dict[str, tuple[str, str]] = {}
        for tid, name, norm, _ in self._track_names:
            self._track_exact.setdefault(norm, (tid, name))
            self._track_exact.setdefault(norm.replace(" ", ""), (tid, name))
        self._max_name_units = max((len(c) for *_, c in self._track_names), default=0)

    def _build_answer_keys(self) -> dict[tuple[str, ...], tuple[int, ...]]:
        """Each phrase of ``answers.yaml`` (an entry's comma-separated parts) as its
        :meth:`_answer_key`, mapped to the posts (doc numbers) that list it."""
        doc_index = {pid: i for i, pid in enumerate(self._post_ids)}
        out: dict[tuple[str, ...], list[int]] = {}
        for pid, entries in self._vocab.answers.items():
            doc = doc_index.get(pid)
            for phrase in (p for e in entries for p in e.split(",")) if doc is not None else ():
                key = self._answer_key(normalize(phrase))
                if key and doc not in out.setdefault(key, []):
                    out[key].append(doc)
        return {k: tuple(v) for k, v in out.items()}

    def _answer_key(self, norm: str) -> tuple[str, ...]:
        """The words of normalized text as an answer phrase is compared: stemmed, stop words (not
        question words) left out, sorted (``what is vLLM`` = ``what's vllm``)."""
        stop = self._vocab.stopwords
        return tuple(sorted({_unit_key(u) for u in self._units(norm, phrases=False)
                             if u.text not in stop}))

    # --- analysis helpers ----------------------------------------------------------------------

    def _units(self, norm: str, phrases: bool = True) -> list[_Unit]:
        """Split normalized text into units and mark the synonym groups covering them."""
        units: list[_Unit] = []
        for cjk, latin in _PARTS_RE.findall(norm):
            if cjk:
                for piece, known in _cjk_segment(cjk, self._cjk_dict, self._cjk_max,
                                                 self._cjk_firsts):
                    units.append(_Unit(piece, "cjkword" if known else "cjkchunk"))
            else:
                units.append(_Unit(latin, "latin"))
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
                gid = self._phrases.get(tuple(keys[i:i + n]))
                if gid is not None:
                    for j in range(i, i + n):
                        units[j] = _Unit(units[j].text, units[j].kind, gid)
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

    def _posting(self, term: str) -> tuple[np.ndarray, np.ndarray]:
        """``(doc numbers ascending, field values)`` of a term (views into the flat arrays)."""
        merged = self._merged.get(term)
        if merged is not None:
            return merged
        i = self._term_index[term]
        start, end = self._starts[i], self._ends[i]
        return self._flat_docs[start:end], self._flat_vals[start:end]

    def _has(self, term: str) -> bool:
        return term in self._term_index or term in self._merged

    def _df(self, term: str) -> int:
        """Posts with the term in their own text (not counting track names)."""
        i = self._term_index.get(term)
        return 0 if i is None else self._counts[i]

    def _idf(self, term: str) -> float:
        df = self._df(term)
        return math.log(1.0 + (self._n - df + 0.5) / (df + 0.5))

    def _expand_word_uncached(self, word: str) -> tuple[tuple[str, float], ...]:
        """Typo corrections and prefix completions of a Latin word that is not a known word:
        ``((known word, similarity), ...)``, best first; ``()`` for known or short words."""
        if word in self._surface or len(word) < 4 or word.isdigit() or word in self._other_names:
            return ()  # known, too short, or the name of another tool (ollama is not llama)
        out: dict[str, float] = {}
        # Candidates one edit away (symmetric deletes: a deletion, insertion, substitution or
        # transposition), scored with rapidfuzz; a full scan of the words of a compatible length
        # only for long words with no such neighbour (two typos in one word).
        near = {w for v in _deletes(word) for w in self._deletes.get(v, ())}
        if near:  # under FUZZY_CUTOFF only two swapped letters: "stock" is no typo of "stack"
            hits = [h for h in process.extract(word, sorted(near), scorer=fuzz.ratio, processor=None,
                                               score_cutoff=NEAR_CUTOFF, limit=5)
                    if h[1] >= FUZZY_CUTOFF or len(word) >= NEAR_MIN_CHARS and swapped(word, h[0])]
        elif len(word) >= FULL_SCAN_CHARS:
            lo, hi = max(3, math.floor(len(word) * 0.74)), math.ceil(len(word) * 1.36)
            choices = [w for n in range(lo, hi + 1) for w in self._surface_by_len.get(n, ())]
            hits = process.extract(word, choices, scorer=fuzz.ratio, processor=None,
                                   score_cutoff=FUZZY_CUTOFF, limit=5)
        else:
            hits = []
        for cand, ratio, _ in hits:
            out[cand] = _SIM_FUZZY * ratio / 100.0
        i = bisect.bisect_left(self._surface_sorted, word)
        completions = []
        while i < len(self._surface_sorted) and self._surface_sorted[i].startswith(word):
            completions.append(self._surface_sorted[i])
            i += 1
        completions.sort(key=lambda w: (-self._df(stem(w)), w))
        for cand in completions[:8]:
            out.setdefault(cand, _SIM_PREFIX)
        return tuple(sorted(out.items(), key=lambda kv: (-kv[1], kv[0])))

    def _correct(self, norm: str) -> tuple[str, float]:
        """The text with each unknown Latin word replaced by its best typo correction, and the
        lowest correction ratio (1.0 when nothing was corrected)."""
        words = []
        worst = 1.0
        for cjk, latin in _PARTS_RE.findall(norm):
            if latin:
                fixes = [(w, s) for w, s in self._expand_word(latin) if s > _SIM_PREFIX]
                if fixes:
                    words.append(fixes[0][0])
                    worst = min(worst, fixes[0][1] / _SIM_FUZZY)
                    continue
            words.append(cjk or latin)
        return " ".join(words), worst

    # --- track matching ---------------------------------------------------------------------------

    def _key_weight(self, key: str) -> float:
        """Weight of a name unit for coverage: 1, or for a word in over half the posts the share of
        posts without it (at least :data:`_GENERIC_FACTOR`)."""
        if key.startswith("="):
            df = max((min(self._df(t) for t in terms) for terms in self._group_terms[int(key[1:])]),
                     default=0)
        else:
            df = self._df(key)
        share = df / max(self._n, 1)
        return max(_GENERIC_FACTOR, 1.0 - share) if share > _GENERIC_DF else 1.0

    def _track_in(self, units: list[_Unit]) -> TrackMatch | None:
        """The track whose name (id, alias) a query (its :meth:`_units`) holds as a run of canonical words
        (``如何把模型量化到更小`` holds ``模型量化``), scored :data:`CONTAINED_SCORE`: of several,
        the most words held; ``None`` for none, a tie, or generic names (``models``: in over half
        the posts). A search's hint, never the track itself."""
        keys = tuple(self._canon_keys(units))
        if self._name_heads is None:  # specific names by first key, on first use (needs the df)
            self._name_heads = {}
            for tid, name, _, canon in (n for n in self._track_names if n[3]):
                if max(map(self._key_weight, canon)) >= 0.5:
                    self._name_heads.setdefault(canon[0], []).append((tid, name, canon))
        found: dict[str, tuple[int, str]] = {}
        for i, key in enumerate(keys):
            for tid, name, canon in self._name_heads.get(key, ()):
                if keys[i:i + len(canon)] == canon:
                    found[tid] = max(found.get(tid, (0, "")), (len(canon), name))
        ranked = sorted(found.items(), key=lambda kv: kv[1][0], reverse=True)
        if not ranked or len(ranked) > 1 and ranked[1][1][0] >= ranked[0][1][0]:
            return None  # two tracks' names as long: neither
        return TrackMatch(ranked[0][0], CONTAINED_SCORE, ranked[0][1][1])

