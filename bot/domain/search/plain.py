"""Questions in plain words: :class:`PlainIndex`, between
:class:`~bot.domain.search.evidence.EvidenceIndex` and :class:`bot.domain.search.Matcher` (holdout
round s).

The on-topic decision (:mod:`bot.domain.search.topic`) reads field terms. A reader who does not
know the field's word asks in plain words (``same big picture is sent to every worker on each
turn, slow first word``) and holds none, although the catalog's curated questions
(``Post.questions``, the problems a post answers in readers' words) say the same thing. Before such
a question is refused it is scored against every curated question alone (BM25 over each question's
words: Latin stems, Chinese character pairs; stop, question and symptom words left out). It is
answered when one question shares :data:`PLAIN_SHARED` of its distinct words (Chinese: pairs) and
scores :data:`PLAIN_SCORE` or more, or (holdout round t: one question alone did not generalise) when
the best post's whole text (title, both summaries, tags, every curated question: the ``bm25+q``
baseline's documents) scores :data:`POST_SCORE` and shares :data:`POST_SHARED` of its words. The
posts are ranked by their best question's score plus their whole text's and shown as ``closest``
(the evidence is words in common, not a term of the field). Beside another tool's name only when the
best post holds it too (:mod:`~bot.domain.search.setup_tools`, holdout set aa); never for a
question about training a model (:mod:`bot.domain.search.scope`): those keep their refusal. Holdout
round v: a short question (:data:`SHORT_WORDS`) is answered by a post sharing all its words but one
(:data:`SHORT_SCORE`), and a learning request in plain words (``teach me``, ``想入门`` and no field
term) names the track its closest posts belong to (:meth:`PlainIndex._plain_track`); round x: a short
question is also answered by a post holding its ideas (:meth:`PlainIndex._ideas_answered`). Chinese in
everyday words (holdout rounds s-v): a shared character pair standing alone as a word of the
posts counts as a whole word (:data:`PAIR_IDF`), and the question's Chinese glossary forms also score through their
term's English words (:data:`GLOSSARY_SHARE`). The indexes are built on the first such question (a
few milliseconds), never at import.
"""

from __future__ import annotations

import math
import re
from functools import cached_property
from typing import NamedTuple

import numpy as np

from bot.domain.search.analysis import _bigrams, _parts, _Unit, stem
from bot.domain.search.concepts import held_concepts
from bot.domain.search.ranking import _cjk_cutter
from bot.domain.search.results import PostMatch, SearchResult, TrackMatch
from bot.domain.search.setup_tools import API_WORDS, SETUP_SHARE, SetupIndex
from bot.domain.search.topic import HINT_SCORE, Topicality

PLAIN_SCORE = 15.0
"""The BM25 score (k1 1.2, b 0.75, over the curated questions) one curated question must reach for
a plain-words question to be answered; calibrated on every off-topic set (none above it is shown)."""

PLAIN_SHARED = 3
"""Distinct words (Latin stems; Chinese character pairs count half, a rare one whole:
:data:`PAIR_IDF`) a plain-words question must share with that curated question."""

PLAIN_FLOOR = 0.8
"""Posts shown: those whose score (best question's plus whole text's) is at least this share of the
best post's."""

POST_SCORE = 11.5
"""The BM25 score (k1 1.2, b 0.75) over each post's whole text (title, both summaries, tags, every
curated question: the ``bm25+q`` baseline's documents) the best post must reach for a plain-words
question no single curated question answers (holdout round t). Calibrated on every off-topic row of
every set (~340): the highest off-topic post score that also shares :data:`POST_SHARED` words is
10.3 (a dashboard report cached in a web app), the highest at all 16.5 (a toddler's sleep after a
flight) with three shared words."""

POST_SHARED = 4.0
"""Distinct words (Latin stems; Chinese character pairs count half, a rare one whole:
:data:`PAIR_IDF`) a plain-words question must share with the best post's whole text for
:data:`POST_SCORE` to answer it; no off-topic row under :data:`POST_SCORE`'s highest scores shares
four."""

