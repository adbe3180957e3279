"""Whether a question is about what the catalog covers (the on-topic decision), and whether it
asks about a track as a whole (a topic question): :class:`TopicIndex`, the base of
:class:`bot.domain.search.Matcher`.

The on-topic decision is apart from ranking. It reads the query's *field terms*: a glossary form
(``catalog/glossary.yaml``) counts by its sense (``specific`` 1, ``shared`` 0.5, ``everyday`` 0);
a Latin word the catalog holds that is no everyday English word (``nixl``, ``deepseek``, ``h100``;
``8xH100`` and ``A100s`` read as their names) counts 1; a misspelt one counts as the word it
corrects to. A question is on-topic when its distinct terms reach :data:`ON_TOPIC`, or when it is
only field words (``router``, ``sleep`` typed alone in the app). Words no post holds, everyday
words, stop and question words and Chinese particles never count against it: ``my TTFT is too
high`` is on-topic by ``ttft`` alone, ``how to get better sleep`` is not by ``sleep`` alone.
Another tool's name (``other_names``: an engine, a training framework, an OS, a driver; Latin or
Chinese, ``驱动``) asks about that tool: one no post says needs two specific terms beside it; one
a post mentions (``onnx``, ``linux``), in a question naming no term most posts hold (``vllm``), shows
posts only when the best holds the tool with the question's telling terms.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import NamedTuple

import numpy as np

from bot.domain.search.analysis import _Concept, _member_terms, _Unit, _unit_key, english_words, normalize, stem
from bot.domain.search.analysis import _joins as _joins
from bot.domain.search.dates import dated_first
from bot.domain.search.firsts import first_release_first
from bot.domain.search.reorder import Ranked, adjusted
from bot.domain.search.results import TrackMatch
from bot.domain.search.tracks import CONTAINED_SCORE, TrackIndex
from bot.domain.search.weights import _SIM_SYNONYM, EVERYDAY_CAP, MAX_CONCEPTS, TRACK_HINT_BONUS, UNNAMED_LAUNCH_PENALTY

SENSE_WEIGHTS = {"specific": 1.0, "shared": 0.5, "loose": 0.5, "everyday": 0.0}
"""How much a field term of each sense says that a question is about the catalog; ``loose`` terms
count half as much again when no specific or shared term is beside them and no two of them are
taught by the same track (``eagle drafting`` is about speculative decoding; ``sleep schedule`` not)."""

ON_TOPIC = 1.0
"""A question whose distinct field terms weigh this much (one specific term, two shared ones) is on-topic."""

ON_TOPIC_BESIDE_TOOL = 2.0
"""What a question naming another tool (``other_names``: ollama, chrome) needs: it asks about that
tool unless it holds two specific terms of ours (``ollama pull llama3 fails`` is not ours)."""

BESIDE_TOOL_TERMS = 4
"""Beside another tool, a question with this many field terms that tell posts apart (not ``model``),
one a specific term of a track, is ours: it tells its setup in our words (replicas, round-robin,
multi-turn, a PD split behind nginx); the tool is a part of it."""

GENERIC_SHARE = 0.5
"""A term held by more than this share of the posts (``vllm``) tells no post from another."""

_OPENING_ONLY = frozenset({"work", "works"})
"""Mechanism words (``mechanism_words``) that ask how something works only in a question opening
with a question word (``how does the scheduler work``; not ``eagle does not work on my gpu``)."""

_QUANTITY_RE = re.compile(r"\d+(?:\.\d+)?[km]?")
"""A count or a size (``64``, ``2k``, ``128k``, ``1.5m``): the setting of a question (``2k in / 64
out``), capped like an everyday word (:meth:`TopicIndex._cap_everyday`), not a subject.
Model sizes (``8b``, ``70b``) and chips (``h100``) are no quantities."""

HINT_SCORE = 75.0
"""The score of a topic question's track found through its glossary terms' ``track`` (``how do i
get into eagle``): below a named track's 80, above a contained name's 70."""


class Term(NamedTuple):
    """A field term of a query: as typed, its sense, the index terms a post must hold for one of
    its alternatives (a post holding any holds the term), and the track that teaches it."""

    text: str
    sense: str
    alternatives: tuple[tuple[str, ...], ...]
    track: str | None


class Topicality(NamedTuple):
    """The on-topic decision of a query: ``terms`` its distinct field terms (:class:`Term`),
    ``score`` their weight (:data:`SENSE_WEIGHTS`), ``bare`` whether every content word of it is in
    one of them (no other word beside them), ``tools`` the names of other tools that some post
    mentions (``onnx``, ``linux``, ``helm``) when the query names no term most posts hold (``vllm``):
    such a question is about that tool unless a post answers it, tool and all
    (:meth:`TopicIndex._tool_unanswered`); ``beside_tool`` whether it names another tool no post
    mentions without naming vLLM (only a confident answer is shown then: holdout round j)."""

    terms: tuple[Term, ...]
    score: float
    bare: bool
    tools: tuple[Term, ...] = ()
    beside_tool: bool = False

    @property
    def on_topic(self) -> bool:
        """Whether the query is about what the catalog covers: :data:`ON_TOPIC`, or only words of
        the glossary and the catalog's names (``sleep``, ``cost`` typed alone in the app)."""
        return self.score >= ON_TOPIC - 1e-9 or self.bare

    @property
    def words(self) -> str:
        """The field terms as typed, space-separated (what a refusal offers to search for)."""
        return " ".join(t.text for t in self.terms)


