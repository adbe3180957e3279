"""``vllm-path catalog show``'s text: a track's path in the words readers see in Slack (QA round 7).

Each step is *essential* or *further reading* (chat's words, not the curator's levels ``core`` or
``capstone``); a post without a link says "no link yet" as chat does, with the archive to look in;
a reference outside the catalog is labelled *Background* or *Afterwards* and named as every door
names it (:mod:`bot.domain.outside_refs`). The curator's fields stay in ``catalog export``.
"""

from __future__ import annotations

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import ExternalPrerequisite, Post
from bot.domain.outside_refs import covering_post, reference_title
from bot.i18n import text


def post_where(catalog: Catalog, post: Post, lang: str = "en") -> str:
    """Where to read ``post``, as plain text: its URL, or chat's "(no link yet: see the vLLM blog
    archive <url>)" (``link.none``) for a post without one (QA: the CLI said "URL not known")."""
    url, kind = post.read_link(catalog.manifest)
    if kind != "archive":
        return url
    return text("link.none", lang).format(archive=f"{text('link.archive', lang)} <{url}>")


def reference_text(catalog: Catalog, ref: ExternalPrerequisite, lang: str = "en") -> str:
    """``ref`` as every door names it, as plain text: its title without an id-shaped tail, its URL
    in angle brackets, or ``ref.covered`` ("… — no link; <post> covers the same ground")."""
    title = reference_title(ref) + (f" <{ref.url}>" if ref.url else "")
    cover = covering_post(catalog, ref)
    if cover is None:
        return title
    post = cover.title + (f" <{catalog.url_of(cover)}>" if catalog.url_of(cover) else "")
    return text("ref.covered", lang).format(title=title, post=post)


def track_text(catalog: Catalog, track_id: str, lang: str = "en") -> str:
    """A track's path as terminal text, one numbered block per step (``*`` marks the essential
    path), worded as chat words it. Raises ``KeyError`` for an unknown track id."""
    track = catalog.track(track_id)
    lines = [f"{track.names.en} / {track.names.zh}  [{track.id}]  catalog {catalog.version}"]
    lines += [track.description.get(lang), ""]
    path, essentials = catalog.path(track_id), catalog.essentials(track_id)
    if essentials:
        minutes = sum(catalog.post(pid).minutes or 0 for pid in essentials)
        lines.append(
            f"essential path: {len(essentials)} steps, {minutes} min (marked *); "
            f"further reading: {len(path) - len(essentials)} steps"
        )
        if track.essentials_reason is not None:
            lines.append(f"why these steps: {track.essentials_reason.get(lang)}")
    if track.before:
        lines.append(f"read before: {', '.join(track.before)}")
    if essentials or track.before:
        lines.append("")
    for i, step in enumerate(path, start=1):
        post = catalog.post(step.post)
        kind = "essential" if step.essential else "further reading"
        after = f"  (after {', '.join(step.after)})" if step.after else ""
        length = f", {minutes_words(post, lang)}" if post.minutes is not None else ""
        mark = "*" if step.essential else " "
        lines.append(f"{i:>2}.{mark}[{kind}] {post.title}  ({post.published.display('en')}{length}){after}")
        lines.append(f"    id: {post.id}   {post_where(catalog, post, lang)}")
        for ext in step.external_prerequisites:
            label = text("ref.background" if ext.kind == "prerequisite" else "ref.afterwards", lang)
            lines.append(f"    {label}: {reference_text(catalog, ext, lang)}")
        if step.note:
            lines.append(f"    {step.note.get(lang)}")
    if track.resolutions:
        lines += ["", "Resolved conflicts in the notes:"]
        lines.extend(f"  - {', '.join(res.steps)}: {res.reason.get(lang)}" for res in track.resolutions)
    return "\n".join(lines)


def minutes_words(post: Post, lang: str = "en") -> str:
    """A post's known reading time as the path shows it: ``12 min``, or ``1 min summary`` for a post
    linked through a summary page (``source.link_kind: summary``: the page's minutes, not the
    article's; QA round 20), as Slack words it (:func:`bot.slack.views.plan.minutes_label`)."""
    key = "budget.min_summary" if post.source.link_kind == "summary" else "budget.min"
    return text(key, lang).format(n=post.minutes)
