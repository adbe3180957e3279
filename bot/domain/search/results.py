"""What search returns: plain, immutable data (no Slack, no rendering)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass
from typing import Literal

MAX_QUERY_CHARS = 200
"""Only this many characters of a (normalized) query are read."""

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
    """A track the query names: ``score`` 0..100 (100: exactly an id, name or alias), ``matched``
    the id/name/alias."""

    track_id: str
    score: float
    matched: str


@dataclass(frozen=True)
class PostMatch:
    """A ranked post: ``score`` 0..100 (>= ``MIN_SCORE``); ``matched`` the best field that matched
    (``title``, ``tags``, ``id``, ``summary``, ``answers``, ``track``, or ``link`` for a link to the
    post); ``tracks`` the ids of its tracks in catalog order (``Catalog.tracks_of``)."""

    post_id: str
    score: float
    matched: str
    tracks: tuple[str, ...] = ()
    coverage: float = 0.0
    """The weighted share (0..1) of the query's concepts the post holds (1.0 for a link)."""
    linked: bool = True
    """Whether the post has a link; one without is scored ``UNLINKED_PENALTY`` points lower."""


@dataclass(frozen=True)
class LinkResult:
    """What a link in a query points to: ``status`` ``"post"`` (``post_id`` is the catalog post at
    that URL), ``"unknown"`` (a blog or summary host, but no catalog post yet), ``"home"`` (the blog's
    home page) or ``"foreign"`` (another host); ``url`` as read from the query (Slack's ``<…|label>`` removed)."""

    status: Literal["post", "unknown", "home", "foreign"]
    url: str
    post_id: str | None = None


@dataclass(frozen=True)
class SearchResult:
    """What ``Matcher.search`` returns: ``track`` the track the query names; ``results`` the posts
    of the page, best first; ``hint`` ``HINT_EMPTY`` for a query with nothing to search for;
    ``total`` the good matches (at most ``MAX_TOTAL``), ``offset`` the index of ``results[0]``
    among them; ``link`` set for a URL; ``confidence`` ``"none"`` when there are no results."""

    query: str
    track: TrackMatch | None
    results: tuple[PostMatch, ...]
    hint: str | None
    total: int = 0
    offset: int = 0
    link: LinkResult | None = None
    confidence: Confidence = "none"
    known: str | None = None
    """With no results because the query is not about the catalog: its field words that alone did
    not make it so (``train`` of ``how to train my dog``; :class:`~bot.domain.search.topic.Topicality`)."""
    topic: bool = False
    """Whether the query asks about ``track`` as a whole (``where do I begin with X``, ``X 入门看什么``):
    the reply is that track's path (:meth:`~bot.domain.search.topic.TopicIndex.topic_track`)."""

    @property
    def leading_track(self) -> str | None:
        """The track most posts of this page belong to, or None when two tracks hold as many: a
        single word near a track's name (``qaunt``) points at that track only when it leads."""
        counts = Counter(tid for match in self.results for tid in match.tracks)
        top = counts.most_common(2)
        if not top or (len(top) > 1 and top[1][1] == top[0][1]):
            return None
        return top[0][0]

    @property
    def has_more(self) -> bool:
        """True when good matches follow this page (offer "More results")."""
        return self.offset + len(self.results) < self.total
