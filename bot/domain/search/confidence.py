"""How sure a search is of its best post: the thresholds of the commands that act on one post
(``read``, ``unread``, ``remind <query>``) and of ``<topic> next``."""

from __future__ import annotations

from bot.domain.search.results import TRACK_THRESHOLD, SearchResult
from bot.domain.search.weights import UNLINKED_PENALTY

CLEAR_MARGIN = 15.0
"""Score points by which the best search match must lead the second to be acted on without asking:
a title leads by 16-32 (``eagle 3.1``), a topic several posts share by 2-10 (``kv cache``)."""

CONFIDENT_SCORE = 80.0
"""The search score (0-100) a best match needs to be acted on without asking: titles and links
score 88-100 on the eval sets, loose text (``hello world``) at most 35-72."""

NEAR_TRACK_SCORE = 80.0
"""How close (``Matcher.suggest_track``, 0..100) the topic of ``<topic> next`` must be to a
track's name to be read as that track mistyped (``qaunt next``: 80)."""


def clear_best(result: SearchResult) -> str | None:
    """The best post of ``result`` when it scores at least :data:`CONFIDENT_SCORE`, leads the
    second by more than :data:`CLEAR_MARGIN` points (by how well it matches: a second without a link
    is compared without its ranking penalty) and the query names no track; else ``None``."""
    top = result.results
    if not top or top[0].score < CONFIDENT_SCORE:
        return None
    second = top[1].score + (0.0 if top[1].linked else UNLINKED_PENALTY) if len(top) > 1 else None
    if second is not None and second >= top[0].score - CLEAR_MARGIN:
        return None
    if result.track is not None and result.track.score >= TRACK_THRESHOLD:
        return None
    return top[0].post_id
