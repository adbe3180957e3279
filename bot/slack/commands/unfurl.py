"""Link unfurls: the cards for the links of one ``link_shared`` event (or the console's ``paste``).
Each URL is resolved once (:func:`bot.domain.links.resolve_link`): a catalog post gets its card;
anything else (a vLLM blog page the catalog lacks included) gets nothing, so Slack's own preview
shows. A post linked twice in one message is unfurled once, at its first URL.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from bot.domain.links import resolve_link
from bot.slack.commands.context import Context
from bot.slack.views import unfurl as views

MAX_LINKS = 5
"""Links unfurled per message (Slack sends at most five in one ``link_shared`` event)."""


def unfurls_for(ctx: Context, urls: Iterable[str]) -> dict[str, dict[str, Any]]:
    """``chat.unfurl``'s ``unfurls`` map (URL as shared -> ``{"blocks": [...]}``) for ``urls``, in
    the sharer's language; empty when none of them is a catalog post (then no ``chat.unfurl``
    call is made and Slack shows its own preview)."""
    catalog = ctx.catalog
    out: dict[str, dict[str, Any]] = {}
    seen: set[str] = set()
    for url in list(dict.fromkeys(urls))[:MAX_LINKS]:
        target = resolve_link(catalog, url)
        if target.kind == "post" and target.post_id is not None:
            if target.post_id in seen:
                continue
            seen.add(target.post_id)
            out[url] = views.post_unfurl(catalog, target.post_id, ctx.lang)
    return out
