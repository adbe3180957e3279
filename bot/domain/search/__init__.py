"""Query → the track it names (if any) and ranked posts, in English and Chinese; links → posts.

Build one :class:`Matcher` per catalog version (``Matcher(catalog)``, or ``Matcher(catalog,
load_vocabulary(catalog_dir))``; :func:`bot.domain.search.cache.matcher_for` keeps the built index
beside the catalog); it is read-only and thread-safe. Pure: no Slack or Bolt import.

How a query is read
-------------------
1. :func:`normalize`: punctuation, symbols and emoji become spaces, CJK runs are kept whole
   (``"P-EAGLE"`` → ``"p eagle"``); at most :data:`MAX_QUERY_CHARS` characters are read, a pasted
   fenced code block after the message's own words (:mod:`~bot.domain.search.pasted`).
2. A query that is one URL of a catalog post, in any form the blog has used, returns that post
   alone (:mod:`~bot.domain.search.links`).
3. Latin words are stemmed (:func:`stem`; ``8xH100`` and ``A100s`` read as ``h100``, ``a100``);
   Chinese runs are cut into words by rjieba with the catalog's words as its user dictionary
   (:mod:`~bot.domain.search.segment`), particles and filler words being stop words.
4. ``catalog/glossary.yaml``: the field's terms, abbreviations and Chinese names, one synonym
   group each, with a sense and a track; ``catalog/vocabulary.yaml``: stop, question, symptom and
   topic words, problem phrases, other tools' names.
5. An unknown Latin word of 4+ letters that is no English word is typo-corrected
   (:mod:`~bot.domain.search.spelling`).
6. Readings that hang on the question's context (:mod:`~bot.domain.search.paraphrase`): chat
   abbreviations of measures (``thruput``, ``mem``), ``on device`` beside a GPU, prefill and decode
   put on separate machines; a month named prefers its posts (:mod:`~bot.domain.search.dates`).

Two decisions, apart
--------------------
**On-topic** (:mod:`~bot.domain.search.topic`): a question is about the catalog when it holds a
specific term (a glossary term, or a word of the posts' names that is no everyday English word),
two shared ones, the catalog's own name for something (a tag, a run of a title's words), a track's
name or a phrase of ``answers.yaml``; words no post holds, everyday words and particles never count
against it. Another tool's name (``sglang``, ``centos``, ``驱动``) or a question asking to train a
model (:mod:`~bot.domain.search.scope`) weighs its terms down. Otherwise no posts, unless a
post's curated question shares enough of its words (a question in plain words, no term of the
field: :mod:`~bot.domain.search.plain`, shown as closest; an API path ``/v1/...`` is read there as
the OpenAI-compatible API): ``SearchResult.known`` names the field words it saw. A topic
question (``where do I begin with X``, ``X 入门看什么``) names its track (``SearchResult.topic``).

**Ranking**: an inverted index maps each term to its posts and the weight of its best field
(:data:`FIELD_WEIGHTS`; the posts' own ``questions`` are a field). A query is a list of concepts
(a word, or a glossary form of several words), each with alternatives (joins, synonyms 0.9, typo
corrections, completions 0.75) and an idf weight; a post's coverage is the weighted share of the
concepts it holds. The best candidates get rapidfuzz ``partial_ratio`` against the title::

    score = FUZZY_WEIGHT × (85 × coverage + 0.15 × similarity) + (1 - FUZZY_WEIGHT) × 100 × bm25

where ``bm25`` (:mod:`~bot.domain.search.ranking`, real term frequencies) is divided by the best
post's; a title saying the query's words as typed gains :data:`~bot.domain.search.weights.EXACT_TITLE_BONUS`.
A concept is weighed by its idf, at most its most common synonym's (``long prompts`` as ``long
context``), twice when a symptom word qualifies it (``TTFT`` of ``why is my TTFT high with long
prompts``: :data:`~bot.domain.search.weights.SUBJECT_FACTOR`). The posts of the track whose name
the query holds gain :data:`~bot.domain.search.weights.TRACK_HINT_BONUS` (a name that is one
shared word, ``部署``, yields to another track's: ``如何在 AMD 上部署模型`` is about hardware). A
post without a link is scored :data:`~bot.domain.search.weights.UNLINKED_PENALTY` points lower (the
score it is ranked and shown by). A question naming a chip prefers the posts naming a chip of its
generation, a one-term question ranks recap posts lower, and a question that is one Chinese form
alone is ranked as its term (:mod:`~bot.domain.search.fit`). A good match scores at least :data:`MIN_SCORE` and
:data:`RELATIVE_FLOOR` × the best (at most 100). The search is ``confident`` when its best post
holds the query's telling specific terms, else the posts are shown as the closest ones; past
that, a version the query names that no result has, a weak best score, a tie that is only a number's
unit and a how-to question are weighed by :mod:`~bot.domain.search.evidence`.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from bot.domain.catalog import Catalog
from bot.domain.catalog.attached import PerCatalog
from bot.domain.search.results import HINT_EMPTY as HINT_EMPTY
from bot.domain.search.results import MAX_QUERY_CHARS as MAX_QUERY_CHARS
from bot.domain.search.results import MIN_SCORE as MIN_SCORE
from bot.domain.search.results import LinkResult as LinkResult
from bot.domain.search.results import PostMatch as PostMatch
from bot.domain.search.results import SearchResult as SearchResult
from bot.domain.search.results import TrackMatch as TrackMatch
from bot.domain.search.vocabulary import Vocabulary as Vocabulary
from bot.domain.search.vocabulary import VocabularyError as VocabularyError
from bot.domain.search.vocabulary import default_vocabulary as default_vocabulary
from bot.domain.search.vocabulary import load_vocabulary as load_vocabulary
from bot.domain.search.vocabulary import validate as validate

if TYPE_CHECKING:  # imported on first use (numpy, bm25s: ~0.2 s; the analysis' regexes), see __getattr__
    from bot.domain.search.analysis import normalize as normalize
    from bot.domain.search.analysis import stem as stem
    from bot.domain.search.fields import FIELD_WEIGHTS as FIELD_WEIGHTS
    from bot.domain.search.matcher import Matcher as Matcher
    from bot.domain.search.weights import FUZZY_WEIGHT as FUZZY_WEIGHT
    from bot.domain.search.weights import RELATIVE_FLOOR as RELATIVE_FLOOR

_LAZY = {
    "normalize": "analysis",
    "stem": "analysis",
    "FIELD_WEIGHTS": "fields",
    "Matcher": "matcher",
    **dict.fromkeys(("FUZZY_WEIGHT", "RELATIVE_FLOOR"), "weights"),
}
"""Names whose modules import numpy and bm25s or compile the analysis' regexes: imported when first
read (``vllm-path ask help`` never does)."""


def __getattr__(name: str) -> Any:
    module = _LAZY.get(name)
    if module is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    value = getattr(importlib.import_module(f"{__name__}.{module}"), name)
    globals()[name] = value
    return value


_NAMES: PerCatalog[dict[str, str]] = PerCatalog()


def _track_names(catalog: Catalog) -> dict[str, str]:
    """Casefolded id, names and aliases -> track id (the earlier track wins), made once per catalog:
    a speed layer needed by ``benchmarks/command_latency.py`` (made per command, the CPU per request
    was 1.40-1.69x the no-op's; target <= 1.3x)."""
    names: dict[str, str] = {}
    for track in catalog.tracks:
        for name in (track.id, track.names.en, track.names.zh or "", *track.aliases):
            names.setdefault(name.casefold(), track.id)
    return names


def track_named(catalog: Catalog, text: str, matcher: Matcher | Callable[[], Matcher] | None = None) -> str | None:
    """The track id ``text`` names, or ``None`` (blank text names nothing).

    An exact id, name or alias (case-insensitive; the earlier track wins a shared name), else
    :meth:`Matcher.match_track` of ``matcher``: a :class:`Matcher` over ``catalog`` (the runtime's
    on hot paths), or a function returning one, called only then; default a new one.
    """
    key = text.strip().casefold()
    if not key:
        return None
    if (exact := _NAMES.get(catalog, None, lambda: _track_names(catalog)).get(key)) is not None:
        return exact
    if matcher is None:
        from bot.domain.search.matcher import Matcher as _Matcher

        matcher = _Matcher(catalog)
    elif callable(matcher):
        matcher = matcher()
    match = matcher.match_track(text)
    return match.track_id if match else None
