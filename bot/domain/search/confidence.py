"""How sure a search is of its best post: the thresholds the commands that act on one post
(``read``, ``unread``, ``remind <query>``) and ``<topic> next`` use (pure; moved here from
``bot/slack/commands`` so that ranking numbers live with the ranking)."""

from __future__ import annotations

from bot.domain.search.results import TRACK_THRESHOLD, SearchResult

CLEAR_MARGIN = 15.0
"""Score points by which the best search match must lead the second for ``read`` / ``unread`` /
``remind <query>`` to act on it without asking. A title or its distinctive part leads by 16-32
(``eagle 3.1``, ``agentx``, ``torch.compile``); a topic that several posts share leads by 2-10
(``kv cache``, ``fp8``, ``nixl``, ``dspark``, ``autoround``): those ask which post."""

CONFIDENT_SCORE = 80.0
"""The search score (0-100) a best match needs before ``read`` / ``unread`` / ``remind`` act on it
without asking: named posts, titles and links score 88-100 on the eval sets, while loose text
(``hello world``, ``that post from yesterday``, an unknown id) tops out at 35-72."""

NEAR_TRACK_SCORE = 80.0
"""How close (``Matcher.suggest_track``, 0..100) the topic of ``<topic> next`` must be to a
track's name to be read as that track mistyped (``qaunt next``: 80)."""


def clear_best(result: SearchResult) -> str | None:
    """The best post of ``result`` when it is clearly the one meant: it scores at least
    :data:`CONFIDENT_SCORE`, leads the second by more than :data:`CLEAR_MARGIN` points, and the
    query does not name a track (a track's name, ``quantization``/``量化``, is a topic, not one
    post); else ``None`` (the reader should pick)."""
    top = result.results
    if not top or top[0].score < CONFIDENT_SCORE:
        return None
    if len(top) > 1 and top[1].score >= top[0].score - CLEAR_MARGIN:
        return None
    if result.track is not None and result.track.score >= TRACK_THRESHOLD:
        return None
    return top[0].post_id