SHORT_WORDS = 7.0
"""A plain-words question of at most this many words (Chinese pairs count half) is short: the best
post's whole text answers it sharing all its words but one (:meth:`PlainIndex._short_answered`)."""

SHORT_SCORE = 14.0
"""The whole-text score the best post must reach for a short question; calibrated on every off-topic
row of every set: none of at most seven words shares all but one of three or more (a hiring pipeline
shares three of six, 7.0)."""

IDEAS_HELD = 2
"""Ideas (:func:`~bot.domain.search.concepts.held_concepts`) of a short question the best post must
hold, lacking at most :data:`IDEAS_LACKED`, for :meth:`PlainIndex._ideas_answered` (holdout round x)."""

IDEAS_LACKED = 1
"""Ideas of a short question the best post may lack: the off-topic near misses hold one idea and
lack one (a router that keeps dropping off), or lack two (a router's signal, which to buy)."""

IDEAS_SCORE = 8.0
"""The whole-text score the best post must reach for :meth:`PlainIndex._ideas_answered`; calibrated
on every off-topic row of every set: the highest holding two ideas and lacking one is 5.9 (running
speed: ``提高`` and ``速度``), a short on-topic question holding two rare ones 8.5 and up."""

TRACK_POSTS = 5
"""The best posts whose tracks vote for a plain-words learning request's track
(:meth:`PlainIndex._plain_track`)."""

TRACK_SCORE = 12.0
"""The score (whole text's BM25 plus best curated question's) the best post must reach for a
plain-words learning request to name a track; the off-topic learning requests under it: a runner's
plan (8.0), a quant-trading back-test (10.8)."""

TRACK_SHARED = 2.0
"""Distinct words (Chinese pairs count half) the best post's whole text must share with such a
request (a router for home Wi-Fi shares one)."""

TRACK_SHARE = 0.6
"""The share of the votes of the :data:`TRACK_POSTS` best posts (each its score over its rank) one
track must hold: the topic sets' plain requests 0.64 and up, a wrong track 0.53 (replies that fit a
program's shape: hardware), an off-topic postgres question 0.50."""

TRACK_TRAINING_SCORE = 12.0
"""The whole-text score the best post must reach for a learning request about training a model
(rl's rollouts: 14.7 and up; a child's attention training, a model railway: 7.4 and under)."""

PAIR_SHARE = 0.5
"""What a shared Chinese character pair counts as (half a word) unless it is rare (:data:`PAIR_IDF`)."""

PAIR_IDF = 1.5
"""The whole-text BM25 idf (over the posts, :class:`_Posts`) from which a shared Chinese character
pair standing alone as a word (:meth:`PlainIndex._word_shares`: ``副本``, ``测速``) counts as a whole
word rather than :data:`PAIR_SHARE`; the pairs in most posts (``模型`` 0.6, ``部署`` 0.8) stay
halves. Calibrated on every Chinese topic set (zh s-v) and every off-topic set: 0 to 2.2 answer the
same rows and show no more off-topic ones, 2.5 answers one row fewer."""

GLOSSARY_SHARE = 1.0
"""The words a Chinese glossary form of the question (``注意力``, ``A卡``) adds to those it shares
with a post through its term's English form (``attention``, ``amd``: the posts' English text is
richer than their Chinese), split over that form's words: a form counts one word. Calibrated on
every off-topic set: 1.5 shows a CI pipeline's dependency cache question, 0.75 answers two topic
rows fewer."""

_K1, _B = 1.2, 0.75

_LATIN_RE = re.compile(r"[a-z0-9]{2,}")
"""A Latin word of two characters or more (of a glossary term's English form)."""


