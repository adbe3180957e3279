"""Query → the track it names (if any) and ranked posts, in English and Chinese.

Use :class:`Matcher`: build it once per catalog version (``Matcher(catalog)``), then call
:meth:`Matcher.match_track` and :meth:`Matcher.search` from any thread (the index is read-only
after construction; the only mutable part is an internal ``functools.lru_cache`` of per-word
expansions, which is thread-safe).

This module is longer than our ~500-line guide on purpose: it is one concern (reading a query
against one index: normalisation, vocabulary, typo correction, track matching and ranking share
the same tokens and tables), and split files would have to pass those internals back and forth.

How a query is read
-------------------
1. **Preprocessing** (:func:`normalize`): Unicode NFKC (full-width letters, ligatures, ``²``),
   case folding, and every run of punctuation, symbols and emoji becomes one space; CJK runs are
   kept whole and separated from Latin words. ``"P-EAGLE"`` → ``"p eagle"``, ``"torch.compile"`` →
   ``"torch compile"``, ``"ＧＰＴ－ＯＳＳ"`` → ``"gpt oss"``, ``"&"`` / ``"???"`` / ``"🦅"`` → ``""``.
   At most :data:`MAX_QUERY_CHARS` characters of a query are read (Slack sends up to ~3,000).
2. **Terms.** Latin words are reduced by a small suffix stemmer (:func:`stem`: ``disaggregated`` and
   ``disaggregation`` → ``disaggreg``; ``quantization`` and ``quantisation`` → ``quant``). Adjacent
   words are also joined (``wide ep`` → ``wideep``, ``p eagle`` → ``peagle``, ``gpt oss`` →
   ``gptoss``) so that names written with or without punctuation or spaces meet. Chinese has no
   spaces: CJK runs are indexed as character **bigrams** (``推测解码`` → ``推测 测解 解码``).
3. **Vocabulary** (:data:`SYNONYMS`, in this module): groups of equivalent domain terms in both
   languages (``spec`` ↔ ``speculative decoding`` ↔ ``推测解码`` ↔ ``投机解码``, ``disagg`` ↔
   ``disaggregation`` ↔ ``分离``, ``quantisation`` ↔ ``quantization`` ↔ ``量化``, ``rl`` ↔
   ``reinforcement learning`` ↔ ``强化学习`` …). It is vocabulary, not answers: no entry names a post.
   Its Chinese entries also segment Chinese text (forward maximum matching), so ``稀疏注意力`` is
   read as ``稀疏`` + ``注意力`` and ``分离式推理`` as ``分离式`` + ``推理``.
4. **Typos** (rapidfuzz): a Latin word of 4+ letters that is not in the catalog's vocabulary is
   scored with ``rapidfuzz.fuzz.ratio`` (cutoff :data:`FUZZY_CUTOFF`) against the known words one
   edit away, found through a small *symmetric-delete index* (every word of the titles, tags, ids,
   track names and vocabulary, and its one-letter deletions, built with the matcher); a word of
   :data:`FULL_SCAN_CHARS`+ letters with no such neighbour is compared with every known word
   (summaries included) of a compatible length. A word that could be a word being typed also
   gets its prefix completions. At most :data:`MAX_FUZZY_WORDS` words per query are corrected.

The post index
--------------
An inverted index (two flat numpy arrays, sliced per term) maps each term to the posts containing
it and the weight of the best field it occurs in: title 1.0, tags 0.9, post id and former ids 0.8,
summaries (en and zh) 0.6, names and aliases of the post's tracks 0.4 (:data:`FIELD_WEIGHTS`),
plus 0.03 for each further field it also occurs in (a post about X says X in its title *and* its
summary).

A query is a list of *concepts* (one per word, Chinese dictionary word or left-over bigram), each
with alternatives (the word itself 1.0, its joins with neighbours 1.0, same-stem words 1.0,
vocabulary equivalents 0.9, typo corrections ``0.9 × ratio/100``, prefix completions 0.75). A
concept is weighted by the inverse document frequency of its best term (words found in most posts,
such as ``vllm``, count a quarter; stop words are dropped; of a long query only the
:data:`MAX_CONCEPTS` rarest concepts count). A post's *coverage* is the weighted share of concepts
it matches, each times the field weight, computed for all posts at once with numpy. The best
candidates are then re-scored with rapidfuzz: ``fuzz.partial_ratio`` of the query's Latin words
against the title and of its Chinese against the post's Chinese text (summary and tags), averaged
when the query has both::

    score = 100 × (0.85 × coverage + 0.15 × similarity / 100)   (0..100)

Scores are capped at 100 and rounded to 0.1; below :data:`MIN_SCORE` they are not shown, so a
query that matches nothing well returns no posts (never an arbitrary "best" one). A query with
nothing to search for (empty, punctuation, emoji) returns no posts and a hint. Ties go to the
higher coverage, then the newer post.

Track matching
--------------
:meth:`Matcher.match_track` compares the query, after typo correction and vocabulary
canonicalisation, to each track's id, English and Chinese names and aliases. It fires only when
the query *names* a track: every word of the query must belong to one name (``speculative``,
``pd disaggregation``, ``推测解码``, ``specualtive decodng``), so post-level queries (``eagle``,
``mooncake``, ``fp8 kv cache``) give ``None``. Score 0..100, threshold :data:`TRACK_THRESHOLD`.
"""

