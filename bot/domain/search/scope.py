"""What a question asks for beyond the catalog's words: :class:`ScopeIndex`, between
:class:`~bot.domain.search.topic.TopicIndex` and :class:`~bot.domain.search.fit.FitIndex`.

vLLM serves models; it does not train them. A question asking to train or fine-tune a model (a word
of ``training_words`` in ``catalog/vocabulary.yaml``: ``fine tune``, ``train``, ``训练``, ``微调``) is
about training, whatever field terms it holds beside (``fine-tune llama 3 8b with lora using
unsloth``, ``用 DeepSpeed ZeRO-3 训练 70B 模型显存不够怎么办``): its terms weigh at most one shared
term's worth, as beside another tool's name (:data:`~bot.domain.search.topic.ON_TOPIC_BESIDE_TOOL`).
It is about what the catalog covers when a term of a track is beside the training word (what vLLM
trains with or for: RL's ``rollout`` and ``GRPO``, speculative decoding's ``draft model``,
deployment) or when it names vLLM or serving (a term most posts hold: ``can vllm train a model``,
``serve the model i fine-tuned``). A fine-tuned model or adapter (``fine-tuned``, ``finetunes``,
``微调模型``) is something served: those forms are no training word. A post on training the very
thing the question names, holding the training word with the question's telling terms, answers it.

The catalog's own Chinese names that the glossary lacks, a track's alias (``运维``, ``生产部署``) or a
post's Chinese tag (``幻觉检测``), are shared terms of ours: cut whole by the segmenter, they were
read as no term at all (holdout round p).

A request that names the product but asks for nothing a post holds is refused by rule, not by a
list of its words (holdout set z): the field's own names (``vllm``, ``llm``) beside words no post
holds, more of them than one post holds of the rest (a stock, an office, a letter to a client:
:meth:`ScopeIndex._names_only`); a writing verb whose object no post holds (``draft me a cover
letter``: :meth:`ScopeIndex._asks_writing`); two names no post holds compared (``lambda vs runpod``:
:meth:`ScopeIndex._compares_unheard`).

Beside another tool's name no post says (``ollama``), without vLLM named, a post answers only when
it holds every telling term of the question, or all but one of four or more: the tool's question
shares problems every runtime has (context length, running out of memory) with vLLM's posts.
"""

from __future__ import annotations

import re
from bisect import bisect_left
from functools import cached_property
from itertools import pairwise

from bot.domain.search.analysis import _member_terms, _Unit, _unit_key
from bot.domain.search.reorder import Ranked
from bot.domain.search.topic import ON_TOPIC, Term, Topicality, TopicIndex
from bot.domain.text import has_han

TOOL_MANY_TERMS = 4
"""Beside another tool's name, a question with this many telling terms or more may have
:data:`TOOL_MISSING` of them missing from a post that answers it (:meth:`ScopeIndex._tool_not_ours`)."""

TOOL_MISSING = 1
"""The telling terms a post may miss of a question beside another tool's name with many of them."""

HAN_TAG_CHARS = 4
"""A post's Chinese tag of this many characters or more is a compound of the field (``幻觉检测``,
``容量规划``) that the query segmenter cuts whole: a term (:meth:`ScopeIndex._han_names`); a shorter
one is an everyday word (``安全``, ``社区``, ``课程``)."""

BROAD_SHARE = 0.2
"""A specific term of no track held by more than this share of the posts names the whole field
(``llm``: a quarter of them; ``vllm``: nearly all), not a subject of some posts: beside words no post
holds it is no evidence that a post answers the question (:meth:`ScopeIndex._names_only`)."""

UNHEARD_BESIDE_NAME = 2
"""Beside only the field's names, this many content words that no post holds (``nvda``, ``hype``;
``办公室``, ``寄``) make the question one about something else (:meth:`ScopeIndex._names_only`)."""

WRITING_VERBS = frozenset({"write", "draft", "compose", "写", "撰写", "起草"})
"""Verbs asking for a text written for the asker (:meth:`ScopeIndex._asks_writing`)."""

OBJECT_ENDS = frozenset({"for", "about", "to", "on", "in", "with", "给", "关于", "向"})
"""Words ending the object of a writing verb: what follows says what it is for or about."""

_ENDINGS = re.compile(r"(?:ed|ing|es|s)$")
"""An English inflection's ending (``owned``, ``governs``)."""

MIN_ROOT = 3
"""A root shorter than this (``ed`` of ``bed``) is not looked up as a prefix."""

