"""How a post is linked wherever one is named (:meth:`bot.domain.catalog.models.Post.read_link`):
``<url|Title>``, ``<url|Title> (summary of the Red Hat article)`` or ``Title (no link yet: <archive|…>)``."""

from __future__ import annotations

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link


def read_link(catalog: Catalog, post: Post, lang: str = "en", *, bold: bool = False) -> Mrkdwn:
    """The post's title as a way to read it, in ``lang``; escaped mrkdwn (``bold``: the title only)."""
    url, kind = post.read_link(catalog.manifest)
    if kind == "archive":
        title = Mrkdwn("{}").format(post.title)
        note = t("link.none", lang, archive=link(url, as_plain(t("link.archive", lang))))
    else:
        title = link(url, post.title)
        note = t("link.summary", lang, company=post.source.label()) if kind == "summary" else Mrkdwn()
    if bold:
        title = Mrkdwn("*{}*").format(title)
    return title + (Mrkdwn(" ") + note if note else Mrkdwn())