class TopicIndex(TrackIndex):
    """The on-topic decision and topic questions over one catalog version (read-only)."""

    def _other_tool(self, units: list[_Unit], i: int, said: bool = False) -> bool:
        """Whether ``units[i]``, alone or joined with a neighbour or with two (``triton inference
        server`` as ``tritoninferenceserver``), is another tool's name (``other_names``) that no post
        says as typed (``windows`` is not the ``window`` of sliding-window attention); with ``said``,
        one that some post says (``onnx``, ``linux``: a post mentions it, so it still finds that post).
        Beside the product's own name (a specific term most posts hold, not part of the name), a name
        of parts a post writes hyphenated (``TensorRT-LLM``, indexed joined) is one a post says: the
        question compares it with vLLM (round 21); alone it stays another tool's question.
        A Chinese word (``驱动``) is another tool's name as typed, never one a post says: a post's
        Chinese text is read by character pairs, which hold it inside other words (``配置驱动``)."""
        if units[i].kind != "latin":
            return not said and units[i].text in self._other_names
        runs = (
            "".join(u.text for u in units[j : j + 3])
            for j in range(max(i - 2, 0), i + 1)
            if j + 3 <= len(units) and all(u.kind == "latin" for u in units[j : j + 3])
        )
        near = any(  # the product's own name, outside the joined name's words
            u.sense == "specific" and self._df_of.get(u.text, 0) * 2 > self._n
            for j, u in enumerate(units)
            if not i - 1 <= j <= i + 1
        )
        heard = {w: w in self._surface or (near and w in self._df_of) for w in (*_joins(units, i), *runs)}
        heard[units[i].text] = units[i].text in self._surface
        return any(w in self._other_names and h == said for w, h in heard.items())

    def _spans(self, units: list[_Unit]) -> list[tuple[int, list[_Unit]]]:
        """The query's units as ``(index of the first, units)`` spans: each glossary or synonym form
        one span, every other unit alone."""
        spans: list[tuple[int, list[_Unit]]] = []
        for i, unit in enumerate(units):
            if unit.start >= 0 and spans and spans[-1][1][-1].start == unit.start:
                spans[-1][1].append(unit)
            else:
                spans.append((i, [unit]))
        return spans

    def _span_term(self, span: list[_Unit]) -> Term | None:
        """The field term a span is (``None``: a stop word, a word of no sense)."""
        return self._span_sense(span)

    def _span_sense(self, span: list[_Unit]) -> Term | None:
        """:meth:`_span_term` before the generic rule."""
        first = span[0]
        text = " ".join(u.text for u in span)
        typed = first.text
        if len(span) == 1 and first.sense == "specific" and typed not in self._forms and typed in english_words():
            return Term(text, "loose", ((_unit_key(first),),), first.track)  # "draft" is no "drafter"
        if first.sense is not None:
            alts = [self._group_terms[first.group]] if first.group is not None else []
            own = _member_terms(text)
            return Term(text, first.sense, tuple(dict.fromkeys([*(a for g in alts for a in g), own])), first.track)
        if first.kind != "latin" or first.text in self._ignorable:
            return None
        word, key = first.text, _unit_key(first)
        if word not in english_words() and not _QUANTITY_RE.fullmatch(word) and key in self._field_stems:
            return Term(word, "specific", ((key,),), None)
        if len(word) >= 4 and word not in self._surface:  # a misspelt word: as the word it corrects to
            fixes = [w for w, _ in self._speller.expand(word) if not w.startswith(word)]  # typos, not completions
            if fixes:
                phrase = self._phrases.get((stem(fixes[0]),))
                if phrase is not None:
                    return Term(word, phrase.sense, ((stem(fixes[0]),),), phrase.track)
                if fixes[0] in self._field_words:
                    return Term(word, "specific", ((stem(fixes[0]),),), None)
        return None

    def _topicality(self, units: list[_Unit]) -> Topicality:
        """The on-topic decision of the query's ``units`` (:class:`Topicality`)."""
        terms: dict[tuple[tuple[str, ...], ...], Term] = {}
        content = covered = unheard = 0
        other_tool = False
        mentioned: list[Term] = []  # another tool's name that some post says (onnx, linux)
        for i, span in self._spans(units):
            first = span[0]
            if first.sense is None and (
                first.text in self._ignorable or (first.kind == "latin" and len(first.text) < 2)
            ):
                continue  # a stop word or a lone letter; a lone Chinese character is a word (狗 of 训练我的狗)
            if first.sense is None and (
                first.text in self._vocab.symptom_words or first.text in self._vocab.running_words
            ):
                continue  # "latency too high", "run on cpu": how the measure misbehaves, what is done; no subject
            content += 1
            if self._other_tool(units, i):
                other_tool = True  # a word of another tool's name (ollama, chrome, llama of llama.cpp, 驱动)
                continue
            term = self._span_term(span)
            if first.kind == "latin" and first.sense is None and self._other_tool(units, i, said=True):
                mentioned.append(term or Term(first.text, "specific", ((_unit_key(first),),), None))
            if term is None:
                unheard += first.kind == "latin" and _unit_key(first) not in self._df_of  # "coffee": no post says it
                continue
            covered += 1  # a glossary word, even an everyday one, is no word beside the field's
            if term.sense != "everyday":
                terms.setdefault(term.alternatives, term)
        vllm_named = any(t.sense == "specific" and self._generic(t) for t in terms.values())
        if vllm_named:
            mentioned = []  # "run vllm on linux": about vLLM
        score = sum(SENSE_WEIGHTS[t.sense] for t in terms.values())
        tracks = [t.track for t in terms.values() if t.track is not None]
        if all(t.sense == "loose" for t in terms.values()) and (len(set(tracks)) == len(tracks) or unheard >= 2):
            score /= 2  # "toddler's sleep schedule": field words in their everyday sense, of no one track;
            # or of one track beside two words no post says ("throughput and latency of our coffee shop")
        own = sum(  # beside a tool, words of no track (model, memory) ask about it
            SENSE_WEIGHTS[t.sense] for t in terms.values() if vllm_named or t.sense == "specific" or t.track is not None
        )
        told = [t for t in terms.values() if not self._generic(t)]  # not model, vllm: most posts hold them
        told_many = len(told) >= BESIDE_TOOL_TERMS and any(t.sense == "specific" and t.track for t in told)
        if other_tool and own < ON_TOPIC_BESIDE_TOOL and not told_many:
            score = min(score, ON_TOPIC / 2)  # about the other tool: at most one shared term's worth
        bare = content > 0 and covered == content
        return Topicality(tuple(terms.values()), score, bare, tuple(mentioned), other_tool and not vllm_named)

    def _holds_track_name(self, contained: TrackMatch | None) -> bool:
        """Whether a track name the query holds (:meth:`_track_in`) is of two words or more
        (``engine internals``, ``模型量化``; not the one word ``router`` of ``home wifi router``)."""
        return contained is not None and len(self._canon_keys(self._units(normalize(contained.matched)))) >= 2

    def _names_a_post(self, units: list[_Unit]) -> bool:
        """Whether the query's content words are a tag of a post (``production stack``) or, two or
        more, a run of a title's words as stems (``extract hidden states``): the catalog's own name for
        something, however everyday its words are."""
        words = [u.text for u in units if u.text not in self._ignorable]
        if not words:
            return False
        if " ".join(words) in self._tag_names:
            return True
        if len(words) < 2 or any(u.kind != "latin" for u in units):
            return False
        terms = tuple(dict.fromkeys(stem(w) for w in words))
        if any(t not in self._df_of for t in terms):
            return False
        ids, _ = self._alternative(terms)
        run = f" {' '.join(map(stem, words))} "  # "extract hidden states" of "Extracting hidden states"
        return any(run in self._title_words[doc] for doc in ids.tolist())

    def _holds(self, doc: int, term: Term) -> bool:
        """Whether post number ``doc`` holds one of ``term``'s alternatives (in any field)."""
        for terms in term.alternatives:
            if not terms or any(t not in self._df_of for t in terms):
                continue
            ids, _ = self._alternative(terms)
            at = int(np.searchsorted(ids, doc))
            if at < len(ids) and ids[at] == doc:
                return True
        return False

    def _telling_terms(self, topicality: Topicality) -> list[Term]:
        """The query's specific terms that tell posts apart: not one most posts hold (``vllm``,
        :data:`GENERIC_SHARE`)."""
        return [t for t in topicality.terms if t.sense == "specific" and not self._generic(t)]

    def _tool_unanswered(self, doc: int, topicality: Topicality) -> bool:
        """Whether a question naming another tool some post mentions (``Topicality.tools``: ``how
        do i export a pytorch model to onnx``, ``linux cpu scheduler``) is about that tool: post
        ``doc`` (the best) does not hold the tool's name with the query's telling terms
        (:meth:`_answers_terms`); ``k8s deployment with a helm chart`` is answered by the post on
        the Helm chart. ``False`` for a question naming no such tool."""
        if not topicality.tools:
            return False
        terms = list({t.alternatives: t for t in (*self._telling_terms(topicality), *topicality.tools)}.values())
        return not self._answers_terms(doc, terms)

    def _explainers_and_launches(
        self, ranked: list[Ranked], units: list[_Unit], topicality: Topicality
    ) -> list[Ranked]:
        """``ranked`` (best first) re-scored for what the question asks: when it asks how something
        works inside (``mechanism_words``: ``how is the scheduler implemented``, ``调度器 原理``), the
        essential steps of the tracks of its terms (the engine explainers) gain
        :data:`~bot.domain.search.weights.TRACK_HINT_BONUS` over the posts that only use the feature;
        for a question whose terms belong to no track (a general problem: ``显存不够``), a post of the
        ``launch_tracks`` only whose title names none of its terms loses
        :data:`~bot.domain.search.weights.UNNAMED_LAUNCH_PENALTY` (not the GLM-4.5 launch first).
        Best first again. A question naming a month first prefers the posts of that month
        (:func:`~bot.domain.search.dates.dated_first`), one asking for a first release the post saying
        it is one (:func:`~bot.domain.search.firsts.first_release_first`)."""
        ranked = first_release_first(dated_first(ranked, units, self._published_days), units, self._post_text)
        texts = {u.text for u in units}
        asks = texts & self._vocab.mechanism_words
        opening = bool(units) and units[0].text in self._vocab.question_words
        explainers: set[str] = set()
        if asks and (opening or asks - _OPENING_ONLY):
            for track in {t.track for t in topicality.terms if t.track and self._catalog.has_track(t.track)}:
                explainers.update(self._catalog.essentials(track))
        launches = self._vocab.launch_tracks
        told = [t for t in topicality.terms if not self._generic(t)]
        # A feature a track teaches (``tool calling``): the launches supporting it are examples of it.
        alts = [] if any(t.track for t in told) else [alt for t in told for alt in t.alternatives if alt]
        if not explainers and not (alts and launches):
            return ranked

        def points(doc: int) -> float:
            pid = self._post_ids[doc]
            if pid in explainers:
                return TRACK_HINT_BONUS
            tracks = self._catalog.tracks_of(pid)
            if not alts or not tracks or not set(tracks) <= launches:
                return 0.0
            plain, parts = self._title_terms[doc]
            named = any(all(t in plain or t in parts for t in alt) for alt in alts)
            return 0.0 if named else -UNNAMED_LAUNCH_PENALTY

        return adjusted(ranked, points)

    def _published_days(self, doc: int) -> tuple[dt.date, dt.date]:
        """The first and last day of post number ``doc``'s publication."""
        published = self._catalog.post(self._post_ids[doc]).published
        return published.earliest, published.latest

    def _post_text(self, doc: int) -> tuple[str, str]:
        """Post number ``doc``'s title and its English and Chinese summaries (joined)."""
        post = self._catalog.post(self._post_ids[doc])
        return post.title, f"{post.summary.en} {post.summary.zh}"

    def _generic(self, term: Term) -> bool:
        """Whether ``term`` is one most posts hold (:data:`GENERIC_SHARE`: ``vllm``, the catalog's
        own subject): it tells no post from another."""
        limit = GENERIC_SHARE * max(self._n, 1)
        return any(min((self._df_of.get(t, 0) for t in alt), default=0) > limit for alt in term.alternatives)

    def _answers_terms(self, doc: int, terms: list[Term]) -> bool:
        """Whether post ``doc`` holds ``terms`` (all, or all but one of three or more): a match,
        not only the closest post."""
        missing = sum(not self._holds(doc, t) for t in terms)
        return missing == 0 or (len(terms) >= 3 and missing == 1)

    def _keep_concepts(self, concepts: list[_Concept]) -> list[_Concept]:
        """At most :data:`~bot.domain.search.weights.MAX_CONCEPTS` of ``concepts``: a long question
        (an issue pasted with its flags, env vars and log lines) keeps its field terms first (a form
        with synonyms, a word of the catalog that is no everyday English word: ``launch day``,
        ``kimi``), then the rarest of its other words (holdout round k: ``exports``, ``says``, the
        ``1 and`` of ``…=1 and`` crowded ``launch day`` out, and the Kimi K2 post led the K3 launch)."""
        if len(concepts) <= MAX_CONCEPTS:
            return concepts

        def field(c: _Concept) -> bool:
            return any(
                abs(sim - _SIM_SYNONYM) < 1e-9 or (sim >= 1.0 and len(t) == 1 and t[0] in self._field_stems)
                for t, sim in c.alternatives
            )

        return sorted(concepts, key=lambda c: (not field(c), -c.weight))[:MAX_CONCEPTS]

    def _cap_everyday(self, concepts: list[_Concept], units: list[_Unit]) -> list[_Concept]:
        """``concepts`` with each everyday English word's (no glossary form, no field word: ``setup``,
        ``guide``, ``full``, ``load``) and each quantity's (:data:`_QUANTITY_RE`: ``2k``, ``64``)
        weighing at most :data:`EVERYDAY_CAP` × the heaviest other concept's weight: a rare everyday
        word is no subject of its own, so a post sharing only it (``full`` of "full attention" for
        ``KV cache full``) does not outrank posts on the field term the question is about. Unchanged
        when no concept but everyday words tells posts apart (``run vllm on my desk``: ``vllm`` is in
        most posts)."""
        everyday = {
            stem(u.text)
            for u in units
            if u.kind == "latin"
            and u.group is None
            and u.sense is None
            and (u.text in english_words() or _QUANTITY_RE.fullmatch(u.text))
        }
        if not everyday:
            return concepts

        def is_everyday(concept: _Concept) -> bool:
            own = concept.alternatives[0][0] if concept.alternatives else ()
            return len(own) == 1 and own[0] in everyday

        def telling(concept: _Concept) -> bool:  # not a word most posts hold (vllm)
            own = concept.alternatives[0][0] if concept.alternatives else ()
            return bool(own) and len(self._alternative(own)[0]) <= GENERIC_SHARE * max(self._n, 1)

        field = [c.weight for c in concepts if not is_everyday(c) and telling(c)]
        if not field:
            return concepts
        cap = EVERYDAY_CAP * max(field)
        return [c._replace(weight=min(c.weight, cap)) if is_everyday(c) else c for c in concepts]

    def _track_in(self, units: list[_Unit]) -> TrackMatch | None:
        """The track whose name the query's ``units`` hold (:meth:`TrackIndex._track_in`), else,
        or when that name is one shared word (``部署`` of ops), the platform track the question is
        about (:meth:`_platform_track`: ``vllm on Gaudi``, ``在昇腾上部署`` point at hardware); a
        shared word's track is kept only when no telling term of another track or of none is
        beside it (``gpus`` is hardware, ``gpu out of memory`` is no track)."""
        contained = super()._track_in(units)
        if contained is not None and self._name_rank(contained.matched) > 0:
            return contained
        platform = self._platform_track(units)
        if platform is not None or contained is None:
            return platform
        telling = self._telling_terms(self._topicality(units))
        return None if any(t.track != contained.track_id for t in telling) else contained

    def _platform_track(self, units: list[_Unit]) -> TrackMatch | None:
        """The track of ``platform_tracks`` (``catalog/vocabulary.yaml``) that the query's platform
        terms belong to (glossary terms whose ``track`` is one: a chip, a GPU, a vendor), scored
        :data:`CONTAINED_SCORE`, when the question is about running on it: no other specific term
        tells posts apart beside them (``run vllm on intel gpu``, ``AMD MI300 部署``; not
        ``eagle3 on amd``, nor ``OOM on H100``, which their other terms answer), else ``None``."""
        platforms = self._vocab.platform_tracks
        if not platforms:
            return None
        topicality = self._topicality(units)
        found = {t.track for t in topicality.terms if t.track in platforms and t.sense != "everyday"}
        if len(found) != 1:
            return None
        if any(t.track not in platforms for t in self._telling_terms(topicality)):
            return None
        track = found.pop()
        if track is None or not self._catalog.has_track(track):
            return None
        return TrackMatch(track, CONTAINED_SCORE, " ".join(t.text for t in topicality.terms if t.track == track))

    def topic_track(self, query: str) -> TrackMatch | None:
        """The track a topic question asks about as a whole (``where do I begin with speculative
        decoding``, ``量化入门看什么``), or ``None``: the query holds a phrase of ``topic_phrases``
        (or ``getting started``) and the rest of it names a track, holds a track's name, or holds
        glossary terms that all belong to one track (its specific terms' one track, when loose
        words of another are beside them: ``vllm 作为强化学习 rollout 引擎``); with no rest
        (``入门看什么``, ``where do I begin``) the track that ``getting started`` names."""
        norm = self._rewrite(normalize(query))
        return self._topic_track(self._units(norm, query=True))

    def _framing(self, units: list[_Unit]) -> list[bool]:
        """Per unit of a query, whether it frames a learning request (a ``topic_phrases`` phrase, or
        ``where do i start``'s group): all ``False`` when the query is no learning request."""
        keys = [_unit_key(u) for u in units]
        framing = [False] * len(units)
        i = 0
        while i < len(units):
            if units[i].group is not None and units[i].group == self._start_group:
                framing[i] = True
                i += 1
                continue
            n = next(
                (
                    n
                    for n in range(min(self._topic_max, len(units) - i), 0, -1)
                    if all(u.start < 0 for u in units[i : i + n]) and tuple(keys[i : i + n]) in self._topic_keys
                ),
                0,
            )
            for j in range(i, i + n):
                framing[j] = True
            i += max(n, 1)
        return framing

    def _topic_track(self, units: list[_Unit]) -> TrackMatch | None:
        """:meth:`topic_track` of a query's units."""
        framing = self._framing(units)
        if not any(framing):
            return None
        rest = [u for u, f in zip(units, framing, strict=True) if not f]
        text = " ".join(u.text for u in rest if u.text not in self._ignorable)
        if not text:  # only "where do I begin", "入门看什么": the subject is vLLM itself, where it starts
            return self._match_track("getting started")
        named = self._match_track(text)
        if named is not None:
            return named
        if not self._topicality(rest).on_topic and not self._names_subject(units, framing):
            return None  # not about the catalog: "learn about my car engine" is no topic question
        contained = self._track_in(rest)
        if contained is not None:
            return contained
        tracked = [(u.track, u.sense) for u in rest if u.track is not None and self._catalog.has_track(u.track)]
        # The specific terms' track leads a loose word's (``rollout 引擎``: the engine is RL's setting).
        hinted = {track for track, sense in tracked if sense == "specific"}
        if len(hinted) != 1:
            hinted = {track for track, _ in tracked}
        if len(hinted) == 1:
            track = hinted.pop()
            return TrackMatch(track, HINT_SCORE, " ".join(u.text for u in rest if u.track == track))
        return None

    def _names_subject(self, units: list[_Unit], framing: list[bool]) -> bool:
        """Whether a framing word of a topic question is the catalog's own subject (``vllm`` of
        ``new to vllm``: a word most posts hold that is no English word): the rest is about vLLM
        however loose its words (``want to send my first pr``)."""
        limit = GENERIC_SHARE * max(self._n, 1)
        return any(
            f and u.kind == "latin" and u.text not in english_words() and self._df_of.get(_unit_key(u), 0) > limit
            for u, f in zip(units, framing, strict=True)
        )


__all__ = ["CONTAINED_SCORE", "HINT_SCORE", "ON_TOPIC", "Term", "TopicIndex", "Topicality"]
