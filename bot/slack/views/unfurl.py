"""A shared post as a link unfurl (``chat.unfurl``), pure; no one's progress (everyone sees it)."""

from __future__ import annotations

from typing import Any

from bot.domain.catalog import Catalog
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, link, truncate
from bot.slack.views.blocks import MAX_BLOCKS_MESSAGE, Json, actions, button, context, section
from bot.slack.views.links import MAX_PLACES, place_lines
from bot.slack.views.messages import track_name
from bot.slack.views.plan import minutes_suffix

SUMMARY_CHARS = 200
"""Characters of the summary shown (one line in Slack's unfurl width)."""
VIEW = "unfurl"
"""The ``v`` of the card's buttons: a click answers privately and leaves the card as it is."""
REMIND_NEXT_WEEK = "next week"
"""The day the *Remind me next week* button asks for (parsed like ``remind <post> next week``)."""


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
    blocks: list[Json] = [section(head)]
    lines = place_lines(catalog, post.id, lang, card=True)
    blocks.append(section(Mrkdwn("\n").join(lines)) if lines else context(t("search.not_in_track", lang)))
    buttons = [button(t("btn.mark_read", lang), f"mark_read:{next(ids)}", {"p": post.id, "v": VIEW}, style="primary")]
    tracks = catalog.tracks_of(post.id)[:MAX_PLACES]
    follow = t("btn.follow", lang)
    for tid in tracks:
        label = (
            follow
            if len(tracks) == 1
            else Mrkdwn("{}：{}" if lang == "zh" else "{}: {}").format(follow, track_name(catalog, tid, lang))
        )
        buttons.append(button(label, f"follow:{next(ids)}", {"t": tid, "p": post.id, "v": VIEW}))
    remind = {"p": post.id, "v": VIEW, "d": REMIND_NEXT_WEEK}
    buttons.append(button(t("btn.remind_next_week", lang), f"remind:{next(ids)}", remind))
    blocks.append(actions(buttons))
    blocks.append(context(t("unfurl.footer", lang, version=catalog.version)))
    return {"blocks": blocks[:MAX_BLOCKS_MESSAGE]}
