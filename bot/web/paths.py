"""The public path pages (issue 25): ``/paths`` (every track), ``/paths/<track>`` and its picture
``/paths/<track>.svg`` (or ``.png``). Everything comes from the catalog, never a reader's data.
English or Chinese by ``?lang=``, else the browser's ``Accept-Language``."""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any
from urllib.parse import parse_qs

from markupsafe import Markup

from bot.domain.catalog import Catalog
from bot.domain.catalog.models import Post
from bot.domain.paths import PathStep, TrackPath
from bot.i18n import Words, text
from bot.web import pages


def page_lang(query: str, accept_language: str | None) -> str:
    """``zh`` or ``en``: ``?lang=``, else the browser's best by q-value of the two, else ``en``."""
    asked = (parse_qs(query).get("lang") or [""])[0].lower()
    if asked in ("zh", "en"):
        return asked
    ranked: list[tuple[float, int, str]] = []
    for i, part in enumerate((accept_language or "").split(",")):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        if params.strip().startswith("q="):
            try:
                q = float(params.strip()[2:])
            except ValueError:
                q = 0.0
        ranked.append((-q, i, tag.strip().lower()))
    return next((tag[:2] for _q, _i, tag in sorted(ranked) if tag[:2] in ("zh", "en")), "en")


def _w(lang: str, key: str, **values: Any) -> str:
    return text(f"page.{key}", lang).format(**values)


def minutes_text(post: Post, lang: str) -> str:
    """A post's reading time: ``12 min`` (counted), ``about 12 min (estimate)``, or "" (unknown)."""
    if post.minutes is None:
        return ""
    return _w(lang, "min" if post.minutes_source == "counted" else "estimate", n=post.minutes)


def _total_text(path: TrackPath, lang: str) -> str:
    """The essential path's minutes: ``54 min``, ``about 54 min`` (some not counted), "" (none known)."""
    if not any(s.post.minutes for s in path.essentials):
        return ""
    return _w(lang, "min" if path.minutes_counted else "total_estimate", n=path.essential_minutes)


def _link(url: str | None, title: str) -> Markup:
    return Markup('<a href="{}">{}</a>').format(url, title) if url else Markup("{}").format(title)


def references(catalog: Catalog, step: PathStep, lang: str) -> list[Markup]:
    """The labelled lines under a step, worded as in Slack (``ref.*`` of :mod:`bot.i18n`): *Read
    first* (catalog posts), *Background* and *Afterwards* (references outside the catalog); HTML."""
    groups = (
        ("read_first", [_link(catalog.url_of(catalog.post(p)), catalog.post(p).title) for p in step.read_first]),
        ("background", [_link(x.url, x.title) for x in step.background]),
        ("afterwards", [_link(x.url, x.title) for x in step.afterwards]),
    )
    line = Markup(text("ref.line", lang).replace("{label}", "{0}").replace("{items}", "{1}"))
    return [line.format(text("ref." + key, lang), Markup(", ").join(items)) for key, items in groups if items]


def _step(catalog: Catalog, step: PathStep, lang: str) -> dict[str, Any]:
    """One step for the template: number, title, link (or None), minutes, status words, summary, references."""
    post = step.post
    url, kind = post.read_link(catalog.manifest)
    status = [_w(lang, "draft")] if post.is_draft else []
    if kind == "summary":
        status.append(_w(lang, "summary"))
    return {
        "number": step.number,
        "title": post.title,
        "url": None if kind == "archive" else url,
        "archive": url if kind == "archive" else None,
        "minutes": minutes_text(post, lang),
        "status": status,
        "summary": post.summary.get(lang),
        "references": references(catalog, step, lang),
    }


def _alt(catalog: Catalog, path: TrackPath, lang: str) -> str:
    """The picture's alt text: the essential steps, how much further reading, the tracks before."""
    joiner = "、" if lang == "zh" else "; "
    steps = joiner.join(s.post.title for s in path.essentials)
    track = path.track
    text = _w(lang, "alt", track=track.names.get(lang), n=len(path.essentials), m=len(path.further), steps=steps)
    before = [catalog.track(b).names.get(lang) for b in path.before]
    return text + (_w(lang, "alt_before", tracks=joiner.join(before)) if before else "")


def index_page(catalog: Catalog, tracks: Sequence[TrackPath], lang: str = "en", install_link: bool = False) -> str:
    """``/paths``: each of ``tracks`` (every track's path, catalog order): its essential steps and minutes."""
    rows = []
    for path in tracks:
        track = path.track
        name, description = track.names.get(lang), track.description.get(lang)
        steps, minutes = _w(lang, "steps", n=len(path.essentials)), _total_text(path, lang)
        rows.append({"id": track.id, "name": name, "description": description, "steps": steps, "minutes": minutes})
    return pages.render(
        "paths.html", lang=lang, install_link=install_link, w=Words("page", lang), tracks=rows, version=catalog.version
    )


def track_page(catalog: Catalog, path: TrackPath, lang: str = "en", install_link: bool = False) -> str:
    """``/paths/<track>`` of the track's ``path``: the picture, the essential steps and further
    reading with links, minutes and references, the tracks to read before."""
    track = path.track
    track_id = track.id
    before = [{"id": b, "name": catalog.track(b).names.get(lang)} for b in path.before]
    heading = (_w(lang, "steps", n=len(path.essentials)), _total_text(path, lang))
    return pages.render(
        "path.html",
        lang=lang,
        install_link=install_link,
        w=Words("page", lang),
        track_id=track_id,
        name=track.names.get(lang),
        description=track.description.get(lang),
        before=before,
        essentials=[_step(catalog, s, lang) for s in path.essentials],
        further=[_step(catalog, s, lang) for s in path.further],
        essential_head=" · ".join(x for x in heading if x),
        alt=_alt(catalog, path, lang),
        version=catalog.version,
        follow=_w(lang, "follow", track=track_id),
    )


class Pictures:
    """Catalog-only pictures of the tracks, drawn once per (catalog version, track, language,
    format) and kept (a catalog has a few dozen tracks; a new version replaces the lot)."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._version: str | None = None
        self._kept: dict[tuple[str, str, str], bytes] = {}

    def get(self, catalog: Catalog, track_id: str, fmt: str, lang: str) -> bytes:
        """The picture bytes; raises ``KeyError`` (unknown track) or
        :class:`bot.pictures.PictureError` (``dot`` missing or failing, unknown format)."""
        from bot.pictures import render

        key = (track_id, fmt, lang)
        with self._lock:
            if self._version != catalog.version:
                self._version, self._kept = catalog.version, {}
            if key in self._kept:
                return self._kept[key]
        data = render(catalog, track_id, fmt, None, lang)
        with self._lock:
            if self._version == catalog.version:
                self._kept[key] = data
        return data
