"""The compiled catalog as plain data (``vllm-path catalog export --json``) and as terminal text."""

from __future__ import annotations

from typing import Any

from bot.domain.catalog.compiled import Catalog
from bot.domain.catalog.models import LocalizedText


def _text(value: LocalizedText | None) -> dict[str, str] | None:
    return None if value is None else {k: v for k, v in (("en", value.en), ("zh", value.zh)) if v}


def export_catalog(catalog: Catalog) -> dict[str, Any]:
    """The compiled catalog as JSON-ready data: ``{"version", "posts", "tracks", "relations",
    "prompts", "warnings"}``, the fields as below. Steps, ``essentials`` and ``further`` are in path order;
    ``url`` is absolute or ``null``; ``published`` an ISO date or ``FROM..TO``; ``added`` the ISO day
    the post entered the catalog (:attr:`~bot.domain.catalog.models.Post.entered`); ``minutes`` whole
    minutes or ``null``; a relation is ``{"post", "updates" | "follows", "note"}``; ``prompts`` maps a
    post id to its reading-club discussion prompt ``{"en", "zh"}``.
    """
    posts = [
        {
            "id": post.id,
            "title": post.title,
            "url": catalog.url_of(post),
            "published": post.published.label(),
            "published_precision": post.published.precision,
            "added": post.entered.isoformat(),
            "authors": list(post.authors),
            "source": post.source.label(),
            "link_kind": post.source.link_kind,
            "type": post.type,
            "tags": list(post.tags),
            "blog_tags": list(post.blog_tags),
            "aliases": list(post.aliases),
            "summary": _text(post.summary),
            "minutes": post.minutes,
            "minutes_source": post.minutes_source,
            "tracks": list(catalog.tracks_of(post.id)),
        }
        for post in catalog.posts
    ]
    tracks = [
        {
            "id": track.id,
            "names": _text(track.names),
            "aliases": list(track.aliases),
            "description": _text(track.description),
            "bilingual": track.bilingual,
            "steps": [
                {
                    "post_id": step.post,
                    "position": i,
                    "after": list(step.after),
                    "level": step.level,
                    "essential": step.essential,
                    "note": _text(step.note),
                    "external_prerequisites": [
                        {"title": x.title, "url": x.url, "kind": x.kind, "note": _text(x.note)}
                        for x in step.external_prerequisites
                    ],
                }
                for i, step in enumerate(catalog.path(track.id), start=1)
            ],
            "essentials": list(catalog.essentials(track.id)),
            "further": list(catalog.further(track.id)),
            "before": list(track.before),
            "essentials_reason": _text(track.essentials_reason),
            "resolutions": [{"steps": list(r.steps), "reason": _text(r.reason)} for r in track.resolutions],
        }
        for track in catalog.tracks
    ]
    relations = [{"post": r.post, r.kind: r.earlier, "note": _text(r.note)} for r in catalog.relations]
    return {
        "version": catalog.version,
        "posts": posts,
        "tracks": tracks,
        "relations": relations,
        "prompts": {pid: {"en": p.en, "zh": p.zh} for pid, p in catalog.prompts.items()},
        "warnings": list(catalog.warnings),
    }


def render_track(catalog: Catalog, track_id: str, lang: str = "en") -> str:
    """A track's path as terminal text, one numbered line per step. Raises ``KeyError`` if unknown."""
    track = catalog.track(track_id)
    lines = [
        f"{track.names.en} / {track.names.zh}  [{track.id}]  catalog {catalog.version}",
        track.description.get(lang),
        "",
    ]
    path = catalog.path(track_id)
    essentials = catalog.essentials(track_id)
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
        after = f"  (after {', '.join(step.after)})" if step.after else ""
        after += "  (closes the path)" if step.closes else ""
        mark = "*" if step.essential else " "
        length = f", {post.minutes} min" if post.minutes is not None else ""
        lines.append(f"{i:>2}.{mark}[{step.level}] {post.title}  ({post.published.label()}{length}){after}")
        lines.append(f"    id: {post.id}   {catalog.url_of(post) or 'URL not known'}")
        for ext in step.external_prerequisites:
            label = "first know" if ext.kind == "prerequisite" else "then read"
            lines.append(f"    {label}: {ext.title}" + (f" <{ext.url}>" if ext.url else ""))
        if step.note:
            lines.append(f"    {step.note.get(lang)}")
    if track.resolutions:
        lines += ["", "Resolved conflicts in the notes:"]
        lines.extend(f"  - {', '.join(res.steps)}: {res.reason.get(lang)}" for res in track.resolutions)
    return "\n".join(lines)
