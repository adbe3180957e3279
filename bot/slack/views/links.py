"""How a recommended post is linked, everywhere a reply, button or digest names one: no dead end.

One rule, from :meth:`bot.domain.catalog.models.Post.read_link`:

* ``article`` — the title links the article: ``<url|Title>``;
* ``summary`` — the title links a summary page (yomu.fyi, seed 002) and says so:
  ``<url|Title> (summary of the Red Hat article)``;
* ``archive`` — no URL is known yet: the title in plain words with ``no link yet`` and the blog's
  archive page (the manifest's ``archive_url``): ``Title (no link yet: <archive|vLLM blog archive>)``.
"""

from __future__ import annotations

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post
from bot.slack.i18n import t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link


def read_link(catalog: Catalog, post: Post, lang: str = "en", *, bold: bool = False) -> Mrkdwn:
    """The post's title as a way to read it, in ``lang`` (``en``/``zh``); escaped mrkdwn.
    ``bold`` makes the title bold (the note about a summary or a missing link stays plain)."""
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


def post_date(post: Post, lang: str = "en") -> str:
    """When the post was published, for a reader: ``13 Mar 2026`` / ``after 14 Aug 2026``."""
    return post.published.display(lang)