from __future__ import annotations

import bisect
import gc
import math
import operator
import re
import unicodedata
from dataclasses import dataclass
from functools import lru_cache
from itertools import pairwise
from typing import TYPE_CHECKING

import numpy as np
from rapidfuzz import fuzz, process

if TYPE_CHECKING:  # pragma: no cover
    from bot.catalog.compiled import Catalog

__all__ = [
    "FIELD_WEIGHTS", "MAX_QUERY_CHARS", "MIN_SCORE", "TRACK_THRESHOLD", "SYNONYMS",
    "Matcher", "PostMatch", "SearchResult", "TrackMatch", "normalize", "stem",
]

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

FIELD_WEIGHTS = {"title": 1.0, "tags": 0.9, "id": 0.8, "summary": 0.6, "track": 0.4}
"""How much a match in each field of a post counts (the best field of a term wins)."""

_FIELD_BONUS = 0.03
"""Added to a term's best field weight for each further field (of title, tags, id, summary) it
occurs in; at most 0.09, so the best field can still be read back from the value."""

# Similarity of a concept's alternatives.
_SIM_SYNONYM = 0.9
_SIM_FUZZY = 0.9
_SIM_PREFIX = 0.75
_GENERIC_DF = 0.5      # a term in more than half the posts is generic ...
_GENERIC_FACTOR = 0.25  # ... and its concept weighs a quarter

_CJK = ("\u2e80-\u2fdf\u3040-\u30ff\u3100-\u312f\u3190-\u31ff\u3400-\u4dbf"
        "\u4e00-\u9fff\uf900-\ufaff")
_TOKEN_RE = re.compile(rf"[{_CJK}]+|[^\W_{_CJK}]+")

STOPWORDS = frozenset("""
a an and are as at be by can do does for from how i in into is it its me my of on or our the their
this to use using vs was what when where which who why will with you your about get set up s t
的 了 和 与 及 在 是 吗 呢 怎么 如何 什么 一个
""".split())
"""Words that carry no topic; dropped from queries unless nothing else is left."""

_TRACK_STOPWORDS = frozenset("track tracks path paths reading learning 路径 学习路径 阅读".split())
"""Extra words ignored when deciding whether a query names a track ("the spec track")."""

