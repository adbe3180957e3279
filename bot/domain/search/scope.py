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

Beside another tool's name no post says (``ollama``), without vLLM named, a post answers only when
it holds every telling term of the question, or all but one of four or more: the tool's question
shares problems every runtime has (context length, running out of memory) with vLLM's posts.
"""

from __future__ import annotations

from functools import cached_property
from itertools import pairwise

from bot.domain.search.analysis import _member_terms, _Unit
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
        words = self._vocab.task_words
        if not words:
            return False
        texts = [u.text for u in units]
        pairs = (f"{a} {b}" for a, b in pairwise(texts))
        if not any(t in words for t in (*texts, *pairs)):
            return False
        return not self._telling_terms(topicality)

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
