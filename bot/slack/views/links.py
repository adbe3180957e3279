"""How a post is linked wherever one is named (:meth:`bot.domain.catalog.models.Post.read_link`):
``<url|Title>``, ``<url|Title> (summary of the Red Hat article)`` or ``Title (no link yet: <archive|…>)``."""

from __future__ import annotations

from collections.abc import Collection, Sequence

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import ExternalPrerequisite, Post
from bot.domain.outside_refs import covering_post, reference_title
from bot.domain.paths import PathStep
from bot.slack.i18n import join_list, t
from bot.slack.mrkdwn import Mrkdwn, as_plain, link, truncate


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


def reference_lines(
    catalog: Catalog, step: PathStep, lang: str = "en", first: Sequence[str] | None = None
) -> list[Mrkdwn]:
    """The labelled lines every door shows under a step (the web page words them alike): *Read
    first* (the posts ``first``, default ``step.read_first``), *Background* and *Afterwards* (its
    references outside the catalog, :func:`outside_link`); escaped mrkdwn, none for a step with nothing to say."""
    groups = (
        (
            "read_first",
            [read_link(catalog, catalog.post(p), lang) for p in (step.read_first if first is None else first)],
        ),
        ("background", [outside_link(catalog, x, lang) for x in step.background]),
        ("afterwards", [outside_link(catalog, x, lang) for x in step.afterwards]),
    )
    return [
        t("ref.line", lang, label=t("ref." + key, lang), items=join_list(items, lang)) for key, items in groups if items
    ]


def outside_link(catalog: Catalog, ref: ExternalPrerequisite, lang: str = "en") -> Mrkdwn:
    """A reference outside the catalog as every door names it (:mod:`bot.domain.outside_refs`):
    its title (no id-shaped tail), linked when it has a URL; without one, plain text naming the
    catalog post its note says covers the same ground (linked when it has a URL, as the web page
    links it), when it names one."""
    title = link(ref.url, reference_title(ref))
    cover = covering_post(catalog, ref)
    return (
        title if cover is None else t("ref.covered", lang, title=title, post=link(catalog.url_of(cover), cover.title))
    )


MAX_PLACES = 3
"""Tracks a post's places are given in (the first, in catalog order)."""


def place_lines(
    catalog: Catalog, post_id: str, lang: str = "en", *, card: bool = False, read: Collection[str] = ()
) -> list[Mrkdwn]:
    """A line per track of the post (:data:`MAX_PLACES`): "step 3 of 9 in Speculative decoding ·
    next: X". A ``card`` (unfurls, reminders) bolds the place, names the step before too and links
    its neighbours by short titles; elsewhere they are :func:`read_link` s. ``read``: the reader's
    read post ids (current ids): "next" is the first step after it that they have not read, and
    is left out when they have read every later one. Escaped mrkdwn."""
    pid = catalog.resolve_post_id(post_id) or post_id

    def name(post_id: str) -> Mrkdwn:
        post = catalog.post(post_id)
        return link(catalog.url_of(post), truncate(post.title, 80)) if card else read_link(catalog, post, lang)

    out = []
    for tid in catalog.tracks_of(pid)[:MAX_PLACES]:
        order = catalog.order(tid)  # the step after is the first to read after it (PathStep.then)
        i = order.index(pid)
        where = t("step.position", lang, position=i + 1, of=len(order), track=catalog.track(tid).names.get(lang))
        parts = [Mrkdwn("*{}*").format(where) if card else where]
        if card and i:
            parts.append(t("step.before", lang, post=name(order[i - 1])))
        after = next((p for p in order[i + 1 :] if p not in read), None)
        if after is not None:
            parts.append(t("step.next", lang, post=name(after)))
        elif i + 1 == len(order):
            parts.append(t("step.last", lang))
        out.append(Mrkdwn(" · ").join(parts))
    return out
