"""The compiled catalog as plain data (``vllm-path catalog export --json``); ``catalog show``'s
terminal text is :func:`bot.cli.show.track_text`."""

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