SYNONYMS: tuple[tuple[str, ...], ...] = (
    # Each tuple is one group of equivalent terms (first = canonical). Domain vocabulary only.
    ("speculative decoding", "spec decoding", "spec decode", "speculative decode", "spec",
     "speculative", "speculative sampling", "推测解码", "投机解码", "推测采样", "投机采样", "推测", "投机"),
    ("pd disaggregation", "pd disaggregated serving", "prefill decode disaggregation",
     "disaggregated prefill", "pd 分离", "pd 分离服务", "预填充解码分离"),
    ("pd", "prefill decode"),
    ("disaggregation", "disaggregated", "disaggregate", "disagg", "分离", "分离式"),
    ("quantization", "quantisation", "quantize", "quantise", "quantized", "quantised", "quant",
     "量化"),
    ("reinforcement learning", "rl", "强化学习"),
    ("post training", "posttraining", "后训练"),
    ("multimodal", "multi modal", "多模态"),
    ("omni modality", "omni modal", "全模态"),
    ("sparse attention", "稀疏注意力"),
    ("sparse", "sparsity", "稀疏"),
    ("attention", "注意力"),
    ("long context", "长上下文", "长文本"),
    ("context", "上下文"),
    ("kv cache", "kvcache", "kv 缓存", "键值缓存"),
    ("cache", "caching", "缓存"),
    ("mixture of experts", "moe", "混合专家"),
    ("expert parallelism", "expert parallel", "专家并行"),
    ("tensor parallelism", "tensor parallel", "张量并行"),
    ("pipeline parallelism", "pipeline parallel", "流水线并行"),
    ("context parallelism", "context parallel", "上下文并行"),
    ("parallelism", "parallel", "并行"),
    ("hardware", "硬件"),
    ("accelerator", "加速器"),
    ("gpu", "显卡"),
    ("nvidia", "英伟达"),
    ("kubernetes", "k8s"),
    ("text to speech", "tts", "语音合成"),
    ("speech", "语音"),
    ("audio", "音频"),
    ("video", "视频"),
    ("image", "图像", "图片"),
    ("diffusion", "扩散"),
    ("lora", "low rank adaptation"),
    ("agentic", "agent", "智能体"),
    ("benchmark", "benchmarking", "基准测试", "评测"),
    ("throughput", "吞吐", "吞吐量"),
    ("latency", "延迟", "时延"),
    ("inference", "推理"),
    ("serving", "服务"),
    ("deployment", "deploy", "部署"),
    ("training", "训练"),
    ("embedding", "嵌入"),
    ("compile", "compilation", "compiler", "编译"),
    ("kernel", "kernels", "算子", "内核"),
    ("scheduling", "scheduler", "调度"),
    ("prefix caching", "prefix cache", "前缀缓存"),
    ("distributed", "分布式"),
    ("performance", "性能"),
    ("optimization", "optimisation", "optimize", "optimise", "优化"),
    ("accuracy", "精度", "准确率"),
    ("weights", "权重"),
    ("sleep mode", "睡眠模式"),
    ("routing", "router", "路由"),
    ("multi token prediction", "mtp", "多令牌预测"),
    ("draft model", "草稿模型"),
    ("open source", "开源"),
    ("multi turn", "多轮"),
    ("cuda graphs", "cuda graph", "cudagraph", "cudagraphs"),
    ("memory", "显存", "内存"),
    ("model", "模型"),
    ("reasoning", "推理模型"),
)
"""Equivalent domain terms, English and Chinese. Used to expand search queries (similarity 0.9),
to canonicalise track names and queries, and (Chinese entries) to segment Chinese text."""

_SUFFIXES = ("izations", "isations", "ization", "isation", "ations", "ation", "ators", "ator",
             "ities", "ity", "ives", "ive", "ings", "ing", "ions", "ion", "ized", "ised", "izes",
             "ises", "ize", "ise", "ated", "ates", "ate", "ers", "er", "ed")
_SUFFIXES_BY_LAST: dict[str, tuple[str, ...]] = {}
for _suffix in _SUFFIXES:  # the same priority order, looked up by the word's last letter
    _SUFFIXES_BY_LAST[_suffix[-1]] = _SUFFIXES_BY_LAST.get(_suffix[-1], ()) + (_suffix,)
del _suffix


# --- preprocessing ------------------------------------------------------------------------------


def normalize(text: str) -> str:
    """The preprocessing every query and indexed text goes through.

    Unicode NFKC, ``str.casefold``, then only runs of letters/digits (Latin, Cyrillic, Hangul …) and
    runs of CJK characters are kept, joined by one space: punctuation, symbols, emoji and
    underscores separate words and disappear. Returns ``""`` when nothing is left.
    """
    if not text:
        return ""
    text = unicodedata.normalize("NFKC", text).casefold()
    return " ".join(_TOKEN_RE.findall(text))


_PARTS_RE = re.compile(rf"([{_CJK}]+)|([^\W_{_CJK}]+)")


def _parts(text: str) -> list[tuple[str, str]]:
    """``normalize`` as ``[(cjk run, "") or ("", latin word)]``."""
    if not text:
        return []
    return _PARTS_RE.findall(unicodedata.normalize("NFKC", text).casefold())


_ASCII_WORD_RE = re.compile(r"[a-z0-9]+")
_ASCII_WORD2_RE = re.compile(r"[a-z0-9]{2,}")


def _text_terms(text: str, joins: bool, surface: set[str], cjk_runs: list[str] | None = None
                ) -> list[str]:
    """Index terms of raw text: stems of Latin words (2+ chars), stems of joined adjacent Latin
    words (when ``joins``), CJK bigrams. Adds the Latin words to ``surface`` (and the CJK runs to
    ``cjk_runs``). Same result as going through :func:`normalize`; ASCII text takes a fast path."""
    if not text:
        return []
    if text.isascii():  # NFKC and casefold are lower() here; words are [a-z0-9]+
        lowered = text.lower()
        if not joins:
            words = _ASCII_WORD2_RE.findall(lowered)
            surface.update(words)
            return list(map(stem, words))
        words = _ASCII_WORD_RE.findall(lowered)
        surface.update(words)
        out = list(map(stem, _ASCII_WORD2_RE.findall(lowered)))
        if len(words) > 1:
            out.extend(map(stem, map(operator.add, words, words[1:])))
        return out
    parts = _parts(text)
    runs = [c for c, _ in parts if c]
    words = [w for _, w in parts if w]
    surface.update(words)
    out = list(map(stem, [w for w in words if len(w) > 1]))
    for run in runs:
        if len(run) > 1:
            out.extend(map(operator.add, run, run[1:]))
        else:
            out.append(run)
    if cjk_runs is not None:
        cjk_runs.extend(runs)
    if joins:  # joins of Latin words that are adjacent (no CJK run between them)
        out.extend(stem(a[1] + b[1]) for a, b in pairwise(parts) if a[1] and b[1])
    return out


