"""What a search answers, read the way the held-out class tests read it (tests/domain/test_search_weak_*.py,
test_search_qa16.py): the post ids shown, a refusal, the track a topic question asks for, the track named."""

from __future__ import annotations

from bot.domain.search import Matcher


def ids(matcher: Matcher, query: str, n: int = 5) -> list[str]:
    """The ids of the first ``n`` posts ``matcher`` shows for ``query``."""
    return [r.post_id for r in matcher.search(query, limit=n).results]


def refused(matcher: Matcher, query: str) -> bool:
    """Whether ``query`` shows no post and no confidence (the polite refusal)."""
    result = matcher.search(query)
    return result.results == () and result.confidence == "none"


def topic(matcher: Matcher, query: str) -> str | None:
    """The track the query asks to learn as a whole, or None."""
    result = matcher.search(query)
    return result.track.track_id if result.topic and result.track else None


def track(matcher: Matcher, query: str) -> str | None:
    """The track the search names (a topic question's, or the one the query holds), or None."""
    named = matcher.search(query).track
    return named.track_id if named else None
