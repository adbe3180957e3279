"""Link unfurls of one ``link_shared`` event (or the console's ``paste``): a catalog post's URL
(:func:`bot.domain.links.resolve_link`) gets its card, once per post; anything else gets nothing."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.domain.links import resolve_link
from bot.slack.commands.context import Context
from bot.slack.views import unfurl as views

MAX_LINKS = 5
"""Links unfurled per message (Slack sends at most five in one ``link_shared`` event)."""


def unfurls_for(ctx: Context, urls: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``chat.unfurl``'s ``unfurls`` map (URL -> ``{"blocks": [...]}``) for ``urls``, in the sharer's
    language; empty when none is a catalog post."""
    first_url: dict[str, str] = {}  # post id -> the first URL naming it
    for url in list(dict.fromkeys(urls))[:MAX_LINKS]:
        target = resolve_link(ctx.catalog, url)
        if target.kind == "post" and target.post_id is not None:
            first_url.setdefault(target.post_id, url)
    return {url: views.post_unfurl(ctx.catalog, pid, ctx.lang) for pid, url in first_url.items()}