def _deletes(word: str) -> set[str]:
    """The word and every string one character shorter (the symmetric-delete neighbourhood)."""
    return {word} | {word[:i] + word[i + 1:] for i in range(len(word))}


def _member_terms(member: str) -> tuple[str, ...]:
    """Terms a vocabulary entry requires (all of them): stems and CJK bigrams."""
    terms: list[str] = []
    for cjk, latin in _parts(member):
        if cjk:
            terms.extend(_bigrams(cjk))
        elif len(latin) >= 2:
            terms.append(stem(latin))
    return tuple(dict.fromkeys(terms))


@lru_cache(maxsize=1 << 18)
def stem(word: str) -> str:
    """A light suffix stemmer for (normalized) Latin words; words with digits are kept as they are.

    Strips one derivational/inflectional suffix (``-ization``, ``-ation``, ``-ing``, ``-ed``,
    ``-s`` …) when at least 3 letters remain, then a final ``e``: ``decoding``/``decode`` → ``decod``,
    ``quantization``/``quantisation``/``quantized`` → ``quant``, ``gpus`` → ``gpu``.
    """
    if len(word) < 4 or not word.isalpha():
        return word
    for suffix in _SUFFIXES_BY_LAST.get(word[-1], ()):
        if word.endswith(suffix) and len(word) - len(suffix) >= (4 if suffix == "ed" else 3):
            word = word[: -len(suffix)]
            break
    else:
        if word.endswith(("ches", "shes", "xes", "sses")) and len(word) > 5:
            word = word[:-2]
        elif word.endswith("s") and not word.endswith(("ss", "is")):
            word = word[:-1]
    if len(word) >= 5 and word.endswith("e"):
        word = word[:-1]
    return word


def _field_of(value: float) -> str:
    """The field whose weight a posting value carries (weight plus at most 0.09 of bonus)."""
    return max(((w, f) for f, w in FIELD_WEIGHTS.items() if w <= value + 1e-4),
               default=(0.0, "track"))[1]


def _bigrams(run: str) -> list[str]:
    if len(run) == 1:
        return [run]
    return list(map(operator.add, run, run[1:]))


def _cjk_segment(run: str, dictionary: frozenset[str], max_len: int) -> list[tuple[str, bool]]:
    """Forward maximum matching: ``[(piece, is_dictionary_word)]``; left-over characters are
    grouped into chunks."""
    out: list[tuple[str, bool]] = []
    chunk = ""
    i = 0
    while i < len(run):
        for n in range(min(max_len, len(run) - i), 1, -1):
            piece = run[i:i + n]
            if piece in dictionary:
                if chunk:
                    out.append((chunk, False))
                    chunk = ""
                out.append((piece, True))
                i += n
                break
        else:
            if run[i] in dictionary:
                if chunk:
                    out.append((chunk, False))
                    chunk = ""
                out.append((run[i], True))
            else:
                chunk += run[i]
            i += 1
    if chunk:
        out.append((chunk, False))
    return out


# --- results ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class TrackMatch:
    """A track the query names. ``score`` is 0..100 (100: the query is exactly an id, name or
    alias); ``matched`` is the id/name/alias it matched."""

    track_id: str
    score: float
    matched: str


@dataclass(frozen=True)
class PostMatch:
    """A ranked post. ``score`` is 0..100 (>= :data:`MIN_SCORE`); ``matched`` names the best field
    that matched: ``title``, ``tags``, ``id`` (id or former id), ``summary`` or ``track``."""

    post_id: str
    score: float
    matched: str


@dataclass(frozen=True)
class SearchResult:
    """What :meth:`Matcher.search` returns.

    ``query`` is the query as given; ``track`` the track it names (or ``None``); ``results`` the
    posts, best first (empty when nothing scores at least :data:`MIN_SCORE`); ``hint`` is
    :data:`HINT_EMPTY` when the query has nothing to search for (empty, only punctuation, symbols or
    emoji), else ``None`` (a query that matches nothing has no results and no hint).
    """

    query: str
    track: TrackMatch | None
    results: tuple[PostMatch, ...]
    hint: str | None


