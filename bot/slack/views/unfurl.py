"""A shared post as a link unfurl (``chat.unfurl``), pure; no one's progress (everyone sees it)."""

from __future__ import annotations

from typing import Any

from bot.domain.catalog import Catalog
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, link, truncate
from bot.slack.views.blocks import actions, button, context, section, to_dicts
from bot.slack.views.messages import track_name
from bot.slack.views.plan import minutes_suffix

MAX_TRACKS = 3
"""Tracks shown on one card (the first, in catalog order)."""
SUMMARY_CHARS = 200
"""Characters of the summary shown (one line in Slack's unfurl width)."""
VIEW = "unfurl"
"""The ``v`` of the card's buttons: a click answers privately and leaves the card as it is."""
REMIND_NEXT_WEEK = "next week"
"""The day the *Remind me next week* button asks for (parsed like ``remind <post> next week``)."""


def _neighbour(catalog: Catalog, track_id: str, post_id: str, step: int) -> Mrkdwn | None:
    order = catalog.order(track_id)
    i = order.index(post_id) + step
    if not 0 <= i < len(order):
        return None
    other = catalog.post(order[i])
    return link(catalog.url_of(other), truncate(other.title, 80))


def track_lines(catalog: Catalog, post_id: str, lang: str) -> list[Mrkdwn]:
    """A line per track (:data:`MAX_TRACKS`): "step 4 of 13 in Speculative decoding · before: X · next: Y"."""
    out = []
    for tid in catalog.tracks_of(post_id)[:MAX_TRACKS]:
        order = catalog.order(tid)
        name = track_name(catalog, tid, lang)
        where = t("step.position", lang, position=order.index(post_id) + 1, of=len(order), track=name)
        parts = [Mrkdwn("*{}*").format(where)]
        before = _neighbour(catalog, tid, post_id, -1)
        if before is not None:
            parts.append(t("step.before", lang, post=before))
        after = _neighbour(catalog, tid, post_id, +1)
        parts.append(t("step.next", lang, post=after) if after is not None else t("step.last", lang))
        out.append(Mrkdwn(" · ").join(parts))
    return out


def post_unfurl(catalog: Catalog, post_id: str, lang: str) -> dict[str, Any]:
    """The ``unfurls`` entry ``{"blocks": [...]}`` for a post. Raises ``KeyError`` for an unknown id."""
    post = catalog.post(post_id)
    ids = iter(range(100))
    head = Mrkdwn("*{}*\n_{} · {}{}_\n{}").format(
        link(catalog.url_of(post), post.title),
        post.published.display(lang),
        post.source.label(lang),
        minutes_suffix(post, lang),
        truncate(" ".join(post.summary.get(lang).split()), SUMMARY_CHARS),
    )
    blocks: list[Any] = [section(head)]
    lines = track_lines(catalog, post.id, lang)
    blocks.append(section(Mrkdwn("\n").join(lines)) if lines else context(t("search.not_in_track", lang)))
    buttons = [button(t("btn.mark_read", lang), f"mark_read:{next(ids)}", {"p": post.id, "v": VIEW}, style="primary")]
    tracks = catalog.tracks_of(post.id)[:MAX_TRACKS]
    follow = t("btn.follow", lang)
    for tid in tracks:
        label = follow if len(tracks) == 1 else Mrkdwn("{}: {}").format(follow, track_name(catalog, tid, lang))
        buttons.append(button(label, f"follow:{next(ids)}", {"t": tid, "p": post.id, "v": VIEW}))
    remind = {"p": post.id, "v": VIEW, "d": REMIND_NEXT_WEEK}
    buttons.append(button(t("btn.remind_next_week", lang), f"remind:{next(ids)}", remind))
    blocks.append(actions(buttons))
    blocks.append(context(t("unfurl.footer", lang, version=catalog.version)))
    return {"blocks": to_dicts(blocks)}
