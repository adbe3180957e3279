"""Query → the track it names (if any) and ranked posts, in English and Chinese; links → posts.

Build one :class:`Matcher` per catalog version (``Matcher(catalog)``, or ``Matcher(catalog,
load_vocabulary(catalog_dir))``); it is read-only and thread-safe. Pure: no Slack or Bolt import.

How a query is read
-------------------
1. :func:`normalize`: punctuation, symbols and emoji become spaces, CJK runs are kept whole
   (``"P-EAGLE"`` → ``"p eagle"``); at most :data:`MAX_QUERY_CHARS` characters are read.
2. A query that is one URL of a catalog post returns that post alone (:mod:`~bot.domain.search.links`).
3. Latin words are stemmed (:func:`stem`) and adjacent ones joined (``wide ep`` → ``wideep``); CJK
   runs are indexed as character bigrams.
4. ``catalog/vocabulary.yaml``: synonym groups across both languages, stop and question words
   (never a match on their own), track stop words; its Chinese entries segment Chinese text.
5. An unknown Latin word of 4+ letters is typo-corrected (:mod:`~bot.domain.search.spelling`).
6. A query that is exactly one phrase of ``catalog/answers.yaml`` ranks that post first (100).

Scoring
-------
**Coverage**: an inverted index maps each term to its posts and the weight of its best field
(:data:`FIELD_WEIGHTS`). A query is a list of concepts (one per word), each with alternatives
(joins, synonyms 0.9, typo corrections, prefix completions 0.75) and an idf weight; a post's
coverage is the weighted share of concepts it matches. The best candidates are re-scored with
rapidfuzz ``partial_ratio`` (query against title, its Chinese against the post's Chinese)::

    fuzzy = 100 × (0.85 × coverage + 0.15 × similarity / 100)             (0..100)
    score = FUZZY_WEIGHT × fuzzy + (1 - FUZZY_WEIGHT) × 100 × bm25          (0..100)

where ``bm25`` (:mod:`~bot.domain.search.ranking`) is divided by the best post's (``fuzzy`` alone
when no query term is in the BM25 index). A good match scores at least :data:`MIN_SCORE` and
:data:`RELATIVE_FLOOR` × the best; ties go to the newer post. The best post's coverage gives
``SearchResult.confidence`` (:data:`CONFIDENT_COVERAGE`, :data:`CLOSEST_COVERAGE`).
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
    from bot.domain.search.matcher import FUZZY_WEIGHT as FUZZY_WEIGHT
    from bot.domain.search.matcher import RELATIVE_FLOOR as RELATIVE_FLOOR
    from bot.domain.search.matcher import Matcher as Matcher

_LAZY = {
    "normalize": "analysis",
    "stem": "analysis",
    "FIELD_WEIGHTS": "fields",
    **dict.fromkeys(("FUZZY_WEIGHT", "RELATIVE_FLOOR", "Matcher"), "matcher"),
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
    """Casefolded id, names and aliases -> track id (the earlier track wins), made once per catalog."""
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
