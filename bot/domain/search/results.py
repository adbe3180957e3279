"""What search returns: plain, immutable data (no Slack, no rendering)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

MAX_QUERY_CHARS = 200
"""Only this many characters of a (normalized) query are read; keeps long Slack input fast."""

HINT_EMPTY = (
    "Type a topic, a model or a track to search for, for example: speculative decoding, 量化, torch.compile, pd."
)
"""The hint for a query with nothing to search for (empty, punctuation, emoji)."""

MIN_SCORE = 35.0
"""Post results scoring below this (0..100) are not returned as matches."""

TRACK_THRESHOLD = 80.0
"""A track match needs at least this score (0..100)."""

Confidence = Literal["confident", "closest", "none"]
"""How sure a search is of its best post (:attr:`SearchResult.confidence`)."""


@dataclass(frozen=True)
class TrackMatch:
    """A track the query names. ``score`` is 0..100 (100: the query is exactly an id, name or
    alias); ``matched`` is the id/name/alias it matched."""

    track_id: str
    score: float
    matched: str


@dataclass(frozen=True)
class PostMatch:
    """A ranked post. ``score`` is 0..100 (>= ``MIN_SCORE``); ``matched`` names the best field
    that matched: ``title``, ``tags``, ``id`` (id or former id), ``summary``, ``answers`` (the
    questions and terms of ``catalog/answers.yaml``), ``track`` or ``link`` (the query was a link
    to the post). ``tracks`` are the ids of the tracks the post is a step of, in catalog order
    (``Catalog.tracks_of``; empty for a post in no track)."""

    post_id: str
    score: float
    matched: str
    tracks: tuple[str, ...] = ()
    coverage: float = 0.0
    """The weighted share (0..1) of the query's concepts the post holds (field weights and typo
    similarity included; 1.0 for a link): what :attr:`SearchResult.confidence` is read from."""


@dataclass(frozen=True)
class LinkResult:
    """What a link in a query points to (:func:`bot.domain.search.resolve_link`).

    ``status``: ``"post"`` — ``post_id`` is the catalog post at that URL; ``"unknown"`` — the URL
    is on a blog host (or a summary host) but no catalog post has it: the post is not in the
    catalog yet; ``"foreign"`` — a URL on another host (not ours to answer; search it as text).
    ``url`` is the URL as read from the query (Slack's ``<…|label>`` removed).
    """

    status: Literal["post", "unknown", "foreign"]
    url: str
    post_id: str | None = None


@dataclass(frozen=True)
class SearchResult:
    """What ``Matcher.search`` returns (see it for when each part is set).

    ``query`` as given; ``track`` the track it names or ``None``; ``results`` the posts of the
    requested page, best first; ``hint`` is ``HINT_EMPTY`` for a query with nothing to search for.
    ``total`` counts the good matches (at most ``MAX_TOTAL``), ``offset`` is the index of
    ``results[0]`` among them; ``link`` is set when the query was a URL (:class:`LinkResult`).
    ``confidence``: ``"confident"`` / ``"closest"`` from ``bot.domain.search.CONFIDENT_COVERAGE`` /
    ``CLOSEST_COVERAGE``, else ``"none"`` (then ``results`` is empty and ``total`` 0).
    """

    query: str
    track: TrackMatch | None
    results: tuple[PostMatch, ...]
    hint: str | None
    total: int = 0
    offset: int = 0
    link: LinkResult | None = None
    confidence: Confidence = "none"

    @property
    def has_more(self) -> bool:
        """True when good matches follow this page (offer "More results")."""
        return self.offset + len(self.results) < self.total