COMPARED = frozenset({"vs", "versus"})
"""Words between two things compared (:meth:`ScopeIndex._compares_unheard`)."""

FEW_POSTS = 3
"""A telling term held by at most this many posts names what they are about (``diffusiongemma``: the
launch, the developer guide and one use of it), not a field many posts share (``lora``: 11)."""


class ScopeIndex(TopicIndex):
    """The on-topic decision of :class:`TopicIndex`, with training questions out of scope (module
    docstring); read-only."""

    def _topicality(self, units: list[_Unit]) -> Topicality:
        """:meth:`TopicIndex._topicality`, its score at most half :data:`ON_TOPIC` for a question
        about training a model (:meth:`_about_training`), and no longer ``bare`` unless it is the
        training word alone (``fine tuning`` typed in the app is still searched); no terms at all for
        a request for a piece of work (:meth:`_asks_a_task`)."""
        topicality = super()._topicality(units)
        if self._asks_a_task(units, topicality):
            return Topicality((), 0.0, False)
        if topicality.score <= ON_TOPIC / 2 or not self._about_training(units, topicality):
            return topicality
        return topicality._replace(score=ON_TOPIC / 2, bare=topicality.bare and len(topicality.terms) == 1)

    def _asks_a_task(self, units: list[_Unit], topicality: Topicality) -> bool:
        """Whether the query asks for a piece of work no post is, a poem, a joke, a translation, a job
        opening (a word or two-word run of ``task_words``), beside no telling term
        (:meth:`~bot.domain.search.topic.TopicIndex._telling_terms`): its only words of ours are the
        product's own name, which most posts hold (``vllm``), and everyday or loose ones. The post
        sharing its everyday words (``fast``, ``jobs``) answers nothing it asks (QA round 20): it is
        refused as a question off the field is, and never answered by the plain-words fallback.
        Beside a telling term (``a limerick about prefix caching``) the term's posts are searched."""
        if self._names_only(units, topicality) or self._compares_unheard(units):
            return True
        if self._asks_writing(units) and not self._narrow_terms(topicality) and not self._track_terms(topicality):
            return True
        words = self._vocab.task_words
        if not words:
            return False
        texts = [u.text for u in units]
        pairs = (f"{a} {b}" for a, b in pairwise(texts))
        if not any(t in words for t in (*texts, *pairs)):
            return False
        return not self._telling_terms(topicality)

    def _broad(self, term: Term) -> bool:
        """Whether ``term`` names the whole field (:data:`BROAD_SHARE`: ``llm``, ``vllm``): a
        specific term of no track that more than that share of the posts hold."""
        limit = BROAD_SHARE * max(self._n, 1)
        return (
            term.sense == "specific"
            and term.track is None
            and any(min((self._df_of.get(t, 0) for t in alt), default=0) > limit for alt in term.alternatives)
        )

    def _track_terms(self, topicality: Topicality) -> list[Term]:
        """The query's terms that a track teaches (``benchmark``, ``throughput``), of any sense: a
        writing request beside one asks for code or a text about the field (``write a python script
        to benchmark vllm throughput``: the benchmarking posts; new-user round 21), not for a text
        no post is. The writing verb itself is none (``draft`` is also a draft model)."""
        return [
            t for t in topicality.terms if t.track is not None and not self._broad(t) and t.text not in WRITING_VERBS
        ]

    def _narrow_terms(self, topicality: Topicality) -> list[Term]:
        """The telling terms (:meth:`_telling_terms`) that do not name the whole field (:meth:`_broad`)."""
        return [t for t in self._telling_terms(topicality) if not self._broad(t)]

    def _plain_content(self, units: list[_Unit]) -> list[_Unit]:
        """The query's content words of no field sense: not stop, symptom or running words, no
        glossary term (nor a typo of one), no lone letter nor lone Chinese character (``哪``, ``寄``:
        everyday words that posts' character pairs say nothing about)."""
        return [
            u
            for u in units
            if u.sense is None
            and len(u.text) >= 2
            and u.text not in self._ignorable
            and u.text not in self._vocab.symptom_words
            and u.text not in self._vocab.running_words
            and self._span_term([u]) is None
        ]

    def _unheard(self, unit: _Unit) -> bool:
        """Whether ``unit`` (a word of :meth:`_plain_content`) is one that no post holds in any form
        (``nvda``, ``办公室``): an English word whose root, without an ending of :data:`_ENDINGS`,
        begins no word of a post (``owned`` as ``own``, ``governed`` as ``governance``) is unheard."""
        key = _unit_key(unit)
        if key in self._df_of:
            return False
        if unit.kind != "latin":
            return True
        root = _ENDINGS.sub("", unit.text)
        if len(root) < MIN_ROOT:
            return True
        keys = self._sorted_keys
        at = bisect_left(keys, root)
        return not (root in self._df_of or (at < len(keys) and keys[at].startswith(root)))

    @cached_property
    def _sorted_keys(self) -> list[str]:
        """Every index term of the posts, sorted (prefix look-ups of :meth:`_unheard`)."""
        return sorted(self._df_of)

    def _names_only(self, units: list[_Unit], topicality: Topicality) -> bool:
        """Whether the question's only field terms are the field's own names (:meth:`_broad`:
        ``vllm``, ``llm``) beside :data:`UNHEARD_BESIDE_NAME` or more plain words no post holds
        (:meth:`_unheard`), more of them than one post holds of its other plain words: it names the
        product but asks about a stock, a company's office, a letter to a client. A post would need
        a word of the question's subject beside the name; holding the name alone (most posts do) is
        no evidence it answers. ``who governs vllm … linux foundation`` has a post holding its
        plain words (``foundation``, ``company``); ``what is vllm`` holds no word that no post holds."""
        terms = topicality.terms
        if not terms or not all(self._broad(t) for t in terms):
            return False
        plain = self._plain_content(units)
        unheard = sum(self._unheard(u) for u in plain)
        if unheard < UNHEARD_BESIDE_NAME:
            return False
        keys = {_unit_key(u) for u in plain} & self._df_of.keys()
        held: dict[int, int] = {}
        for key in keys:
            for doc in self._alternative((key,))[0].tolist():
                held[int(doc)] = held.get(int(doc), 0) + 1
        return unheard > max(held.values(), default=0)

    def _compares_unheard(self, units: list[_Unit]) -> bool:
        """Whether the query compares two things (``a vs b``: :data:`COMPARED`) of which no post
        holds either (:meth:`_unheard` plain words: two vendors, two products the blog never names):
        what it asks is which of those, and no post can tell, whatever field terms sit beside."""
        plain = {id(u) for u in self._plain_content(units)}

        def unheard(u: _Unit) -> bool:
            return id(u) in plain and self._unheard(u)

        return any(
            u.text in COMPARED and 0 < i < len(units) - 1 and unheard(units[i - 1]) and unheard(units[i + 1])
            for i, u in enumerate(units)
        )

    def _asks_writing(self, units: list[_Unit]) -> bool:
        """Whether the query asks for a text written for the asker: a writing verb
        (:data:`WRITING_VERBS`: ``draft me a …``, ``帮我写 …``) whose object, the content words after
        it up to a word of :data:`OBJECT_ENDS` (``for``, ``about``), is no field term and no post
        holds its words together (those some post holds: a word none does may be a shorthand,
        ``op``): the text is no post's subject, whatever kind of text it is (a cover letter, a
        speech). ``write a python client``, ``draft model``, ``write a custom op`` name something
        posts hold."""
        for i, unit in enumerate(units):
            if unit.text not in WRITING_VERBS:
                continue
            obj: list[_Unit] = []
            for nxt in units[i + 1 :]:
                if nxt.text in OBJECT_ENDS:
                    break
                if nxt.text in self._ignorable or (nxt.kind == "latin" and len(nxt.text) < 2):
                    continue
                obj.append(nxt)
            if not obj or any(self._span_term([u]) is not None for u in obj):
                continue
            keys = tuple(dict.fromkeys(k for k in map(_unit_key, obj) if k in self._df_of))
            if keys and not self._alternative(keys)[0].size:
                return True
        return False

    def _out_of_scope(self, units: list[_Unit], topicality: Topicality) -> bool:
        """Whether the query asks to train a model (:meth:`_about_training`) or for a piece of work
        (:meth:`_asks_a_task`): no post answers it by sharing its plain words (:mod:`~bot.domain.search.plain`)."""
        return self._about_training(units, topicality) or self._asks_a_task(units, topicality)

    def _span_term(self, span: list[_Unit]) -> Term | None:
        """:meth:`TopicIndex._span_term`, and for a Chinese word of no glossary form that is a
        track's Chinese name or alias or a post's Chinese tag (:meth:`_han_names`) its term."""
        term = super()._span_term(span)
        if term is not None or len(span) != 1 or span[0].kind == "latin":
            return term
        return self._han_names.get(span[0].text)

    @cached_property
    def _han_names(self) -> dict[str, Term]:
        """The catalog's own Chinese names for what it covers that the glossary lacks, as shared terms
        (a question needs another word of ours beside one: ``运维工程师 面试`` is no question on
        vLLM's operations): a track's Chinese name and aliases (``运维``, ``生产部署``: of that track; of none when
        two tracks share one) and a post's Chinese tag of :data:`HAN_TAG_CHARS` characters or more
        (``幻觉检测``). The segmenter cuts them whole (:meth:`Index._build_vocabulary`), so a question
        holding one beside other words (``生产部署 运维 从哪开始看``, ``token 级 幻觉检测``) was read
        as holding no term of ours. Words that are stop, question, topic or track-framing words
        (``入门``) are no such name."""
        skip = self._ignorable | self._vocab.track_stopwords | self._vocab.topic_phrases | self._forms
        tracks: dict[str, set[str]] = {}
        for track in self._catalog.tracks:
            for name in (track.names.zh or "", *track.aliases):
                tracks.setdefault(name.casefold(), set()).add(track.id)
        tags = {t.casefold() for p in self._catalog.posts for t in p.tags if len(t) >= HAN_TAG_CHARS}
        names = {w: None for w in tags} | {w: ids.pop() if len(ids) == 1 else None for w, ids in tracks.items()}
        return {
            word: Term(word, "shared", (_member_terms(word),), track)
            for word, track in names.items()
            if len(word) >= 2 and all(has_han(c) for c in word) and word not in skip
        }

    def _about_training(self, units: list[_Unit], topicality: Topicality) -> bool:
        """Whether the query asks to train or fine-tune (one of its words or glossary forms is in
        ``training_words``) with no term of a track beside, nor a term most posts hold that is no
        shared word of computing (``vllm``, ``serve``; not ``model``, the thing trained), and no post
        on training what it names (:meth:`_training_answered`)."""
        words = self._vocab.training_words
        if not words or not any(" ".join(u.text for u in span) in words for _, span in self._spans(units)):
            return False
        if any(
            (t.track is not None and self._catalog.has_track(t.track)) or (t.sense != "shared" and self._generic(t))
            for t in topicality.terms
        ):
            return False
        return not self._training_answered(topicality)

    def _training_answered(self, topicality: Topicality) -> bool:
        """Whether the question names something few posts are about (a telling term beside the
        training word that at most :data:`FEW_POSTS` posts hold: ``diffusiongemma``) and one of those
        posts holds the training word with the question's telling terms
        (:meth:`~bot.domain.search.topic.TopicIndex._answers_terms`): a post on training that very
        thing (DiffusionGemma's developer guide fine-tunes it for Sudoku: holdout round k). A name
        many posts hold (``llama``, ``lora``) or none does (``mistral``) is no such subject."""
        told = self._telling_terms(topicality)
        training = [t for t in told if t.text in self._vocab.training_words]
        if not training:
            return False
        docs: set[int] = set()
        for term in told:
            if term in training:
                continue
            held = {
                int(d)
                for alt in term.alternatives
                if alt and all(a in self._df_of for a in alt)
                for d in self._alternative(alt)[0].tolist()
            }
            if len(held) <= FEW_POSTS:
                docs |= held
        return any(self._answers_terms(doc, told) and all(self._holds(doc, t) for t in training) for doc in docs)

    def _tool_not_ours(self, best: Ranked, topicality: Topicality) -> bool:
        """Whether a question naming another tool no post mentions, without naming vLLM
        (``Topicality.beside_tool``), is about that tool although its best post (``best``, a
        :data:`~bot.domain.search.reorder.Ranked`) is a match: that post is no listed answer and
        misses one of the question's telling terms, or two of four or more (elsewhere one of three
        may be missing: :meth:`~bot.domain.search.topic.TopicIndex._answers_terms`). Beside another
        tool the bar is a term higher: ``Ollama 在 Mac 上跑 gguf 模型，上下文长度怎么改，显存爆了`` holds
        context length and running out of memory, problems of every runtime, and a post on those
        without GGUF answers vLLM's, not Ollama's (holdout round l); a long question on a model
        beside ``trtllm-gen`` still finds the post holding four of its five terms."""
        if not topicality.beside_tool or best[2] == "answers":
            return False
        told = self._telling_terms(topicality)
        missing = sum(not self._holds(best[1], t) for t in told)
        return missing > (TOOL_MISSING if len(told) >= TOOL_MANY_TERMS else 0)


__all__ = ["ScopeIndex"]