@dataclass(frozen=True)
class _Concept:
    weight: float
    alternatives: tuple[tuple[tuple[str, ...], float], ...]  # (conjunctive terms, similarity)


@dataclass(frozen=True)
class _Unit:
    """A query/name word after segmentation: Latin word, CJK dictionary word or CJK chunk."""

    text: str
    kind: str  # "latin" | "cjkword" | "cjkchunk"
    group: int | None = None  # synonym group covering it


def _unit_key(unit: _Unit) -> str:
    return stem(unit.text) if unit.kind == "latin" else unit.text


# --- the matcher --------------------------------------------------------------------------------


class Matcher:
    """Track matching and post search over one catalog version.

    ``Matcher(catalog)`` builds the index (tens of milliseconds for a hundred posts, about a second
    for ten thousand); afterwards the matcher never changes and may be shared between threads.
    """

    def __init__(self, catalog: Catalog) -> None:
        posts = catalog.posts
        self._n = len(posts)
        self._post_ids: tuple[str, ...] = tuple(p.id for p in posts)
        self._titles = tuple(normalize(p.title) for p in posts)
        # Newer first on ties: a tiny bonus (< 1e-6 of a score point) by publication rank.
        order = sorted(range(self._n), key=lambda i: (posts[i].published.latest, posts[i].id))
        recency = np.zeros(self._n, dtype=np.float64)
        for rank, doc in enumerate(order):
            recency[doc] = (rank + 1) / (self._n + 1)
        self._recency = recency * 1e-9
        # The build allocates hundreds of thousands of small objects and frees none: pausing the
        # cyclic garbage collector meanwhile saves it from rescanning the catalog again and again.
        gc_was_enabled = gc.isenabled()
        gc.disable()
        try:
            self._build_vocabulary(catalog)
            self._build_index(catalog)
            self._build_tracks(catalog)
        finally:
            if gc_was_enabled:
                gc.enable()
        arrays: list[np.ndarray] = [self._flat_docs, self._flat_vals, self._recency,
                                    *(a for pair in self._merged.values() for a in pair)]
        for array in arrays:
            array.flags.writeable = False  # read-only: safe to share between threads
        self._expand_word = lru_cache(maxsize=8192)(self._expand_word_uncached)

    # --- building -------------------------------------------------------------------------------

    def _build_vocabulary(self, catalog: Catalog) -> None:
        """Synonym groups keyed by unit sequences; the Chinese segmentation dictionary."""
        cjk_words: set[str] = set()
        for group in SYNONYMS:
            for member in group:
                cjk_words.update(c for c, _ in _parts(member) if c)
        self._cjk_dict = frozenset(cjk_words)
        self._cjk_max = max((len(w) for w in cjk_words), default=1)
        self._phrases: dict[tuple[str, ...], int] = {}
        self._group_terms: list[tuple[tuple[str, ...], ...]] = []
        for gid, group in enumerate(SYNONYMS):
            for member in group:
                key = tuple(_unit_key(u) for u in self._units(normalize(member), phrases=False))
                if key:
                    self._phrases.setdefault(key, gid)
            self._group_terms.append(tuple(dict.fromkeys(
                t for t in (_member_terms(m) for m in group) if t)))
        self._phrase_max = max(len(k) for k in self._phrases)

    def _build_index(self, catalog: Catalog) -> None:
        """Inverted index: per term, the posts (ascending) and field values, stored as slices of
        two flat arrays (``term -> (start, end)``); terms also found in track names are merged
        with the track field into their own arrays."""
        all_terms: list[str] = []
        all_vals: list[float] = []
        per_doc: list[int] = []  # how many terms each post has
        surface: set[str] = set()  # Latin words of titles, tags, ids (then track names, vocabulary)
        prose: set[str] = set()    # Latin words of summaries
        zh_texts: list[str] = []
        w_title, w_tags, w_id, w_summary, w_track = (
            FIELD_WEIGHTS[f] for f in ("title", "tags", "id", "summary", "track"))
        for post in catalog.posts:
            cjk_runs: list[str] = []
            title = set(_text_terms(post.title, True, surface, cjk_runs))
            # One pass per field: tags (and ids) are read as one text, so a few joins span two
            # tags ("rl" + "rollout"); they are harmless and it halves the tokenizer calls.
            tags = set(_text_terms("\n".join(post.tags), True, surface, cjk_runs))
            ids = set(_text_terms(" ".join((post.id, *post.aliases)), True, surface))
            summary = set(_text_terms(post.summary.en, False, prose))
            summary.update(_text_terms(post.summary.zh or "", False, prose, cjk_runs))
            zh_texts.append(" ".join(cjk_runs))
            best = dict.fromkeys(summary, w_summary)  # heavier fields overwrite lighter ones
            best.update(dict.fromkeys(ids, w_id))
            best.update(dict.fromkeys(tags, w_tags))
            best.update(dict.fromkeys(title, w_title))
            multi = (title & (tags | ids | summary)) | (tags & (ids | summary)) | (ids & summary)
            for term in multi:
                best[term] += _FIELD_BONUS * ((term in title) + (term in tags) + (term in ids)
                                              + (term in summary) - 1)
            all_terms.extend(best)
            all_vals.extend(best.values())
            per_doc.append(len(best))
        self._zh_texts = tuple(zh_texts)
        index = {t: i for i, t in enumerate(dict.fromkeys(all_terms))}
        term_ids = np.fromiter(map(index.__getitem__, all_terms), dtype=np.int64,
                               count=len(all_terms))
        order = np.argsort(term_ids, kind="stable")  # stable: docs stay ascending within a term
        docs = np.repeat(np.arange(len(per_doc), dtype=np.int32), per_doc)
        self._flat_docs = docs[order]
        self._flat_vals = np.fromiter(all_vals, dtype=np.float32, count=len(all_vals))[order]
        counts = np.bincount(term_ids, minlength=len(index))
        ends = np.cumsum(counts)
        self._term_index = index
        self._starts = (ends - counts).tolist()
        self._ends = ends.tolist()
        self._counts = counts.tolist()
        self._merged: dict[str, tuple[np.ndarray, np.ndarray]] = {}
        # The names and aliases of a post's tracks are its weakest field.
        doc_index = {pid: i for i, pid in enumerate(self._post_ids)}
        track_docs: dict[str, list[np.ndarray]] = {}
        for track in catalog.tracks:
            path = catalog.orders.get(track.id, ())
            members = np.array(sorted(doc_index[p] for p in path if p in doc_index), dtype=np.int32)
            track_terms: set[str] = set()
            for text in (track.id, track.names.en, track.names.zh or "", *track.aliases):
                track_terms.update(_text_terms(text, True, surface))
            for term in track_terms:
                track_docs.setdefault(term, []).append(members)
        for term, member_arrays in track_docs.items():
            dense = np.zeros(self._n, dtype=np.float32)
            for members in member_arrays:
                dense[members] = w_track
            if term in self._term_index:
                posting_ids, posting_vals = self._posting(term)
                dense[posting_ids] = posting_vals
            merged_ids = np.flatnonzero(dense).astype(np.int32)
            self._merged[term] = (merged_ids, dense[merged_ids])
        # Known Latin words (for typo correction): the posts', the tracks' and the vocabulary's.
        for member in (m for group in SYNONYMS for m in group):
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
        self._track_exact: dict[str, tuple[str, str]] = {}
        for tid, name, norm, _ in self._track_names:
            self._track_exact.setdefault(norm, (tid, name))
            self._track_exact.setdefault(norm.replace(" ", ""), (tid, name))
        self._max_name_units = max((len(c) for *_, c in self._track_names), default=0)

    # --- analysis helpers ----------------------------------------------------------------------

    def _units(self, norm: str, phrases: bool = True) -> list[_Unit]:
        """Split normalized text into units and mark the synonym groups covering them."""
        units: list[_Unit] = []
        for cjk, latin in _PARTS_RE.findall(norm):
            if cjk:
                for piece, known in _cjk_segment(cjk, self._cjk_dict, self._cjk_max):
                    units.append(_Unit(piece, "cjkword" if known else "cjkchunk"))
            else:
                units.append(_Unit(latin, "latin"))
        if not phrases:
            return units
        keys = [_unit_key(u) for u in units]
        i = 0
        while i < len(units):
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
        if word in self._surface or len(word) < 4 or word.isdigit():
            return ()
        out: dict[str, float] = {}
        # Candidates one edit away (symmetric deletes: a deletion, insertion, substitution or
        # transposition), scored with rapidfuzz; a full scan of the words of a compatible length
        # only for long words with no such neighbour (two typos in one word).
        near = {w for v in _deletes(word) for w in self._deletes.get(v, ())}
        if near:
            hits = process.extract(word, list(near), scorer=fuzz.ratio, processor=None,
                                   score_cutoff=FUZZY_CUTOFF, limit=5)
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

    def match_track(self, query: str) -> TrackMatch | None:
        """The track the query names, or ``None``.

        Scores (0..100): 100 when the normalized query equals a track's id, English or Chinese name
        or alias (spaces ignored: ``pd分离`` = ``PD 分离``); 95 when equal after vocabulary
        canonicalisation and stemming (``disaggregated`` = ``disaggregation``, ``model
        quantization`` = ``模型量化``); 60-95 when every word of the query is a word of one name,
        rising with the share of the name covered (a word found in over half the posts, such as
        ``vllm``, weighs the share of posts without it, at least a quarter, and cannot name a track
        alone); such a partial match is dropped when another track scores within
        :data:`AMBIGUITY_MARGIN`. A typo-corrected query (``specualtive decodng``) scores times the
        correction's ``fuzz.ratio``/100. Below :data:`TRACK_THRESHOLD` there is no match. A query
        with a word that belongs to no single name (``eagle``, ``fp8 kv cache``, ``amd mi300x``)
        does not match, nor does one of :data:`SHORT_QUERY_CHARS` letters or fewer that is not
        exactly an id or alias (``tts``, ``kv``), nor a sentence much longer than any name.
        """
        norm = normalize(query[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS]
        if not norm or not self._track_names:
            return None
        exact = self._track_exact.get(norm) or self._track_exact.get(norm.replace(" ", ""))
        if exact:
            return TrackMatch(exact[0], 100.0, exact[1])
        if len(norm.replace(" ", "")) <= SHORT_QUERY_CHARS:
            return None  # an abbreviation names a track only when it is an id or alias (above)
        if len(norm.split()) > 2 * self._max_name_units + 2:
            return None  # a sentence, not a name
        corrected, factor = self._correct(norm)
        units = [u for u in self._units(corrected)
                 if not (u.group is None and (u.text in STOPWORDS or u.text in _TRACK_STOPWORDS))]
        q_canon = self._canon_keys(units)
        if not q_canon:
            return None
        q_set = set(q_canon)
        per_track: dict[str, tuple[float, str, bool]] = {}  # track -> (score, name, whole name)
        for tid, name, _, canon in self._track_names:
            if not canon:
                continue
            if tuple(q_canon) == canon:
                score, whole = 95.0, True
            else:
                if not q_set <= set(canon):
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

    # --- post search ----------------------------------------------------------------------------

    def _concepts(self, norm: str) -> list[_Concept]:
        """The query's concepts with their alternatives and weights (see the module docstring)."""
        units = self._units(norm)
        content = [i for i, u in enumerate(units) if u.group is not None or u.text not in STOPWORDS]
        keep = set(content) if content else set(range(len(units)))  # stop words only: keep them
        raw: list[list[tuple[tuple[str, ...], float]]] = []
        fuzzy_budget = MAX_FUZZY_WORDS
        for i, unit in enumerate(units):
            if i not in keep:
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
        for alts in raw[:MAX_RAW_CONCEPTS]:
            alts = [a for a in dict.fromkeys(alts) if all(self._has(t) for t in a[0])]
            if not alts:
                pending.append(len(concepts))
                concepts.append(_Concept(0.0, ()))
                continue
            primary = [a for a in alts if a[1] >= 1.0] or alts
            weight = max(min(self._idf(t) for t in terms) for terms, _ in primary)
            df = max(min(self._df(t) for t in terms) for terms, _ in primary)
            if df / max(self._n, 1) > _GENERIC_DF:
                weight *= _GENERIC_FACTOR
            present.append(weight)
            concepts.append(_Concept(weight, tuple(alts)))
        if not present:
            return []
        missing = sorted(present)[len(present) // 2]  # a word found nowhere weighs a median concept
        concepts = [c if c.alternatives else _Concept(missing, ()) for c in concepts]
        if len(concepts) > MAX_CONCEPTS:  # a long query: keep its rarest (most telling) words
            concepts = sorted(concepts, key=lambda c: -c.weight)[:MAX_CONCEPTS]
        return concepts

    def _alternative(self, terms: tuple[str, ...]) -> tuple[np.ndarray, np.ndarray]:
        """Posts having all ``terms``: ``(doc numbers, smallest field value)``."""
        ids, vals = self._posting(terms[0])
        for term in terms[1:]:
            ids2, vals2 = self._posting(term)
            ids, i1, i2 = np.intersect1d(ids, ids2, assume_unique=True, return_indices=True)
            vals = np.minimum(vals[i1], vals2[i2])
        return ids, vals

    def search(self, query: str, limit: int = 5) -> SearchResult:
        """Rank posts for ``query`` (see the module docstring for the scoring).

        Returns at most ``limit`` (clamped to 1..50) posts scoring at least :data:`MIN_SCORE`, best
        first, and the track the query names (:meth:`match_track`). An empty query or one of only
        punctuation, symbols or emoji gives no results and ``hint`` = :data:`HINT_EMPTY`; a query
        that matches nothing gives no results and no hint.
        """
        limit = max(1, min(int(limit), 50))
        norm = normalize(query[: MAX_QUERY_CHARS * 4])[:MAX_QUERY_CHARS]
        if not norm:
            return SearchResult(query, None, (), HINT_EMPTY)
        track = self.match_track(query)
        concepts = self._concepts(norm)
        total = sum(c.weight for c in concepts)
        if total <= 0 or self._n == 0:
            return SearchResult(query, track, (), None)
        scores = np.zeros(self._n, dtype=np.float64)
        best_part = np.zeros(self._n, dtype=np.float32)   # the largest concept contribution ...
        best_field = np.zeros(self._n, dtype=np.float32)  # ... and the field value it came from
        for concept in concepts:
            if not concept.alternatives or concept.weight < 0.01 * total:
                continue  # found nowhere, or too common to move a score by a point
            value = np.zeros(self._n, dtype=np.float32)
            field = np.zeros(self._n, dtype=np.float32)
            for terms, sim in concept.alternatives:
                ids, vals = self._alternative(terms)
                if not len(ids):
                    continue
                cand = vals * np.float32(sim)
                better = cand > value[ids]
                sel = ids[better]
                value[sel] = cand[better]
                field[sel] = vals[better]
            part = value * np.float32(concept.weight)
            scores += part
            better = part > best_part
            best_part[better] = part[better]
            best_field[better] = field[better]
        coverage = scores / total
        # Posts that cannot reach MIN_SCORE even with a perfect similarity are dropped here.
        floor = (MIN_SCORE / 100.0 - 0.15) / 0.85
        hits = np.flatnonzero(coverage >= floor - 1e-9)
        if not len(hits):
            return SearchResult(query, track, (), None)
        keep = max(limit * 10, 50)
        key = coverage[hits] + self._recency[hits]
        if len(hits) > keep:
            top = np.argpartition(-key, keep - 1)[:keep]
            hits, key = hits[top], key[top]
        latin = " ".join(w for c, w in _PARTS_RE.findall(norm) if w)[:SIMILARITY_CHARS]
        cjk = " ".join(c for c, w in _PARTS_RE.findall(norm) if c)[:SIMILARITY_CHARS]
        ranked = []
        for doc, k in zip(hits.tolist(), key.tolist(), strict=True):
            similarity = self._similarity(doc, latin, cjk)
            raw = 100.0 * (0.85 * float(coverage[doc]) + 0.15 * similarity / 100.0)
            score = round(min(raw, 100.0), 1)
            if score >= MIN_SCORE:
                # Among equal (capped) scores, a post whose title starts with the query is the one
                # it names ("p-eagle" -> "P-EAGLE: …" before a post that mentions P-EAGLE).
                names_it = bool(latin) and self._titles[doc].startswith(latin)
                ranked.append((-score, -names_it, -raw, -k, self._post_ids[doc], doc))
        ranked.sort()
        matches = tuple(PostMatch(pid, -neg, _field_of(float(best_field[doc])))
                        for neg, *_, pid, doc in ranked[:limit])
        return SearchResult(query, track, matches, None)

    def _similarity(self, doc: int, latin: str, cjk: str) -> float:
        """rapidfuzz ``partial_ratio`` (0..100) of the query's Latin words against the title and of
        its Chinese against the post's Chinese text (title, tags, summary), averaged when it has
        both."""
        parts = []
        if latin:
            parts.append(fuzz.partial_ratio(latin, self._titles[doc]) if len(latin) >= 3 else 0.0)
        if cjk:
            parts.append(fuzz.partial_ratio(cjk, self._zh_texts[doc]) if len(cjk) >= 2 else 0.0)
        return sum(parts) / len(parts) if parts else 0.0


def track_named(catalog: Catalog, text: str, matcher: Matcher | None = None) -> str | None:
    """The one answer to "does this text name a track": the track id, or ``None``.

    An exact id, English or Chinese name or alias (case-insensitive) names its track; otherwise
    :meth:`Matcher.match_track` decides (typos, stemming, vocabulary). ``matcher`` defaults to a
    new :class:`Matcher` over ``catalog`` (pass the runtime's, built once, on hot paths). Blank
    text names nothing.
    """
    key = text.strip().casefold()
    if not key:
        return None
    for track in catalog.tracks:
        names = {track.id, track.names.en, track.names.zh or "", *track.aliases}
        if key in {n.casefold() for n in names}:
            return track.id
    match = (matcher or Matcher(catalog)).match_track(text)
    return match.track_id if match else None