class _Questions(NamedTuple):
    """The curated questions as a BM25 corpus: ``owner`` the post (document) of each question
    (int32), ``norm`` each question's length factor ``k1 * (1 - b + b * len / avg)`` (float64),
    ``postings`` per token its questions (int32) and ``idf`` per token (BM25's, ``log(1 + (N - df
    + 0.5) / (df + 0.5))``)."""

    owner: np.ndarray
    norm: np.ndarray
    postings: dict[str, np.ndarray]
    idf: dict[str, float]


class _Posts(NamedTuple):
    """Each post's whole text as a BM25 corpus (the ``bm25+q`` baseline's documents): ``postings``
    per token its posts (int32) and the BM25 term weight there (``tf * (k1 + 1) / (tf + norm)``,
    float64), ``idf`` per token."""

    postings: dict[str, tuple[np.ndarray, np.ndarray]]
    idf: dict[str, float]


class PlainIndex(SetupIndex):
    """Plain-words questions answered through the catalog's curated questions (module docstring);
    read-only."""

    def _plain_tokens(self, text: str) -> list[str]:
        """The distinct tokens of ``text``: stems of Latin words of 2+ letters, Chinese character
        pairs (stop and question words cut out); stop, question and symptom words left out."""
        skip = self._ignorable | self._vocab.symptom_words
        out: dict[str, None] = {}
        for cjk, latin in _parts(text):
            if cjk:
                pieces = self._plain_cutter.split(cjk) if self._plain_cutter is not None else [cjk]
                out.update(dict.fromkeys(b for piece in pieces if len(piece) >= 2 for b in _bigrams(piece)))
            elif len(latin) >= 2 and latin not in skip:
                out[stem(latin)] = None
        return list(out)

    @cached_property
    def _plain_cutter(self) -> re.Pattern[str] | None:
        """A pattern of the Chinese stop and question words, cut out of Chinese runs."""
        return _cjk_cutter(self._ignorable)

    @cached_property
    def _questions(self) -> _Questions:
        """The curated questions' BM25 corpus (:class:`_Questions`), built on first use."""
        owner: list[int] = []
        lists: dict[str, list[int]] = {}
        lengths: list[int] = []
        for doc, post in enumerate(self._catalog.posts):
            for question in (*post.questions.en, *post.questions.zh):
                tokens = self._plain_tokens(question)
                for token in tokens:
                    lists.setdefault(token, []).append(len(owner))
                owner.append(doc)
                lengths.append(len(tokens))
        n = len(owner)
        sizes = np.array(lengths, dtype=np.float64)
        avg = float(sizes.mean()) if n else 1.0
        return _Questions(
            np.array(owner, dtype=np.int32),
            _K1 * (1 - _B + _B * sizes / max(avg, 1.0)),
            {t: np.array(ids, dtype=np.int32) for t, ids in lists.items()},
            {t: math.log(1 + (n - len(ids) + 0.5) / (len(ids) + 0.5)) for t, ids in lists.items()},
        )

    @cached_property
    def _posts_text(self) -> _Posts:
        """The posts' whole-text BM25 corpus (:class:`_Posts`), built on first use: each part (title,
        English and Chinese summary, each tag, each curated question) adds its distinct tokens."""
        counts: list[dict[str, int]] = []
        for post in self._catalog.posts:
            parts = (post.title, post.summary.en, post.summary.zh, *post.tags, *post.questions.en, *post.questions.zh)
            tf: dict[str, int] = {}
            for part in parts:
                for token in self._plain_tokens(part) if part else ():
                    tf[token] = tf.get(token, 0) + 1
            counts.append(tf)
        n = len(counts)
        sizes = np.array([sum(tf.values()) for tf in counts], dtype=np.float64)
        norm = _K1 * (1 - _B + _B * sizes / max(float(sizes.mean()) if n else 1.0, 1.0))
        lists: dict[str, tuple[list[int], list[float]]] = {}
        for doc, tf in enumerate(counts):
            for token, f in tf.items():
                docs, weights = lists.setdefault(token, ([], []))
                docs.append(doc)
                weights.append(f * (_K1 + 1) / (f + norm[doc]))
        return _Posts(
            {t: (np.array(d, dtype=np.int32), np.array(w, dtype=np.float64)) for t, (d, w) in lists.items()},
            {t: math.log(1 + (n - len(d) + 0.5) / (len(d) + 0.5)) for t, (d, _) in lists.items()},
        )

    def _post_scores(
        self, text: str, tokens: list[str] | None = None, shares: dict[str, float] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per post (catalog order): its whole-text BM25 score for ``text`` (or for ``tokens``, when
        given) and the words they share (each token as ``shares`` counts it, 0 when it lacks it; without
        ``shares`` a Latin stem 1, a Chinese pair :data:`PAIR_SHARE`), both float64."""
        corpus = self._posts_text
        scores = np.zeros(len(self._catalog.posts), dtype=np.float64)
        shared = np.zeros(len(self._catalog.posts), dtype=np.float64)
        for token in self._plain_tokens(text) if tokens is None else tokens:
            hit = corpus.postings.get(token)
            if hit is None:
                continue
            scores[hit[0]] += corpus.idf[token] * hit[1]
            shared[hit[0]] += shares.get(token, 0.0) if shares is not None else 1.0 if token.isascii() else PAIR_SHARE
        return scores, shared

    def _plain_scores(
        self, text: str, tokens: list[str] | None = None, shares: dict[str, float] | None = None
    ) -> tuple[np.ndarray, np.ndarray]:
        """Per curated question: its BM25 score for ``text`` (or for ``tokens``, when given) and the
        words they share (each token as ``shares`` counts it, 0 when it lacks it; without ``shares``
        a Latin stem 1, a Chinese pair :data:`PAIR_SHARE`), both float64."""
        corpus = self._questions
        scores = np.zeros(len(corpus.owner), dtype=np.float64)
        shared = np.zeros(len(corpus.owner), dtype=np.float64)
        for token in self._plain_tokens(text) if tokens is None else tokens:
            ids = corpus.postings.get(token)
            if ids is None:
                continue
            scores[ids] += corpus.idf[token] * (_K1 + 1) / (1 + corpus.norm[ids])
            shared[ids] += shares.get(token, 0.0) if shares is not None else 1.0 if token.isascii() else PAIR_SHARE
        return scores, shared

    def _word_shares(self, text: str) -> dict[str, float]:
        """Each token of ``text`` (:meth:`_plain_tokens`) → how much of a word it counts as when
        shared: a Latin stem 1; a Chinese character pair :data:`PAIR_SHARE`, or 1 when it stands
        alone as a word of the posts: rare in their whole text (BM25 idf at least :data:`PAIR_IDF`)
        and neither pair beside it in the question in their text (``测速`` of ``第三方测速网站``; the
        three pairs of ``图形界面`` stay halves, one longer word)."""
        idf = self._posts_text.idf
        out = {t: 1.0 for t in self._plain_tokens(text) if t.isascii()}
        for cjk, _ in _parts(text):
            pieces = self._plain_cutter.split(cjk) if cjk and self._plain_cutter is not None else [cjk]
            for piece in pieces:
                pairs = _bigrams(piece) if len(piece) >= 2 else []
                for i, pair in enumerate(pairs):
                    beside = (i > 0 and pairs[i - 1] in idf) or (i + 1 < len(pairs) and pairs[i + 1] in idf)
                    alone = idf.get(pair, 0.0) >= PAIR_IDF and not beside
                    out[pair] = max(out.get(pair, 0.0), 1.0 if alone else PAIR_SHARE)
        return out

    @cached_property
    def _zh_forms(self) -> dict[str, tuple[str, ...]]:
        """Each Chinese glossary form of two characters or more (casefolded, Simplified) of a term
        that is not ``everyday`` → the stems of its term's canonical English form (stop words left
        out; ``多轮`` → ``('multi', 'turn')``), built on first use."""
        out: dict[str, tuple[str, ...]] = {}
        for term in self._vocab.glossary:
            words = tuple(dict.fromkeys(stem(w) for w in _LATIN_RE.findall(term.term) if w not in self._ignorable))
            if term.sense == "everyday" or not words:
                continue
            out.update((form, words) for form in term.forms if len(form) >= 2 and not form.isascii())
        return out

    @cached_property
    def _zh_siblings(self) -> dict[str, str]:
        """Each Chinese form of :attr:`_zh_forms` → all its term's Chinese forms, space-joined
        (``打分奖励`` → ``强化学习 强化学习训练 打分奖励``), built on first use."""
        out: dict[str, str] = {}
        for term in self._vocab.glossary:
            zh = [f for f in term.forms if not f.isascii()]
            out.update((form, " ".join(zh)) for form in zh if form in self._zh_forms)
        return out

    def _glossary_words(self, text: str, have: set[str]) -> dict[str, float]:
        """The English words the Chinese glossary forms in ``text`` (normalized) stand for, those
        not in ``have`` (its own tokens), each with the share of a word it counts as when shared
        (:data:`GLOSSARY_SHARE` over its form's words; the largest when two forms give it)."""
        out: dict[str, float] = {}
        for form, words in self._zh_forms.items():
            if form in text:
                for word in words:
                    if word not in have:
                        out[word] = max(out.get(word, 0.0), GLOSSARY_SHARE / len(words))
        return out

    def _short_answered(self, text: str) -> bool:
        """Whether a short plain-words question (at most :data:`SHORT_WORDS` words, Chinese pairs
        counting half) is answered by the best post's whole text: it shares all its words but one,
        at least :data:`POST_SHARED` minus one, and scores :data:`SHORT_SCORE` (``tired of rebasing
        our patched fork``: holdout round v). Counted as round v calibrated it: every pair half, no
        glossary words (a rare pair counting whole shows ``图形界面 设计``, a UI design question)."""
        tokens = self._plain_tokens(text)
        halves = {t: 1.0 if t.isascii() else PAIR_SHARE for t in tokens}
        words = sum(halves.values())
        if words > SHORT_WORDS:
            return False
        posts, shared = self._post_scores(text, tokens, halves)
        lead = int(np.argmax(posts)) if len(posts) else 0
        return bool(len(posts)) and shared[lead] >= max(POST_SHARED - 1.0, words - 1.0) and posts[lead] >= SHORT_SCORE

    def _latin_ideas(self, text: str, units: list[_Unit]) -> list[tuple[str, ...]]:
        """The Latin ideas of ``text`` (normalized; ``units`` its reading): the stems of each glossary
        form of several words together (``false alarms``), each other stem alone unless a form holds
        it (``alarm`` beside ``false alarms``); stop, question and symptom words left out."""
        tokens = {t for t in self._plain_tokens(text) if t.isascii()}
        forms: dict[tuple[int, int], list[str]] = {}
        for unit in units:
            if unit.kind == "latin" and unit.group is not None and stem(unit.text) in tokens:
                forms.setdefault((unit.group, unit.start), []).append(stem(unit.text))
        grouped = [tuple(dict.fromkeys(stems)) for stems in forms.values()]
        inside = {t for idea in grouped for t in idea}
        return grouped + [(t,) for t in self._plain_tokens(text) if t in tokens and t not in inside]

    def _ideas_answered(self, text: str, units: list[_Unit], words: float, posts: np.ndarray) -> bool:
        """Whether a short plain-words question (``words``, its tokens as shared, at most
        :data:`SHORT_WORDS`) is answered by the best post by ideas rather than words (holdout round
        x: ``kernel 卡死``, a Chinese question of two or three ideas, shares too few pairs for
        :meth:`_short_answered`): the post holds :data:`IDEAS_HELD` of its ideas and lacks at most
        :data:`IDEAS_LACKED` (:func:`~bot.domain.search.concepts.held_concepts`), scoring
        :data:`IDEAS_SCORE` (``posts``: the whole-text scores; ``units``: the question's reading)."""
        lead = int(np.argmax(posts))
        if words > SHORT_WORDS or posts[lead] < IDEAS_SCORE:
            return False
        postings = self._posts_text.postings

        def holds(token: str) -> bool:
            hit = postings.get(token)
            return hit is not None and bool((hit[0] == lead).any())

        latin = self._latin_ideas(text, units)
        held, lacked = held_concepts(text, latin, self._zh_forms, self._plain_cutter, holds, self._zh_siblings)
        return held >= IDEAS_HELD and lacked <= IDEAS_LACKED

    def _plain_answer(self, text: str, units: list[_Unit], topicality: Topicality) -> list[tuple[int, float]]:
        """The posts whose curated questions or whole text answer the plain-words question ``text``
        (normalized; ``units`` and ``topicality`` its reading), best first, as ``(doc, score)`` (the
        best question's score plus the whole text's, those within :data:`PLAIN_FLOOR` of the best):
        empty unless one question shares :data:`PLAIN_SHARED` words and scores :data:`PLAIN_SCORE`
        or the best post's whole text shares :data:`POST_SHARED` and scores :data:`POST_SCORE`; never
        beside a tool some post mentions (``Topicality.tools``); beside one no post says as typed only
        the posts holding it, the best post among them
        (:meth:`~bot.domain.search.setup_tools.SetupIndex._holding_tools`); never for a question
        about training or asking for a piece of work
        (:meth:`~bot.domain.search.scope.ScopeIndex._out_of_scope`)."""
        if topicality.tools or self._out_of_scope(units, topicality):
            return []  # a tool a post mentions asked about (``langchain agent …``): topic.py's rule
        shares = self._word_shares(text)
        extra = self._glossary_words(text, set(shares))
        tokens = [*shares, *extra]
        shares.update(extra)
        scores, shared = self._plain_scores(text, tokens, shares)
        if not len(scores):
            return []
        by_question = bool(((scores >= PLAIN_SCORE) & (shared >= PLAIN_SHARED)).any())
        posts, words = self._post_scores(text, tokens, shares)
        lead = int(np.argmax(posts))
        by_post = bool(posts[lead] >= POST_SCORE and words[lead] >= POST_SHARED) or self._short_answered(text)
        by_post = by_post or self._ideas_answered(text, units, sum(shares.values()), posts)
        if not (by_question or by_post):
            return []
        best: dict[int, float] = {}
        for q in np.argsort(-scores)[:50].tolist():
            doc = int(self._questions.owner[q])
            best.setdefault(doc, float(scores[q]))
        combined = {
            doc: best.get(doc, 0.0) + float(posts[doc]) for doc in set(best) | set(np.flatnonzero(posts).tolist())
        }
        if topicality.beside_tool or any(self._other_tool(units, i) for i in range(len(units))):
            held = self._holding_tools(units, np.array(sorted(combined), dtype=np.int64))  # setup_tools.py
            if held is None or lead not in held.tolist() or words[lead] < SETUP_SHARE * sum(shares.values()):
                return []  # beside another tool, only the posts telling that tool as part of their setup
            combined = {doc: combined[doc] for doc in held.tolist()}
        top = max(combined.values())
        ranked = sorted(combined.items(), key=lambda item: -item[1])
        return [(doc, score) for doc, score in ranked if score >= PLAIN_FLOOR * top]

    def _plain_track(self, text: str, units: list[_Unit], topicality: Topicality) -> TrackMatch | None:
        """The track a learning request in plain words asks about (``想入门：用奖励分数继续训练模型时，
        生成样本那一步怎么搭``: no field term, so :meth:`_topic_track` names none), or ``None``. The
        request's words but its framing (``teach me``, ``想入门``) score each post: its whole text's
        BM25 (:meth:`_post_scores`) plus its best curated question's (:meth:`_plain_scores`); the
        :data:`TRACK_POSTS` best posts vote for their tracks, rank ``r`` (0-based) with ``1 / (r +
        1)`` times its score. Named when the best post scores :data:`TRACK_SCORE` and shares :data:`TRACK_SHARED`
        words with the request and one track holds :data:`TRACK_SHARE` of the votes. Never beside
        another tool's name; a request about training a model needs its best post's whole text to
        score :data:`TRACK_TRAINING_SCORE` (a track on it: ``rl``; a child's or a runner's training
        does not). Calibrated on every topic and off-topic set (holdout round v)."""
        framing = self._framing(units)
        if not any(framing) or topicality.beside_tool or topicality.tools:
            return None
        if any(self._other_tool(units, i) for i in range(len(units))):
            return None
        frame = set(self._plain_tokens(" ".join(u.text for u, f in zip(units, framing, strict=True) if f)))
        tokens = [t for t in self._plain_tokens(text) if t not in frame]
        posts, words = self._post_scores(text, tokens)
        questions, _ = self._plain_scores(text, tokens)
        combined = posts.copy()
        np.maximum.at(combined, self._questions.owner, posts[self._questions.owner] + questions)
        order = [d for d in np.argsort(-combined)[:TRACK_POSTS].tolist() if combined[d] > 0]
        if not order or combined[order[0]] < TRACK_SCORE or words[order[0]] < TRACK_SHARED:
            return None
        if posts[order[0]] < TRACK_TRAINING_SCORE and self._about_training(units, topicality):
            return None
        votes: dict[str, float] = {}
        for rank, doc in enumerate(order):
            for track in self._catalog.tracks_of(self._post_ids[doc]):
                votes[track] = votes.get(track, 0.0) + float(combined[doc]) / (rank + 1)
        total = sum(float(combined[doc]) / (r + 1) for r, doc in enumerate(order))
        track, weight = max(votes.items(), key=lambda item: item[1], default=("", 0.0))
        if not track or weight < TRACK_SHARE * total or not self._catalog.has_track(track):
            return None
        return TrackMatch(track, HINT_SCORE, " ".join(u.text for u, f in zip(units, framing, strict=True) if not f))

    def _plain_result(
        self, query: str, text: str, units: list[_Unit], topicality: Topicality, limit: int, offset: int
    ) -> SearchResult:
        """The reply to a question the on-topic decision refuses: the posts of
        :meth:`_plain_answer` as ``closest`` matches (score: the share of the best, 0..100), or the
        refusal (no posts, the field words it holds as ``known``)."""
        found = self._plain_answer(text, units, topicality)
        track = self._plain_track(text, units, topicality)
        if not found:
            if track is not None:  # a learning request in plain words: its track's path
                return SearchResult(query, track, (), None, topic=True)
            return SearchResult(query, None, (), None, known=topicality.words or None)
        top = found[0][1]
        page = found[offset : offset + limit]
        matches = tuple(
            PostMatch(
                self._post_ids[doc],
                round(100.0 * score / top, 1),
                "questions",
                self._catalog.tracks_of(self._post_ids[doc]),
                0.0,
                bool(self._linked[doc]),
            )
            for doc, score in page
        )
        return SearchResult(query, track, matches, None, len(found), offset, None, "closest", topic=track is not None)


__all__ = [
    "API_WORDS",
    "GLOSSARY_SHARE",
    "IDEAS_HELD",
    "IDEAS_LACKED",
    "IDEAS_SCORE",
    "PAIR_IDF",
    "PAIR_SHARE",
    "PLAIN_FLOOR",
    "PLAIN_SCORE",
    "PLAIN_SHARED",
    "POST_SCORE",
    "POST_SHARED",
    "SHORT_SCORE",
    "SHORT_WORDS",
    "TRACK_POSTS",
    "TRACK_SCORE",
    "TRACK_SHARE",
    "TRACK_SHARED",
    "TRACK_TRAINING_SCORE",
    "PlainIndex",
]
